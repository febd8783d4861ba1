// Package partners keeps partner organisations and partner levels: their requirements, each
// partner's evaluation against them, and the proposals of the periodic level review.
package partners

import (
	"context"
	"encoding/json"
	"errors"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// Store keeps partner organisations and partner levels with their reviews.
type Store struct {
	core *store.Store
}

// New is the partners store on core's database.
func New(core *store.Store) *Store { return &Store{core: core} }

// Scoped is the partner store as one principal sees it: a partner sees only its own organisation.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the partners store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

// CreatePartner adds a partner organisation to the principal's tenant.
func (sc *Scoped) CreatePartner(ctx context.Context, p *models.Partner) error {
	p.ID = models.NewID()
	p.TenantID = sc.P.TenantID
	if p.Status == "" {
		p.Status = models.PartnerActive
	}
	return sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if p.Level == "" {
			var err error
			if p.Level, err = DefaultLevel(tx, sc.Scope); err != nil {
				return err
			}
		}
		if err := tx.Create(p).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, p.TenantID, "partner.created", "partner", p.ID, "name", "type", "level", "status")
	})
}

// ListPartners lists the partner organisations the principal may see (its own for partners)
// that f admits.
func (sc *Scoped) ListPartners(ctx context.Context, f models.PartnerFilter, pg models.Page) ([]models.Partner, string, error) {
	q := sc.PartnerRows(ctx, &models.Partner{}, "id")
	if f.Q != "" {
		q = store.Containing(q, f.Q, "name")
	}
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if f.Level != "" {
		q = q.Where("level = ?", f.Level)
	}
	return store.Page(q, pg, func(p models.Partner) string { return p.ID })
}

// Partner finds one partner organisation the principal may see.
func (sc *Scoped) Partner(ctx context.Context, id string) (*models.Partner, error) {
	var p models.Partner
	err := sc.PartnerRows(ctx, &models.Partner{}, "id").Where("id = ?", id).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("PARTNER_NOT_FOUND", "partner")
	}
	return &p, err
}

// UpdatePartner applies changes to a partner organisation.
func (sc *Scoped) UpdatePartner(ctx context.Context, id string, c models.PartnerChanges) (*models.Partner, error) {
	p, err := sc.Partner(ctx, id)
	if err != nil {
		return nil, err
	}
	updates := map[string]any{}
	var changed []string
	set := func(col string, v *string, dst *string) {
		if models.SetChanged(&changed, col, v, dst) {
			updates[col] = *v
		}
	}
	fromStatus, fromLevel := p.Status, p.Level
	if c.Status != nil && *c.Status != p.Status {
		if err := models.CheckPartnerTransition(p.Status, *c.Status); err != nil {
			return nil, err
		}
	}
	set("name", c.Name, &p.Name)
	set("type", c.Type, &p.Type)
	set("level", c.Level, &p.Level)
	set("status", c.Status, &p.Status)
	if len(changed) == 0 {
		return p, nil
	}
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		return SavePartnerChange(ctx, tx, ev, p, updates, changed, fromStatus, fromLevel)
	})
	return p, err
}

// SavePartnerChange writes updates (the columns named by changed) to partner p, which already
// holds the new values, audits the change, and emits partner.status_changed and
// partner.level_changed when the status or level moved from fromStatus or fromLevel.
func SavePartnerChange(ctx context.Context, tx *gorm.DB, ev *store.Outbox, p *models.Partner, updates map[string]any, changed []string, fromStatus, fromLevel string) error {
	if err := tx.Model(&models.Partner{}).Where(store.System(p.TenantID).Tenant()).Where("id = ?", p.ID).Updates(updates).Error; err != nil {
		return err
	}
	if err := store.WriteAudit(ctx, tx, p.TenantID, "partner.updated", "partner", p.ID, changed...); err != nil {
		return err
	}
	if p.Status != fromStatus {
		if err := emitPartner(ctx, tx, ev, p, models.EventPartnerStatusChanged, fromStatus, fromLevel); err != nil {
			return err
		}
	}
	if p.Level != fromLevel {
		return emitPartner(ctx, tx, ev, p, models.EventPartnerLevelChanged, fromStatus, fromLevel)
	}
	return nil
}

// emitPartner writes a partner.* event about p.
func emitPartner(ctx context.Context, tx *gorm.DB, ev *store.Outbox, p *models.Partner, typ, fromStatus, fromLevel string) error {
	b, _ := json.Marshal(models.PartnerEventPayload{PartnerID: p.ID, Name: p.Name, Type: p.Type, Level: p.Level, Status: p.Status,
		PreviousStatus: fromStatus, PreviousLevel: fromLevel})
	id := p.ID
	_, err := ev.Emit(ctx, tx, p.TenantID, models.NewEvent{Type: typ, PartnerID: &id, SubjectID: &id, Payload: string(b)})
	return err
}

// PartnerOf finds a partner of a tenant.
func (s *Store) PartnerOf(ctx context.Context, sys models.Scope, partnerID string) (*models.Partner, error) {
	var p models.Partner
	err := s.core.DB(ctx).Where(store.Of(sys).Tenant()).Where("id = ?", partnerID).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("PARTNER_NOT_FOUND", "partner")
	}
	return &p, err
}
