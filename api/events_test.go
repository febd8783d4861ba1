package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// ingestEnv is a tenant with two partners, an operator key that ingests and reads events, a
// key bound to partner one, and the owner's scoped store.
type ingestEnv struct {
	h          http.Handler
	st         *stores.Set
	owner      *stores.Scoped
	tenantID   string
	ownerToken string
	key        string // events:write + events:read + customers:read, unbound
	partnerKey string // events:write + events:read, bound to partner1
	readOnly   string // events:read only
	partner1   string
	partner2   string
}

func newIngestEnv(t testing.TB, st *stores.Set) *ingestEnv {
	t.Helper()
	ctx := context.Background()
	s, _ := identityServer(t, st)
	env := &ingestEnv{h: s.Handler(), st: st}
	var ownerEmail string
	env.tenantID, ownerEmail = seedTenant(t, st, "ingest")
	users, err := st.UsersByEmail(ctx, ownerEmail, "ingest")
	if err != nil || len(users) != 1 {
		t.Fatalf("owner: %v", err)
	}
	env.owner = st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: env.tenantID, UserID: users[0].ID})
	env.ownerToken = login(t, env.h, ownerEmail, ownerPassword).AccessToken
	for _, p := range []*string{&env.partner1, &env.partner2} {
		rec := &models.Partner{Name: "P", Type: models.PartnerAgency}
		if err := env.owner.CreatePartner(ctx, rec); err != nil {
			t.Fatal(err)
		}
		*p = rec.ID
	}
	mint := func(partner string, scopes ...authz.Permission) string { return mintKey(t, env, partner, scopes...) }
	env.key = mint("", authz.EventsWrite, authz.EventsRead, authz.CustomersRead)
	env.partnerKey = mint(env.partner1, authz.EventsWrite, authz.EventsRead)
	env.readOnly = mint("", authz.EventsRead)
	return env
}

func (env *ingestEnv) ingest(t testing.TB, key string, body any) response {
	t.Helper()
	return do(t, env.h, http.MethodPost, "/api/events/ingest", jsonBody(t, body), bearer(key)...)
}

func (env *ingestEnv) countEvents(t *testing.T, eventType string) int {
	t.Helper()
	rows, _, err := env.owner.ListEvents(context.Background(), models.EventFilter{Type: eventType}, models.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

func TestIngestStoresOneEventAndAnswers200(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		res := env.ingest(t, env.key, map[string]any{
			"customerEmail": "Ada@Example.com", "type": "invoice.paid",
			"payload": json.RawMessage(`{"amount": 9007199254740993, "currency": "EUR", "lines": [1, 2]}`),
		})
		if res.Status != http.StatusOK {
			t.Fatalf("ingest = %d %s", res.Status, res.Body)
		}
		got := decode[IngestedEvent](t, res)
		if got.Status != "stored" || got.ID == "" || got.CustomerID == "" {
			t.Fatalf("answer = %+v", got)
		}
		ev, err := env.owner.Event(context.Background(), got.ID)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type != "invoice.paid" || ev.Source != models.EventSourceIngest || str(ev.CustomerID) != got.CustomerID {
			t.Fatalf("stored event = %+v", ev)
		}
		if !strings.Contains(ev.Payload, "9007199254740993") {
			t.Fatalf("a large integer lost digits: %s", ev.Payload)
		}
		c, err := env.owner.Customer(context.Background(), got.CustomerID)
		if err != nil || str(c.Email) != "ada@example.com" || c.PartnerID != nil {
			t.Fatalf("the unknown email did not become one unattributed customer: %+v %v", c, err)
		}
		// The same email again reuses the customer.
		again := decode[IngestedEvent](t, env.ingest(t, env.key, map[string]any{"customerEmail": "ada@example.com", "type": "invoice.paid"}))
		if again.CustomerID != got.CustomerID || again.ID == got.ID {
			t.Fatalf("second event = %+v, first %+v", again, got)
		}
	})
}

func TestIngestIsIdempotentOnEventID(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		body := map[string]any{"customerEmail": "bo@example.com", "type": "seat.added", "eventId": "evt-1", "payload": map[string]any{"n": 1}}
		first := decode[IngestedEvent](t, env.ingest(t, env.key, body))
		second := env.ingest(t, env.key, body)
		if second.Status != http.StatusOK {
			t.Fatalf("duplicate = %d %s", second.Status, second.Body)
		}
		dup := decode[IngestedEvent](t, second)
		if dup.Status != "duplicate" || dup.ID != first.ID {
			t.Fatalf("duplicate answer = %+v, first = %+v", dup, first)
		}
		batch := do(t, env.h, http.MethodPost, "/api/events/batch", jsonBody(t, map[string]any{"events": []any{
			body,
			map[string]any{"customerEmail": "bo@example.com", "type": "seat.added", "eventId": "evt-2"},
			map[string]any{"customerEmail": "bo@example.com", "type": "seat.added", "eventId": "evt-2"},
		}}), bearer(env.key)...)
		out := decode[struct {
			Stored, Duplicates, Rejected int
			Results                      []IngestBatchResult
		}](t, batch)
		if out.Stored != 1 || out.Duplicates != 2 || out.Rejected != 0 {
			t.Fatalf("batch = %s", batch.Body)
		}
		if out.Results[0].ID != first.ID || out.Results[2].ID != out.Results[1].ID {
			t.Fatalf("duplicates do not name the stored events: %s", batch.Body)
		}
		if n := env.countEvents(t, "seat.added"); n != 2 {
			t.Fatalf("%d events stored, want 2", n)
		}
	})
}

func TestIngestRefusesBadInputWithSpecificProblemsAndStoresNothing(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		ctx := context.Background()
		known := &models.Customer{Email: strPtr("known@example.com")}
		if err := env.owner.CreateCustomer(ctx, known); err != nil {
			t.Fatal(err)
		}
		other := &models.Customer{Email: strPtr("other@example.com")}
		if err := env.owner.CreateCustomer(ctx, other); err != nil {
			t.Fatal(err)
		}
		before := env.countEvents(t, "*")
		big := `{"customerEmail":"a@example.com","type":"big.event","payload":{"x":"` + strings.Repeat("x", MaxEventBytes) + `"}}`
		for _, tc := range []struct {
			name        string
			body        string
			contentType string
			status      int
			code        string
		}{
			{"an oversized event is 413", big, "application/json", 413, ""},
			{"a payload that is an array is 422", `{"customerEmail":"a@example.com","type":"a.b","payload":[1]}`, "application/json", 422, ""},
			{"a payload that is a string is 422", `{"customerEmail":"a@example.com","type":"a.b","payload":"x"}`, "application/json", 422, ""},
			{"a missing type is 422", `{"customerEmail":"a@example.com","payload":{}}`, "application/json", 422, ""},
			{"a malformed type is 422", `{"customerEmail":"a@example.com","type":"Not A Type","payload":{}}`, "application/json", 422, ""},
			{"a reserved type is 422", `{"customerEmail":"a@example.com","type":"deal.won","payload":{}}`, "application/json", 422, "RESERVED_EVENT_TYPE"},
			{"no customer is 422", `{"type":"a.b","payload":{}}`, "application/json", 422, "INVALID_EVENT"},
			{"an unknown customer id is 422", `{"customerId":"0193aaaa-0000-7000-8000-000000000000","type":"a.b"}`, "application/json", 422, "CUSTOMER_NOT_FOUND"},
			{"identifiers that disagree are 422", `{"customerId":"` + known.ID + `","customerEmail":"other@example.com","type":"a.b"}`, "application/json", 422, "CUSTOMER_MISMATCH"},
			{"a timestamp two days ahead is 422", `{"customerEmail":"a@example.com","type":"a.b","timestamp":"` + time.Now().Add(48*time.Hour).UTC().Format(time.RFC3339) + `"}`, "application/json", 422, "TIMESTAMP_IN_FUTURE"},
			{"unknown fields are 422", `{"customerEmail":"a@example.com","type":"a.b","partnerId":"x"}`, "application/json", 422, ""},
			{"a body that is not JSON is 400", `{"customerEmail":`, "application/json", 400, ""},
			{"a form body is refused", `customerEmail=a@example.com&type=a.b`, "application/x-www-form-urlencoded", 415, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := do(t, env.h, http.MethodPost, "/api/events/ingest", strings.NewReader(tc.body), "Authorization", "Bearer "+env.key, "Content-Type", tc.contentType)
				if res.Status != tc.status {
					t.Fatalf("status = %d, want %d: %s", res.Status, tc.status, res.Body)
				}
				p := res.problem(t)
				if tc.code != "" && p.Code != tc.code {
					t.Fatalf("code = %s, want %s", p.Code, tc.code)
				}
				if p.RequestID == "" || p.Code == "" {
					t.Fatalf("problem lacks code or request id: %s", res.Body)
				}
			})
		}
		if n := env.countEvents(t, "*"); n != before {
			t.Fatalf("%d events stored by refused requests", n-before)
		}
		rows, _, _ := env.owner.ListCustomers(ctx, models.CustomerFilter{}, models.Page{Limit: 100})
		if len(rows) != 2 {
			t.Fatalf("refused requests created customers: %d customers", len(rows))
		}
	})
}

func TestIngestIsForMachineKeysWithEventsWrite(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		body := map[string]any{"customerEmail": "a@example.com", "type": "a.b"}
		if res := env.ingest(t, env.ownerToken, body); res.Status != http.StatusUnauthorized {
			t.Fatalf("a user access token got %d, want 401", res.Status)
		}
		if res := env.ingest(t, env.readOnly, body); res.Status != http.StatusForbidden {
			t.Fatalf("a key without events:write got %d, want 403", res.Status)
		}
		if res := env.ingest(t, "", body); res.Status != http.StatusUnauthorized {
			t.Fatalf("no key got %d, want 401", res.Status)
		}
	})
}

func TestIngestBatchLimits(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		event := map[string]any{"customerEmail": "a@example.com", "type": "a.b"}
		tooMany := make([]any, MaxBatchEvents+1)
		for i := range tooMany {
			tooMany[i] = event
		}
		res := do(t, env.h, http.MethodPost, "/api/events/batch", jsonBody(t, map[string]any{"events": tooMany}), bearer(env.key)...)
		if res.Status != http.StatusRequestEntityTooLarge || res.problem(t).Code != "BATCH_TOO_LARGE" {
			t.Fatalf("501 events = %d %s", res.Status, res.Body)
		}
		fat := map[string]any{"customerEmail": "a@example.com", "type": "a.b", "payload": map[string]any{"x": strings.Repeat("y", MaxEventBytes)}}
		res = do(t, env.h, http.MethodPost, "/api/events/batch", jsonBody(t, map[string]any{"events": []any{event, fat}}), bearer(env.key)...)
		if res.Status != http.StatusRequestEntityTooLarge || res.problem(t).Code != "EVENT_TOO_LARGE" {
			t.Fatalf("an event over 32 KiB = %d %s", res.Status, res.Body)
		}
		huge := make([]any, 40)
		for i := range huge {
			huge[i] = map[string]any{"customerEmail": "a@example.com", "type": "a.b", "payload": map[string]any{"x": strings.Repeat("z", 30<<10)}}
		}
		res = do(t, env.h, http.MethodPost, "/api/events/batch", jsonBody(t, map[string]any{"events": huge}), bearer(env.key)...)
		if res.Status != http.StatusRequestEntityTooLarge {
			t.Fatalf("a batch over 1 MiB = %d", res.Status)
		}
		if n := env.countEvents(t, "*"); n != 0 {
			t.Fatalf("%d events stored by refused batches", n)
		}
		// A rejected event does not stop the others, and its problem names its index.
		res = do(t, env.h, http.MethodPost, "/api/events/batch", jsonBody(t, map[string]any{"events": []any{
			event, map[string]any{"customerEmail": "a@example.com", "type": "deal.won"}, map[string]any{"customerId": "nope", "type": "a.b"},
		}}), bearer(env.key)...)
		out := decode[struct {
			Stored, Rejected int
			Results          []IngestBatchResult
		}](t, res)
		if out.Stored != 1 || out.Rejected != 2 || out.Results[1].Error.Code != "RESERVED_EVENT_TYPE" ||
			out.Results[2].Error.Code != "CUSTOMER_NOT_FOUND" || out.Results[2].Error.Errors[0].Location != "body.events[2].customerId" {
			t.Fatalf("mixed batch = %s", res.Body)
		}
	})
}

func TestIngestRespectsTheTenantSettingAndPartnerKeys(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		ctx := context.Background()
		// A partner-bound key creates customers attributed to its partner and cannot use others'.
		res := decode[IngestedEvent](t, env.ingest(t, env.partnerKey, map[string]any{"customerEmail": "mine@example.com", "type": "a.b"}))
		c, err := env.owner.Customer(ctx, res.CustomerID)
		if err != nil || str(c.PartnerID) != env.partner1 {
			t.Fatalf("customer of a partner key = %+v %v", c, err)
		}
		p2 := env.partner2
		theirs := &models.Customer{Email: strPtr("theirs@example.com"), PartnerID: &p2}
		if err := env.owner.CreateCustomer(ctx, theirs); err != nil {
			t.Fatal(err)
		}
		for _, body := range []map[string]any{
			{"customerEmail": "theirs@example.com", "type": "a.b"},
			{"customerId": theirs.ID, "type": "a.b"},
		} {
			if r := env.ingest(t, env.partnerKey, body); r.Status != http.StatusUnprocessableEntity || r.problem(t).Code != "CUSTOMER_NOT_FOUND" {
				t.Fatalf("partner key on another partner's customer = %d %s", r.Status, r.Body)
			}
		}
		// Events take the customer's attribution.
		ev := decode[IngestedEvent](t, env.ingest(t, env.key, map[string]any{"customerId": theirs.ID, "type": "a.b"}))
		stored, _ := env.owner.Event(ctx, ev.ID)
		if str(stored.PartnerID) != env.partner2 {
			t.Fatalf("event partner = %q, want the customer's partner", str(stored.PartnerID))
		}
		// With the setting off, unknown emails are refused.
		off := false
		if _, err := env.owner.UpdateTenant(ctx, models.TenantChanges{IngestCreatesCustomers: &off}); err != nil {
			t.Fatal(err)
		}
		r := env.ingest(t, env.key, map[string]any{"customerEmail": "new@example.com", "type": "a.b"})
		if r.Status != http.StatusUnprocessableEntity || r.problem(t).Code != "CUSTOMER_NOT_FOUND" {
			t.Fatalf("unknown email with creation off = %d %s", r.Status, r.Body)
		}
	})
}

func TestEventListFiltersAndPartnerScope(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		ctx := context.Background()
		p1, p2 := env.partner1, env.partner2
		c1 := &models.Customer{Email: strPtr("c1@example.com"), PartnerID: &p1}
		c2 := &models.Customer{Email: strPtr("c2@example.com"), PartnerID: &p2}
		for _, c := range []*models.Customer{c1, c2} {
			if err := env.owner.CreateCustomer(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		past := time.Now().Add(-48 * time.Hour).UTC().Format(time.RFC3339)
		for i, e := range []map[string]any{
			{"customerId": c1.ID, "type": "invoice.paid", "timestamp": past},
			{"customerId": c1.ID, "type": "invoice.refunded"},
			{"customerId": c2.ID, "type": "invoice.paid"},
			{"customerId": c2.ID, "type": "seat_count.changed"},
		} {
			if r := env.ingest(t, env.key, e); r.Status != 200 {
				t.Fatalf("event %d = %d %s", i, r.Status, r.Body)
			}
		}
		list := func(key, query string) []Event {
			r := do(t, env.h, http.MethodGet, "/api/events?"+query, nil, bearer(key)...)
			if r.Status != 200 {
				t.Fatalf("list %s = %d %s", query, r.Status, r.Body)
			}
			return decode[ListBody[Event]](t, r).Data
		}
		for _, tc := range []struct {
			name, query string
			want        int
		}{
			{"an exact type", "type=invoice.paid", 2},
			{"a trailing wildcard", "type=invoice.*", 3},
			{"a leading wildcard", "type=*.changed", 1},
			{"an underscore is not a wildcard", "type=seat_count.*", 1},
			{"a customer", "customerId=" + c1.ID + "&type=invoice.*", 2},
			{"a partner", "partnerId=" + p2 + "&type=invoice.*", 1},
			{"a time range", "type=invoice.*&from=" + time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), 2},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := list(env.key, tc.query); len(got) != tc.want {
					t.Fatalf("%d events, want %d", len(got), tc.want)
				}
			})
		}
		// A partner sees only its own customers' events, whatever it asks for.
		for _, q := range []string{"type=*", "partnerId=" + p2} {
			for _, e := range list(env.partnerKey, q) {
				if e.PartnerID != p1 {
					t.Fatalf("partner key saw an event of partner %q with %s", e.PartnerID, q)
				}
			}
		}
		if r := do(t, env.h, http.MethodGet, "/api/events?type=Bad%20Pattern", nil, bearer(env.key)...); r.Status != 422 {
			t.Fatalf("a malformed pattern = %d", r.Status)
		}
		// Pages of one row walk every event once.
		seen := map[string]bool{}
		cursor := ""
		for range 20 {
			r := do(t, env.h, http.MethodGet, "/api/events?limit=1&cursor="+cursor, nil, bearer(env.key)...)
			page := decode[ListBody[Event]](t, r)
			for _, e := range page.Data {
				if seen[e.ID] {
					t.Fatalf("event %s listed twice", e.ID)
				}
				seen[e.ID] = true
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		if len(seen) < 4 {
			t.Fatalf("paging saw %d events", len(seen))
		}
		// Newest first: pages of one row walk the same events in the reverse order received.
		oldest := list(env.key, "type=invoice.*&limit=100")
		var newest []Event
		cursor = ""
		for range 10 {
			r := do(t, env.h, http.MethodGet, "/api/events?type=invoice.*&order=newest&limit=1&cursor="+cursor, nil, bearer(env.key)...)
			page := decode[ListBody[Event]](t, r)
			newest = append(newest, page.Data...)
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		if len(newest) != len(oldest) || len(oldest) != 3 {
			t.Fatalf("newest first listed %d events, oldest first %d, want 3", len(newest), len(oldest))
		}
		for i := range oldest {
			if newest[i].ID != oldest[len(oldest)-1-i].ID {
				t.Fatalf("newest first, row %d is %s, want %s", i, newest[i].ID, oldest[len(oldest)-1-i].ID)
			}
		}
		for _, e := range list(env.partnerKey, "order=newest") {
			if e.PartnerID != p1 {
				t.Fatalf("partner key saw an event of partner %q newest first", e.PartnerID)
			}
		}
		if r := do(t, env.h, http.MethodGet, "/api/events?order=random", nil, bearer(env.key)...); r.Status != 422 {
			t.Fatalf("an unknown order = %d", r.Status)
		}
	})
}

func TestEventTypesCatalogueHasPayloadSchemas(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		r := do(t, env.h, http.MethodGet, "/api/event-types?limit=100", nil, bearer(env.key)...)
		types := decode[ListBody[struct {
			Name          string         `json:"name"`
			PayloadSchema map[string]any `json:"payloadSchema"`
		}]](t, r).Data
		if len(types) != len(models.EventCatalogue()) {
			t.Fatalf("%d types, want %d", len(types), len(models.EventCatalogue()))
		}
		for _, et := range types {
			props, _ := et.PayloadSchema["properties"].(map[string]any)
			if et.PayloadSchema["type"] != "object" || len(props) == 0 {
				t.Fatalf("type %s has no payload schema: %v", et.Name, et.PayloadSchema)
			}
		}
		// Paging one at a time reaches every type.
		n, cursor := 0, ""
		for {
			page := decode[ListBody[EventTypeInfo]](t, do(t, env.h, http.MethodGet, "/api/event-types?limit=1&cursor="+cursor, nil, bearer(env.key)...))
			n += len(page.Data)
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		if n != len(types) {
			t.Fatalf("paging saw %d types, want %d", n, len(types))
		}
	})
}

func TestCustomersArePartnerScoped(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		env := newIngestEnv(t, st)
		ctx := context.Background()
		p1 := st.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: env.tenantID, UserID: "u", PartnerID: env.partner1})
		mine := &models.Customer{Email: strPtr("mine@example.com")}
		if err := p1.CreateCustomer(ctx, mine); err != nil || str(mine.PartnerID) != env.partner1 {
			t.Fatalf("a partner's customer is attributed to it: %+v %v", mine, err)
		}
		other := env.partner2
		if err := p1.CreateCustomer(ctx, &models.Customer{Email: strPtr("x@example.com"), PartnerID: &other}); models.ErrorKind(err) != models.KindForbidden {
			t.Fatalf("a partner creating for another partner = %v, want forbidden", err)
		}
		theirs := &models.Customer{Email: strPtr("theirs@example.com"), PartnerID: &other}
		if err := env.owner.CreateCustomer(ctx, theirs); err != nil {
			t.Fatal(err)
		}
		if _, err := p1.Customer(ctx, theirs.ID); models.ErrorKind(err) != models.KindNotFound {
			t.Fatalf("a partner reading another's customer = %v, want not found", err)
		}
		rows, _, err := p1.ListCustomers(ctx, models.CustomerFilter{}, models.Page{Limit: 100})
		if err != nil || len(rows) != 1 || rows[0].ID != mine.ID {
			t.Fatalf("partner list = %v %v", rows, err)
		}
		// A search finds by part of the email, case-insensitively, within what the caller sees.
		for _, c := range []struct {
			q    string
			list interface {
				ListCustomers(context.Context, models.CustomerFilter, models.Page) ([]models.Customer, string, error)
			}
			want int
		}{{"THEIRS@", env.owner, 1}, {"theirs@", p1, 0}, {"example.com", p1, 1}, {"%", env.owner, 0}} {
			if found, _, err := c.list.ListCustomers(ctx, models.CustomerFilter{Q: c.q}, models.Page{Limit: 100}); err != nil || len(found) != c.want {
				t.Fatalf("q=%q finds %d, want %d (%v)", c.q, len(found), c.want, err)
			}
		}
		if _, err := p1.UpdateCustomer(ctx, mine.ID, models.CustomerChanges{PartnerID: &other}); models.ErrorKind(err) != models.KindForbidden {
			t.Fatalf("a partner reattributing = %v, want forbidden", err)
		}
		if err := env.owner.CreateCustomer(ctx, &models.Customer{Email: strPtr("MINE@example.com")}); models.ErrorKind(err) != models.KindConflict {
			t.Fatalf("a second customer with the same email = %v, want conflict", err)
		}
		if err := env.owner.CreateCustomer(ctx, &models.Customer{Email: strPtr("n@example.com"), PartnerID: strPtr("nope")}); models.ErrorKind(err) != models.KindInvalid {
			t.Fatalf("an unknown partner = %v, want invalid", err)
		}
		// Operators reattribute; the change is evented and audited.
		c, err := env.owner.UpdateCustomer(ctx, mine.ID, models.CustomerChanges{PartnerID: &other})
		if err != nil || str(c.PartnerID) != other {
			t.Fatalf("reattribute = %+v %v", c, err)
		}
		evs, _, _ := env.owner.ListEvents(ctx, models.EventFilter{Type: models.EventCustomerAttributed}, models.Page{Limit: 10})
		if len(evs) != 1 || str(evs[0].CustomerID) != mine.ID {
			t.Fatalf("attribution events = %+v", evs)
		}
		audit, _, _ := env.owner.ListAudit(ctx, models.AuditFilter{Action: "customer.updated"}, models.Page{Limit: 10})
		if len(audit) != 1 || !strings.Contains(audit[0].ChangedFields, "partnerId") {
			t.Fatalf("audit = %+v", audit)
		}
		// Through HTTP: create, read, delete.
		r := do(t, env.h, http.MethodPost, "/api/customers", jsonBody(t, map[string]any{"email": "http@example.com", "partnerId": env.partner1}), bearer(env.ownerToken)...)
		if r.Status != http.StatusCreated {
			t.Fatalf("create = %d %s", r.Status, r.Body)
		}
		created := decode[Customer](t, r)
		if r := do(t, env.h, http.MethodPost, "/api/customers", jsonBody(t, map[string]any{"name": "nobody"}), bearer(env.ownerToken)...); r.Status != 422 {
			t.Fatalf("a customer without email or external id = %d", r.Status)
		}
		if r := do(t, env.h, http.MethodDelete, "/api/customers/"+created.ID, nil, bearer(env.ownerToken)...); r.Status != http.StatusNoContent {
			t.Fatalf("delete = %d %s", r.Status, r.Body)
		}
		if r := do(t, env.h, http.MethodGet, "/api/customers/"+created.ID, nil, bearer(env.ownerToken)...); r.Status != http.StatusNotFound {
			t.Fatalf("get after delete = %d", r.Status)
		}
	})
}

func strPtr(s string) *string { return &s }

func FuzzIngestBody(f *testing.F) {
	for _, seed := range []string{
		`{"customerEmail":"a@example.com","type":"a.b","payload":{"n":1}}`,
		`{"customerId":"x","type":"a.b"}`,
		`{"customerEmail":"a@example.com","type":"a.b","payload":[]}`,
		`{"customerEmail":"a@example.com","type":"deal.won"}`,
		`{"customerEmail":"a@example.com","type":"a.b","eventId":"1","timestamp":"2999-01-01T00:00:00Z"}`,
		`{"customerEmail":"a@example.com","type":"a.b","payload":{"n":1e400}}`,
		`{"type":"a.b","payload":{"a":{"b":{"c":[null,true,"\u0000"]}}}}`,
		`[]`, `null`, `{`, "", `{"type":"a.b","customerEmail":"a@example.com","payload":{"x":"\ud800"}}`,
	} {
		f.Add(seed)
	}
	st := storetest.Open(f, storetest.Engines(f)[0])
	env := newIngestEnv(f, st)
	f.Fuzz(func(t *testing.T, body string) {
		res := do(t, env.h, http.MethodPost, "/api/events/ingest", strings.NewReader(body), bearer(env.key)...)
		switch res.Status {
		case http.StatusOK:
			got := decode[IngestedEvent](t, res)
			ev, err := env.owner.Event(context.Background(), got.ID)
			if err != nil {
				t.Fatalf("acknowledged event %s is not stored: %v", got.ID, err)
			}
			if !json.Valid([]byte(ev.Payload)) || ev.Payload[0] != '{' {
				t.Fatalf("stored payload is not a JSON object: %q", ev.Payload)
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
			if p := res.problem(t); p.Code == "" {
				t.Fatalf("problem without code: %s", res.Body)
			}
		default:
			t.Fatalf("body %q answered %d: %s", body, res.Status, res.Body)
		}
	})
}
