package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// TestAPartnersHealthTurnsCriticalAfterABreachedTicketAndAPoorSurvey runs the service desk into
// health scoring on the embedded Temporal server: a partner's ticket breaches its one-minute
// first-response target on its SLA clock, is resolved, the CSAT survey emailed to the partner
// user is answered through its link with the lowest score, and the next scoring run moves the
// partner from healthy to critical. partner.health_changed reaches a subscribed webhook, signed
// per Standard Webhooks, and the demo tenant's playbook gives the staff a task naming the partner.
func TestAPartnersHealthTurnsCriticalAfterABreachedTicketAndAPoorSurvey(t *testing.T) {
	const password = "bootstrap-Password-0451"
	var mu sync.Mutex
	var got []receivedHook
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, receivedHook{header: r.Header.Clone(), body: body})
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	r := startServe(t, map[string]string{
		"PARTNERD_DATA_DIR":                 t.TempDir(),
		"PARTNERD_HTTP_ADDR":                "127.0.0.1:0",
		"PARTNERD_TEMPORAL_PORT":            freeTCPPort(t),
		"PARTNERD_BOOTSTRAP_EMAIL":          "founder@example.test",
		"PARTNERD_BOOTSTRAP_PASSWORD":       password,
		"PARTNERD_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
		"PARTNERD_PUBLIC_URL":               "https://partners.example.test",
	})
	defer r.shutdown(t)
	base := "http://" + r.addr
	owner := login(t, base, "founder@example.test", password)
	bob := login(t, base, "bob@contoso.demo", password)

	// CSAT (0 at 40, 100 at 90) and SLA breaches (100 at none, 0 at one), at an hour the
	// schedule does not meet during the test; the desk's normal tickets answer within a minute,
	// around the clock (no business hours), and resolved tickets are surveyed.
	model := map[string]any{
		"components": []map[string]any{
			{"source": "csat", "weight": 1, "zeroAt": 40, "fullAt": 90},
			{"source": "sla_breaches", "weight": 1, "zeroAt": 1, "fullAt": 0},
		},
		"tiers": []map[string]any{{"name": "healthy", "minScore": 70}, {"name": "at_risk", "minScore": 40}, {"name": "critical", "minScore": 0}},
		"hour":  (time.Now().UTC().Hour() + 12) % 24,
	}
	if code := call(t, http.MethodPut, base+"/api/health/model", owner, model, nil); code != http.StatusOK {
		t.Fatalf("put health model = %d", code)
	}
	if code := call(t, http.MethodPut, base+"/api/ticket-sla-policies/normal", owner, map[string]any{"firstResponseMinutes": 1, "resolutionMinutes": 60}, nil); code != http.StatusOK {
		t.Fatalf("put SLA policy = %d", code)
	}
	if code := call(t, http.MethodPatch, base+"/api/tenant", owner, map[string]any{"surveyOnResolve": true}, nil); code != http.StatusOK {
		t.Fatalf("survey on resolve = %d", code)
	}
	var hook struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	if code := call(t, http.MethodPost, base+"/api/webhooks", owner, map[string]any{"url": receiver.URL + "/health", "eventTypes": []string{"partner.health_changed"}}, &hook); code != http.StatusCreated {
		t.Fatalf("create webhook = %d", code)
	}

	type explanation struct {
		Score      float64 `json:"score"`
		Tier       string  `json:"tier"`
		Components []struct {
			Source string `json:"source"`
			Value  *int64 `json:"value"`
		} `json:"components"`
	}
	scoreNow := func() {
		t.Helper()
		var run struct {
			ID string `json:"id"`
		}
		if code := call(t, http.MethodPost, base+"/api/health/runs", owner, nil, &run); code != http.StatusAccepted {
			t.Fatalf("start health run = %d", code)
		}
		eventually(t, "the health run", 60*time.Second, func() bool {
			var runs struct {
				Data []struct {
					ID     string `json:"id"`
					Status string `json:"status"`
				} `json:"data"`
			}
			call(t, http.MethodGet, base+"/api/health/runs?limit=1", owner, nil, &runs)
			return len(runs.Data) == 1 && runs.Data[0].ID == run.ID && runs.Data[0].Status == "done"
		})
	}
	explain := func(partnerID string) explanation {
		t.Helper()
		var ex explanation
		if code := call(t, http.MethodGet, base+"/api/partners/"+partnerID+"/health", owner, nil, &ex); code != http.StatusOK {
			t.Fatalf("explain = %d", code)
		}
		return ex
	}

	// Bob opens a ticket; its clock breaches the first response a minute later.
	var ticket struct {
		ID        string `json:"id"`
		PartnerID string `json:"partnerId"`
	}
	if code := call(t, http.MethodPost, base+"/api/tickets", bob, map[string]any{"subject": "Portal login fails", "body": "Our sales team cannot sign in."}, &ticket); code != http.StatusCreated {
		t.Fatalf("open ticket = %d", code)
	}
	scoreNow()
	if ex := explain(ticket.PartnerID); ex.Tier != "healthy" || ex.Score != 100 {
		t.Fatalf("before the breach: %+v", ex)
	}
	eventually(t, "the first-response breach", 3*time.Minute, func() bool {
		var tk struct {
			SLA *struct {
				FirstResponseBreachedAt *time.Time `json:"firstResponseBreachedAt"`
			} `json:"sla"`
		}
		call(t, http.MethodGet, base+"/api/tickets/"+ticket.ID, owner, nil, &tk)
		return tk.SLA != nil && tk.SLA.FirstResponseBreachedAt != nil
	})

	// Bob resolves it and answers the CSAT survey emailed to him with the lowest score.
	if code := call(t, http.MethodPost, base+"/api/tickets/"+ticket.ID+"/status", bob, map[string]any{"status": "resolved"}, nil); code != http.StatusOK {
		t.Fatalf("resolve = %d", code)
	}
	var token string
	eventually(t, "the survey email", 60*time.Second, func() bool {
		var mails struct {
			Data []struct {
				ID string `json:"id"`
				To string `json:"to"`
			} `json:"data"`
		}
		call(t, http.MethodGet, base+"/api/mail/messages?purpose=survey", owner, nil, &mails)
		for _, m := range mails.Data {
			if m.To != "bob@contoso.demo" {
				continue
			}
			var msg struct {
				Text string `json:"text"`
			}
			call(t, http.MethodGet, base+"/api/mail/messages/"+m.ID, owner, nil, &msg)
			const prefix = "https://partners.example.test/survey#token="
			if i := strings.Index(msg.Text, prefix); i >= 0 {
				token = strings.Fields(msg.Text[i+len(prefix):])[0]
				return true
			}
		}
		return false
	})
	if code := call(t, http.MethodPost, base+"/api/survey-links/"+token, "", map[string]any{"score": 1, "comment": "Nobody answered."}, nil); code != http.StatusNoContent {
		t.Fatalf("answer survey = %d", code)
	}

	scoreNow()
	ex := explain(ticket.PartnerID)
	if ex.Tier != "critical" || ex.Score != 0 || len(ex.Components) != 2 || ex.Components[0].Value == nil || *ex.Components[0].Value != 0 ||
		ex.Components[1].Value == nil || *ex.Components[1].Value != 1 {
		t.Fatalf("after the breach and the survey: %+v", ex)
	}

	// The tier change reaches the webhook, signed, and the demo playbook opens a task.
	var msg struct {
		Type string `json:"type"`
		Data struct {
			PartnerID string `json:"partnerId"`
			Payload   struct {
				PartnerID    string  `json:"partnerId"`
				FromTier     string  `json:"fromTier"`
				ToTier       string  `json:"toTier"`
				Score        float64 `json:"score"`
				ModelVersion int     `json:"modelVersion"`
			} `json:"payload"`
		} `json:"data"`
	}
	var delivered receivedHook
	eventually(t, "the partner.health_changed delivery", 60*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, h := range got {
			if err := json.Unmarshal(h.body, &msg); err == nil && msg.Data.Payload.PartnerID == ticket.PartnerID {
				delivered = h
				return true
			}
		}
		return false
	})
	wh, err := standardwebhooks.NewWebhook(hook.Secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(delivered.body, delivered.header); err != nil {
		t.Fatalf("the Standard Webhooks library rejects our signature: %v", err)
	}
	if p := msg.Data.Payload; msg.Type != "partner.health_changed" || p.FromTier != "healthy" || p.ToTier != "critical" || p.Score != 0 || p.ModelVersion != 2 {
		t.Fatalf("delivered %s", delivered.body)
	}
	eventually(t, "the playbook's task", 60*time.Second, func() bool {
		var tasks struct {
			Data []struct {
				Title string `json:"title"`
			} `json:"data"`
		}
		call(t, http.MethodGet, base+"/api/tasks?limit=100", owner, nil, &tasks)
		for _, task := range tasks.Data {
			if strings.HasPrefix(task.Title, "Call Contoso") && strings.HasSuffix(task.Title, "partner health is critical") {
				return true // the staff's task (no partner of its own) names the partner
			}
		}
		return false
	})
	if strings.Contains(r.logs.String(), hook.Secret) {
		t.Fatal("the webhook secret reached the log")
	}
}
