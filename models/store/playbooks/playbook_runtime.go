package playbooks

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// PlaybookPartner finds a partner of a tenant with its custom fields, for run expressions.
func (s *Store) PlaybookPartner(ctx context.Context, sys models.Scope, partnerID string) (*models.Partner, error) {
	return s.partners.PartnerOf(ctx, sys, partnerID)
}

// RunsWaitingFor lists the running runs whose wait_for_event step awaits an event of this
// type for the same partner (runs without a partner wait for events without one). A waiting
// step records the pattern it waits for in its output as waitingFor.
func (s *Store) RunsWaitingFor(ctx context.Context, sys models.Scope, eventType string, partnerID *string) ([]string, error) {
	type row struct {
		RunID  string
		Output string
	}
	q := s.core.DB(ctx).Table("playbook_steps AS s").Select("s.run_id, s.output").
		Joins("JOIN playbook_runs AS r ON r.id = s.run_id AND r.tenant_id = s.tenant_id").
		Where(store.Of(sys).TenantOf("s")).Where("s.kind = ? AND s.status = ? AND r.status = ?", models.NodeWaitForEvent, models.StepRunning, models.RunRunning)
	if partnerID != nil {
		q = q.Where("r.partner_id = ?", *partnerID)
	} else {
		q = q.Where("r.partner_id IS NULL")
	}
	var rows []row
	if err := q.Limit(10_000).Scan(&rows).Error; err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range rows {
		var o struct {
			WaitingFor string `json:"waitingFor"`
		}
		if json.Unmarshal([]byte(r.Output), &o) != nil || !models.MatchEventType(o.WaitingFor, eventType) || seen[r.RunID] {
			continue
		}
		seen[r.RunID] = true
		out = append(out, r.RunID)
	}
	return out, nil
}

// PlaybookWebhookSecret is the tenant's sealed signing secret of call_webhook actions, or ""
// when none was set.
func (s *Store) PlaybookWebhookSecret(ctx context.Context, sys models.Scope) (models.Sealed, error) {
	var st models.PlaybookSettings
	err := s.core.DB(ctx).Where(store.Of(sys).Tenant()).Take(&st).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return "", nil
	}
	return st.WebhookSecret, err
}

// SetPlaybookWebhookSecret replaces the tenant's signing secret of call_webhook actions
// (operators only); audited.
func (sc *Scoped) SetPlaybookWebhookSecret(ctx context.Context, sealed models.Sealed) (time.Time, error) {
	st := models.PlaybookSettings{TenantID: sc.P.TenantID, WebhookSecret: sealed, UpdatedAt: time.Now().UTC()}
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "tenant_id"}},
			DoUpdates: clause.AssignmentColumns([]string{"webhook_secret", "updated_at"})}).Create(&st).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, sc.P.TenantID, "playbook_settings.secret_rotated", "tenant", sc.P.TenantID, "webhookSecret")
	})
	return st.UpdatedAt, err
}
