package store

import (
	"context"
	"encoding/json"

	"github.com/partnerd/partnerd/models"
)

// PlaybookPartner finds a partner of a tenant with its custom fields, for run expressions.
func (s *Store) PlaybookPartner(ctx context.Context, tenantID, partnerID string) (*models.Partner, error) {
	return s.partnerOf(ctx, tenantID, partnerID)
}

// RunsWaitingFor lists the running runs whose wait_for_event step awaits an event of this
// type for the same partner (runs without a partner wait for events without one). A waiting
// step records the pattern it waits for in its output as waitingFor.
func (s *Store) RunsWaitingFor(ctx context.Context, tenantID, eventType string, partnerID *string) ([]string, error) {
	type row struct {
		RunID  string
		Output string
	}
	q := s.db.WithContext(ctx).Table("playbook_steps AS s").Select("s.run_id, s.output").
		Joins("JOIN playbook_runs AS r ON r.id = s.run_id AND r.tenant_id = s.tenant_id").
		Where("s.tenant_id = ? AND s.kind = ? AND s.status = ? AND r.status = ?", tenantID, models.NodeWaitForEvent, models.StepRunning, models.RunRunning)
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
