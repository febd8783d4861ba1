package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, _, _ *stores.Scoped) {
		put := func(string) string {
			if _, _, err := sc.PutSLAPolicy(context.Background(), models.TicketSLAPolicy{Priority: models.TicketUrgent, FirstResponseMinutes: 30, ResolutionMinutes: 240}); err != nil {
				t.Fatal(err)
			}
			return models.TicketUrgent
		}
		put("")
		f.fresh["slaPolicy"] = put
	})
	policy := func(method string, body map[string]any) func(*fixture, string) request {
		return func(f *fixture, role string) request {
			if method == http.MethodDelete && role != "foreign" && role != "" {
				f.fresh["slaPolicy"](role)
			}
			return request{method, "/api/ticket-sla-policies/urgent", body}
		}
	}
	matrix["list-sla-policies"] = matrixCase{call: get("/api/ticket-sla-policies")}
	matrix["get-sla-policy"] = matrixCase{byID: true, call: policy(http.MethodGet, nil)}
	matrix["put-sla-policy"] = matrixCase{call: policy(http.MethodPut, map[string]any{"firstResponseMinutes": 30, "resolutionMinutes": 240})}
	matrix["delete-sla-policy"] = matrixCase{byID: true, call: policy(http.MethodDelete, nil)}
	matrix["get-business-hours"] = matrixCase{call: get("/api/ticket-business-hours")}
	matrix["put-business-hours"] = matrixCase{call: func(*fixture, string) request {
		return request{http.MethodPut, "/api/ticket-business-hours", map[string]any{"timeZone": "Europe/Berlin",
			"windows": []map[string]string{{"day": "mon", "start": "09:00", "end": "17:00"}}}}
	}}
}

func TestSLAPoliciesOverHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		h := env.h
		op := bearer(env.ownerToken)
		partner := bearer(mintKey(t, env, env.partner1, authz.TicketsRead, authz.TicketsWrite))

		if p := do(t, h, http.MethodGet, "/api/ticket-sla-policies/high", nil, op...).problem(t); p.Status != http.StatusNotFound || p.Code != "SLA_POLICY_NOT_FOUND" {
			t.Fatalf("no policy yet = %+v", p)
		}
		// Bad input is a 422 naming the problem, and stores nothing.
		for name, c := range map[string]struct {
			path string
			body map[string]any
			code string
		}{
			"unknown priority":         {"/api/ticket-sla-policies/critical", map[string]any{"firstResponseMinutes": 30, "resolutionMinutes": 60}, ""},
			"zero target":              {"/api/ticket-sla-policies/high", map[string]any{"firstResponseMinutes": 0, "resolutionMinutes": 60}, ""},
			"over a year":              {"/api/ticket-sla-policies/high", map[string]any{"firstResponseMinutes": 30, "resolutionMinutes": 600000}, ""},
			"response after resolving": {"/api/ticket-sla-policies/high", map[string]any{"firstResponseMinutes": 90, "resolutionMinutes": 60}, "FIRST_RESPONSE_AFTER_RESOLUTION"},
			"both thresholds":          {"/api/ticket-sla-policies/high", map[string]any{"firstResponseMinutes": 30, "resolutionMinutes": 60, "warnPercent": 80, "warnBeforeMinutes": 5}, "SLA_WARNING_TWICE"},
			"lead too long":            {"/api/ticket-sla-policies/high", map[string]any{"firstResponseMinutes": 30, "resolutionMinutes": 60, "warnBeforeMinutes": 30}, "INVALID_SLA_WARNING"},
		} {
			p := do(t, h, http.MethodPut, c.path, jsonBody(t, c.body), op...).problem(t)
			if p.Status != http.StatusUnprocessableEntity || (c.code != "" && p.Code != c.code) {
				t.Errorf("%s = %d %s %s", name, p.Status, p.Code, p.Detail)
			}
		}
		if list := decode[ListBody[SLAPolicy]](t, do(t, h, http.MethodGet, "/api/ticket-sla-policies", nil, op...)); len(list.Data) != 0 {
			t.Fatalf("refused policies were stored: %+v", list)
		}
		got := decode[SLAPolicy](t, do(t, h, http.MethodPut, "/api/ticket-sla-policies/high", jsonBody(t, map[string]any{"firstResponseMinutes": 60, "resolutionMinutes": 480}), op...))
		if got.Priority != "high" || got.FirstResponseMinutes != 60 || got.ResolutionMinutes != 480 || got.WarnPercent != 80 {
			t.Fatalf("policy = %+v", got)
		}
		again := decode[SLAPolicy](t, do(t, h, http.MethodPut, "/api/ticket-sla-policies/high", jsonBody(t, map[string]any{"firstResponseMinutes": 60, "resolutionMinutes": 480, "warnBeforeMinutes": 10}), op...))
		if again.ID != got.ID || again.WarnBeforeMinutes != 10 || again.WarnPercent != 0 {
			t.Fatalf("replaced policy = %+v", again)
		}
		if read := decode[SLAPolicy](t, do(t, h, http.MethodGet, "/api/ticket-sla-policies/high", nil, op...)); read != again {
			t.Fatalf("read back %+v, want %+v", read, again)
		}
		// Partners never read or change the desk's policies.
		if res := do(t, h, http.MethodGet, "/api/ticket-sla-policies", nil, partner...); res.Status != http.StatusForbidden {
			t.Fatalf("a partner lists policies: %d", res.Status)
		}

		// Business hours: around the clock until set; a bad zone or overlapping windows are 422.
		if hours := decode[BusinessHoursBody](t, do(t, h, http.MethodGet, "/api/ticket-business-hours", nil, op...)); hours.TimeZone != "UTC" || len(hours.Windows) != 0 {
			t.Fatalf("default hours = %+v", hours)
		}
		for name, body := range map[string]map[string]any{
			"unknown zone": {"timeZone": "Mars/Olympus", "windows": []any{}},
			"overlap": {"timeZone": "UTC", "windows": []map[string]string{{"day": "mon", "start": "09:00", "end": "13:00"},
				{"day": "mon", "start": "12:00", "end": "17:00"}}},
			"backwards": {"timeZone": "UTC", "windows": []map[string]string{{"day": "mon", "start": "17:00", "end": "09:00"}}},
			"bad day":   {"timeZone": "UTC", "windows": []map[string]string{{"day": "someday", "start": "09:00", "end": "17:00"}}},
		} {
			if p := do(t, h, http.MethodPut, "/api/ticket-business-hours", jsonBody(t, body), op...).problem(t); p.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s = %d %s", name, p.Status, p.Detail)
			}
		}
		week := map[string]any{"timeZone": "America/New_York", "windows": []map[string]string{{"day": "mon", "start": "08:00", "end": "12:00"}, {"day": "mon", "start": "13:00", "end": "17:00"}}}
		if hours := decode[BusinessHoursBody](t, do(t, h, http.MethodPut, "/api/ticket-business-hours", jsonBody(t, week), op...)); hours.TimeZone != "America/New_York" || len(hours.Windows) != 2 {
			t.Fatalf("hours = %+v", hours)
		}
		audit := decode[ListBody[map[string]any]](t, do(t, h, http.MethodGet, "/api/audit-log?targetType=ticket_sla_policy", nil, op...))
		if len(audit.Data) != 2 {
			t.Fatalf("policy audit entries = %d", len(audit.Data))
		}

		// A ticket shows what its clock recorded.
		tk := decode[Ticket](t, do(t, h, http.MethodPost, "/api/tickets", jsonBody(t, map[string]any{"subject": "Help", "body": "Please.", "priority": "high"}), partner...))
		if tk.SLA != nil {
			t.Fatalf("a ticket whose clock recorded nothing yet shows %+v", tk.SLA)
		}
		due := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
		if err := st.RecordTicketSLA(context.Background(), models.System(env.tenantID), tk.ID, models.TicketSLA{FirstResponseDueAt: &due}, nil); err != nil {
			t.Fatal(err)
		}
		shown := decode[Ticket](t, do(t, h, http.MethodGet, "/api/tickets/"+tk.ID, nil, partner...))
		if shown.SLA == nil || shown.SLA.FirstResponseDueAt == nil || !shown.SLA.FirstResponseDueAt.Equal(due) {
			t.Fatalf("ticket SLA = %+v", shown.SLA)
		}

		if res := do(t, h, http.MethodDelete, "/api/ticket-sla-policies/high", nil, op...); res.Status != http.StatusNoContent {
			t.Fatalf("delete = %d", res.Status)
		}
		if p := do(t, h, http.MethodDelete, "/api/ticket-sla-policies/high", nil, op...).problem(t); p.Status != http.StatusNotFound {
			t.Fatalf("second delete = %+v", p)
		}
	})
}
