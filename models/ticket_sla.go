package models

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"time"
	_ "time/tzdata" // business hours name any IANA zone even where the host has no zone database
)

// SLA targets of a ticket.
const (
	SLAFirstResponse = "first_response"
	SLAResolution    = "resolution"
)

// Bounds of an SLA policy.
const (
	// MaxSLAMinutes bounds a target: a year of business time.
	MaxSLAMinutes = 525_600
	// DefaultSLAWarnPercent is the share of a target after which the warning goes out when the
	// policy names no threshold.
	DefaultSLAWarnPercent = 80
	// MaxBusinessWindows bounds the windows of a weekly schedule.
	MaxBusinessWindows = 28
)

// TicketSLAPolicy is a tenant's service-level targets for tickets of one priority, in business
// time (TicketBusinessHours): the desk's first public reply and the resolution. The warning goes
// out when WarnPercent of a target is used or, with WarnBeforeMinutes set, that long before it.
type TicketSLAPolicy struct {
	ID                   string `gorm:"primaryKey;size:36"`
	TenantID             string `gorm:"size:36;not null"`
	Priority             string `gorm:"size:8;not null"`
	FirstResponseMinutes int    `gorm:"not null"`
	ResolutionMinutes    int    `gorm:"not null"`
	WarnPercent          int    `gorm:"not null"`
	WarnBeforeMinutes    int    `gorm:"not null"`
	CreatedAt            time.Time
	UpdatedAt            time.Time
}

// Check validates the policy's priority, targets and warning threshold, defaulting the
// threshold to DefaultSLAWarnPercent when none is given.
func (p *TicketSLAPolicy) Check() error {
	if !slices.Contains(TicketPriorities, p.Priority) {
		return Invalid("INVALID_TICKET_PRIORITY", "no such ticket priority", FieldError{Location: "path.priority", Message: "one of low, normal, high, urgent", Value: p.Priority})
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"body.firstResponseMinutes", p.FirstResponseMinutes}, {"body.resolutionMinutes", p.ResolutionMinutes}} {
		if f.v < 1 || f.v > MaxSLAMinutes {
			return Invalid("INVALID_SLA_TARGET", "a target is between 1 minute and a year of business time",
				FieldError{Location: f.name, Message: fmt.Sprintf("between 1 and %d minutes", MaxSLAMinutes), Value: f.v})
		}
	}
	if p.FirstResponseMinutes > p.ResolutionMinutes {
		return Invalid("FIRST_RESPONSE_AFTER_RESOLUTION", "the first response target cannot be longer than the resolution target",
			FieldError{Location: "body.firstResponseMinutes", Message: "at most resolutionMinutes", Value: p.FirstResponseMinutes})
	}
	switch {
	case p.WarnPercent != 0 && p.WarnBeforeMinutes != 0:
		return Invalid("SLA_WARNING_TWICE", "give warnPercent or warnBeforeMinutes, not both",
			FieldError{Location: "body.warnBeforeMinutes", Message: "not together with warnPercent", Value: p.WarnBeforeMinutes})
	case p.WarnPercent < 0 || p.WarnPercent > 99:
		return Invalid("INVALID_SLA_WARNING", "warnPercent is between 1 and 99",
			FieldError{Location: "body.warnPercent", Message: "between 1 and 99", Value: p.WarnPercent})
	case p.WarnBeforeMinutes < 0 || p.WarnBeforeMinutes >= p.FirstResponseMinutes:
		return Invalid("INVALID_SLA_WARNING", "warnBeforeMinutes is shorter than the first response target",
			FieldError{Location: "body.warnBeforeMinutes", Message: "between 1 and firstResponseMinutes - 1", Value: p.WarnBeforeMinutes})
	case p.WarnPercent == 0 && p.WarnBeforeMinutes == 0:
		p.WarnPercent = DefaultSLAWarnPercent
	}
	return nil
}

// Target is the business time allowed for a target (SLAFirstResponse or SLAResolution).
func (p *TicketSLAPolicy) Target(name string) time.Duration {
	if name == SLAFirstResponse {
		return time.Duration(p.FirstResponseMinutes) * time.Minute
	}
	return time.Duration(p.ResolutionMinutes) * time.Minute
}

// WarnAfter is the business time used of a target when its warning goes out.
func (p *TicketSLAPolicy) WarnAfter(name string) time.Duration {
	t := p.Target(name)
	if p.WarnBeforeMinutes > 0 {
		return t - time.Duration(p.WarnBeforeMinutes)*time.Minute
	}
	return t * time.Duration(p.WarnPercent) / 100
}

// BusinessDays are the weekdays as business windows name them, Sunday first like time.Weekday.
var BusinessDays = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// BusinessWindow is a stretch of working time on one weekday, in the tenant's time zone:
// Start and End are "HH:MM", End after Start ("24:00" is midnight at the day's end).
type BusinessWindow struct {
	Day   string `json:"day" enum:"mon,tue,wed,thu,fri,sat,sun"`
	Start string `json:"start" maxLength:"5" pattern:"^([01][0-9]|2[0-3]):[0-5][0-9]$" example:"09:00"`
	End   string `json:"end" maxLength:"5" pattern:"^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$" example:"17:00"`
}

// BusinessHours is when SLA clocks run: a weekly schedule in an IANA time zone, or around the
// clock when there are no windows.
type BusinessHours struct {
	TimeZone string           `json:"timeZone"`
	Windows  []BusinessWindow `json:"windows"`
}

// AroundTheClock is the business hours of a tenant that set none: every minute counts.
var AroundTheClock = BusinessHours{TimeZone: "UTC"}

var clockPattern = regexp.MustCompile(`^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$`)

// ClockMinutes is the minute of the day "HH:MM" names (0–1440), or -1.
func ClockMinutes(s string) int {
	if !clockPattern.MatchString(s) {
		return -1
	}
	return int(s[0]-'0')*600 + int(s[1]-'0')*60 + int(s[3]-'0')*10 + int(s[4]-'0')
}

// Check validates the time zone (an IANA name) and the windows: known days, start before end,
// no two windows of a day overlapping, at most MaxBusinessWindows.
func (h *BusinessHours) Check() error {
	if h.TimeZone == "" || len(h.TimeZone) > 64 {
		return Invalid("INVALID_TIME_ZONE", "name an IANA time zone", FieldError{Location: "body.timeZone", Message: "an IANA time zone such as Europe/Berlin", Value: h.TimeZone})
	}
	if _, err := time.LoadLocation(h.TimeZone); err != nil || h.TimeZone == "Local" {
		return Invalid("INVALID_TIME_ZONE", "no such IANA time zone", FieldError{Location: "body.timeZone", Message: "an IANA time zone such as Europe/Berlin", Value: h.TimeZone})
	}
	if len(h.Windows) > MaxBusinessWindows {
		return Invalid("TOO_MANY_BUSINESS_WINDOWS", fmt.Sprintf("at most %d windows a week", MaxBusinessWindows), FieldError{Location: "body.windows", Message: "too many windows"})
	}
	for i, w := range h.Windows {
		loc := fmt.Sprintf("body.windows[%d]", i)
		if !slices.Contains(BusinessDays, w.Day) {
			return Invalid("INVALID_BUSINESS_WINDOW", "a window's day is mon, tue, wed, thu, fri, sat or sun", FieldError{Location: loc + ".day", Message: "a weekday", Value: w.Day})
		}
		s, e := ClockMinutes(w.Start), ClockMinutes(w.End)
		if s < 0 || s == 1440 || e < 0 || e <= s {
			return Invalid("INVALID_BUSINESS_WINDOW", "a window runs from HH:MM to a later HH:MM (24:00 at the latest)",
				FieldError{Location: loc, Message: "start before end", Value: w.Start + "-" + w.End})
		}
		for j, o := range h.Windows[:i] {
			if o.Day == w.Day && ClockMinutes(o.Start) < e && s < ClockMinutes(o.End) {
				return Invalid("OVERLAPPING_BUSINESS_WINDOWS", "two windows of a day overlap",
					FieldError{Location: loc, Message: fmt.Sprintf("overlaps windows[%d]", j), Value: w.Day + " " + w.Start + "-" + w.End})
			}
		}
	}
	return nil
}

// TicketBusinessHours is a tenant's business hours for SLA clocks (one row per tenant).
type TicketBusinessHours struct {
	TenantID string `gorm:"primaryKey;size:36"`
	TimeZone string `gorm:"size:64;not null"`
	// Windows is the weekly schedule as a JSON array of BusinessWindow; empty means around the clock.
	Windows   string `gorm:"type:text;not null"`
	UpdatedAt time.Time
}

// TableName is one row per tenant.
func (TicketBusinessHours) TableName() string { return "ticket_business_hours" }

// Hours is the row as BusinessHours.
func (b *TicketBusinessHours) Hours() BusinessHours {
	h := BusinessHours{TimeZone: b.TimeZone}
	_ = json.Unmarshal([]byte(b.Windows), &h.Windows)
	return h
}

// TicketSLA is the SLA state of a ticket the clock records on its row: when each target is
// due while the clock runs (nil while paused, met or breached), since when it is paused, and
// when each target was warned about and breached.
type TicketSLA struct {
	FirstResponseDueAt      *time.Time
	ResolutionDueAt         *time.Time
	SLAPausedAt             *time.Time
	FirstResponseWarnedAt   *time.Time
	FirstResponseBreachedAt *time.Time
	ResolutionWarnedAt      *time.Time
	ResolutionBreachedAt    *time.Time
}

// SLA alert kinds.
const (
	SLAWarning  = "warning"
	SLABreached = "breached"
)

// SLAAlert is a warning or a breach of one target, at the clock's time At.
type SLAAlert struct {
	Kind   string
	Target string
	DueAt  time.Time
	At     time.Time
}

// TicketSLAStart is what a ticket's SLA clock starts from: the policy of its priority (nil when
// there is none), the tenant's business hours and the ticket's state when the clock looked.
type TicketSLAStart struct {
	Found           bool
	Policy          *TicketSLAPolicy
	Hours           BusinessHours
	Priority        string
	Status          string
	OpenedAt        time.Time
	StatusAt        time.Time
	FirstResponseAt *time.Time
}

// TicketSLAEventPayload is the payload of ticket.sla_warning and ticket.sla_breached.
type TicketSLAEventPayload struct {
	TicketID  string    `json:"ticketId"`
	PartnerID string    `json:"partnerId"`
	Subject   string    `json:"subject"`
	Priority  string    `json:"priority" enum:"low,normal,high,urgent"`
	Status    string    `json:"status" enum:"open,pending_partner,pending_operator,resolved,closed"`
	Target    string    `json:"target" enum:"first_response,resolution" doc:"Which target: the desk's first response or the resolution"`
	DueAt     time.Time `json:"dueAt" doc:"When the target is (or was) due"`
}
