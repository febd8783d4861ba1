package partners

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

func requirementsJSON(r models.LevelRequirements) (string, error) {
	if r.MinWonAmountMinor < 0 || r.MinWonDeals < 0 || r.PeriodDays < 0 || r.MinCertifiedUsers < 0 {
		return "", models.Invalid("INVALID_REQUIREMENTS", "requirements are not negative", models.FieldError{Location: "body.requirements", Message: "not negative"})
	}
	if r.MinWonAmountMinor > 0 && len(r.Currency) != 3 {
		return "", models.Invalid("INVALID_REQUIREMENTS", "a won amount needs its currency", models.FieldError{Location: "body.requirements.currency", Message: "an ISO 4217 code"})
	}
	b, err := json.Marshal(r)
	return string(b), err
}

// CreateLevel adds a partner level; operators only. A default level replaces the previous one.
func (sc *Scoped) CreateLevel(ctx context.Context, l *models.Level, r models.LevelRequirements) error {
	var err error
	if l.Requirements, err = requirementsJSON(r); err != nil {
		return err
	}
	l.ID, l.TenantID, l.Name = models.NewID(), sc.P.TenantID, strings.TrimSpace(l.Name)
	return store.Translate(sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if l.IsDefault {
			if err := tx.Model(&models.Level{}).Where(store.System(l.TenantID).Tenant()).Update("is_default", false).Error; err != nil {
				return err
			}
		}
		if err := tx.Create(l).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, l.TenantID, "level.created", "level", l.ID, "name", "rank", "benefits", "requirements", "isDefault")
	}), "LEVEL_EXISTS", "a level with this name exists")
}

// ListLevels lists the tenant's levels; partners see them too (benefits and requirements).
func (sc *Scoped) ListLevels(ctx context.Context, pg models.Page) ([]models.Level, string, error) {
	return store.Page(sc.Rows(ctx, &models.Level{}), pg, func(l models.Level) string { return l.ID })
}

// Level finds one level.
func (sc *Scoped) Level(ctx context.Context, id string) (*models.Level, error) {
	var l models.Level
	err := sc.Rows(ctx, &models.Level{}).Where("id = ?", id).Take(&l).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("LEVEL_NOT_FOUND", "level")
	}
	return &l, err
}

// UpdateLevel changes a level; a new name is carried over to the partners at the level.
func (sc *Scoped) UpdateLevel(ctx context.Context, id string, c models.LevelChanges) (*models.Level, error) {
	l, err := sc.Level(ctx, id)
	if err != nil {
		return nil, err
	}
	oldName := l.Name
	var changed []string
	if c.Name != nil && strings.TrimSpace(*c.Name) != l.Name {
		l.Name, changed = strings.TrimSpace(*c.Name), append(changed, "name")
	}
	models.SetChanged(&changed, "benefits", c.Benefits, &l.Benefits)
	models.SetChanged(&changed, "rank", c.Rank, &l.Rank)
	models.SetChanged(&changed, "isDefault", c.IsDefault, &l.IsDefault)
	if c.Requirements != nil {
		if l.Requirements, err = requirementsJSON(*c.Requirements); err != nil {
			return nil, err
		}
		changed = append(changed, "requirements")
	}
	if len(changed) == 0 {
		return l, nil
	}
	err = sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if l.IsDefault {
			if err := tx.Model(&models.Level{}).Where(store.System(l.TenantID).Tenant()).Where("id <> ?", l.ID).Update("is_default", false).Error; err != nil {
				return err
			}
		}
		l.UpdatedAt = time.Now().UTC()
		if err := tx.Save(l).Error; err != nil {
			return err
		}
		if l.Name != oldName {
			if err := tx.Model(&models.Partner{}).Where(store.System(l.TenantID).Tenant()).Where("level = ?", oldName).Update("level", l.Name).Error; err != nil {
				return err
			}
		}
		return store.WriteAudit(ctx, tx, l.TenantID, "level.updated", "level", l.ID, changed...)
	})
	if err != nil {
		return nil, store.Translate(err, "LEVEL_EXISTS", "a level with this name exists")
	}
	return l, nil
}

// DeleteLevel removes a level no partner holds.
func (sc *Scoped) DeleteLevel(ctx context.Context, id string) error {
	l, err := sc.Level(ctx, id)
	if err != nil {
		return err
	}
	return sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&models.Partner{}).Where(store.System(l.TenantID).Tenant()).Where("level = ?", l.Name).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return models.Errorf(models.KindConflict, "LEVEL_IN_USE", "%d partners hold this level; move them first", n)
		}
		if err := tx.Where(store.System(l.TenantID).Tenant()).Delete(&models.Level{}, "id = ?", l.ID).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, l.TenantID, "level.deleted", "level", l.ID)
	})
}

// DefaultLevel is the name of the default level of sc's tenant, or "".
func DefaultLevel(tx *gorm.DB, sc store.Scope) (string, error) {
	var l models.Level
	err := tx.Where(sc.Tenant()).Where("is_default = ?", true).Take(&l).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return "", nil
	}
	return l.Name, err
}

// evaluateLevel finds the highest-ranked level whose requirements the partner meets.
func evaluateLevel(tx *gorm.DB, p *models.Partner, now time.Time) (*models.LevelEvaluation, error) {
	var levels []models.Level
	if err := tx.Where(store.System(p.TenantID).Tenant()).Order("rank DESC, id").Find(&levels).Error; err != nil {
		return nil, err
	}
	out := &models.LevelEvaluation{PartnerID: p.ID, CurrentLevel: p.Level}
	perf := map[int]models.PartnerPerformance{}
	for _, l := range levels {
		r := l.Reqs()
		got, ok := perf[r.PeriodDays]
		if !ok {
			var rows []struct {
				Currency string
				N        int
				Total    int64
			}
			err := tx.Model(&models.Deal{}).Select("currency, COUNT(*) AS n, COALESCE(SUM(amount_minor), 0) AS total").
				Where(store.System(p.TenantID).Tenant()).Where("partner_id = ? AND status = ? AND closed_at >= ?", p.ID, models.DealWon, now.AddDate(0, 0, -r.PeriodDays)).
				Group("currency").Scan(&rows).Error
			if err != nil {
				return nil, err
			}
			got = models.PartnerPerformance{WonAmountMinor: map[string]int64{}}
			for _, row := range rows {
				got.WonDeals += row.N
				got.WonAmountMinor[row.Currency] = row.Total
			}
			perf[r.PeriodDays] = got
		}
		if r.MinCertifiedUsers > 0 {
			if got.CertifiedUsers == nil {
				got.CertifiedUsers = map[string]int{}
			}
			if _, ok := got.CertifiedUsers[r.CertificationCourseID]; !ok {
				n, err := certifiedUsers(tx, p, r.CertificationCourseID, now)
				if err != nil {
					return nil, err
				}
				got.CertifiedUsers[r.CertificationCourseID] = n
				perf[r.PeriodDays] = got
			}
		}
		if r.Meets(got) {
			out.TargetLevel, out.Performance = l.Name, got
			return out, nil
		}
	}
	if len(levels) > 0 {
		out.Performance = perf[levels[len(levels)-1].Reqs().PeriodDays]
	}
	return out, nil
}

// certifiedUsers counts the partner's active users holding a certificate in force at now, of
// the course named or of any course.
func certifiedUsers(tx *gorm.DB, p *models.Partner, courseID string, now time.Time) (int, error) {
	sc := store.System(p.TenantID)
	active := sc.Rows(tx.Session(&gorm.Session{NewDB: true}).Model(&models.User{})).Select("id").Where("partner_id = ? AND status = ?", p.ID, models.UserStatusActive)
	q := sc.Rows(tx.Model(&models.Certificate{})).Where("partner_id = ? AND status = ? AND expires_at > ? AND user_id IN (?)",
		p.ID, models.CertificateActive, now, active)
	if courseID != "" {
		q = q.Where("course_id = ?", courseID)
	}
	var n int64
	err := q.Distinct("user_id").Count(&n).Error
	return int(n), err
}

// EvaluatePartnerLevel says which level a partner qualifies for now; partners see their own.
func (sc *Scoped) EvaluatePartnerLevel(ctx context.Context, partnerID string) (*models.LevelEvaluation, error) {
	p, err := sc.Partner(ctx, partnerID)
	if err != nil {
		return nil, err
	}
	return evaluateLevel(sc.s.core.DB(ctx), p, time.Now().UTC())
}

// ReviewLevels evaluates every active or onboarding partner of a tenant and, as the tenant
// chose, applies level changes (with partner.level_changed events) or proposes them to
// operators. It reports how many changes it applied or proposed.
func (s *Store) ReviewLevels(ctx context.Context, sys models.Scope, now time.Time) (int, error) {
	t, err := s.core.TenantByID(ctx, sys.TenantID())
	if err != nil {
		return 0, err
	}
	var partners []models.Partner
	if err := s.core.DB(ctx).Where(store.Of(sys).Tenant()).Where("status IN ?", []string{models.PartnerActive, models.PartnerOnboarding}).
		Order("id").Find(&partners).Error; err != nil {
		return 0, err
	}
	system := s.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: sys.TenantID()})
	changes := 0
	for i := range partners {
		p := &partners[i]
		ev, err := evaluateLevel(s.core.DB(ctx), p, now)
		if err != nil {
			return changes, err
		}
		if ev.TargetLevel == "" || ev.TargetLevel == p.Level {
			continue
		}
		if t.LevelChanges == models.LevelChangesApply {
			target := ev.TargetLevel
			if _, err := system.UpdatePartner(ctx, p.ID, models.PartnerChanges{Level: &target}); err != nil {
				return changes, err
			}
			changes++
			continue
		}
		created, err := s.propose(ctx, p, ev, now)
		if err != nil {
			return changes, err
		}
		if created {
			changes++
		}
	}
	return changes, nil
}

// propose records a pending proposal unless the same one is pending; pending proposals for
// another level are dismissed, since the partner's numbers moved on.
func (s *Store) propose(ctx context.Context, p *models.Partner, ev *models.LevelEvaluation, now time.Time) (bool, error) {
	created := false
	err := s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		var pending []models.LevelProposal
		if err := tx.Where(store.System(p.TenantID).Tenant()).Where("partner_id = ? AND status = ?", p.ID, models.ProposalPending).Find(&pending).Error; err != nil {
			return err
		}
		for _, old := range pending {
			if old.ToLevel == ev.TargetLevel && old.FromLevel == p.Level {
				return nil
			}
			if err := tx.Model(&models.LevelProposal{}).Where("id = ?", old.ID).Updates(map[string]any{"status": models.ProposalDismissed, "decided_at": now}).Error; err != nil {
				return err
			}
		}
		prop := &models.LevelProposal{ID: models.NewID(), TenantID: p.TenantID, PartnerID: p.ID, FromLevel: p.Level, ToLevel: ev.TargetLevel,
			Status: models.ProposalPending, CreatedAt: now,
			Reason: fmt.Sprintf("%d won deals in the review period; volume %v", ev.Performance.WonDeals, ev.Performance.WonAmountMinor)}
		if len(ev.Performance.CertifiedUsers) > 0 {
			prop.Reason += fmt.Sprintf("; certified users %v", ev.Performance.CertifiedUsers)
		}
		created = true
		if err := tx.Create(prop).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, p.TenantID, "level.proposed", "partner", p.ID, "level")
	})
	return created, err
}

// ReviewAllLevels runs the level review of every tenant.
func (s *Store) ReviewAllLevels(ctx context.Context, now time.Time) (int, error) {
	var tenants []string
	if err := s.core.DB(ctx).Model(&models.Tenant{}).Order("id").Pluck("id", &tenants).Error; err != nil {
		return 0, err
	}
	total := 0
	for _, id := range tenants {
		n, err := s.ReviewLevels(ctx, models.System(id), now)
		total += n
		if err != nil {
			return total, fmt.Errorf("level review of tenant %s: %w", id, err)
		}
	}
	return total, nil
}

// ListLevelProposals lists the review's proposals, oldest first; operators only.
func (sc *Scoped) ListLevelProposals(ctx context.Context, status string, pg models.Page) ([]models.LevelProposal, string, error) {
	q := sc.Rows(ctx, &models.LevelProposal{})
	if status != "" {
		q = q.Where("status = ?", status)
	}
	return store.Page(q, pg, func(p models.LevelProposal) string { return p.ID })
}

// DecideLevelProposal applies or dismisses a pending proposal.
func (sc *Scoped) DecideLevelProposal(ctx context.Context, id string, apply bool) (*models.LevelProposal, error) {
	var prop models.LevelProposal
	if err := sc.Rows(ctx, &models.LevelProposal{}).Where("id = ?", id).Take(&prop).Error; errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("PROPOSAL_NOT_FOUND", "level proposal")
	} else if err != nil {
		return nil, err
	}
	if prop.Status != models.ProposalPending {
		return nil, models.Errorf(models.KindConflict, "PROPOSAL_DECIDED", "the proposal is %s already", prop.Status)
	}
	if apply {
		to := prop.ToLevel
		if _, err := sc.UpdatePartner(ctx, prop.PartnerID, models.PartnerChanges{Level: &to}); err != nil {
			return nil, err
		}
	}
	now, by := time.Now().UTC(), sc.P.UserID
	prop.Status, prop.DecidedAt, prop.DecidedBy = models.ProposalDismissed, &now, &by
	if apply {
		prop.Status = models.ProposalApplied
	}
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&models.LevelProposal{}).Where("id = ? AND status = ?", prop.ID, models.ProposalPending).
			Updates(map[string]any{"status": prop.Status, "decided_at": now, "decided_by": by})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return models.Errorf(models.KindConflict, "PROPOSAL_DECIDED", "the proposal was decided meanwhile")
		}
		return store.WriteAudit(ctx, tx, prop.TenantID, "level_proposal."+prop.Status, "partner", prop.PartnerID, "level")
	})
	if err != nil {
		return nil, err
	}
	return &prop, nil
}

// ReviewLevelsNow runs the level review of the principal's tenant at once; operators only.
func (sc *Scoped) ReviewLevelsNow(ctx context.Context) (int, error) {
	return sc.s.ReviewLevels(ctx, models.System(sc.P.TenantID), time.Now().UTC())
}
