package identity

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// IssueUserToken stores a one-time token for a user the principal may see, replacing the user's
// unused tokens of the same purpose.
func (sc *Scoped) IssueUserToken(ctx context.Context, partnerUser bool, userID, purpose, hash string, expiresAt time.Time) error {
	u, err := sc.User(ctx, partnerUser, userID)
	if err != nil {
		return err
	}
	if u.Status == models.UserStatusDeactivated {
		return models.Conflict("USER_DEACTIVATED", "the user is deactivated")
	}
	now := time.Now().UTC()
	return sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&models.UserToken{}).Where("user_id = ? AND purpose = ? AND used_at IS NULL", u.ID, purpose).
			Update("used_at", now).Error; err != nil {
			return err
		}
		t := &models.UserToken{ID: models.NewID(), TenantID: u.TenantID, UserID: u.ID, Purpose: purpose, Hash: hash, CreatedAt: now, ExpiresAt: expiresAt}
		if err := tx.Create(t).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, u.TenantID, "user."+purpose+"_issued", "user", u.ID)
	})
}

var errUserTokenInvalid = models.Errorf(models.KindUnauthenticated, "INVALID_TOKEN", "the link is invalid, used or expired")

// RedeemUserToken uses a one-time token of purpose: the user gets passwordHash, becomes active
// if invited, and loses every session. The token never works again.
func (s *Store) RedeemUserToken(ctx context.Context, purpose, hash, passwordHash string, now time.Time) (*models.User, error) {
	var u models.User
	err := s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		var t models.UserToken
		if err := tx.Where("hash = ? AND purpose = ?", hash, purpose).Take(&t).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return errUserTokenInvalid
			}
			return err
		}
		if t.UsedAt != nil || !now.Before(t.ExpiresAt) {
			return errUserTokenInvalid
		}
		res := tx.Model(&models.UserToken{}).Where("id = ? AND used_at IS NULL", t.ID).Update("used_at", now)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return errUserTokenInvalid
		}
		if err := tx.Where(store.System(t.TenantID).Tenant()).Where("id = ?", t.UserID).Take(&u).Error; err != nil {
			return err
		}
		if u.Status == models.UserStatusDeactivated {
			return errUserTokenInvalid
		}
		changes := map[string]any{"password_hash": passwordHash, "status": models.UserStatusActive}
		if err := tx.Model(&models.User{}).Where("id = ?", u.ID).Updates(changes).Error; err != nil {
			return err
		}
		if err := tx.Model(&models.RefreshToken{}).Where("user_id = ? AND revoked_at IS NULL", u.ID).Update("revoked_at", now).Error; err != nil {
			return err
		}
		if u.Status == models.UserStatusInvited {
			if err := store.BumpPolicy(tx, u.TenantID); err != nil { // an invited user's roles start to count
				return err
			}
		}
		u.Status, u.PasswordHash = models.UserStatusActive, passwordHash
		actor := &models.Principal{Kind: models.PrincipalOperator, TenantID: u.TenantID, UserID: u.ID}
		if u.PartnerID != nil {
			actor.Kind, actor.PartnerID = models.PrincipalPartner, *u.PartnerID
		}
		ctx := models.WithPrincipal(ctx, actor)
		return store.WriteAudit(ctx, tx, u.TenantID, "user."+purpose+"_redeemed", "user", u.ID, "password", "status")
	})
	if err != nil {
		return nil, err
	}
	return &u, nil
}
