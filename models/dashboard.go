package models

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"
)

// Widget kinds.
const (
	// WidgetMetric shows a metric's value over a range.
	WidgetMetric = "metric"
	// WidgetTimeSeries shows a metric over a range, per interval.
	WidgetTimeSeries = "time-series"
	// WidgetEventList shows the latest events of a type pattern.
	WidgetEventList = "event-list"
)

// WidgetKinds lists the widget kinds.
var WidgetKinds = []string{WidgetMetric, WidgetTimeSeries, WidgetEventList}

// Widget ranges, relative to the moment of rendering.
const (
	RangeLast24Hours = "last_24_hours"
	RangeLast7Days   = "last_7_days"
	RangeLast30Days  = "last_30_days"
	RangeLast90Days  = "last_90_days"
	RangeLast365Days = "last_365_days"
	RangeMonthToDate = "month_to_date"
	RangeYearToDate  = "year_to_date"
)

// WidgetRanges lists the ranges a widget may show.
var WidgetRanges = []string{RangeLast24Hours, RangeLast7Days, RangeLast30Days, RangeLast90Days, RangeLast365Days, RangeMonthToDate, RangeYearToDate}

// MaxEventListLimit bounds the events an event-list widget shows.
const MaxEventListLimit = 100

// RangeBounds is the [from, to) a range stands for at now.
func RangeBounds(r string, now time.Time) (from, to time.Time) {
	now = now.UTC()
	switch r {
	case RangeLast24Hours:
		return now.Add(-24 * time.Hour), now
	case RangeLast7Days:
		return now.AddDate(0, 0, -7), now
	case RangeLast90Days:
		return now.AddDate(0, 0, -90), now
	case RangeLast365Days:
		return now.AddDate(0, 0, -365), now
	case RangeMonthToDate:
		return time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC), now
	case RangeYearToDate:
		return time.Date(now.Year(), 1, 1, 0, 0, 0, 0, time.UTC), now
	}
	return now.AddDate(0, 0, -30), now
}

// Widget is one tile of a dashboard.
type Widget struct {
	Kind  string `json:"kind"`
	Title string `json:"title,omitempty"`
	// MetricID and Range are set for metric and time-series widgets; Interval for time series.
	MetricID string `json:"metricId,omitempty"`
	Range    string `json:"range,omitempty"`
	Interval string `json:"interval,omitempty"`
	// EventType (a type or a pattern) and Limit are set for event-list widgets.
	EventType string `json:"eventType,omitempty"`
	Limit     int    `json:"limit,omitempty"`
	// X, Y, W and H place the widget on the dashboard's grid of GridColumns columns and rows of
	// a fixed height: column and row of its top left cell, its width and height in cells. All
	// zero: not placed (shown after the placed widgets, in list order).
	X int `json:"x,omitempty"`
	Y int `json:"y,omitempty"`
	W int `json:"w,omitempty"`
	H int `json:"h,omitempty"`
}

// Bounds of a widget's place on the dashboard grid.
const (
	// GridColumns is the width of the dashboard grid in columns.
	GridColumns = 12
	// MaxGridRow bounds the row a widget starts on.
	MaxGridRow = 1000
	// MaxWidgetHeight bounds a widget's height in rows.
	MaxWidgetHeight = 24
)

// Placed reports whether the widget has a place on the grid.
func (w Widget) Placed() bool { return w.X != 0 || w.Y != 0 || w.W != 0 || w.H != 0 }

// Dashboard is a set of widgets shown to the partners of some levels; the default dashboard is
// shown to partners whose level has none.
type Dashboard struct {
	ID       string `gorm:"primaryKey;size:36"`
	TenantID string `gorm:"size:36;not null"`
	Name     string `gorm:"size:200;not null"`
	// Levels is a JSON array of partner level names.
	Levels    string `gorm:"type:text;not null"`
	IsDefault bool   `gorm:"not null"`
	// Widgets is a JSON array of Widget.
	Widgets   string `gorm:"type:text;not null"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

// LevelList is the levels the dashboard is assigned to.
func (d *Dashboard) LevelList() []string {
	var out []string
	_ = json.Unmarshal([]byte(d.Levels), &out)
	return out
}

// WidgetList is the dashboard's widgets in display order.
func (d *Dashboard) WidgetList() []Widget {
	var out []Widget
	_ = json.Unmarshal([]byte(d.Widgets), &out)
	return out
}

// SetLevels stores levels, sorted and without duplicates.
func (d *Dashboard) SetLevels(levels []string) {
	l := slices.Clone(levels)
	slices.Sort(l)
	l = slices.Compact(l)
	if l == nil {
		l = []string{}
	}
	b, _ := json.Marshal(l)
	d.Levels = string(b)
}

// SetWidgets stores widgets.
func (d *Dashboard) SetWidgets(w []Widget) {
	if w == nil {
		w = []Widget{}
	}
	b, _ := json.Marshal(w)
	d.Widgets = string(b)
}

// DashboardChanges are the fields an update sets; nil fields stay.
type DashboardChanges struct {
	Name      *string
	Levels    *[]string
	IsDefault *bool
	Widgets   *[]Widget
}

// MaxWidgets bounds the widgets of one dashboard.
const MaxWidgets = 50

// ValidateWidgets returns every problem of a widget list at once, located under prefix
// (e.g. "body.widgets"), or nil. It does not check that metrics exist.
func ValidateWidgets(widgets []Widget, prefix string) []FieldError {
	var problems []FieldError
	if len(widgets) > MaxWidgets {
		problems = append(problems, FieldError{Location: prefix, Message: "at most " + strconv.Itoa(MaxWidgets) + " widgets"})
	}
	for i, w := range widgets {
		loc := prefix + "[" + strconv.Itoa(i) + "]."
		switch w.Kind {
		case WidgetMetric, WidgetTimeSeries:
			if w.MetricID == "" {
				problems = append(problems, FieldError{Location: loc + "metricId", Message: "is required"})
			}
			if w.Range != "" && !slices.Contains(WidgetRanges, w.Range) {
				problems = append(problems, FieldError{Location: loc + "range", Message: "unknown range", Value: w.Range})
			}
			if w.Kind == WidgetTimeSeries && (w.Interval == "" || !ValidInterval(w.Interval)) {
				problems = append(problems, FieldError{Location: loc + "interval", Message: "must be hour, day, week or month", Value: w.Interval})
			}
			if w.Kind == WidgetMetric && w.Interval != "" {
				problems = append(problems, FieldError{Location: loc + "interval", Message: "a metric widget takes no interval", Value: w.Interval})
			}
			if w.EventType != "" || w.Limit != 0 {
				problems = append(problems, FieldError{Location: loc + "eventType", Message: "only event-list widgets take eventType and limit"})
			}
		case WidgetEventList:
			if !ValidEventPattern(w.EventType) {
				problems = append(problems, FieldError{Location: loc + "eventType", Message: "must be an event type or a pattern with * wildcards", Value: w.EventType})
			}
			if w.Limit < 0 || w.Limit > MaxEventListLimit {
				problems = append(problems, FieldError{Location: loc + "limit", Message: "must be 1 to " + strconv.Itoa(MaxEventListLimit), Value: w.Limit})
			}
			if w.MetricID != "" || w.Range != "" || w.Interval != "" {
				problems = append(problems, FieldError{Location: loc + "metricId", Message: "event-list widgets take no metric, range or interval"})
			}
		default:
			problems = append(problems, FieldError{Location: loc + "kind", Message: "must be metric, time-series or event-list", Value: w.Kind})
		}
		problems = append(problems, validatePlace(w, loc)...)
	}
	return problems
}

// validatePlace checks a widget's place on the grid: inside the columns, a height of 1 to
// MaxWidgetHeight rows, starting at most at row MaxGridRow. Overlaps are allowed (the grid
// moves overlapping widgets down when it shows them).
func validatePlace(w Widget, loc string) []FieldError {
	if !w.Placed() {
		return nil
	}
	var problems []FieldError
	cols := strconv.Itoa(GridColumns)
	if w.X < 0 || w.X >= GridColumns {
		problems = append(problems, FieldError{Location: loc + "x", Message: "must be 0 to " + strconv.Itoa(GridColumns-1), Value: w.X})
	}
	if w.W < 1 || w.W > GridColumns {
		problems = append(problems, FieldError{Location: loc + "w", Message: "must be 1 to " + cols, Value: w.W})
	} else if w.X >= 0 && w.X+w.W > GridColumns {
		problems = append(problems, FieldError{Location: loc + "w", Message: "x + w must be at most " + cols, Value: w.W})
	}
	if w.Y < 0 || w.Y > MaxGridRow {
		problems = append(problems, FieldError{Location: loc + "y", Message: "must be 0 to " + strconv.Itoa(MaxGridRow), Value: w.Y})
	}
	if w.H < 1 || w.H > MaxWidgetHeight {
		problems = append(problems, FieldError{Location: loc + "h", Message: "must be 1 to " + strconv.Itoa(MaxWidgetHeight), Value: w.H})
	}
	return problems
}

// WidgetResult is one computed widget.
type WidgetResult struct {
	Widget Widget
	// Metric is set for metric and time-series widgets.
	Metric *MetricResult
	// Events is set for event-list widgets, newest first.
	Events []Event
	// Err is set when the widget could not be computed (e.g. its metric was deleted).
	Err *Error
}

// RenderedDashboard is a dashboard computed for one principal.
type RenderedDashboard struct {
	Dashboard Dashboard
	Widgets   []WidgetResult
}
