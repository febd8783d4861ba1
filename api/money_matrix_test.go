package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

// matrixIBAN is a valid IBAN (the ISO 13616 example) for payout methods of the matrix.
const matrixIBAN = "GB82 WEST 1234 5698 7654 32"

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, p1, p2 *stores.Scoped) {
		ctx := context.Background()
		tenantID := sc.Principal().TenantID
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		newPlan := func(trigger string) string {
			p, err := sc.CreateCommissionPlan(ctx, f.unique("plan"), "", models.PlanDefinition{Trigger: trigger, AmountPath: "amount",
				Calculation: models.PlanCalculation{Kind: models.CalcPercentage, RateBps: 1000}})
			must(err)
			return p.ID
		}
		f.ids["plan"] = newPlan("invoice.paid")
		f.fresh["plan"] = func(string) string { return newPlan("matrix.unused") }
		accrue := func(partnerID string) string {
			ev, err := f.st.EmitEvent(ctx, models.System(tenantID), models.NewEvent{Type: "invoice.paid", PartnerID: &partnerID, Payload: `{"amount":10000,"currency":"EUR"}`})
			must(err)
			res, err := f.st.AccrueCommissions(ctx, models.System(tenantID), ev.ID)
			must(err)
			for _, r := range res {
				if r.PlanID == f.ids["plan"] && r.AccrualID != "" {
					return r.AccrualID
				}
			}
			t.Fatalf("no accrual for the matrix plan: %+v", res)
			return ""
		}
		f.ids["accrual1"] = accrue(f.partner1)
		f.ids["accrual2"] = accrue(f.partner2)
		f.fresh["accrual"] = func(string) string { return accrue(f.partner1) }

		for _, p := range []string{f.partner1, f.partner2} {
			_, err := sc.AdjustBalance(ctx, models.Adjustment{PartnerID: p, Amount: 1_000_000_00, Currency: "EUR", Reason: "matrix", Key: "matrix-" + p})
			must(err)
		}
		method := func(scope *stores.Scoped) string {
			m := &models.PayoutMethod{ID: models.NewID(), Kind: models.PayoutBank, Label: "main", Details: "v1:sealed", Masked: "IBAN ••••5432"}
			must(scope.AddPayoutMethod(ctx, m))
			return m.ID
		}
		f.ids["method1"] = method(p1)
		f.ids["method2"] = method(p2)
		f.fresh["method"] = func(string) string { return method(p1) }
		request := func(scope *stores.Scoped, methodID string) string {
			w, err := scope.RequestWithdrawal(ctx, models.NewWithdrawal{Amount: 1_00, Currency: "EUR", PayoutMethodID: methodID}, "")
			must(err)
			return w.ID
		}
		f.ids["withdrawal1"] = request(p1, f.ids["method1"])
		f.ids["withdrawal2"] = request(p2, f.ids["method2"])
		f.fresh["requested"] = func(string) string { return request(p1, f.ids["method1"]) }
		f.fresh["awaiting"] = func(string) string {
			id := request(p1, f.ids["method1"])
			_, err := sc.ApproveWithdrawal(ctx, id)
			must(err)
			return id
		}
	})

	// fresh aims a consuming call at a new record, and the foreign and anonymous calls at the
	// fixture's record of that kind.
	fresh := func(method, prefix, kind, stable, suffix string, body map[string]any) func(*fixture, string) request {
		return func(f *fixture, role string) request {
			id := f.ids[stable]
			if role != "foreign" && role != "" {
				id = f.fresh[kind](role)
			}
			return request{method, prefix + id + suffix, body}
		}
	}
	on := func(method, prefix, name, suffix string, body map[string]any) func(*fixture, string) request {
		return func(f *fixture, _ string) request { return request{method, prefix + f.ids[name] + suffix, body} }
	}
	other := func(method, prefix, name, suffix string, body map[string]any) func(*fixture) request {
		return func(f *fixture) request { return request{method, prefix + f.ids[name] + suffix, body} }
	}
	planBody := func(rate int) map[string]any {
		return map[string]any{"name": "Matrix plan", "definition": map[string]any{"trigger": "invoice.paid", "amountPath": "amount",
			"holdingDays": 0, "calculation": map[string]any{"kind": "percentage", "rateBps": rate}}}
	}
	const plans, accruals, withdrawals, methods = "/api/commission-plans/", "/api/ledger/accruals/", "/api/withdrawals/", "/api/payout-methods/"
	cases := map[string]matrixCase{
		"list-commission-plans": {call: get("/api/commission-plans?status=active")},
		"create-commission-plan": {call: func(*fixture, string) request {
			return request{http.MethodPost, "/api/commission-plans", planBody(500)}
		}},
		"preview-commissions": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/commission-plans/preview", map[string]any{"type": "invoice.paid",
				"payload": map[string]any{"amount": 12345, "currency": "EUR"}, "partnerId": f.partner1}}
		}},
		"get-commission-plan":           {byID: true, call: on(http.MethodGet, plans, "plan", "", nil)},
		"update-commission-plan":        {byID: true, call: on(http.MethodPut, plans, "plan", "", planBody(1200))},
		"archive-commission-plan":       {byID: true, call: fresh(http.MethodPost, plans, "plan", "plan", "/archive", map[string]any{})},
		"list-commission-plan-versions": {byID: true, call: on(http.MethodGet, plans, "plan", "/versions", nil)},

		"list-accruals": {call: get("/api/ledger/accruals?currency=EUR")},
		"get-accrual": {byID: true, call: on(http.MethodGet, accruals, "accrual1", "", nil),
			otherPartner: other(http.MethodGet, accruals, "accrual2", "", nil)},
		"reverse-accrual":     {byID: true, call: fresh(http.MethodPost, accruals, "accrual", "accrual1", "/reverse", map[string]any{"reason": "matrix"})},
		"list-balances":       {call: get("/api/ledger/balances?currency=EUR")},
		"list-ledger-entries": {call: get("/api/ledger/entries?currency=EUR&account=available")},
		"get-ledger-statement": {byID: true,
			call: func(f *fixture, _ string) request {
				return request{http.MethodGet, "/api/ledger/statement?currency=EUR&partnerId=" + f.partner1, nil}
			},
			otherPartner: func(f *fixture) request {
				return request{http.MethodGet, "/api/ledger/statement?currency=EUR&partnerId=" + f.partner2, nil}
			}},
		"adjust-balance": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/ledger/adjustments", map[string]any{"partnerId": f.partner1, "amount": 100, "currency": "EUR", "reason": "matrix"}}
		}},

		"add-payout-method": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/payout-methods", map[string]any{"partnerId": f.partner1, "kind": "bank", "label": "Matrix",
				"details": map[string]string{"iban": matrixIBAN, "accountHolder": "Partner One"}}}
		}, otherPartner: func(f *fixture) request {
			return request{http.MethodPost, "/api/payout-methods", map[string]any{"partnerId": f.partner2, "kind": "bank",
				"details": map[string]string{"iban": matrixIBAN}}}
		}},
		"list-payout-methods": {call: get("/api/payout-methods")},
		"get-payout-method": {byID: true, call: on(http.MethodGet, methods, "method1", "", nil),
			otherPartner: other(http.MethodGet, methods, "method2", "", nil)},
		"remove-payout-method": {byID: true, call: fresh(http.MethodDelete, methods, "method", "method1", "", nil),
			otherPartner: other(http.MethodDelete, methods, "method2", "", nil)},
		"get-payout-settings": {call: get("/api/payout-settings")},
		"update-payout-settings": {call: func(*fixture, string) request {
			return request{http.MethodPut, "/api/payout-settings", map[string]any{"provider": "manual", "minimums": map[string]int64{"EUR": 0}, "confirmDays": 14}}
		}},

		"request-withdrawal": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/withdrawals", map[string]any{"partnerId": f.partner1, "amount": 1_00, "currency": "EUR", "payoutMethodId": f.ids["method1"]}}
		}, otherPartner: func(f *fixture) request {
			return request{http.MethodPost, "/api/withdrawals", map[string]any{"partnerId": f.partner2, "amount": 1_00, "currency": "EUR", "payoutMethodId": f.ids["method2"]}}
		}},
		"list-withdrawals": {call: get("/api/withdrawals?currency=EUR")},
		"get-withdrawal": {byID: true, call: on(http.MethodGet, withdrawals, "withdrawal1", "", nil),
			otherPartner: other(http.MethodGet, withdrawals, "withdrawal2", "", nil)},
		"cancel-withdrawal": {byID: true, call: fresh(http.MethodPost, withdrawals, "requested", "withdrawal1", "/cancel", map[string]any{"reason": "matrix"}),
			otherPartner: other(http.MethodPost, withdrawals, "withdrawal2", "/cancel", map[string]any{})},
		"approve-withdrawal": {byID: true, call: fresh(http.MethodPost, withdrawals, "requested", "withdrawal1", "/approve", nil)},
		"reject-withdrawal":  {byID: true, call: fresh(http.MethodPost, withdrawals, "requested", "withdrawal1", "/reject", map[string]any{"reason": "matrix"})},
		"confirm-payout":     {byID: true, call: fresh(http.MethodPost, withdrawals, "awaiting", "withdrawal1", "/confirm-payout", map[string]any{"reference": "MATRIX-REF"})},
		"fail-payout":        {byID: true, call: fresh(http.MethodPost, withdrawals, "awaiting", "withdrawal1", "/fail-payout", map[string]any{"reason": "bounced"})},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
