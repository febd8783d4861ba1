package api

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func TestPartnersAreSearchedAndFilteredWithinWhatTheCallerSees(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, _ := identityServer(t, st)
		h := s.Handler()
		_, email := seedTenant(t, st, "acme")
		owner := login(t, h, email, ownerPassword)
		ids := map[string]string{}
		for _, p := range []map[string]any{
			{"name": "Northwind Resellers", "type": "reseller", "level": "gold"},
			{"name": "northwind 50% Agency", "type": "agency", "level": "silver"},
			{"name": "Southwind Brokers", "type": "broker", "level": "gold"},
		} {
			created := decode[Partner](t, do(t, h, http.MethodPost, "/api/partners", jsonBody(t, p), bearer(owner.AccessToken)...))
			ids[created.Name] = created.ID
		}
		if r := do(t, h, http.MethodPatch, "/api/partners/"+ids["Southwind Brokers"], jsonBody(t, map[string]any{"status": "suspended"}), bearer(owner.AccessToken)...); r.Status != http.StatusOK {
			t.Fatalf("suspend = %d %s", r.Status, r.Body)
		}
		list := func(token, query string) []string {
			t.Helper()
			r := do(t, h, http.MethodGet, "/api/partners?"+query, nil, bearer(token)...)
			if r.Status != http.StatusOK {
				t.Fatalf("list ?%s = %d %s", query, r.Status, r.Body)
			}
			var names []string
			for _, p := range decode[ListBody[Partner]](t, r).Data {
				names = append(names, p.Name)
			}
			slices.Sort(names)
			return names
		}
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"q=NORTHWIND", []string{"Northwind Resellers", "northwind 50% Agency"}},
			{"q=" + url.QueryEscape("50%"), []string{"northwind 50% Agency"}},
			{"q=" + url.QueryEscape("%"), []string{"northwind 50% Agency"}},
			{"q=wind&level=gold", []string{"Northwind Resellers", "Southwind Brokers"}},
			{"status=suspended", []string{"Southwind Brokers"}},
			{"q=wind&status=active&level=gold", []string{"Northwind Resellers"}},
			{"q=wind&limit=1", []string{"Northwind Resellers"}},
		} {
			if got := list(owner.AccessToken, c.query); !slices.Equal(got, c.want) {
				t.Errorf("?%s lists %q, want %q", c.query, got, c.want)
			}
		}
		for _, bad := range []string{"q=" + strings.Repeat("x", 201), "status=sleeping"} {
			if p := do(t, h, http.MethodGet, "/api/partners?"+bad, nil, bearer(owner.AccessToken)...).problem(t); p.Status != http.StatusUnprocessableEntity {
				t.Errorf("?%.20s… = %d, want 422", bad, p.Status)
			}
		}
		// A key bound to a partner sees its own organisation only, whatever it searches for.
		key := decode[keyOut](t, do(t, h, http.MethodPost, "/api/apikeys", jsonBody(t, map[string]any{"name": "k", "scopes": []string{"partners:read"}, "partnerId": ids["northwind 50% Agency"]}), bearer(owner.AccessToken)...))
		if got := list(key.Key, "q=northwind"); !slices.Equal(got, []string{"northwind 50% Agency"}) {
			t.Fatalf("a partner-bound key searching lists %q", got)
		}
		if got := list(key.Key, "q=southwind"); got != nil {
			t.Fatalf("a partner-bound key finds another partner: %q", got)
		}
	})
}
