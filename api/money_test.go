package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// payoutCall is one decision handed to the fake payout signaler.
type payoutCall struct {
	op, tenantID, withdrawalID, text, by string
}

// fakePayouts records the decisions on manual payouts instead of delivering them.
type fakePayouts struct {
	mu    sync.Mutex
	calls []payoutCall
	err   error
}

func (f *fakePayouts) record(c payoutCall) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.calls = append(f.calls, c)
	return nil
}

func (f *fakePayouts) ConfirmPayout(_ context.Context, tenantID, withdrawalID, reference, by string) error {
	return f.record(payoutCall{"confirm", tenantID, withdrawalID, reference, by})
}

func (f *fakePayouts) FailPayout(_ context.Context, tenantID, withdrawalID, reason, by string) error {
	return f.record(payoutCall{"fail", tenantID, withdrawalID, reason, by})
}

func (f *fakePayouts) recorded() []payoutCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]payoutCall(nil), f.calls...)
}

// moneyEnv is a tenant with two partners, a partner admin of each and finance, behind the real
// HTTP stack.
type moneyEnv struct {
	t        *testing.T
	s        *Server
	h        http.Handler
	logs     *syncBuffer
	st       *stores.Set
	owner    *stores.Scoped
	tenantID string
	ownerID  string
	op       string // the owner's access token
	finance  string
	// financeID is the finance user's id.
	financeID string
	p1, p2    string // access tokens of partner admins
	partner1  string
	partner2  string
	// bodies collects every response body, to look for secrets in.
	bodies *[]string
}

// on is the environment reporting to the subtest t.
func (e *moneyEnv) on(t *testing.T) *moneyEnv {
	c := *e
	c.t = t
	return &c
}

func newMoneyEnv(t *testing.T, st *stores.Set, slug string) *moneyEnv {
	t.Helper()
	ctx := context.Background()
	s, logs := identityServer(t, st)
	e := &moneyEnv{t: t, s: s, h: s.Handler(), logs: logs, st: st, bodies: new([]string)}
	var ownerEmail string
	e.tenantID, ownerEmail = seedTenant(t, st, slug)
	users, err := st.UsersByEmail(ctx, ownerEmail, slug)
	if err != nil || len(users) != 1 {
		t.Fatalf("owner: %v", err)
	}
	e.ownerID = users[0].ID
	e.owner = st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: e.tenantID, UserID: e.ownerID})
	e.op = login(t, e.h, ownerEmail, ownerPassword).AccessToken
	hash, _ := authn.HashPassword(ownerPassword)
	user := func(email string, partner *string, role string) (token, id string) {
		u := &models.User{Email: email, Name: email, PasswordHash: hash, PartnerID: partner, Status: models.UserStatusActive}
		if err := e.owner.CreateUser(ctx, u, []string{role}); err != nil {
			t.Fatal(err)
		}
		return login(t, e.h, email, ownerPassword).AccessToken, u.ID
	}
	for _, p := range []*string{&e.partner1, &e.partner2} {
		rec := &models.Partner{Name: "P", Type: models.PartnerReseller}
		if err := e.owner.CreatePartner(ctx, rec); err != nil {
			t.Fatal(err)
		}
		*p = rec.ID
	}
	e.finance, e.financeID = user("finance@"+slug+".test", nil, authz.RoleFinance)
	e.p1, _ = user("admin@p1."+slug+".test", &e.partner1, authz.RolePartnerAdmin)
	e.p2, _ = user("admin@p2."+slug+".test", &e.partner2, authz.RolePartnerAdmin)
	return e
}

// call sends a request with token and optional Idempotency-Key and records the body.
func (e *moneyEnv) call(method, path, token, key string, body any) response {
	e.t.Helper()
	var r io.Reader
	if body != nil {
		r = jsonBody(e.t, body)
	}
	headers := bearer(token)
	if key != "" {
		headers = append(headers, HeaderIdempotencyKey, key)
	}
	res := do(e.t, e.h, method, path, r, headers...)
	*e.bodies = append(*e.bodies, string(res.Body))
	return res
}

// want checks a response's status and returns it.
func (e *moneyEnv) want(status int, res response) response {
	e.t.Helper()
	if res.Status != status {
		e.t.Fatalf("status %d, want %d: %s", res.Status, status, res.Body)
	}
	return res
}

// problem checks that a response is a problem with status and code.
func (e *moneyEnv) problem(res response, status int, code string) Problem {
	e.t.Helper()
	p := res.problem(e.t)
	if p.Status != status || p.Code != code {
		e.t.Fatalf("problem %d %s, want %d %s: %s", p.Status, p.Code, status, code, res.Body)
	}
	return p
}

func (e *moneyEnv) balance(token, partnerID string) Balance {
	e.t.Helper()
	bs := decode[struct{ Data []Balance }](e.t, e.want(200, e.call(http.MethodGet, "/api/ledger/balances?currency=EUR&partnerId="+partnerID, token, "", nil)))
	if len(bs.Data) != 1 {
		e.t.Fatalf("balances of %s = %+v", partnerID, bs.Data)
	}
	return bs.Data[0]
}

// accrue books what the tenant's plans accrue on an invoice.paid event of partnerID.
func (e *moneyEnv) accrue(partnerID string, amount int64) []models.AccrualResult {
	e.t.Helper()
	ctx := context.Background()
	ev, err := e.st.EmitEvent(ctx, models.System(e.tenantID), models.NewEvent{Type: "invoice.paid", PartnerID: &partnerID,
		Payload: `{"amount":` + strconv.FormatInt(amount, 10) + `,"currency":"EUR","invoiceId":"` + models.NewID() + `"}`})
	if err != nil {
		e.t.Fatal(err)
	}
	res, err := e.st.AccrueCommissions(ctx, models.System(e.tenantID), ev.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

func TestMoneyCommissionPlansOverHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newMoneyEnv(t, st, "money-plans")
		const path = "/api/commission-plans"
		plan := func(rate int) map[string]any {
			return map[string]any{"name": "Resellers", "description": "Deals won by resellers", "definition": map[string]any{
				"trigger": "deal.won", "holdingDays": 14, "clawbackTrigger": "crm.deal_refunded",
				"conditions":  map[string]any{"partnerTypes": []string{"reseller"}, "payloadEquals": []map[string]any{{"path": "currency", "value": "EUR"}}},
				"calculation": map[string]any{"kind": "percentage", "rateBps": rate}}}
		}

		t.Run("invalid plans list every problem at once", func(t *testing.T) {
			e := e.on(t)
			p := e.problem(e.call(http.MethodPost, path, e.op, "", map[string]any{"name": "", "definition": map[string]any{
				"trigger": "x", "holdingDays": -1, "currency": "eur", "calculation": map[string]any{"kind": "bogus"}}}), 422, "VALIDATION_FAILED")
			if len(p.Errors) < 5 {
				t.Fatalf("errors = %+v", p.Errors)
			}
			p = e.problem(e.call(http.MethodPost, path, e.op, "", map[string]any{"name": "Tiers", "definition": map[string]any{
				"trigger": "invoice.paid", "holdingDays": 0, "calculation": map[string]any{"kind": "tiered"},
				"conditions": map[string]any{"payloadEquals": []map[string]any{{"path": "plan", "value": map[string]any{"an": "object"}}}}}}), 422, "INVALID_COMMISSION_PLAN")
			if len(p.Errors) < 3 {
				t.Fatalf("errors = %+v", p.Errors)
			}
		})

		created := decode[CommissionPlan](t, e.want(201, e.call(http.MethodPost, path, e.op, "", plan(1000))))
		if created.Version != 1 || created.Status != "active" || created.Definition.AmountPath != "amountMinor" || created.Definition.ReferencePath != "dealId" ||
			string(created.Definition.Conditions.PayloadEquals[0].Value) != `"EUR"` {
			t.Fatalf("created = %+v", created)
		}
		e.problem(e.call(http.MethodPost, path, e.p1, "", plan(1000)), 403, "PERMISSION_DENIED")
		e.problem(e.call(http.MethodGet, path, e.p1, "", nil), 403, "PERMISSION_DENIED")

		got := decode[CommissionPlan](t, e.want(200, e.call(http.MethodGet, path+"/"+created.ID, e.finance, "", nil)))
		if got.ID != created.ID || got.Definition.Calculation.RateBps != 1000 {
			t.Fatalf("got = %+v", got)
		}
		updated := decode[CommissionPlan](t, e.want(200, e.call(http.MethodPut, path+"/"+created.ID, e.finance, "", plan(2000))))
		if updated.Version != 2 || updated.Definition.Calculation.RateBps != 2000 {
			t.Fatalf("updated = %+v", updated)
		}
		first := decode[ListBody[CommissionPlanVersion]](t, e.want(200, e.call(http.MethodGet, path+"/"+created.ID+"/versions?limit=1", e.op, "", nil)))
		if len(first.Data) != 1 || first.Data[0].Version != 1 || first.Data[0].Definition.Calculation.RateBps != 1000 || first.NextCursor == "" {
			t.Fatalf("first page of versions = %+v", first)
		}
		second := decode[ListBody[CommissionPlanVersion]](t, e.want(200, e.call(http.MethodGet, path+"/"+created.ID+"/versions?limit=1&cursor="+first.NextCursor, e.op, "", nil)))
		if len(second.Data) != 1 || second.Data[0].Version != 2 || second.NextCursor != "" {
			t.Fatalf("second page of versions = %+v", second)
		}

		preview := func(body map[string]any) []PlanPreview {
			t.Helper()
			return decode[struct{ Data []PlanPreview }](t, e.want(200, e.call(http.MethodPost, path+"/preview", e.op, "", body))).Data
		}
		sample := map[string]any{"type": "deal.won", "partnerId": e.partner1, "payload": map[string]any{"dealId": "d-1", "amountMinor": 1_000_05, "currency": "EUR"}}
		ps := preview(sample)
		if len(ps) != 1 || !ps[0].Match || ps[0].PlanVersion != 2 || ps[0].RateBps != 2000 || ps[0].Amount != 200_01 || ps[0].SourceAmount != 1_000_05 ||
			ps[0].Currency != "EUR" || ps[0].AvailableAt == nil {
			t.Fatalf("preview = %+v", ps)
		}
		sample["payload"] = map[string]any{"dealId": "d-1", "amountMinor": 1_000_00, "currency": "USD"}
		if ps := preview(sample); len(ps) != 1 || ps[0].Match || !strings.Contains(ps[0].Reason, "currency") {
			t.Fatalf("a preview that does not match = %+v", ps)
		}
		delete(sample, "partnerId")
		if ps := preview(sample); len(ps) != 1 || ps[0].Match || ps[0].Reason == "" {
			t.Fatalf("a preview without a partner = %+v", ps)
		}
		if ps := preview(map[string]any{"type": "invoice.paid", "payload": map[string]any{}}); len(ps) != 0 {
			t.Fatalf("a preview no plan is triggered by = %+v", ps)
		}
		if acc := decode[ListBody[Accrual]](t, e.want(200, e.call(http.MethodGet, "/api/ledger/accruals", e.op, "", nil))); len(acc.Data) != 0 {
			t.Fatalf("a preview booked %+v", acc.Data)
		}

		if list := decode[ListBody[CommissionPlan]](t, e.want(200, e.call(http.MethodGet, path+"?status=archived", e.op, "", nil))); len(list.Data) != 0 {
			t.Fatalf("archived plans = %+v", list.Data)
		}
		archived := decode[CommissionPlan](t, e.want(200, e.call(http.MethodPost, path+"/"+created.ID+"/archive", e.op, "", nil)))
		if archived.Status != "archived" {
			t.Fatalf("archived = %+v", archived)
		}
		e.problem(e.call(http.MethodPut, path+"/"+created.ID, e.op, "", plan(3000)), 409, "COMMISSION_PLAN_ARCHIVED")
		if list := decode[ListBody[CommissionPlan]](t, e.want(200, e.call(http.MethodGet, path+"?status=archived", e.op, "", nil))); len(list.Data) != 1 {
			t.Fatalf("archived plans = %+v", list.Data)
		}
		if ps := preview(map[string]any{"type": "deal.won", "partnerId": e.partner1, "payload": map[string]any{"amountMinor": 1}}); len(ps) != 0 {
			t.Fatalf("an archived plan previews %+v", ps)
		}
		e.problem(e.call(http.MethodGet, path+"/"+models.NewID(), e.op, "", nil), 404, "COMMISSION_PLAN_NOT_FOUND")
	})
}

func TestMoneyLedgerOverHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newMoneyEnv(t, st, "money-ledger")
		adjust := func(token, key string, body map[string]any) response {
			return e.call(http.MethodPost, "/api/ledger/adjustments", token, key, body)
		}
		body := map[string]any{"partnerId": e.partner1, "amount": 100_00, "currency": "EUR", "reason": "opening balance"}

		t.Run("an adjustment needs an Idempotency-Key and is booked once per key", func(t *testing.T) {
			e := e.on(t)
			e.problem(adjust(e.finance, "", body), 400, CodeIdempotencyKeyRequired)
			first := e.want(201, adjust(e.finance, "adj-1", body))
			mv := decode[LedgerMovement](t, first)
			if mv.Kind != "adjustment" || mv.SourceType != "adjustment" || mv.SourceID != "adj-1" || mv.Reason != "opening balance" || len(mv.Entries) != 2 {
				t.Fatalf("movement = %+v", mv)
			}
			again := e.want(201, adjust(e.finance, "adj-1", body))
			if again.Header.Get(HeaderIdempotentReplayed) != "true" || string(again.Body) != string(first.Body) {
				t.Fatalf("the replay = %s %v", again.Body, again.Header)
			}
			changed := map[string]any{"partnerId": e.partner1, "amount": 999_00, "currency": "EUR", "reason": "opening balance"}
			e.problem(adjust(e.finance, "adj-1", changed), 422, CodeIdempotencyKeyReused)
			entries := decode[ListBody[LedgerEntry]](t, e.want(200, e.call(http.MethodGet, "/api/ledger/entries?kind=adjustment&sourceId=adj-1", e.op, "", nil)))
			if len(entries.Data) != 2 {
				t.Fatalf("entries of the adjustment = %+v", entries.Data)
			}
			if b := e.balance(e.op, e.partner1); b.Available != 100_00 || b.TotalEarned != 100_00 {
				t.Fatalf("balance = %+v", b)
			}
		})
		t.Run("adjustments are validated and kept from partners", func(t *testing.T) {
			e := e.on(t)
			e.problem(adjust(e.finance, "adj-zero", map[string]any{"partnerId": e.partner1, "amount": 0, "currency": "EUR", "reason": "x"}), 422, "INVALID_ADJUSTMENT")
			p := e.problem(adjust(e.finance, "adj-bad", map[string]any{"partnerId": e.partner1, "amount": 1, "currency": "eur"}), 422, "VALIDATION_FAILED")
			if len(p.Errors) != 2 {
				t.Fatalf("errors = %+v", p.Errors)
			}
			e.problem(adjust(e.finance, "adj-nobody", map[string]any{"partnerId": models.NewID(), "amount": 1, "currency": "EUR", "reason": "x"}), 422, "PARTNER_NOT_FOUND")
			e.problem(adjust(e.p1, "adj-partner", body), 403, "PERMISSION_DENIED")
		})
		e.want(201, adjust(e.op, "adj-p2", map[string]any{"partnerId": e.partner2, "amount": -25_00, "currency": "EUR", "reason": "correction"}))

		t.Run("partners see only their own balances and entries", func(t *testing.T) {
			e := e.on(t)
			all := decode[struct{ Data []Balance }](t, e.want(200, e.call(http.MethodGet, "/api/ledger/balances", e.op, "", nil)))
			if len(all.Data) != 2 {
				t.Fatalf("operator balances = %+v", all.Data)
			}
			own := decode[struct{ Data []Balance }](t, e.want(200, e.call(http.MethodGet, "/api/ledger/balances", e.p1, "", nil)))
			if len(own.Data) != 1 || own.Data[0].PartnerID != e.partner1 || own.Data[0].Available != 100_00 {
				t.Fatalf("partner 1's balances = %+v", own.Data)
			}
			if b := e.balance(e.p2, e.partner2); b.Available != -25_00 || b.TotalEarned != -25_00 {
				t.Fatalf("partner 2's balance = %+v", b)
			}
			other := decode[struct{ Data []Balance }](t, e.want(200, e.call(http.MethodGet, "/api/ledger/balances?partnerId="+e.partner2, e.p1, "", nil)))
			if len(other.Data) != 0 {
				t.Fatalf("partner 1 sees partner 2's balances %+v", other.Data)
			}
			for _, path := range []string{"/api/ledger/entries", "/api/ledger/entries?partnerId=" + e.partner2} {
				entries := decode[ListBody[LedgerEntry]](t, e.want(200, e.call(http.MethodGet, path, e.p1, "", nil)))
				for _, en := range entries.Data {
					if en.PartnerID != e.partner1 {
						t.Fatalf("%s shows partner 1 an entry of %s", path, en.PartnerID)
					}
				}
			}
			page := decode[ListBody[LedgerEntry]](t, e.want(200, e.call(http.MethodGet, "/api/ledger/entries?limit=1&partnerId="+e.partner2, e.op, "", nil)))
			if len(page.Data) != 1 || page.Data[0].PartnerID != e.partner2 || page.NextCursor == "" {
				t.Fatalf("a page of partner 2's entries = %+v", page)
			}
			e.problem(e.call(http.MethodGet, "/api/ledger/entries?account=nope", e.op, "", nil), 422, "VALIDATION_FAILED")
		})

		t.Run("partners see only their own accruals, which finance reverses", func(t *testing.T) {
			e := e.on(t)
			e.want(201, e.call(http.MethodPost, "/api/commission-plans", e.op, "", map[string]any{"name": "Invoices", "definition": map[string]any{
				"trigger": "invoice.paid", "amountPath": "amount", "holdingDays": 30, "calculation": map[string]any{"kind": "percentage", "rateBps": 1000}}}))
			a1 := e.accrue(e.partner1, 500_00)[0].AccrualID
			a2 := e.accrue(e.partner2, 300_00)[0].AccrualID
			mine := decode[ListBody[Accrual]](t, e.want(200, e.call(http.MethodGet, "/api/ledger/accruals", e.p1, "", nil)))
			if len(mine.Data) != 1 || mine.Data[0].ID != a1 || mine.Data[0].Amount != 50_00 || mine.Data[0].Status != "pending" || mine.Data[0].PlanVersion != 1 {
				t.Fatalf("partner 1's accruals = %+v", mine.Data)
			}
			e.problem(e.call(http.MethodGet, "/api/ledger/accruals/"+a2, e.p1, "", nil), 404, "ACCRUAL_NOT_FOUND")
			if got := decode[Accrual](t, e.want(200, e.call(http.MethodGet, "/api/ledger/accruals/"+a2, e.op, "", nil))); got.PartnerID != e.partner2 {
				t.Fatalf("accrual = %+v", got)
			}
			if f := decode[ListBody[Accrual]](t, e.want(200, e.call(http.MethodGet, "/api/ledger/accruals?status=pending&partnerId="+e.partner2, e.op, "", nil))); len(f.Data) != 1 || f.Data[0].ID != a2 {
				t.Fatalf("filtered accruals = %+v", f.Data)
			}
			e.problem(e.call(http.MethodPost, "/api/ledger/accruals/"+a2+"/reverse", e.finance, "", map[string]any{}), 422, "VALIDATION_FAILED")
			e.problem(e.call(http.MethodPost, "/api/ledger/accruals/"+a1+"/reverse", e.p1, "", map[string]any{"reason": "mine"}), 403, "PERMISSION_DENIED")
			rev := decode[Accrual](t, e.want(200, e.call(http.MethodPost, "/api/ledger/accruals/"+a2+"/reverse", e.finance, "", map[string]any{"reason": "duplicate invoice"})))
			if rev.Status != "reversed" || rev.ReversalReason != "duplicate invoice" || rev.ReversedAt == nil {
				t.Fatalf("reversed = %+v", rev)
			}
			e.problem(e.call(http.MethodPost, "/api/ledger/accruals/"+a2+"/reverse", e.finance, "", map[string]any{"reason": "again"}), 409, "ACCRUAL_REVERSED")
			if b := e.balance(e.op, e.partner1); b.Pending != 50_00 || b.Available != 100_00 || b.TotalEarned != 150_00 {
				t.Fatalf("partner 1's balance = %+v", b)
			}
		})

		t.Run("statements come as JSON and CSV, partners get their own", func(t *testing.T) {
			e := e.on(t)
			from, to := time.Now().UTC().Add(-time.Hour).Format(time.RFC3339), time.Now().UTC().Add(time.Hour).Format(time.RFC3339)
			q := "?currency=EUR&from=" + url.QueryEscape(from) + "&to=" + url.QueryEscape(to)
			res := e.want(200, e.call(http.MethodGet, "/api/ledger/statement"+q, e.p1, "", nil))
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("content type = %q", ct)
			}
			stmt := decode[Statement](t, res)
			b := e.balance(e.p1, e.partner1)
			if stmt.PartnerID != e.partner1 || stmt.Currency != "EUR" || stmt.Opening != (Balance{PartnerID: e.partner1, Currency: "EUR"}) || stmt.Closing != b || len(stmt.Entries) != 4 {
				t.Fatalf("statement = %+v, balance %+v", stmt, b)
			}
			csvRes := e.want(200, e.call(http.MethodGet, "/api/ledger/statement"+q+"&format=csv&partnerId="+e.partner1, e.op, "", nil))
			if ct := csvRes.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
				t.Fatalf("content type = %q", ct)
			}
			if cd := csvRes.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment; filename=") || !strings.Contains(cd, ".csv") {
				t.Fatalf("content disposition = %q", cd)
			}
			rows, err := csv.NewReader(bytes.NewReader(csvRes.Body)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1+4+10 || strings.Join(rows[0], ",") != "createdAt,entryId,movementId,account,kind,amount,currency,sourceType,sourceId" {
				t.Fatalf("csv = %q", rows)
			}
			if rows[1][1] != stmt.Entries[0].ID || rows[1][5] != strconv.FormatInt(stmt.Entries[0].Amount, 10) {
				t.Fatalf("first entry line = %q, want %+v", rows[1], stmt.Entries[0])
			}
			last := rows[len(rows)-1]
			if last[3] != "totalEarned" || last[4] != "closing" || last[5] != strconv.FormatInt(b.TotalEarned, 10) {
				t.Fatalf("last line = %q", last)
			}
			e.problem(e.call(http.MethodGet, "/api/ledger/statement"+q, e.op, "", nil), 422, "PARTNER_REQUIRED")
			e.problem(e.call(http.MethodGet, "/api/ledger/statement"+q+"&partnerId="+e.partner2, e.p1, "", nil), 403, "OTHER_PARTNER")
			e.problem(e.call(http.MethodGet, "/api/ledger/statement?currency=EUR&from="+url.QueryEscape(to)+"&to="+url.QueryEscape(from)+"&partnerId="+e.partner1, e.op, "", nil), 422, "INVALID_PERIOD")
			e.problem(e.call(http.MethodGet, "/api/ledger/statement?partnerId="+e.partner1, e.op, "", nil), 422, "VALIDATION_FAILED")
		})
	})
}

func TestMoneyWithdrawalsOverHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newMoneyEnv(t, st, "money-withdrawals")
		ctx := context.Background()
		const iban, holder, email = "DE89 3704 0044 0532 0130 00", "Alpha Reseller GmbH", "jane.doe@example.com"
		httpSecret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("payout-provider-signing-secret-32"))
		e.want(201, e.call(http.MethodPost, "/api/ledger/adjustments", e.finance, "open-1", map[string]any{"partnerId": e.partner1, "amount": 100_00, "currency": "EUR", "reason": "opening"}))
		e.want(201, e.call(http.MethodPost, "/api/ledger/adjustments", e.finance, "open-2", map[string]any{"partnerId": e.partner2, "amount": 100_00, "currency": "EUR", "reason": "opening"}))

		var bank PayoutMethod
		t.Run("payout methods are sealed and shown masked, to their own partner only", func(t *testing.T) {
			e := e.on(t)
			bank = decode[PayoutMethod](t, e.want(201, e.call(http.MethodPost, "/api/payout-methods", e.p1, "", map[string]any{"kind": "bank", "label": "Main",
				"details": map[string]string{"iban": iban, "bic": "COBADEFFXXX", "accountHolder": holder}})))
			if bank.PartnerID != e.partner1 || bank.Masked != "IBAN ••••3000" || bank.Kind != "bank" || bank.Label != "Main" {
				t.Fatalf("bank = %+v", bank)
			}
			paypal := decode[PayoutMethod](t, e.want(201, e.call(http.MethodPost, "/api/payout-methods", e.op, "", map[string]any{"partnerId": e.partner2, "kind": "paypal",
				"details": map[string]string{"email": email}})))
			if paypal.PartnerID != e.partner2 || paypal.Masked != "PayPal j•••@example.com" {
				t.Fatalf("paypal = %+v", paypal)
			}
			stored, err := e.owner.PayoutMethod(ctx, bank.ID)
			if err != nil {
				t.Fatal(err)
			}
			opened, err := webhookTestKeys.Open(stored.Details, models.SealContext{TenantID: e.tenantID, Table: "payout_methods", RowID: bank.ID, Field: "details"})
			var details map[string]string
			if err != nil || json.Unmarshal([]byte(opened.Reveal()), &details) != nil || details["iban"] != "DE89370400440532013000" || details["accountHolder"] != holder {
				t.Fatalf("the sealed details open to %v, %v", details, err)
			}
			if strings.Contains(string(stored.Details), "3704") {
				t.Fatal("the details are stored in the clear")
			}
			p := e.problem(e.call(http.MethodPost, "/api/payout-methods", e.p1, "", map[string]any{"kind": "bank", "details": map[string]string{"iban": "DE00 3704 0044 0532 0130 00"}}), 422, "INVALID_PAYOUT_DETAILS")
			if strings.Contains(fmt.Sprint(p.Errors), "3704") {
				t.Fatalf("a problem repeats the details: %+v", p.Errors)
			}
			e.problem(e.call(http.MethodPost, "/api/payout-methods", e.p1, "", map[string]any{"kind": "paypal", "details": map[string]string{"iban": iban}}), 422, "INVALID_PAYOUT_DETAILS")
			e.problem(e.call(http.MethodPost, "/api/payout-methods", e.p1, "", map[string]any{"kind": "bank", "details": map[string]string{}}), 422, "VALIDATION_FAILED")
			e.problem(e.call(http.MethodPost, "/api/payout-methods", e.p1, "", map[string]any{"partnerId": e.partner2, "kind": "bank", "details": map[string]string{"iban": iban}}), 403, "OTHER_PARTNER")
			e.problem(e.call(http.MethodPost, "/api/payout-methods", e.op, "", map[string]any{"kind": "bank", "details": map[string]string{"iban": iban}}), 422, "PARTNER_NOT_FOUND")
			e.problem(e.call(http.MethodGet, "/api/payout-methods/"+paypal.ID, e.p1, "", nil), 404, "PAYOUT_METHOD_NOT_FOUND")
			e.problem(e.call(http.MethodDelete, "/api/payout-methods/"+paypal.ID, e.p1, "", nil), 404, "PAYOUT_METHOD_NOT_FOUND")
			mine := decode[ListBody[PayoutMethod]](t, e.want(200, e.call(http.MethodGet, "/api/payout-methods", e.p1, "", nil)))
			if len(mine.Data) != 1 || mine.Data[0].ID != bank.ID {
				t.Fatalf("partner 1's methods = %+v", mine.Data)
			}
			if all := decode[ListBody[PayoutMethod]](t, e.want(200, e.call(http.MethodGet, "/api/payout-methods?partnerId="+e.partner2, e.op, "", nil))); len(all.Data) != 1 || all.Data[0].ID != paypal.ID {
				t.Fatalf("partner 2's methods = %+v", all.Data)
			}
			spare := decode[PayoutMethod](t, e.want(201, e.call(http.MethodPost, "/api/payout-methods", e.p1, "", map[string]any{"kind": "other",
				"details": map[string]string{"wallet": "wallet-0001-9876"}})))
			if spare.Masked != "wallet ••••9876" {
				t.Fatalf("spare = %+v", spare)
			}
			e.want(204, e.call(http.MethodDelete, "/api/payout-methods/"+spare.ID, e.p1, "", nil))
			if mine := decode[ListBody[PayoutMethod]](t, e.want(200, e.call(http.MethodGet, "/api/payout-methods", e.p1, "", nil))); len(mine.Data) != 1 {
				t.Fatalf("a removed method is listed: %+v", mine.Data)
			}
		})

		t.Run("payout settings keep their secret sealed and unseen", func(t *testing.T) {
			e := e.on(t)
			def := decode[PayoutSettings](t, e.want(200, e.call(http.MethodGet, "/api/payout-settings", e.finance, "", nil)))
			if def.Provider != "manual" || def.HTTPSecretSet || def.ConfirmDays != models.DefaultPayoutConfirmDays || len(def.Minimums) != 0 {
				t.Fatalf("default settings = %+v", def)
			}
			e.problem(e.call(http.MethodGet, "/api/payout-settings", e.p1, "", nil), 403, "PERMISSION_DENIED")
			p := e.problem(e.call(http.MethodPut, "/api/payout-settings", e.finance, "", map[string]any{"provider": "http", "httpSecret": "whsec_short",
				"minimums": map[string]int64{"eur": 1, "USD": 0}, "confirmDays": 3}), 422, "INVALID_PAYOUT_SETTINGS")
			if len(p.Errors) != 3 {
				t.Fatalf("errors = %+v", p.Errors)
			}
			for _, minimum := range []int64{-1, models.MaxAmountMinor + 1} {
				p = e.problem(e.call(http.MethodPut, "/api/payout-settings", e.finance, "", map[string]any{"provider": "manual",
					"minimums": map[string]int64{"USD": minimum}, "confirmDays": 3}), 422, "VALIDATION_FAILED")
				if len(p.Errors) != 1 || p.Errors[0].Location != "body.minimums.USD" {
					t.Fatalf("a minimum of %d: errors = %+v", minimum, p.Errors)
				}
			}
			e.problem(e.call(http.MethodPut, "/api/payout-settings", e.finance, "", map[string]any{"provider": "http", "httpUrl": "http://169.254.169.254/latest"}), 422, "INVALID_PAYOUT_SETTINGS")
			e.problem(e.call(http.MethodPut, "/api/payout-settings", e.finance, "", map[string]any{"provider": "http", "httpUrl": "https://payouts.example.com/pay"}), 422, "INVALID_PAYOUT_SETTINGS")
			e.problem(e.call(http.MethodPut, "/api/payout-settings", e.finance, "", map[string]any{"provider": "manual", "confirmDays": 91}), 422, "VALIDATION_FAILED")
			set := decode[PayoutSettings](t, e.want(200, e.call(http.MethodPut, "/api/payout-settings", e.finance, "", map[string]any{"provider": "http",
				"httpUrl": "https://payouts.example.com/pay", "httpSecret": httpSecret, "minimums": map[string]int64{"EUR": 10_00}, "confirmDays": 7})))
			if set.Provider != "http" || !set.HTTPSecretSet || set.Minimums["EUR"] != 10_00 || set.ConfirmDays != 7 {
				t.Fatalf("settings = %+v", set)
			}
			kept := decode[PayoutSettings](t, e.want(200, e.call(http.MethodPut, "/api/payout-settings", e.finance, "", map[string]any{"provider": "manual",
				"minimums": map[string]int64{"EUR": 10_00}})))
			if kept.Provider != "manual" || !kept.HTTPSecretSet || kept.ConfirmDays != models.DefaultPayoutConfirmDays {
				t.Fatalf("settings = %+v", kept)
			}
			stored, err := e.owner.PayoutSettings(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := webhookTestKeys.Open(stored.HTTPSecret, models.SealContext{TenantID: e.tenantID, Table: "payout_settings", RowID: e.tenantID, Field: "http_secret"}); err != nil || got.Reveal() != httpSecret {
				t.Fatalf("the sealed secret opens to %v, %v", got, err)
			}
		})

		request := func(token, key string, amount int64) response {
			return e.call(http.MethodPost, "/api/withdrawals", token, key, map[string]any{"amount": amount, "currency": "EUR", "payoutMethodId": bank.ID})
		}
		t.Run("a withdrawal holds funds once per key and never overdraws", func(t *testing.T) {
			e := e.on(t)
			e.problem(request(e.p1, "", 30_00), 400, CodeIdempotencyKeyRequired)
			first := e.want(201, request(e.p1, "w-1", 30_00))
			w := decode[Withdrawal](t, first)
			if w.Status != "requested" || w.PartnerID != e.partner1 || w.Amount != 30_00 || w.PayoutMethodID != bank.ID {
				t.Fatalf("withdrawal = %+v", w)
			}
			again := e.want(201, request(e.p1, "w-1", 30_00))
			if again.Header.Get(HeaderIdempotentReplayed) != "true" || decode[Withdrawal](t, again).ID != w.ID {
				t.Fatalf("the replay = %s", again.Body)
			}
			e.problem(request(e.p1, "w-1", 31_00), 422, CodeIdempotencyKeyReused)
			if b := e.balance(e.p1, e.partner1); b.Available != 70_00 || b.Held != 30_00 {
				t.Fatalf("balance after the request = %+v", b)
			}
			e.problem(request(e.p1, "w-2", 70_01), 409, "INSUFFICIENT_BALANCE")
			e.problem(request(e.p1, "w-3", 9_99), 422, "BELOW_MINIMUM_WITHDRAWAL")
			e.problem(request(e.p1, "w-4", 0), 422, "VALIDATION_FAILED")
			e.problem(e.call(http.MethodPost, "/api/withdrawals", e.p1, "w-5", map[string]any{"partnerId": e.partner2, "amount": 10_00, "currency": "EUR", "payoutMethodId": bank.ID}), 403, "OTHER_PARTNER")
			e.problem(request(e.p2, "w-6", 10_00), 422, "PAYOUT_METHOD_NOT_FOUND")
			e.problem(e.call(http.MethodGet, "/api/withdrawals/"+w.ID, e.p2, "", nil), 404, "WITHDRAWAL_NOT_FOUND")
			e.problem(e.call(http.MethodPost, "/api/withdrawals/"+w.ID+"/cancel", e.p2, "", nil), 404, "WITHDRAWAL_NOT_FOUND")
			if l := decode[ListBody[Withdrawal]](t, e.want(200, e.call(http.MethodGet, "/api/withdrawals", e.p2, "", nil))); len(l.Data) != 0 {
				t.Fatalf("partner 2 sees %+v", l.Data)
			}
			cancelled := decode[Withdrawal](t, e.want(200, e.call(http.MethodPost, "/api/withdrawals/"+w.ID+"/cancel", e.p1, "", map[string]any{"reason": "changed my mind"})))
			if cancelled.Status != "cancelled" || cancelled.Reason != "changed my mind" {
				t.Fatalf("cancelled = %+v", cancelled)
			}
			e.problem(e.call(http.MethodPost, "/api/withdrawals/"+w.ID+"/cancel", e.p1, "", nil), 409, "ILLEGAL_WITHDRAWAL_TRANSITION")
			if b := e.balance(e.p1, e.partner1); b.Available != 100_00 || b.Held != 0 {
				t.Fatalf("balance after the cancellation = %+v", b)
			}
		})

		t.Run("finance rejects and approves; a manual payout is confirmed through the signaler", func(t *testing.T) {
			e := e.on(t)
			rejected := decode[Withdrawal](t, e.want(201, request(e.p1, "w-10", 40_00)))
			e.problem(e.call(http.MethodPost, "/api/withdrawals/"+rejected.ID+"/reject", e.finance, "", map[string]any{}), 422, "VALIDATION_FAILED")
			e.problem(e.call(http.MethodPost, "/api/withdrawals/"+rejected.ID+"/approve", e.p1, "", nil), 403, "PERMISSION_DENIED")
			if r := decode[Withdrawal](t, e.want(200, e.call(http.MethodPost, "/api/withdrawals/"+rejected.ID+"/reject", e.finance, "", map[string]any{"reason": "wrong account"}))); r.Status != "rejected" || r.ReviewedBy == "" {
				t.Fatalf("rejected = %+v", r)
			}
			approved := decode[Withdrawal](t, e.want(201, request(e.p1, "w-11", 60_00)))
			if a := decode[Withdrawal](t, e.want(200, e.call(http.MethodPost, "/api/withdrawals/"+approved.ID+"/approve", e.finance, "", nil))); a.Status != "approved" || a.Provider != "manual" {
				t.Fatalf("approved = %+v", a)
			}
			got := decode[Withdrawal](t, e.want(200, e.call(http.MethodGet, "/api/withdrawals/"+approved.ID, e.p1, "", nil)))
			if got.Payout == nil || got.Payout.Status != "pending" || got.Payout.Provider != "manual" {
				t.Fatalf("withdrawal with payout = %+v", got)
			}
			if b := e.balance(e.p1, e.partner1); b.Available != 40_00 || b.Held != 60_00 {
				t.Fatalf("balance after the approval = %+v", b)
			}
			if l := decode[ListBody[Withdrawal]](t, e.want(200, e.call(http.MethodGet, "/api/withdrawals?status=approved&currency=EUR", e.op, "", nil))); len(l.Data) != 1 || l.Data[0].ID != approved.ID {
				t.Fatalf("approved withdrawals = %+v", l.Data)
			}

			fake := e.s.deps.Payouts.(*fakePayouts)
			e.problem(e.call(http.MethodPost, "/api/withdrawals/"+approved.ID+"/confirm-payout", e.finance, "", map[string]any{}), 422, "VALIDATION_FAILED")
			e.problem(e.call(http.MethodPost, "/api/withdrawals/"+rejected.ID+"/confirm-payout", e.finance, "", map[string]any{"reference": "REF"}), 409, "PAYOUT_NOT_AWAITING_CONFIRMATION")
			e.problem(e.call(http.MethodPost, "/api/withdrawals/"+approved.ID+"/confirm-payout", e.p1, "", map[string]any{"reference": "REF"}), 403, "PERMISSION_DENIED")
			confirmed := decode[Withdrawal](t, e.want(202, e.call(http.MethodPost, "/api/withdrawals/"+approved.ID+"/confirm-payout", e.finance, "", map[string]any{"reference": "BANK-REF-7"})))
			if confirmed.ID != approved.ID || confirmed.Payout == nil {
				t.Fatalf("confirmed = %+v", confirmed)
			}
			// The decision is recorded once: a later, contradicting one is refused.
			e.problem(e.call(http.MethodPost, "/api/withdrawals/"+approved.ID+"/fail-payout", e.op, "", map[string]any{"reason": "bounced"}), 409, "PAYOUT_NOT_AWAITING_CONFIRMATION")
			calls := fake.recorded()
			want := []payoutCall{{"confirm", e.tenantID, approved.ID, "BANK-REF-7", e.financeID}}
			if !slices.Equal(calls, want) {
				t.Fatalf("signals = %+v, want %+v", calls, want)
			}

			// When the payout cannot be reached, the recorded decision still settles it (at its
			// deadline at the latest), so the answer is still 202.
			second := decode[Withdrawal](t, e.want(201, request(e.p1, "w-12", 10_00)))
			e.want(200, e.call(http.MethodPost, "/api/withdrawals/"+second.ID+"/approve", e.finance, "", nil))
			fake.err = errors.New("the payout service is down")
			e.want(202, e.call(http.MethodPost, "/api/withdrawals/"+second.ID+"/fail-payout", e.finance, "", map[string]any{"reason": "account closed"}))
			e.problem(e.call(http.MethodPost, "/api/withdrawals/"+second.ID+"/confirm-payout", e.finance, "", map[string]any{"reference": "R"}), 409, "PAYOUT_NOT_AWAITING_CONFIRMATION")
			fake.err = nil
			e.s.deps.Payouts = nil
			e.problem(e.call(http.MethodPost, "/api/withdrawals/"+approved.ID+"/confirm-payout", e.finance, "", map[string]any{"reference": "R"}), 503, "PAYOUTS_UNAVAILABLE")
			e.s.deps.Payouts = fake
		})

		t.Run("payout details and secrets appear in no response and no log", func(t *testing.T) {
			e := e.on(t)
			out := e.logs.String()
			if !strings.Contains(out, `"msg":"request"`) {
				t.Fatal("nothing was logged; the test would prove nothing")
			}
			all := strings.Join(*e.bodies, "\n") + out
			for _, secret := range []string{"DE89 3704", "DE893704", "370400440532", "3704 0044 0532", holder, "COBADEFFXXX", email, "jane.doe", httpSecret, "wallet-0001"} {
				if strings.Contains(all, secret) {
					t.Errorf("%q appears in a response or the logs", secret)
				}
			}
		})
	})
}
