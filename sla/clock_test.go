package sla

import (
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
)

func TestClockPausesWhilePendingOnThePartner(t *testing.T) {
	cal := calendar(t, models.AroundTheClock)
	p := &models.TicketSLAPolicy{Priority: models.TicketHigh, FirstResponseMinutes: 60, ResolutionMinutes: 240}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	t0 := at(t, "UTC", "2026-11-25 10:00")
	c := NewClock(p, models.AroundTheClock, t0)
	if got := c.Next(cal); !got.Equal(t0.Add(48 * time.Minute)) {
		t.Fatalf("first warning at %s, want 80%% of an hour", got)
	}
	if alerts := c.Fire(cal, t0.Add(48*time.Minute)); len(alerts) != 1 || alerts[0].Kind != models.SLAWarning || alerts[0].Target != models.SLAFirstResponse {
		t.Fatalf("alerts = %+v", alerts)
	}
	c.Responded()
	c.SetStatus(cal, models.TicketPendingPartner, t0.Add(time.Hour))
	if !c.Next(cal).IsZero() || c.State(cal).ResolutionDueAt != nil || c.State(cal).SLAPausedAt == nil {
		t.Fatalf("a paused clock has nothing due: %+v", c.State(cal))
	}
	c.SetStatus(cal, models.TicketPendingOperator, t0.Add(5*time.Hour))
	// One hour used before the pause: the resolution is due three hours after the resumption.
	if due := c.State(cal).ResolutionDueAt; due == nil || !due.Equal(t0.Add(8*time.Hour)) {
		t.Fatalf("resolution due %v, want %s", due, t0.Add(8*time.Hour))
	}
	// A late status from before the pause changes nothing.
	c.SetStatus(cal, models.TicketPendingPartner, t0.Add(2*time.Hour))
	if !c.Running() {
		t.Fatal("a stale status paused the clock")
	}
	alerts := c.Fire(cal, t0.Add(9*time.Hour))
	if len(alerts) != 1 || alerts[0].Kind != models.SLABreached || alerts[0].Target != models.SLAResolution {
		t.Fatalf("a late look = %+v, want the breach alone", alerts)
	}
	if !c.Done() {
		t.Fatal("nothing is left to watch")
	}
}

func TestPolicyWarningThresholds(t *testing.T) {
	p := models.TicketSLAPolicy{Priority: models.TicketLow, FirstResponseMinutes: 120, ResolutionMinutes: 600, WarnBeforeMinutes: 30}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	if p.WarnAfter(models.SLAFirstResponse) != 90*time.Minute || p.WarnAfter(models.SLAResolution) != 570*time.Minute {
		t.Fatalf("fixed lead: %s %s", p.WarnAfter(models.SLAFirstResponse), p.WarnAfter(models.SLAResolution))
	}
	for _, bad := range []models.TicketSLAPolicy{
		{Priority: "whenever", FirstResponseMinutes: 1, ResolutionMinutes: 2},
		{Priority: "low", FirstResponseMinutes: 0, ResolutionMinutes: 2},
		{Priority: "low", FirstResponseMinutes: 10, ResolutionMinutes: 5},
		{Priority: "low", FirstResponseMinutes: 10, ResolutionMinutes: 20, WarnPercent: 100},
		{Priority: "low", FirstResponseMinutes: 10, ResolutionMinutes: 20, WarnBeforeMinutes: 10},
		{Priority: "low", FirstResponseMinutes: 10, ResolutionMinutes: 20, WarnPercent: 50, WarnBeforeMinutes: 5},
	} {
		if err := bad.Check(); models.ErrorKind(err) != models.KindInvalid {
			t.Errorf("%+v: %v, want invalid", bad, err)
		}
	}
}
