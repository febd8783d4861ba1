package content_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

func code(err error) string { return storetest.Code(err) }

// library is a tenant with three partners: A and B at level gold, C at silver.
type library struct {
	*storetest.Partners
	C        *stores.Scoped
	PartnerC string
}

func newLibrary(t *testing.T, s *stores.Set) *library {
	e := storetest.NewPartners(t, s)
	p := &models.Partner{Name: "Gamma Agency", Type: "agency", Level: "silver", Status: "active"}
	if err := e.Op.CreatePartner(e.Ctx, p); err != nil {
		t.Fatal(err)
	}
	c := s.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: e.TenantID, UserID: models.NewID(), PartnerID: p.ID})
	return &library{Partners: e, C: c, PartnerC: p.ID}
}

func upload(t *testing.T, sc *stores.Scoped, id, name string) *models.ContentVersion {
	t.Helper()
	v, err := sc.AddContentVersion(context.Background(), id, models.ContentUpload{BlobKey: "content/" + models.NewID(), FileName: name,
		ContentType: "application/pdf", Size: 42, SHA256: "ab"})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func ids(items []models.ContentItem) map[string]bool {
	out := map[string]bool{}
	for _, it := range items {
		out[it.ID] = true
	}
	return out
}

func TestPartnersSeeOnlyTheItemsVisibleToThem(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newLibrary(t, s)
		ctx := e.Ctx
		folder, err := e.Op.CreateContentFolder(ctx, "Sales decks")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.CreateContentFolder(ctx, " Sales decks "); code(err) != "FOLDER_EXISTS" {
			t.Fatalf("a second folder of the same name: %v", err)
		}
		gold, err := e.Op.CreateContentItem(ctx, models.NewContentItem{Kind: models.ContentFile, Title: "Gold pricing 100%_off",
			FolderID: folder.ID, Language: "en", Tags: []string{"Pricing", "pricing", "deck"},
			Visibility: models.ContentVisibility{Levels: []string{"gold"}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(gold.Tags) != 2 {
			t.Fatalf("tags are not normalised: %v", gold.Tags)
		}
		named, err := e.Op.CreateContentItem(ctx, models.NewContentItem{Kind: models.ContentLink, Title: "For Gamma", URL: "https://example.com/g",
			Language: "de", Visibility: models.ContentVisibility{PartnerIDs: []string{e.PartnerC}}})
		if err != nil {
			t.Fatal(err)
		}
		all, err := e.Op.CreateContentItem(ctx, models.NewContentItem{Kind: models.ContentLink, Title: "Brand book", Description: "Logos",
			URL: "https://example.com/brand", Visibility: models.ContentVisibility{AllPartners: true}})
		if err != nil {
			t.Fatal(err)
		}
		expired := time.Now().Add(-time.Hour)
		old, err := e.Op.CreateContentItem(ctx, models.NewContentItem{Kind: models.ContentLink, Title: "Old", URL: "https://example.com/old",
			ExpiresAt: &expired, Visibility: models.ContentVisibility{AllPartners: true}})
		if err != nil {
			t.Fatal(err)
		}

		// A file item without a file is not shown to partners yet.
		list := func(sc *stores.Scoped, f models.ContentFilter) map[string]bool {
			t.Helper()
			items, _, err := sc.ListContentItems(ctx, f, models.Page{})
			if err != nil {
				t.Fatal(err)
			}
			return ids(items)
		}
		if got := list(e.A, models.ContentFilter{}); got[gold.ID] || !got[all.ID] || got[named.ID] || got[old.ID] {
			t.Fatalf("partner A before the upload sees %v", got)
		}
		v1 := upload(t, e.Op, gold.ID, "../../etc/pricing.pdf")
		if v1.Number != 1 || v1.FileName != "pricing.pdf" {
			t.Fatalf("first version = %+v", v1)
		}
		if got := list(e.A, models.ContentFilter{}); !got[gold.ID] || !got[all.ID] || got[named.ID] || len(got) != 2 {
			t.Fatalf("gold partner A sees %v", got)
		}
		if got := list(e.C, models.ContentFilter{}); got[gold.ID] || !got[named.ID] || !got[all.ID] || len(got) != 2 {
			t.Fatalf("silver partner C sees %v", got)
		}
		if got := list(e.Op, models.ContentFilter{}); len(got) != 4 {
			t.Fatalf("the operator sees %d items", len(got))
		}
		// Another partner's item is not found, whatever the route.
		if _, err := e.C.ContentItem(ctx, gold.ID); code(err) != "CONTENT_NOT_FOUND" {
			t.Fatalf("C reads the gold item: %v", err)
		}
		if _, _, err := e.C.ContentDownload(ctx, gold.ID, ""); code(err) != "CONTENT_NOT_FOUND" {
			t.Fatalf("C downloads the gold item: %v", err)
		}
		if _, _, err := e.C.ListContentVersions(ctx, gold.ID, models.Page{}); code(err) != "CONTENT_NOT_FOUND" {
			t.Fatalf("C lists the gold item's versions: %v", err)
		}
		if _, err := e.A.ContentItem(ctx, old.ID); code(err) != "CONTENT_NOT_FOUND" {
			t.Fatalf("A reads an expired item: %v", err)
		}
		// Partners do not learn who else sees an item.
		if it, err := e.A.ContentItem(ctx, gold.ID); err != nil || len(it.Levels) != 0 || len(it.Tags) != 2 {
			t.Fatalf("A's view of the gold item = %+v, %v", it, err)
		}
		if it, err := e.Op.ContentItem(ctx, gold.ID); err != nil || len(it.Levels) != 1 || it.Levels[0] != "gold" {
			t.Fatalf("the operator's view of the gold item = %+v, %v", it, err)
		}

		// Filters: folder, tag, language, text (LIKE wildcards are literal).
		for name, c := range map[string]struct {
			f    models.ContentFilter
			want []string
		}{
			"by folder":             {models.ContentFilter{FolderID: folder.ID}, []string{gold.ID}},
			"by tag":                {models.ContentFilter{Tag: "Deck"}, []string{gold.ID}},
			"by language":           {models.ContentFilter{Language: "de"}, []string{named.ID}},
			"by text in title":      {models.ContentFilter{Query: "100%_OFF"}, []string{gold.ID}},
			"by text in desc":       {models.ContentFilter{Query: "logos"}, []string{all.ID}},
			"wildcards are literal": {models.ContentFilter{Query: "%"}, []string{gold.ID}},
			"nothing matches":       {models.ContentFilter{Query: "_x_"}, nil},
		} {
			got := list(e.Op, c.f)
			if len(got) != len(c.want) {
				t.Errorf("%s: got %v, want %v", name, got, c.want)
			}
			for _, id := range c.want {
				if !got[id] {
					t.Errorf("%s: %s missing from %v", name, id, got)
				}
			}
		}

		// A new version replaces the file and keeps the history.
		v2 := upload(t, e.Op, gold.ID, "pricing-2.pdf")
		it, v, err := e.A.ContentDownload(ctx, gold.ID, v1.ID)
		if err != nil || v.ID != v2.ID || it.VersionNumber != 2 {
			t.Fatalf("a partner's download = %+v, %v (partners always get the current version)", v, err)
		}
		if _, v, err := e.Op.ContentDownload(ctx, gold.ID, v1.ID); err != nil || v.ID != v1.ID {
			t.Fatalf("the operator's download of version 1 = %+v, %v", v, err)
		}
		versions, _, err := e.Op.ListContentVersions(ctx, gold.ID, models.Page{Limit: 1})
		if err != nil || len(versions) != 1 || versions[0].Number != 1 {
			t.Fatalf("versions page 1 = %+v, %v", versions, err)
		}
		versions, next, err := e.Op.ListContentVersions(ctx, gold.ID, models.Page{Limit: 1, After: versions[0].ID})
		if err != nil || len(versions) != 1 || versions[0].Number != 2 || next != "" {
			t.Fatalf("versions page 2 = %+v, %q, %v", versions, next, err)
		}

		// Visibility changes apply at once; archived items disappear for partners.
		if _, err := e.Op.UpdateContentItem(ctx, gold.ID, models.ContentChanges{Visibility: &models.ContentVisibility{Levels: []string{"silver"}}}); err != nil {
			t.Fatal(err)
		}
		if got := list(e.A, models.ContentFilter{}); got[gold.ID] {
			t.Fatal("A still sees the item after it was moved to silver")
		}
		if got := list(e.C, models.ContentFilter{}); !got[gold.ID] {
			t.Fatal("C does not see the item moved to silver")
		}
		if _, err := e.Op.ArchiveContentItem(ctx, gold.ID); err != nil {
			t.Fatal(err)
		}
		if got := list(e.C, models.ContentFilter{}); got[gold.ID] {
			t.Fatal("C sees an archived item")
		}
		if got := list(e.Op, models.ContentFilter{Archived: true}); !got[gold.ID] || len(got) != 1 {
			t.Fatalf("archived items = %v", got)
		}
		if _, err := e.Op.AddContentVersion(ctx, gold.ID, models.ContentUpload{BlobKey: "content/x", FileName: "x.pdf", ContentType: "application/pdf", Size: 1, SHA256: "x"}); code(err) != "CONTENT_ARCHIVED" {
			t.Fatalf("upload to an archived item: %v", err)
		}
	})
}

func TestContentChangesAreAuditedAndEmitted(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newLibrary(t, s)
		ctx := e.Ctx
		it, err := e.Op.CreateContentItem(ctx, models.NewContentItem{Kind: models.ContentFile, Title: "Deck",
			Visibility: models.ContentVisibility{AllPartners: true}})
		if err != nil {
			t.Fatal(err)
		}
		v := upload(t, e.Op, it.ID, "deck.pdf")
		title := "Deck 2"
		if _, err := e.Op.UpdateContentItem(ctx, it.ID, models.ContentChanges{Title: &title}); err != nil {
			t.Fatal(err)
		}
		got, ver, err := e.A.ContentDownload(ctx, it.ID, "")
		if err != nil || ver.ID != v.ID {
			t.Fatal(err)
		}
		if err := e.A.RecordContentDownload(ctx, got, ver); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Op.ArchiveContentItem(ctx, it.ID); err != nil {
			t.Fatal(err)
		}
		evs, _, err := e.Op.ListEvents(ctx, models.EventFilter{}, models.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]models.Event{}
		for _, ev := range evs {
			seen[ev.Type] = ev
		}
		for _, typ := range []string{models.EventContentItemCreated, models.EventContentVersionAdded, models.EventContentItemUpdated,
			models.EventContentDownloaded, models.EventContentItemArchived} {
			if _, ok := seen[typ]; !ok {
				t.Errorf("no %s event", typ)
			}
		}
		if d := seen[models.EventContentDownloaded]; d.PartnerID == nil || *d.PartnerID != e.PartnerA {
			t.Errorf("content.downloaded is not attributed to partner A: %+v", d)
		}
		audit, _, err := e.Op.ListAudit(ctx, models.AuditFilter{}, models.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		actions := map[string]bool{}
		for _, a := range audit {
			actions[a.Action] = true
		}
		for _, a := range []string{"content.item_created", "content.version_added", "content.item_updated", "content.item_archived"} {
			if !actions[a] {
				t.Errorf("no audit entry %s", a)
			}
		}
	})
}

func TestContentItemsAreValidated(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newLibrary(t, s)
		other := storetest.Tenant(t, s.Core(), "other")
		foreignFolder, err := s.For(other).CreateContentFolder(e.Ctx, "Theirs")
		if err != nil {
			t.Fatal(err)
		}
		for name, c := range map[string]struct {
			n    models.NewContentItem
			code string
		}{
			"a link without a URL":        {models.NewContentItem{Kind: models.ContentLink, Title: "x"}, "INVALID_URL"},
			"a javascript: link":          {models.NewContentItem{Kind: models.ContentLink, Title: "x", URL: "javascript:alert(1)"}, "INVALID_URL"},
			"a file with a URL":           {models.NewContentItem{Kind: models.ContentFile, Title: "x", URL: "https://a.b"}, "URL_NOT_ALLOWED"},
			"an unknown kind":             {models.NewContentItem{Kind: "video", Title: "x"}, "INVALID_KIND"},
			"a blank title":               {models.NewContentItem{Kind: models.ContentFile, Title: "  "}, "TITLE_REQUIRED"},
			"a bad language":              {models.NewContentItem{Kind: models.ContentFile, Title: "x", Language: "english!"}, "INVALID_LANGUAGE"},
			"a bad tag":                   {models.NewContentItem{Kind: models.ContentFile, Title: "x", Tags: []string{"<b>"}}, "INVALID_TAG"},
			"another tenant's folder":     {models.NewContentItem{Kind: models.ContentFile, Title: "x", FolderID: foreignFolder.ID}, "FOLDER_NOT_FOUND"},
			"another tenant's partner id": {models.NewContentItem{Kind: models.ContentFile, Title: "x", Visibility: models.ContentVisibility{PartnerIDs: []string{models.NewID()}}}, "PARTNER_NOT_FOUND"},
		} {
			if _, err := e.Op.CreateContentItem(e.Ctx, c.n); code(err) != c.code {
				t.Errorf("%s: %v, want %s", name, err, c.code)
			}
		}
		// Another tenant's operator does not find this tenant's items.
		it, err := e.Op.CreateContentItem(e.Ctx, models.NewContentItem{Kind: models.ContentFile, Title: "Mine"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.For(other).ContentItem(e.Ctx, it.ID); code(err) != "CONTENT_NOT_FOUND" {
			t.Fatalf("another tenant reads the item: %v", err)
		}
		if _, err := s.For(other).AddContentVersion(e.Ctx, it.ID, models.ContentUpload{BlobKey: "content/x", FileName: "x", ContentType: "text/plain", Size: 1, SHA256: "x"}); code(err) != "CONTENT_NOT_FOUND" {
			t.Fatalf("another tenant uploads to the item: %v", err)
		}
	})
}

// A partner's text search is planned for its own pattern on every page: on Postgres none of its
// executions, however many, runs on a generic plan (which cannot use the trigram indexes and
// reads every visible item), and the results are the same on both databases.
func TestContentSearchIsPlannedForItsPatternEveryTime(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := newLibrary(t, s)
		ctx := e.Ctx
		for i := range 30 {
			title := fmt.Sprintf("Sales deck %d", i)
			if _, err := e.Op.CreateContentItem(ctx, models.NewContentItem{Kind: models.ContentLink, Title: title,
				URL: "https://example.com/" + fmt.Sprint(i), Visibility: models.ContentVisibility{AllPartners: true}}); err != nil {
				t.Fatal(err)
			}
		}
		if s.Dialect() == store.Postgres {
			pool, err := s.Core().Pool()
			if err != nil {
				t.Fatal(err)
			}
			pool.SetMaxOpenConns(1) // one session, so that its prepared statements can be read below
		}
		const runs = 12
		for i := range runs {
			items, _, err := e.A.ListContentItems(ctx, models.ContentFilter{Query: "DECK 29"}, models.Page{Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != 1 || items[0].Title != "Sales deck 29" {
				t.Fatalf("search %d: %+v", i, items)
			}
		}
		items, next, err := e.A.ListContentItems(ctx, models.ContentFilter{Query: "deck 1"}, models.Page{Limit: 5})
		if err != nil || len(items) != 5 || next == "" {
			t.Fatalf("first page of 'deck 1' (11 matches) = %d items, next %q, %v", len(items), next, err)
		}
		if s.Dialect() != store.Postgres {
			return
		}
		var plans struct{ Generic, Custom int64 }
		if err := s.DB(ctx).Raw(`SELECT COALESCE(SUM(generic_plans), 0) AS generic, COALESCE(SUM(custom_plans), 0) AS custom
FROM pg_prepared_statements WHERE statement LIKE '%FROM "content_items"%LIKE%' AND statement NOT LIKE '%pg_prepared_statements%'`).Scan(&plans).Error; err != nil {
			t.Fatal(err)
		}
		if plans.Custom < runs || plans.Generic != 0 {
			t.Fatalf("search statements ran on %d custom and %d generic plans, want ≥ %d custom and no generic", plans.Custom, plans.Generic, runs)
		}
	})
}
