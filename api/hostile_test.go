package api

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// maxHostileAnswer is the largest answer to a hostile request.
const maxHostileAnswer = 64 << 10

// hostileOperation is one operation of the live document with its parameters.
type hostileOperation struct {
	ID, Method, Path, Permission string
	Schemes                      []string
	Params                       []struct{ Name, In string }
	// HasBody is set when the operation reads a JSON body; others never parse one (a file's bytes
	// are the file, NUL or not).
	HasBody bool
}

func hostileOperations(t *testing.T, h http.Handler) []hostileOperation {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string                `json:"operationId"`
			Permission  string                `json:"x-permission"`
			Security    []map[string][]string `json:"security"`
			Parameters  []struct{ Name, In string }
			RequestBody *struct {
				Content map[string]any `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(do(t, h, http.MethodGet, "/openapi.json", nil).Body, &doc); err != nil {
		t.Fatal(err)
	}
	var ops []hostileOperation
	for path, methods := range doc.Paths {
		for method, op := range methods {
			o := hostileOperation{ID: op.OperationID, Method: strings.ToUpper(method), Path: path, Permission: op.Permission, Params: op.Parameters, HasBody: op.RequestBody != nil && op.RequestBody.Content["application/json"] != nil}
			for _, req := range op.Security {
				for scheme := range req {
					o.Schemes = append(o.Schemes, scheme)
				}
			}
			ops = append(ops, o)
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].ID < ops[j].ID })
	return ops
}

// hostileVariant is a request that breaks one rule, with the status both databases must give.
type hostileVariant struct {
	name   string
	req    request
	raw    []byte // the body, when the variant sends its own bytes
	header []string
	want   int
}

// credentialFor picks a caller allowed to call op: a built-in role holding its permission, or
// a machine key with it.
func credentialFor(f *fixture, op hostileOperation) (role, credential string) {
	if op.Permission == PublicPermission {
		return "", ""
	}
	perm := authz.Permission(op.Permission)
	if slices.Contains(op.Schemes, SchemeBearer) {
		for _, r := range authz.BuiltinRoles() {
			if slices.Contains(r.Permissions, perm) {
				return r.Name, f.tokens[r.Name]
			}
		}
	}
	return "key", f.keyFor[perm]
}

// stringLeaves lists the paths to every string in v (object keys and array indexes).
func stringLeaves(v any, path []any, out *[][]any) {
	switch x := v.(type) {
	case string:
		*out = append(*out, slices.Clone(path))
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			stringLeaves(x[k], append(path, k), out)
		}
	case []any:
		for i, e := range x {
			stringLeaves(e, append(path, i), out)
		}
	}
}

// withLeaf returns a copy of v with the string at path replaced by s.
func withLeaf(v any, path []any, s string) any {
	if len(path) == 0 {
		return s
	}
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = e
		}
		k := path[0].(string)
		c[k] = withLeaf(x[k], path[1:], s)
		return c
	case []any:
		c := slices.Clone(x)
		i := path[0].(int)
		c[i] = withLeaf(x[i], path[1:], s)
		return c
	}
	return v
}

// hostileVariants breaks the text rules in each path parameter, each query parameter and
// each string of the body of a valid request, one at a time.
func hostileVariants(t *testing.T, op hostileOperation, valid request) []hostileVariant {
	var out []hostileVariant
	pathOnly, query, _ := strings.Cut(valid.path, "?")
	segments := strings.Split(pathOnly, "/")
	template := strings.Split(op.Path, "/")
	for i, seg := range template {
		if !strings.HasPrefix(seg, "{") || i >= len(segments) {
			continue
		}
		for name, bad := range map[string]string{"NUL": "a%00b", "invalid UTF-8": "a%FFb", "a bidi override": "a%E2%80%AEb"} {
			broken := slices.Clone(segments)
			broken[i] = bad
			out = append(out, hostileVariant{name: fmt.Sprintf("%s in path %s", name, seg),
				req: request{valid.method, strings.Join(broken, "/") + querySuffix(query), valid.body}, want: http.StatusUnprocessableEntity})
		}
	}
	for _, p := range op.Params {
		if p.In != "query" {
			continue
		}
		q, _ := url.ParseQuery(query)
		q.Set(p.Name, "a\x00b")
		out = append(out, hostileVariant{name: "NUL in query " + p.Name,
			req: request{valid.method, pathOnly + "?" + q.Encode(), valid.body}, want: http.StatusUnprocessableEntity})
	}
	if valid.body != nil && op.HasBody {
		b, err := json.Marshal(valid.body)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		var leaves [][]any
		stringLeaves(v, nil, &leaves)
		for _, leaf := range leaves {
			out = append(out, hostileVariant{name: fmt.Sprintf("NUL in body %v", leaf),
				req: request{valid.method, valid.path, withLeaf(v, leaf, "a\x00b")}, want: http.StatusUnprocessableEntity})
		}
		if m, ok := v.(map[string]any); ok {
			withKey := make(map[string]any, len(m)+1)
			for k, e := range m {
				withKey[k] = e
			}
			withKey["a\x00b"] = "x"
			out = append(out, hostileVariant{name: "NUL in a body key", req: request{valid.method, valid.path, withKey}, want: http.StatusUnprocessableEntity})
		}
	}
	return out
}

func querySuffix(q string) string {
	if q == "" {
		return ""
	}
	return "?" + q
}

// engineAnswers remembers each case's status on the first engine, to compare the next.
type engineAnswers map[string]int

func (a engineAnswers) same(t *testing.T, name string, status int) {
	t.Helper()
	if prev, ok := a[name]; ok && prev != status {
		t.Errorf("%s: %d on the first database, %d on this one", name, prev, status)
	}
	a[name] = status
}

func sendHostile(t *testing.T, h http.Handler, f *fixture, v hostileVariant, credential string) response {
	t.Helper()
	var body io.Reader
	switch {
	case v.raw != nil:
		body = strings.NewReader(string(v.raw))
	case v.req.body != nil:
		body = jsonBody(t, v.req.body)
	}
	headers := []string{HeaderIdempotencyKey, fmt.Sprintf("hostile-%d", f.seq.Add(1))}
	headers = append(headers, v.header...)
	if credential != "" {
		headers = append(headers, bearer(credential)...)
	}
	return do(t, h, v.req.method, v.req.path, body, headers...)
}

func TestEveryOperationRefusesBrokenTextWithTheSame4xxOnBothDatabases(t *testing.T) {
	answers := engineAnswers{}
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, _ := identityServer(t, st)
		h := s.Handler()
		f := buildFixture(t, st, h)
		sent := 0
		for _, op := range hostileOperations(t, h) {
			c, ok := matrix[op.ID]
			if !ok {
				t.Errorf("operation %s has no valid request to break", op.ID)
				continue
			}
			role, credential := credentialFor(f, op)
			valid := c.call(f, role)
			variants := hostileVariants(t, op, valid)
			if slices.ContainsFunc(op.Params, func(p struct{ Name, In string }) bool { return p.Name == HeaderIdempotencyKey }) {
				variants = append(variants, hostileVariant{name: "NUL in the Idempotency-Key", req: valid,
					header: []string{HeaderIdempotencyKey, "key\x00"}, want: http.StatusBadRequest})
			}
			for _, v := range variants {
				res := sendHostile(t, h, f, v, credential)
				sent++
				name := op.ID + ": " + v.name
				if res.Status != v.want {
					t.Errorf("%s = %d, want %d: %.300s", name, res.Status, v.want, res.Body)
				}
				if len(res.Body) > maxHostileAnswer {
					t.Errorf("%s answered %d bytes", name, len(res.Body))
				}
				answers.same(t, name, res.Status)
			}
		}
		if sent < 300 {
			t.Fatalf("only %d hostile requests were sent", sent)
		}
		t.Logf("%d hostile requests", sent)
	})
}

func TestHostileSizesAmountsAndNestingAreRefusedSmallOnBothDatabases(t *testing.T) {
	answers := engineAnswers{}
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		s, _ := identityServer(t, st)
		h := s.Handler()
		f := buildFixture(t, st, h)
		owner := f.tokens[authz.RoleOwner]
		equal := func(n int, item string) []string {
			out := make([]string, n)
			for i := range out {
				out[i] = item
			}
			return out
		}
		long := strings.Repeat("x", 100_000)
		maxInt := int64(math.MaxInt64)
		plan := func(calc map[string]any, conditions map[string]any) map[string]any {
			return map[string]any{"name": "Hostile", "definition": map[string]any{"trigger": "invoice.paid", "amountPath": "amount",
				"currency": "EUR", "holdingDays": 0, "calculation": calc, "conditions": conditions}}
		}
		nested := any("deep")
		for range MaxJSONDepth {
			nested = map[string]any{"a": nested}
		}
		cases := []struct {
			name       string
			credential string
			method     string
			path       string
			body       any
			want       int
			location   string // of the first field problem, when one is expected
		}{
			{"3 000 equal scopes", owner, http.MethodPost, "/api/apikeys", map[string]any{"name": "k", "scopes": equal(3000, "profile:read")}, 422, "body.scopes"},
			{"64 equal scopes", owner, http.MethodPost, "/api/apikeys", map[string]any{"name": "k", "scopes": equal(64, "profile:read")}, 422, "body.scopes"},
			{"10 000 equal permissions", owner, http.MethodPost, "/api/roles", map[string]any{"name": "hostile", "audience": "operator", "permissions": equal(10_000, "profile:read")}, 422, "body.permissions"},
			{"10 000 equal roles", owner, http.MethodPost, "/api/users", map[string]any{"email": f.unique("hostile"), "name": "H", "roles": equal(10_000, "analyst")}, 422, "body.roles"},
			{"a deal of 2^63-1", owner, http.MethodPost, "/api/deals", map[string]any{"partnerId": f.partner1, "customerCompany": "Big", "amountMinor": maxInt, "currency": "EUR"}, 422, "body.amountMinor"},
			{"a deal of 2^53+1", owner, http.MethodPost, "/api/deals", map[string]any{"partnerId": f.partner1, "customerCompany": "Big", "amountMinor": int64(1<<53 + 1), "currency": "EUR"}, 422, "body.amountMinor"},
			{"a flat commission of 2^63-1", owner, http.MethodPost, "/api/commission-plans", plan(map[string]any{"kind": "flat", "flatAmount": maxInt}, nil), 422, "body.definition.calculation.flatAmount"},
			{"a tier volume of 2^63-1", owner, http.MethodPost, "/api/commission-plans", plan(map[string]any{"kind": "tiered", "tierPeriod": "month",
				"tiers": []any{map[string]any{"fromVolume": 0, "rateBps": 100}, map[string]any{"fromVolume": maxInt, "rateBps": 200}}}, nil), 422, "body.definition.calculation.tiers[1].fromVolume"},
			{"a minimum source amount of -2^63", owner, http.MethodPost, "/api/commission-plans", plan(map[string]any{"kind": "flat", "flatAmount": 100}, map[string]any{"minAmount": int64(math.MinInt64)}), 422, "body.definition.conditions.minAmount"},
			{"an adjustment of 2^63-1", owner, http.MethodPost, "/api/ledger/adjustments", map[string]any{"partnerId": f.partner1, "amount": maxInt, "currency": "EUR", "reason": "x"}, 422, "body.amount"},
			{"a level volume of 2^63-1", owner, http.MethodPost, "/api/levels", map[string]any{"name": "Huge", "rank": 9, "requirements": map[string]any{"minWonAmountMinor": maxInt, "currency": "EUR"}}, 422, "body.requirements.minWonAmountMinor"},
			{"a 100 kB auto-approve domain", owner, http.MethodPut, "/api/application-form", map[string]any{"questions": []any{}, "reapplyAfterDays": 30, "autoApproveDomains": []string{long}}, 422, "body.autoApproveDomains[0]"},
			{"a 100 kB dashboard level", owner, http.MethodPost, "/api/dashboards", map[string]any{"name": "D", "levels": []string{long}, "widgets": []any{}}, 422, "body.levels[0]"},
			{"a 100 kB plan condition", owner, http.MethodPost, "/api/commission-plans", plan(map[string]any{"kind": "flat", "flatAmount": 100}, map[string]any{"partnerLevels": []string{long}}), 422, "body.definition.conditions.partnerLevels[0]"},
			{"a 100 kB partner name", owner, http.MethodPost, "/api/partners", map[string]any{"name": long, "type": "agency"}, 422, "body.name"},
			{"a bidi override in a partner name", owner, http.MethodPost, "/api/partners", map[string]any{"name": "Acme\u202egnp.exe", "type": "agency"}, 422, "body.name"},
			{"a NUL in a partner name", owner, http.MethodPost, "/api/partners", map[string]any{"name": "Acme\x00", "type": "agency"}, 422, "body.name"},
			{"a partner name with a tab and a line break stays valid", owner, http.MethodPost, "/api/partners", map[string]any{"name": "Acme\tWest\nGmbH", "type": "agency"}, 201, ""},
			{"a payload nested 33 deep", f.keyFor[authz.EventsWrite], http.MethodPost, "/api/events/ingest", map[string]any{"customerEmail": "deep@example.com", "type": "feature.used", "payload": nested}, 422, "body.payload" + strings.Repeat(".a", MaxJSONDepth-1)},
			{"a NUL deep in a payload", f.keyFor[authz.EventsWrite], http.MethodPost, "/api/events/ingest", map[string]any{"customerEmail": "nul@example.com", "type": "feature.used", "payload": map[string]any{"a": []any{map[string]any{"b": "x\x00"}}}}, 422, "body.payload.a[0].b"},
			{"a NUL in an event of a batch", f.keyFor[authz.EventsWrite], http.MethodPost, "/api/events/batch", map[string]any{"events": []any{map[string]any{"customerEmail": "nul@example.com", "type": "feature.used", "payload": map[string]any{"k\x00": 1}}}}, 422, "body.events[0].payload"},
			{"501 events", f.keyFor[authz.EventsWrite], http.MethodPost, "/api/events/batch", map[string]any{"events": slices.Repeat([]any{map[string]any{"customerEmail": "a@example.com", "type": "a.b"}}, MaxBatchEvents+1)}, 413, ""},
			{"a NUL in a bearer token", "a\x00b", http.MethodGet, "/api/partners", nil, 401, ""},
			{"a NUL in a machine key", "pd_live_" + strings.Repeat("a", 29) + "\x00abcdef", http.MethodGet, "/api/partners", nil, 401, ""},
			{"a NUL in a path id", owner, http.MethodGet, "/api/partners/a%00b", nil, 422, "path.id"},
			{"an id longer than any id", owner, http.MethodGet, "/api/partners/" + strings.Repeat("a", 37), nil, 422, "path.id"},
			{"a path of 200 kB", owner, http.MethodGet, "/api/partners/" + strings.Repeat("a", 200_000), nil, 422, "path.id"},
			{"an unknown route of 200 kB", owner, http.MethodGet, "/api/" + strings.Repeat("a", 200_000), nil, 404, ""},
			{"an unknown well-formed id", owner, http.MethodGet, "/api/partners/" + models.NewID(), nil, 404, ""},
			{"a NUL in a query filter", owner, http.MethodGet, "/api/partners?cursor=a%00b", nil, 422, "query.cursor"},
		}
		for _, c := range cases {
			var body io.Reader
			if c.body != nil {
				body = jsonBody(t, c.body)
			}
			start := time.Now()
			res := do(t, h, c.method, c.path, body, append(bearer(c.credential), HeaderIdempotencyKey, fmt.Sprintf("hostile-%d", f.seq.Add(1)))...)
			took := time.Since(start)
			if res.Status != c.want {
				t.Errorf("%s = %d, want %d: %.400s", c.name, res.Status, c.want, res.Body)
				continue
			}
			if len(res.Body) > maxHostileAnswer {
				t.Errorf("%s answered %d bytes", c.name, len(res.Body))
			}
			if took > 2*time.Second {
				t.Errorf("%s took %v", c.name, took)
			}
			if c.location != "" {
				p := res.problem(t)
				if len(p.Errors) == 0 || p.Errors[0].Location != c.location || len(p.Errors) > MaxProblemErrors+1 {
					t.Errorf("%s: problems %+v, want the first at %s", c.name, p.Errors, c.location)
				}
			}
			answers.same(t, c.name, res.Status)
		}
	})
}

// BenchmarkRejectedRequests measures hostile requests refused at the edge beside valid small
// ones, through the whole HTTP stack with an authenticated owner on the embedded database.
func BenchmarkRejectedRequests(b *testing.B) {
	st := storetest.Open(b, storetest.Engines(b)[0])
	s, _ := identityServer(b, st)
	h := s.Handler()
	_, email := seedTenant(b, st, "bench")
	auth := bearer(login(b, h, email, ownerPassword).AccessToken)
	equal := func(n int, item string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = item
		}
		return out
	}
	body := func(v any) string {
		raw, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		return string(raw)
	}
	seq := 0
	for _, c := range []struct {
		name, method, path string
		body               func() string
		want               int
	}{
		{"rejected/10000 equal permissions", http.MethodPost, "/api/roles", func() string {
			return body(map[string]any{"name": "bench", "audience": "operator", "permissions": equal(10_000, "profile:read")})
		}, 422},
		{"rejected/3000 equal scopes", http.MethodPost, "/api/apikeys", func() string {
			return body(map[string]any{"name": "bench", "scopes": equal(3000, "profile:read")})
		}, 422},
		{"rejected/64 equal scopes", http.MethodPost, "/api/apikeys", func() string {
			return body(map[string]any{"name": "bench", "scopes": equal(64, "profile:read")})
		}, 422},
		{"rejected/NUL in a partner name", http.MethodPost, "/api/partners", func() string {
			return body(map[string]any{"name": "Acme\x00", "type": "agency"})
		}, 422},
		{"valid/create a partner", http.MethodPost, "/api/partners", func() string {
			seq++
			return body(map[string]any{"name": fmt.Sprintf("Acme %d", seq), "type": "agency"})
		}, 201},
		{"valid/list partners", http.MethodGet, "/api/partners", nil, 200},
	} {
		b.Run(c.name, func(b *testing.B) {
			fixed := ""
			if c.body != nil && !strings.HasPrefix(c.name, "valid/create") {
				fixed = c.body()
			}
			b.ReportAllocs()
			for b.Loop() {
				var r io.Reader
				switch {
				case fixed != "":
					r = strings.NewReader(fixed)
				case c.body != nil:
					r = strings.NewReader(c.body())
				}
				if res := do(b, h, c.method, c.path, r, auth...); res.Status != c.want {
					b.Fatalf("%s = %d: %.300s", c.name, res.Status, res.Body)
				}
			}
		})
	}
}
