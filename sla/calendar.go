// Package sla is the service desk's SLA arithmetic: business time in a tenant's time zone and
// the clock of one ticket's targets. It is pure (no wall clock, no storage), so that workflows
// use it deterministically with their own time.
package sla

import (
	"fmt"
	"slices"
	"time"

	"github.com/partnerd/partnerd/models"
)

// maxDays bounds the days a calendar walks to find business time: ten years.
const maxDays = 3660

type span struct{ start, end int } // minutes of the day, end exclusive (1440 = midnight after)

// Calendar counts business time: the windows of a weekly schedule in a time zone, or every
// minute when it has none.
type Calendar struct {
	loc    *time.Location
	always bool
	week   [7][]span // by time.Weekday
}

// NewCalendar is the calendar of business hours h (checked by BusinessHours.Check).
func NewCalendar(h models.BusinessHours) (*Calendar, error) {
	name := h.TimeZone
	if name == "" {
		name = "UTC"
	}
	// Zone data is read-only; models embeds time/tzdata for hosts without a zone database.
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("sla: time zone %q: %w", name, err)
	}
	c := &Calendar{loc: loc, always: len(h.Windows) == 0}
	for _, w := range h.Windows {
		d := slices.Index(models.BusinessDays, w.Day)
		s, e := models.ClockMinutes(w.Start), models.ClockMinutes(w.End)
		if d < 0 || s < 0 || e <= s {
			return nil, fmt.Errorf("sla: invalid window %s %s-%s", w.Day, w.Start, w.End)
		}
		c.week[d] = append(c.week[d], span{s, e})
	}
	for d := range c.week {
		slices.SortFunc(c.week[d], func(a, b span) int { return a.start - b.start })
	}
	return c, nil
}

// windows calls f with the business windows of the local day holding t and of each following
// day, as instants, until f returns false or maxDays have passed.
func (c *Calendar) windows(t time.Time, f func(start, end time.Time) bool) {
	y, m, d := t.In(c.loc).Date()
	for i := range maxDays {
		day := time.Date(y, m, d+i, 0, 0, 0, 0, c.loc)
		for _, s := range c.week[day.Weekday()] {
			start := time.Date(y, m, d+i, 0, s.start, 0, 0, c.loc)
			end := time.Date(y, m, d+i, 0, s.end, 0, 0, c.loc)
			if !end.After(start) {
				continue // a window lost to a clock change
			}
			if !f(start, end) {
				return
			}
		}
	}
}

// Add is the instant when d of business time has passed since start. Time outside the
// windows does not count; a window that a clock change shortens or lengthens counts the time
// that really passes in it.
func (c *Calendar) Add(start time.Time, d time.Duration) time.Time {
	if c.always || d <= 0 {
		return start.Add(max(d, 0))
	}
	due := time.Time{}
	c.windows(start, func(ws, we time.Time) bool {
		if !we.After(start) {
			return true
		}
		from := ws
		if start.After(ws) {
			from = start
		}
		if left := we.Sub(from); d > left {
			d -= left
			return true
		}
		due = from.Add(d)
		return false
	})
	if due.IsZero() {
		return start.AddDate(maxDays/366, 0, 0) // a schedule without windows: never
	}
	return due
}

// Between is the business time from a to b, zero when b is not after a.
func (c *Calendar) Between(a, b time.Time) time.Duration {
	if !b.After(a) {
		return 0
	}
	if c.always {
		return b.Sub(a)
	}
	var sum time.Duration
	c.windows(a, func(ws, we time.Time) bool {
		if !ws.Before(b) {
			return false
		}
		from, to := ws, we
		if a.After(from) {
			from = a
		}
		if b.Before(to) {
			to = b
		}
		if to.After(from) {
			sum += to.Sub(from)
		}
		return true
	})
	return sum
}
