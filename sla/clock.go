package sla

import (
	"time"

	"github.com/partnerd/partnerd/models"
)

// Target is the state of one target of a ticket's clock.
type Target struct {
	Name string
	// Budget is the business time allowed, WarnAfter the business time used when the warning
	// goes out; zero Budget means the policy has no such target.
	Budget    time.Duration
	WarnAfter time.Duration
	// Used is the business time used before the clock last started running.
	Used time.Duration
	// Met is set when the target no longer counts (answered, resolved).
	Met      bool
	Warned   bool
	Breached bool
}

func (t *Target) active() bool { return t.Budget > 0 && !t.Met && !t.Breached }

// Clock is one ticket's SLA clock: its targets, and since when it runs (zero while paused).
// It is plain data, so that a workflow carries it across continue-as-new.
type Clock struct {
	Hours         models.BusinessHours
	FirstResponse Target
	Resolution    Target
	RunningSince  time.Time
	// PausedSince is when the clock was paused (pending on the partner, or resolved).
	PausedSince time.Time
	// Status is the ticket status the clock last took, at StatusAt.
	Status   string
	StatusAt time.Time
}

// NewClock is the clock of a ticket opened at openedAt under policy p (none when nil: the
// clock waits for a priority that has one), running.
func NewClock(p *models.TicketSLAPolicy, h models.BusinessHours, openedAt time.Time) Clock {
	c := Clock{Hours: h, RunningSince: openedAt, Status: models.TicketOpen, StatusAt: openedAt}
	c.SetPolicy(p)
	return c
}

// SetPolicy gives the clock the targets of policy p (none when nil), keeping the time used.
func (c *Clock) SetPolicy(p *models.TicketSLAPolicy) {
	c.FirstResponse.Name, c.Resolution.Name = models.SLAFirstResponse, models.SLAResolution
	for _, t := range c.targets() {
		t.Budget, t.WarnAfter = 0, 0
		if p != nil {
			t.Budget, t.WarnAfter = p.Target(t.Name), p.WarnAfter(t.Name)
		}
	}
}

func (c *Clock) targets() []*Target { return []*Target{&c.FirstResponse, &c.Resolution} }

// Running says whether the clock counts time now.
func (c *Clock) Running() bool { return !c.RunningSince.IsZero() }

// Done says whether nothing is left to watch: the ticket is closed, or the resolution target
// is breached and the first response answered or breached. A target the policy lacks may still
// come with a priority change; a met resolution may be reopened.
func (c *Clock) Done() bool {
	return c.Status == models.TicketClosed || ((c.FirstResponse.Met || c.FirstResponse.Breached) && c.Resolution.Breached)
}

func (c *Clock) pause(cal *Calendar, at time.Time) {
	if !c.Running() {
		return
	}
	for _, t := range c.targets() {
		if t.active() {
			t.Used += cal.Between(c.RunningSince, at)
		}
	}
	c.RunningSince, c.PausedSince = time.Time{}, at
}

func (c *Clock) resume(at time.Time) {
	if c.Running() {
		return
	}
	c.RunningSince, c.PausedSince = at, time.Time{}
}

// SetStatus moves the clock with the ticket's status at time at: pending on the partner
// pauses it, open and pending on the desk run it, resolved stops it with the targets met
// (reopening runs the resolution target on from where it stopped), closed ends it. A status
// older than the last one the clock took is ignored (it arrived late).
func (c *Clock) SetStatus(cal *Calendar, status string, at time.Time) {
	if at.Before(c.StatusAt) {
		return
	}
	if at.Before(c.RunningSince) {
		at = c.RunningSince
	}
	c.Status, c.StatusAt = status, at
	switch status {
	case models.TicketOpen, models.TicketPendingOperator:
		c.Resolution.Met = false
		c.resume(at)
	case models.TicketPendingPartner:
		c.pause(cal, at)
	case models.TicketResolved, models.TicketClosed:
		c.pause(cal, at)
		c.FirstResponse.Met, c.Resolution.Met = true, true
	}
}

// Responded records the desk's first public reply: the first response target is met.
func (c *Clock) Responded() { c.FirstResponse.Met = true }

// due is when t's business time used reaches used, while the clock runs.
func (c *Clock) due(cal *Calendar, t *Target, used time.Duration) time.Time {
	return cal.Add(c.RunningSince, used-t.Used)
}

// DueAt is when target t is (or was, once breached) due while the clock runs; zero while it
// is paused or t is met or absent.
func (c *Clock) DueAt(cal *Calendar, t *Target) time.Time {
	if !c.Running() || t.Budget == 0 || t.Met {
		return time.Time{}
	}
	return c.due(cal, t, t.Budget)
}

// Next is the next instant the clock has something to say (a warning or a breach), zero when
// nothing is ahead while it stands as it is.
func (c *Clock) Next(cal *Calendar) time.Time {
	var next time.Time
	if !c.Running() {
		return next
	}
	for _, t := range c.targets() {
		if !t.active() {
			continue
		}
		at := c.due(cal, t, t.Budget)
		if !t.Warned {
			at = c.due(cal, t, t.WarnAfter)
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next
}

// Fire returns the warnings and breaches due at time at and records them. A breach found
// without its warning (the clock looked late) comes alone.
func (c *Clock) Fire(cal *Calendar, at time.Time) []models.SLAAlert {
	var out []models.SLAAlert
	if !c.Running() {
		return nil
	}
	for _, t := range c.targets() {
		if !t.active() {
			continue
		}
		due := c.due(cal, t, t.Budget)
		switch {
		case !at.Before(due):
			t.Breached, t.Warned = true, true
			out = append(out, models.SLAAlert{Kind: models.SLABreached, Target: t.Name, DueAt: due, At: at})
		case !t.Warned && !at.Before(c.due(cal, t, t.WarnAfter)):
			t.Warned = true
			out = append(out, models.SLAAlert{Kind: models.SLAWarning, Target: t.Name, DueAt: due, At: at})
		}
	}
	return out
}

// State is what the clock shows on the ticket's row.
func (c *Clock) State(cal *Calendar) models.TicketSLA {
	var s models.TicketSLA
	if fr := c.DueAt(cal, &c.FirstResponse); !fr.IsZero() {
		s.FirstResponseDueAt = &fr
	}
	if r := c.DueAt(cal, &c.Resolution); !r.IsZero() {
		s.ResolutionDueAt = &r
	}
	if !c.Running() && !c.PausedSince.IsZero() && c.Status == models.TicketPendingPartner {
		p := c.PausedSince
		s.SLAPausedAt = &p
	}
	return s
}
