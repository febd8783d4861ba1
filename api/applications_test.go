package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestRecruitmentFromPublicApplicationToInvitedPartner(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		h, op := env.h, bearer(env.ownerToken)
		ctx := context.Background()
		form := map[string]any{"questions": []map[string]any{
			{"key": "region", "label": "Where do you sell?", "required": true, "options": []string{"EMEA", "AMER", "APAC"}},
			{"key": "customers", "label": "How many customers do you serve?"},
		}, "reapplyAfterDays": 30, "autoApproveDomains": []string{"Trusted.Example"}}
		if res := do(t, h, http.MethodPut, "/api/application-form", jsonBody(t, form), op...); res.Status != http.StatusOK {
			t.Fatalf("set form = %d %s", res.Status, res.Body)
		}
		if _, err := env.owner.SetOnboardingTemplate(ctx, []models.OnboardingItem{{Title: "Sign the agreement", DueInDays: 3}}); err != nil {
			t.Fatal(err)
		}
		public := decode[PublicApplicationForm](t, do(t, h, http.MethodGet, "/api/public/ingest/application-form", nil))
		if len(public.Questions) != 2 || len(public.PartnerTypes) == 0 {
			t.Fatalf("public form = %+v", public)
		}
		apply := func(email string, answers map[string]string, extra map[string]any) response {
			body := map[string]any{"organisation": "Acme Resale", "contactName": "Ann", "contactEmail": email, "partnerType": "reseller", "answers": answers}
			for k, v := range extra {
				body[k] = v
			}
			return do(t, h, http.MethodPost, "/api/public/ingest/applications", jsonBody(t, body))
		}
		count := func(status string) int {
			rows, _, err := env.owner.ListApplications(ctx, models.ApplicationFilter{Status: status}, models.Page{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			return len(rows)
		}
		// A bot filling the honeypot is told nothing and stores nothing.
		if res := apply("bot@spam.example", map[string]string{"region": "EMEA"}, map[string]any{"website": "http://spam"}); res.Status != http.StatusAccepted || count("") != 0 {
			t.Fatalf("honeypot = %d, %d stored", res.Status, count(""))
		}
		if p := apply("ann@acme.example", map[string]string{"customers": "12"}, nil).problem(t); p.Status != http.StatusUnprocessableEntity || p.Code != "INVALID_ANSWERS" {
			t.Fatalf("a missing required answer = %+v", p)
		}
		if p := apply("ann@acme.example", map[string]string{"region": "Mars"}, nil).problem(t); p.Code != "INVALID_ANSWERS" {
			t.Fatalf("an answer outside the options = %+v", p)
		}
		if res := apply("ann@acme.example", map[string]string{"region": "EMEA", "customers": "12"}, nil); res.Status != http.StatusAccepted {
			t.Fatalf("apply = %d %s", res.Status, res.Body)
		}
		if p := apply("ANN@acme.example", map[string]string{"region": "EMEA"}, nil).problem(t); p.Status != http.StatusConflict || p.Code != "APPLICATION_PENDING" {
			t.Fatalf("applying twice = %+v", p)
		}
		if p := do(t, h, http.MethodPost, "/api/public/nope/applications", jsonBody(t, map[string]any{"organisation": "A", "contactName": "A",
			"contactEmail": "a@b.example", "partnerType": "reseller"})).problem(t); p.Status != http.StatusNotFound {
			t.Fatalf("an unknown program = %d", p.Status)
		}
		list := decode[ListBody[Application]](t, do(t, h, http.MethodGet, "/api/applications?status=pending", nil, op...))
		if len(list.Data) != 1 || list.Data[0].Answers["region"] != "EMEA" {
			t.Fatalf("pending = %+v", list.Data)
		}
		approved := decode[struct {
			Application
			Invitation OneTimeToken `json:"invitation"`
		}](t, do(t, h, http.MethodPost, "/api/applications/"+list.Data[0].ID+"/approve", nil, op...))
		if approved.Status != "approved" || approved.PartnerID == "" || approved.Invitation.Token == "" {
			t.Fatalf("approve = %+v", approved)
		}
		p, err := env.owner.Partner(ctx, approved.PartnerID)
		if err != nil || p.Status != models.PartnerOnboarding || p.Name != "Acme Resale" {
			t.Fatalf("the new partner = %+v, %v", p, err)
		}
		progress, err := env.owner.OnboardingProgress(ctx, p.ID)
		if err != nil || progress.Total != 1 {
			t.Fatalf("onboarding = %+v, %v", progress, err)
		}
		accepted := do(t, h, http.MethodPost, "/api/auth/accept-invitation", jsonBody(t, map[string]any{"token": approved.Invitation.Token, "password": ownerPassword}))
		if accepted.Status != http.StatusOK {
			t.Fatalf("accepting the invitation = %d %s", accepted.Status, accepted.Body)
		}
		if p := do(t, h, http.MethodPost, "/api/applications/"+list.Data[0].ID+"/approve", nil, op...).problem(t); p.Code != "APPLICATION_DECIDED" {
			t.Fatalf("approving twice = %+v", p)
		}
		evs, _, _ := env.owner.ListEvents(ctx, models.EventFilter{Type: "partner.*"}, models.Page{Limit: 10})
		if len(evs) != 2 || evs[0].Type != models.EventPartnerApplied || evs[1].Type != models.EventPartnerApproved {
			t.Fatalf("partner events = %+v", evs)
		}

		// A rejected applicant waits the tenant's period.
		if res := apply("zed@other.example", map[string]string{"region": "APAC"}, nil); res.Status != http.StatusAccepted {
			t.Fatal(res.Status)
		}
		pending := decode[ListBody[Application]](t, do(t, h, http.MethodGet, "/api/applications?status=pending", nil, op...))
		if res := do(t, h, http.MethodPost, "/api/applications/"+pending.Data[0].ID+"/reject", jsonBody(t, map[string]any{"reason": "Outside our markets"}), op...); res.Status != http.StatusOK {
			t.Fatalf("reject = %d %s", res.Status, res.Body)
		}
		if p := apply("zed@other.example", map[string]string{"region": "APAC"}, nil).problem(t); p.Code != "REAPPLY_TOO_SOON" {
			t.Fatalf("re-applying at once = %+v", p)
		}
		// An email domain on the auto-approval list is approved at once.
		if res := apply("kim@trusted.example", map[string]string{"region": "AMER"}, nil); res.Status != http.StatusAccepted {
			t.Fatal(res.Status)
		}
		auto := decode[ListBody[Application]](t, do(t, h, http.MethodGet, "/api/applications?status=approved", nil, op...))
		if len(auto.Data) != 2 || !auto.Data[1].AutoApproved || auto.Data[1].PartnerID == "" {
			t.Fatalf("approved = %+v", auto.Data)
		}
		// Every attempt counts against the client address: the limit answers 429.
		var last response
		for range 10 {
			last = apply("flood@spam.example", map[string]string{"region": "EMEA"}, map[string]any{"website": "x"})
		}
		if last.Status != http.StatusTooManyRequests {
			t.Fatalf("after the limit = %d", last.Status)
		}
	})
}
