package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// allowAll grants every permission, so that the partner policy is the only thing that refuses.
type allowAll struct{}

func (allowAll) Allowed(context.Context, *models.Principal, authz.Permission) (bool, error) {
	return true, nil
}
func (allowAll) Permissions(context.Context, *models.Principal) ([]authz.Permission, error) {
	return authz.All(), nil
}
func (allowAll) Invalidate(string) {}

// TestPartnersAreRefusedExactlyTheOperatorOnlyOperations calls every operation as a partner user
// whom the authoriser grants every permission: the operations of the operators-only table answer
// 403 OPERATORS_ONLY, naming what they manage, and no other operation does.
func TestPartnersAreRefusedExactlyTheOperatorOnlyOperations(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, _ := identityServer(t, st)
		f := buildFixture(t, st, s.Handler())
		deps := s.deps
		deps.Authorizer = allowAll{}
		everything, _ := testServer(t, deps)
		h := everything.Handler()
		refused := 0
		for _, op := range liveOperations(t, h) {
			if op.Permission == PublicPermission || !slices.Contains(op.Schemes, SchemeBearer) {
				continue
			}
			r := matrix[op.ID].call(f, authz.RolePartnerAdmin)
			var body io.Reader
			if r.body != nil {
				body = jsonBody(t, r.body)
			}
			res := do(t, h, r.method, r.path, body, append(bearer(f.tokens[authz.RolePartnerAdmin]),
				HeaderIdempotencyKey, fmt.Sprintf("policy-%d", f.seq.Add(1)))...)
			what, operatorsOnly := authz.OperatorsOnly(op.ID)
			got := res.Status == http.StatusForbidden && res.problem(t).Code == "OPERATORS_ONLY"
			switch {
			case operatorsOnly && !got:
				t.Errorf("%s: a partner got %d, want 403 OPERATORS_ONLY: %.200s", op.ID, res.Status, res.Body)
			case operatorsOnly && res.problem(t).Detail != what+" are managed by operators":
				t.Errorf("%s: detail %q does not name %q", op.ID, res.problem(t).Detail, what)
			case !operatorsOnly && got:
				t.Errorf("%s: a partner was refused (%q) but the operators-only table does not list the operation", op.ID, res.problem(t).Detail)
			}
			if got {
				refused++
			}
		}
		if refused == 0 {
			t.Fatal("no operation refused a partner")
		}
	})
}
