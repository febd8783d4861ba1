package desk_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// Shape of the ticket list benchmark: a tenant of benchTickets tickets spread over benchPartners
// partners and the five statuses, every 10th tagged "vip", every 7th about a "printer"; a
// tenant of benchRefTickets tickets of the same shape is the reference in the same run.
const (
	benchTickets    = 100_000
	benchRefTickets = 1_000
	benchPartners   = 20
)

// benchDesk is one seeded tenant: its operator, one partner user's view, and the id of its
// middle ticket (for a page deep in the keyset).
type benchDesk struct {
	tenant, partner, middle string
	op, partnerView         *stores.Scoped
}

// seedTickets creates a tenant with benchPartners partners and n tickets, inserted with one
// INSERT ... SELECT. Ticket ids are time-ordered like the store's and interleave with the other
// tenant's (stride and offset), as tickets of tenants opened over the same months do.
func seedTickets(b *testing.B, st *stores.Set, raw *gorm.DB, slug string, n, stride, offset int) *benchDesk {
	b.Helper()
	ctx := context.Background()
	tenant := &models.Tenant{Slug: slug, Name: slug}
	owner := &models.User{Email: "owner@" + slug + ".test", Name: "Owner", PasswordHash: "x"}
	if err := st.CreateTenant(ctx, tenant, owner); err != nil {
		b.Fatal(err)
	}
	op := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: tenant.ID, UserID: owner.ID})
	partners := make([]string, 0, benchPartners)
	var first string
	for i := range benchPartners {
		p := &models.Partner{Name: fmt.Sprintf("P%d", i), Type: models.PartnerAgency}
		if err := op.CreatePartner(ctx, p); err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			first = p.ID
		}
		partners = append(partners, "'"+p.ID+"'")
	}
	err := raw.Exec(`
INSERT INTO tickets (id, tenant_id, partner_id, subject, priority, status, requester_id, tags, created_by, created_at, updated_at)
SELECT '01930000-0000-7000-8000-' || lpad(to_hex(i::bigint * @stride + @offset), 12, '0'), @tenant,
       (ARRAY[`+strings.Join(partners, ",")+`])[1 + i % 20],
       CASE WHEN i % 7 = 0 THEN 'Printer jammed again #' ELSE 'Question about payout #' END || i,
       (ARRAY['low','normal','high','urgent'])[1 + i % 4],
       (ARRAY['open','pending_partner','pending_operator','resolved','closed'])[1 + (i / 3) % 5],
       @owner,
       CASE WHEN i % 10 = 0 THEN '["vip","billing"]' ELSE '["billing"]' END,
       @owner, now() - make_interval(secs => @n - i), now() - make_interval(secs => @n - i)
FROM generate_series(0, @n - 1) AS i`,
		map[string]any{"tenant": tenant.ID, "owner": owner.ID, "n": n, "stride": stride, "offset": offset}).Error
	if err != nil {
		b.Fatal(err)
	}
	middle := fmt.Sprintf("01930000-0000-7000-8000-%012x", (n/2)*stride+offset)
	pv := st.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: tenant.ID, PartnerID: first, UserID: models.NewID()})
	return &benchDesk{tenant: tenant.ID, partner: first, middle: middle, op: op, partnerView: pv}
}

// BenchmarkTicketListPage pages the ticket list of a 100 000-ticket tenant on Postgres (issue
// 16, point 8: under 50 ms per page) and of a 1 000-ticket tenant as the reference: an
// operator's first page, a page after the middle ticket, pages filtered by status and tag and by
// a search text, and one partner's first page. One op is one page of 20.
func BenchmarkTicketListPage(b *testing.B) {
	st, raw := storetest.BenchPostgres(b)
	ctx := context.Background()
	// Two tenants' tickets interleave in id order: 100 000 at even positions, 1 000 spread over
	// the same range.
	big := seedTickets(b, st, raw, "bigdesk", benchTickets, 2, 0)
	ref := seedTickets(b, st, raw, "refdesk", benchRefTickets, 2*benchTickets/benchRefTickets, 1)
	if err := raw.Exec("VACUUM ANALYZE").Error; err != nil {
		b.Fatal(err)
	}
	var n int64
	raw.Table("tickets").Where("tenant_id = ?", big.tenant).Count(&n)
	if n != benchTickets {
		b.Fatalf("seeded %d tickets, want %d", n, benchTickets)
	}
	const cols = `SELECT * FROM "tickets" WHERE "tickets"."tenant_id" = $1`
	storetest.Explain(b, raw, "operator first page", cols+` ORDER BY id LIMIT 21`, big.tenant)
	storetest.Explain(b, raw, "operator deep page", cols+` AND id > $2 ORDER BY id LIMIT 21`, big.tenant, big.middle)
	storetest.Explain(b, raw, "status + tag", cols+` AND status = $2 AND tags LIKE $3 ESCAPE '\' ORDER BY id LIMIT 21`,
		big.tenant, models.TicketOpen, `%"vip"%`)
	storetest.Explain(b, raw, "search", cols+` AND (LOWER(subject) LIKE $2 ESCAPE '\') ORDER BY id LIMIT 21`, big.tenant, "%printer%")
	storetest.Explain(b, raw, "rare search", cols+` AND (LOWER(subject) LIKE $2 ESCAPE '\') ORDER BY id LIMIT 21`, big.tenant, "%#77777%")
	storetest.Explain(b, raw, "partner first page", cols+` AND partner_id = $2 ORDER BY id LIMIT 21`, big.tenant, big.partner)

	for _, t := range []struct {
		name string
		d    *benchDesk
		rare int
	}{{fmt.Sprint(benchTickets), big, 1}, {fmt.Sprint(benchRefTickets), ref, 0}} {
		for _, c := range []struct {
			name string
			view *stores.Scoped
			f    models.TicketFilter
			pg   models.Page
			want int
		}{
			{"operator-first", t.d.op, models.TicketFilter{}, models.Page{Limit: 20}, 20},
			{"operator-deep", t.d.op, models.TicketFilter{}, models.Page{Limit: 20, After: t.d.middle}, 20},
			{"status-tag", t.d.op, models.TicketFilter{Status: models.TicketOpen, Tag: "vip"}, models.Page{Limit: 20}, 20},
			{"search", t.d.op, models.TicketFilter{Q: "printer"}, models.Page{Limit: 20}, 20},
			// A text only a few tickets hold: every row of the tenant is read.
			{"search-rare", t.d.op, models.TicketFilter{Q: "#77777"}, models.Page{Limit: 20}, t.rare},
			{"partner-first", t.d.partnerView, models.TicketFilter{}, models.Page{Limit: 20}, 20},
		} {
			b.Run(t.name+"/"+c.name, func(b *testing.B) {
				var rows []models.Ticket
				var took storetest.Latencies
				for b.Loop() {
					start := time.Now()
					var err error
					if rows, _, err = c.view.ListTickets(ctx, c.f, c.pg); err != nil {
						b.Fatal(err)
					}
					took.Add(time.Since(start))
				}
				if len(rows) != c.want {
					b.Fatalf("a page of %d tickets, want %d", len(rows), c.want)
				}
				took.Report(b)
			})
		}
	}
}
