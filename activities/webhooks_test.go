package activities

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/partnerd/partnerd/models"
)

// oneDispatch is a WebhookStore holding one delivery to one endpoint.
type oneDispatch struct {
	WebhookStore
	d models.WebhookDispatch
}

func (o *oneDispatch) WebhookDispatch(context.Context, models.Scope, string, string) (*models.WebhookDispatch, error) {
	d := o.d
	return &d, nil
}

// sendTo builds the activities and a delivery of body to url, signed with a fresh secret.
func sendTo(t *testing.T, url string, allowed []netip.Prefix) (*Webhooks, models.Secret) {
	t.Helper()
	master := make([]byte, 32)
	_, _ = rand.Read(master)
	keys, err := models.NewKeyring(map[int][]byte{1: master}, 1)
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := models.NewWebhookSecret()
	w := models.Webhook{ID: models.NewID(), TenantID: models.NewID(), URL: url, Enabled: true}
	if w.Secret, err = keys.Seal(secret, models.SealContext{TenantID: w.TenantID, Table: "webhooks", RowID: w.ID, Field: "secret"}); err != nil {
		t.Fatal(err)
	}
	st := &oneDispatch{d: models.WebhookDispatch{Webhook: w,
		Delivery: models.WebhookDelivery{ID: models.NewID(), MessageID: "msg_" + models.NewID()},
		Body:     []byte(`{"type":"invoice.paid","data":{"amountMinor":129900}}`)}}
	return &Webhooks{Store: st, Keyring: keys, AllowedNetworks: allowed}, secret
}

func TestDeliveriesRefuseInternalAddressesAtDialTime(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	// The URL check at creation refuses literal internal addresses; names that resolve to one
	// (here localhost, in production a rebinding DNS name) are caught when dialling.
	for _, url := range []string{srv.URL + "/in", "http://localhost:" + port + "/in"} {
		a, _ := sendTo(t, url, nil)
		res, err := a.SendWebhook(context.Background(), SendInput{Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != 0 || !strings.HasPrefix(res.Error, "refused") {
			t.Errorf("%s: result %+v, want refused", url, res)
		}
		if strings.Contains(res.Error, "/in") {
			t.Errorf("the recorded error shows the URL: %q", res.Error)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the internal endpoint was reached %d times", n)
	}

	a, secret := sendTo(t, srv.URL+"/in", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	if res, err := a.SendWebhook(context.Background(), SendInput{Timeout: 5 * time.Second}); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("with 127.0.0.0/8 allowed: %+v %v", res, err)
	}
	if hits.Load() != 1 || secret.Reveal() == "" {
		t.Fatalf("the allowed endpoint got %d requests", hits.Load())
	}
}

func TestDeliveriesAreSignedAndDoNotFollowRedirects(t *testing.T) {
	var elsewhere atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { elsewhere.Add(1) }))
	defer target.Close()
	var got *http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(context.Background())
		body = make([]byte, r.ContentLength)
		_, _ = r.Body.Read(body)
		http.Redirect(w, r, target.URL, http.StatusFound)
	}))
	defer srv.Close()
	a, secret := sendTo(t, srv.URL+"/in", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	res, err := a.SendWebhook(context.Background(), SendInput{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusFound || res.Error != "HTTP 302" || elsewhere.Load() != 0 {
		t.Fatalf("a redirect = %+v (target hit %d times), want a failed attempt that stays put", res, elsewhere.Load())
	}
	wh, err := standardwebhooks.NewWebhook(secret.Reveal())
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(body, got.Header); err != nil {
		t.Fatalf("the Standard Webhooks library rejects the signature: %v", err)
	}
	if got.Header.Get("webhook-id") == "" || got.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("headers = %v", got.Header)
	}
}

func TestRetryAfterIsReadAsSecondsOrADate(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"120", 2 * time.Minute},
		{" 5 ", 5 * time.Second},
		{"-3", 0},
		{"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
	} {
		if got := parseRetryAfter(c.in, now); got != c.want {
			t.Errorf("Retry-After %q = %v, want %v", c.in, got, c.want)
		}
	}
}
