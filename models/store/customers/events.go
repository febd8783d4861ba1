package customers

import (
	"context"
	"errors"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// eventRows starts a query on the events the principal may see: its tenant's, and for
// partners only those attributed to its organisation.
func (sc *Scoped) eventRows(ctx context.Context) *gorm.DB {
	return sc.PartnerRows(ctx, &models.Event{}, "partner_id")
}

// ListEvents lists the events the principal may see, in the order they were received (the
// newest first with f.Newest).
func (sc *Scoped) ListEvents(ctx context.Context, f models.EventFilter, pg models.Page) ([]models.Event, string, error) {
	q := sc.eventRows(ctx)
	if f.Type != "" {
		if models.ValidEventType(f.Type) {
			q = q.Where("type = ?", f.Type)
		} else {
			q = q.Where(`type LIKE ? ESCAPE '\'`, models.EventPatternLike(f.Type))
		}
	}
	if f.CustomerID != "" {
		q = q.Where("customer_id = ?", f.CustomerID)
	}
	if f.PartnerID != "" {
		q = q.Where("partner_id = ?", f.PartnerID)
	}
	if !f.From.IsZero() {
		q = q.Where("occurred_at >= ?", f.From)
	}
	if !f.To.IsZero() {
		q = q.Where("occurred_at < ?", f.To)
	}
	id := func(e models.Event) string { return e.ID }
	if f.Newest {
		return store.PageNewest(q, "id", pg, id)
	}
	return store.Page(q, pg, id)
}

// Event finds one event the principal may see.
func (sc *Scoped) Event(ctx context.Context, id string) (*models.Event, error) {
	var e models.Event
	err := sc.eventRows(ctx).Where("id = ?", id).Take(&e).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("EVENT_NOT_FOUND", "event")
	}
	return &e, err
}
