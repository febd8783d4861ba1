package health

import (
	"context"
	"time"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// PruneBatch bounds the snapshots one PruneHealthSnapshots call deletes.
const PruneBatch = 5000

// PruneHealthSnapshots deletes up to limit snapshots of the tenant's runs that started before
// `before`, oldest run first, keeping each partner's latest snapshot (the one its current
// health explains itself by). A run left without snapshots goes too. more says whether
// another call may find more to delete.
func (s *Store) PruneHealthSnapshots(ctx context.Context, sys models.Scope, before time.Time, limit int) (deleted int, more bool, err error) {
	if limit <= 0 || limit > PruneBatch {
		limit = PruneBatch
	}
	sc := store.Of(sys)
	db := s.core.DB(ctx)
	var runs []string
	if err := sc.Rows(db.Model(&models.HealthRun{})).Where("started_at < ?", before).Order("id").Pluck("id", &runs).Error; err != nil {
		return 0, false, err
	}
	for _, run := range runs {
		prunable := sc.Rows(db.Model(&models.HealthSnapshot{})).Select("partner_id").Where("run_id = ?", run).
			Where("NOT EXISTS (SELECT 1 FROM partner_health h WHERE h.partner_id = health_snapshots.partner_id AND h.run_id = health_snapshots.run_id)").
			Order("partner_id").Limit(limit - deleted)
		res := sc.Rows(db.Model(&models.HealthSnapshot{})).Where("run_id = ? AND partner_id IN (?)", run, prunable).Delete(&models.HealthSnapshot{})
		if res.Error != nil {
			return deleted, true, res.Error
		}
		deleted += int(res.RowsAffected)
		if deleted >= limit {
			return deleted, true, nil
		}
		var left int64
		if err := sc.Rows(db.Model(&models.HealthSnapshot{})).Where("run_id = ?", run).Limit(1).Count(&left).Error; err != nil {
			return deleted, true, err
		}
		if left == 0 {
			if err := sc.Rows(db.Model(&models.HealthRun{})).Where("id = ?", run).Delete(&models.HealthRun{}).Error; err != nil {
				return deleted, true, err
			}
		}
	}
	return deleted, false, nil
}
