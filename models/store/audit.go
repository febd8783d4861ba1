package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
)

// WriteAudit records a change in the same transaction as the change itself. The actor, request
// id and client address come from ctx.
func WriteAudit(ctx context.Context, tx *gorm.DB, tenantID, action, targetType, targetID string, changed ...string) error {
	meta := models.RequestMetaFrom(ctx)
	entry := models.AuditEntry{
		ID:            models.NewID(),
		TenantID:      tenantID,
		ActorKind:     "system",
		Action:        action,
		TargetType:    targetType,
		TargetID:      targetID,
		RequestID:     meta.RequestID,
		ClientAddress: meta.ClientAddress,
		CreatedAt:     time.Now().UTC(),
	}
	if p := models.PrincipalFrom(ctx); p != nil {
		entry.ActorKind, entry.ActorID = string(p.Kind), p.ActorID()
	}
	if len(changed) > 0 {
		b, _ := json.Marshal(changed)
		entry.ChangedFields = string(b)
	}
	return tx.Create(&entry).Error
}

// Translate maps a unique-constraint violation to a domain conflict with code and message.
func Translate(err error, code, message string) error {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return models.Conflict(code, message)
	}
	return err
}
