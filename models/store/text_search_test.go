package store_test

import (
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// A search for a few characters finds the same tickets and content items on both databases, and
// on Postgres it can find them through the trigram indexes instead of reading every row.
func TestTextSearchUsesTrigramIndexesOnPostgres(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, s *stores.Set) {
		e := storetest.NewPartners(t, s)
		ctx := e.Ctx
		for _, subject := range []string{"Printer jammed #77777", "Payout missing #7777", "Printer out of toner"} {
			if _, err := e.Op.OpenTicket(ctx, models.NewTicket{Ticket: models.Ticket{Subject: subject, PartnerID: e.PartnerA}, Body: "x"}); err != nil {
				t.Fatal(err)
			}
		}
		tickets, _, err := e.Op.ListTickets(ctx, models.TicketFilter{Q: "#77777"}, models.Page{})
		if err != nil || len(tickets) != 1 || tickets[0].Subject != "Printer jammed #77777" {
			t.Fatalf("tickets about #77777 = %+v, %v", tickets, err)
		}
		for _, it := range []models.NewContentItem{
			{Kind: models.ContentLink, Title: "Pricing deck 2027", URL: "https://example.com/a"},
			{Kind: models.ContentLink, Title: "Logos", Description: "The pricing page's artwork", URL: "https://example.com/b"},
			{Kind: models.ContentLink, Title: "Onboarding video", URL: "https://example.com/c"},
		} {
			if _, err := e.Op.CreateContentItem(ctx, it); err != nil {
				t.Fatal(err)
			}
		}
		items, _, err := e.Op.ListContentItems(ctx, models.ContentFilter{Query: "PRICING"}, models.Page{})
		if err != nil || len(items) != 2 {
			t.Fatalf("items about pricing = %+v, %v", items, err)
		}
		if s.Dialect() != store.Postgres {
			return
		}
		for index, query := range map[string]string{
			"tickets_subject_trgm":           `SELECT id FROM tickets WHERE LOWER(subject) LIKE '%#77777%' ESCAPE '\'`,
			"content_items_title_trgm":       `SELECT id FROM content_items WHERE LOWER(title) LIKE '%pricing%' ESCAPE '\'`,
			"content_items_description_trgm": `SELECT id FROM content_items WHERE LOWER(description) LIKE '%pricing%' ESCAPE '\'`,
		} {
			var plan []string
			err := s.DB(ctx).Transaction(func(tx *gorm.DB) error {
				if err := tx.Exec("SET LOCAL enable_seqscan = off").Error; err != nil {
					return err
				}
				return tx.Raw("EXPLAIN " + query).Scan(&plan).Error
			})
			if err != nil || !strings.Contains(strings.Join(plan, "\n"), index) {
				t.Fatalf("plan of %s does not use %s: %v\n%s", query, index, err, strings.Join(plan, "\n"))
			}
		}
	})
}
