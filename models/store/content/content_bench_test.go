package content_test

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

// Shape of the content listing benchmark: a library of benchItems items, of which a tenth are
// visible to all partners, three tenths to level Gold, three tenths to level Silver, and three
// tenths to one named partner each (cycling over benchPartners partners); every 20th has
// expired, every 25th is archived, every 4th is a file (every 8th with no version yet), every
// 5th is tagged "deck". A library of benchRefItems items of the same shape is the reference.
const (
	benchItems    = 50_000
	benchRefItems = 1_000
	benchPartners = 20
)

// benchLibrary is one seeded tenant: its operator, a Gold partner's view, a partner's view at
// a level no item names, and the id of the middle item.
type benchLibrary struct {
	tenant, middle  string
	goldID, plainID string
	op, gold, plain *stores.Scoped
}

// seedLibrary creates a tenant with benchPartners partners (even ones Gold, odd ones Silver,
// the last at level Bronze) and n items with their grants and tags, each table written with one
// INSERT ... SELECT. Item ids are time-ordered like the store's and interleave with the other
// tenant's (stride and offset).
func seedLibrary(b *testing.B, st *stores.Set, raw *gorm.DB, slug string, n, stride, offset int) *benchLibrary {
	b.Helper()
	ctx := context.Background()
	tenant := &models.Tenant{Slug: slug, Name: slug}
	owner := &models.User{Email: "owner@" + slug + ".test", Name: "Owner", PasswordHash: "x"}
	if err := st.CreateTenant(ctx, tenant, owner); err != nil {
		b.Fatal(err)
	}
	op := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: tenant.ID, UserID: owner.ID})
	partners := make([]string, 0, benchPartners)
	for i := range benchPartners {
		level := []string{"Gold", "Silver"}[i%2]
		if i == benchPartners-1 {
			level = "Bronze"
		}
		p := &models.Partner{Name: fmt.Sprintf("P%d", i), Type: models.PartnerAgency, Level: level}
		if err := op.CreatePartner(ctx, p); err != nil {
			b.Fatal(err)
		}
		partners = append(partners, p.ID)
	}
	args := map[string]any{"tenant": tenant.ID, "owner": owner.ID, "n": n, "stride": stride, "offset": offset}
	id := `'01940000-0000-7000-8000-' || lpad(to_hex(i::bigint * @stride + @offset), 12, '0')`
	for _, sql := range []string{`
INSERT INTO content_items (id, tenant_id, kind, title, description, language, url, all_partners, status, current_version_id,
       version_number, file_name, content_type, size, sha256, expires_at, created_by, created_at, updated_at)
SELECT ` + id + `, @tenant,
       CASE WHEN i % 4 = 0 THEN 'file' ELSE 'link' END,
       'Sales deck ' || i, 'About product line ' || (i % 97), 'en',
       CASE WHEN i % 4 = 0 THEN '' ELSE 'https://example.com/' || i END,
       i % 10 = 0,
       CASE WHEN i % 25 = 0 THEN 'archived' ELSE 'active' END,
       CASE WHEN i % 8 = 0 THEN NULL WHEN i % 4 = 0 THEN ` + id + ` END,
       CASE WHEN i % 8 = 4 THEN 1 ELSE 0 END, '', '', 0, '',
       CASE WHEN i % 20 = 7 THEN now() - interval '1 day' END,
       @owner, now() - make_interval(secs => @n - i), now() - make_interval(secs => @n - i)
FROM generate_series(0, @n - 1) AS i`, `
INSERT INTO content_grants (tenant_id, item_id, kind, value)
SELECT @tenant, ` + id + `,
       CASE WHEN i % 10 BETWEEN 1 AND 6 THEN 'level' ELSE 'partner' END,
       CASE WHEN i % 10 BETWEEN 1 AND 3 THEN 'Gold' WHEN i % 10 BETWEEN 4 AND 6 THEN 'Silver'
            ELSE (ARRAY['` + strings.Join(partners, "','") + `'])[1 + i % 20] END
FROM generate_series(0, @n - 1) AS i WHERE i % 10 <> 0`, `
INSERT INTO content_tags (tenant_id, item_id, tag)
SELECT @tenant, ` + id + `, CASE WHEN i % 5 = 0 THEN 'deck' ELSE 'brochure' END
FROM generate_series(0, @n - 1) AS i`} {
		if err := raw.Exec(sql, args).Error; err != nil {
			b.Fatal(err)
		}
	}
	partner := func(i int) *stores.Scoped {
		return st.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: tenant.ID, PartnerID: partners[i], UserID: models.NewID()})
	}
	return &benchLibrary{tenant: tenant.ID, middle: fmt.Sprintf("01940000-0000-7000-8000-%012x", (n/2)*stride+offset),
		op: op, gold: partner(0), plain: partner(benchPartners - 1), goldID: partners[0], plainID: partners[benchPartners-1]}
}

// BenchmarkContentListPage lists what one partner may see among 50 000 items on Postgres
// (issue 17, point 7: under 50 ms per page) and among 1 000 as the reference: a Gold partner's
// first page, a page after the middle item, a tag filter and a search, and the first page of a
// partner whose level no item names (it sees a tenth of the library plus what names it); an
// operator's first page beside them. One op is one page of 20 with its tags.
func BenchmarkContentListPage(b *testing.B) {
	st, raw := storetest.BenchPostgres(b)
	ctx := context.Background()
	big := seedLibrary(b, st, raw, "biglib", benchItems, 2, 0)
	ref := seedLibrary(b, st, raw, "reflib", benchRefItems, 2*benchItems/benchRefItems, 1)
	if err := raw.Exec("VACUUM ANALYZE").Error; err != nil {
		b.Fatal(err)
	}
	var n int64
	raw.Table("content_items").Where("tenant_id = ?", big.tenant).Count(&n)
	if n != benchItems {
		b.Fatalf("seeded %d items, want %d", n, benchItems)
	}
	gold := big.goldID
	const visible = `SELECT * FROM "content_items" WHERE "content_items"."tenant_id" = $1 AND status = 'active'
 AND (expires_at IS NULL OR expires_at > now()) AND (kind = 'link' OR current_version_id IS NOT NULL)
 AND (all_partners = true OR id IN (SELECT item_id FROM content_grants WHERE content_grants.tenant_id = $1 AND kind = 'partner' AND value = $2)
      OR id IN (SELECT item_id FROM content_grants WHERE content_grants.tenant_id = $1 AND kind = 'level' AND value = $3))`
	storetest.Explain(b, raw, "Gold partner first page", visible+` ORDER BY id LIMIT 21`, big.tenant, gold, "Gold")
	storetest.Explain(b, raw, "Gold partner deep page", visible+` AND id > $4 ORDER BY id LIMIT 21`, big.tenant, gold, "Gold", big.middle)
	storetest.Explain(b, raw, "Gold partner tag", visible+` AND id IN (SELECT item_id FROM content_tags WHERE content_tags.tenant_id = $1 AND tag = 'deck') ORDER BY id LIMIT 21`,
		big.tenant, gold, "Gold")
	storetest.Explain(b, raw, "Gold partner search", visible+` AND (LOWER(title) LIKE '%deck 4999%' ESCAPE '\' OR LOWER(description) LIKE '%deck 4999%' ESCAPE '\') ORDER BY id LIMIT 21`,
		big.tenant, gold, "Gold")
	// The same visibility written as a per-item lookup of the item's own grants (its primary
	// key), instead of every grant of the level in every tenant hashed per page.
	const perItem = `SELECT * FROM "content_items" WHERE "content_items"."tenant_id" = $1 AND status = 'active'
 AND (expires_at IS NULL OR expires_at > now()) AND (kind = 'link' OR current_version_id IS NOT NULL)
 AND (all_partners = true OR EXISTS (SELECT 1 FROM content_grants g WHERE g.item_id = content_items.id
      AND ((g.kind = 'partner' AND g.value = $2) OR (g.kind = 'level' AND g.value = $3))))`
	storetest.Explain(b, raw, "Gold partner first page, grants looked up per item", perItem+` ORDER BY id LIMIT 21`, big.tenant, gold, "Gold")
	storetest.Explain(b, raw, "Gold partner deep page, grants looked up per item", perItem+` AND id > $4 ORDER BY id LIMIT 21`, big.tenant, gold, "Gold", big.middle)
	storetest.Explain(b, raw, "Bronze partner first page", visible+` ORDER BY id LIMIT 21`, big.tenant, big.plainID, "Bronze")

	for _, t := range []struct {
		name string
		l    *benchLibrary
	}{{fmt.Sprint(benchItems), big}, {fmt.Sprint(benchRefItems), ref}} {
		for _, c := range []struct {
			name string
			view *stores.Scoped
			f    models.ContentFilter
			pg   models.Page
		}{
			{"gold-first", t.l.gold, models.ContentFilter{}, models.Page{Limit: 20}},
			{"gold-deep", t.l.gold, models.ContentFilter{}, models.Page{Limit: 20, After: t.l.middle}},
			{"gold-tag", t.l.gold, models.ContentFilter{Tag: "deck"}, models.Page{Limit: 20}},
			// Titles "Sales deck 4999x": a handful of items, every visible row is read.
			{"gold-search", t.l.gold, models.ContentFilter{Query: "deck 4999"}, models.Page{Limit: 20}},
			{"bronze-first", t.l.plain, models.ContentFilter{}, models.Page{Limit: 20}},
			{"operator-first", t.l.op, models.ContentFilter{}, models.Page{Limit: 20}},
		} {
			b.Run(t.name+"/"+c.name, func(b *testing.B) {
				var items []models.ContentItem
				var took storetest.Latencies
				for b.Loop() {
					start := time.Now()
					var err error
					if items, _, err = c.view.ListContentItems(ctx, c.f, c.pg); err != nil {
						b.Fatal(err)
					}
					took.Add(time.Since(start))
				}
				if len(items) == 0 && c.f.Query == "" {
					b.Fatal("an empty page")
				}
				b.ReportMetric(float64(len(items)), "items/page")
				took.Report(b)
			})
		}
		// The per-item form above as one statement (no tags), for comparison.
		b.Run(t.name+"/gold-first-per-item-sql", func(b *testing.B) {
			var took storetest.Latencies
			var items []models.ContentItem
			for b.Loop() {
				start := time.Now()
				if err := raw.Raw(perItem+` ORDER BY id LIMIT 21`, t.l.tenant, t.l.goldID, "Gold").Scan(&items).Error; err != nil {
					b.Fatal(err)
				}
				took.Add(time.Since(start))
			}
			b.ReportMetric(float64(len(items)), "items/page")
			took.Report(b)
		})
	}
}
