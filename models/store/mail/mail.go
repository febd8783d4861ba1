// Package mail keeps the mail outbox: the record of every message sent for a tenant, with its
// outcome and attempts, the mail module's persistence on the core store.
package mail

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// Store keeps the record of every message the service sends for a tenant (the mail outbox).
type Store struct {
	core *store.Store
}

// New is the mail store on core's database.
func New(core *store.Store) *Store { return &Store{core: core} }

// Scoped is the mail record as one principal sees it: the tenant's operators read it; partner
// principals see none.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the mail store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

// RecordMail records an outgoing message of m.TenantID and returns the record as stored.
// Messages with an idempotency key are recorded once per key: when the key is known and its
// message was sent or stored, that message is returned unchanged; when it failed, the new
// outcome replaces the failed one and counts as another attempt.
func (s *Store) RecordMail(ctx context.Context, m *models.MailMessage) (*models.MailMessage, error) {
	if m.TenantID == "" {
		return nil, models.Invalid("INVALID_MAIL_MESSAGE", "a message belongs to a tenant")
	}
	if m.ID == "" {
		m.ID = models.NewID()
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = mailNow()
	}
	if m.Attempts == 0 {
		m.Attempts = 1
	}
	if m.IdempotencyKey != nil && len(*m.IdempotencyKey) > models.MaxMailIdempotencyKey {
		return nil, models.Invalid("INVALID_MAIL_MESSAGE", "the idempotency key is longer than 200 bytes")
	}
	// A failed message is recorded as it was, within the sizes of its columns.
	m.To, m.ToName, m.From = models.ClipBytes(m.To, 320), models.ClipBytes(m.ToName, 200), models.ClipBytes(m.From, 520)
	m.Subject, m.Error, m.MessageID = models.ClipBytes(m.Subject, models.MaxMailSubject), models.ClipBytes(m.Error, models.MaxMailError), models.ClipBytes(m.MessageID, 255)
	m.Purpose, m.Reference = models.ClipBytes(m.Purpose, 64), models.ClipBytes(m.Reference, 200)
	db := s.core.DB(ctx)
	if m.IdempotencyKey == nil {
		if err := db.Create(m).Error; err != nil {
			return nil, err
		}
		return m, nil
	}
	res := db.Clauses(clause.OnConflict{DoNothing: true}).Create(m)
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected == 1 {
		return m, nil
	}
	for range 3 {
		prev, err := s.MailByIdempotencyKey(ctx, models.System(m.TenantID), *m.IdempotencyKey)
		if err != nil {
			return nil, err
		}
		if prev.Delivered() {
			return prev, nil
		}
		next := *m
		next.ID, next.CreatedAt, next.Attempts = prev.ID, prev.CreatedAt, prev.Attempts+1
		// Only a failed record is replaced: a concurrent attempt that succeeded stays.
		res := db.Model(&models.MailMessage{}).
			Where(store.System(prev.TenantID).Tenant()).Where("id = ? AND status = ? AND attempts = ?", prev.ID, models.MailFailed, prev.Attempts).
			Updates(map[string]any{
				"to_address": next.To, "to_name": next.ToName, "from_address": next.From, "subject": next.Subject,
				"text_body": next.TextBody, "html_body": next.HTMLBody, "status": next.Status, "transport": next.Transport,
				"error": next.Error, "attempts": next.Attempts, "message_id": next.MessageID, "purpose": next.Purpose,
				"reference": next.Reference, "sent_at": next.SentAt,
			})
		if res.Error != nil {
			return nil, res.Error
		}
		if res.RowsAffected == 1 {
			*m = next
			return m, nil
		}
	}
	return nil, models.Conflict("MAIL_RECORD_CONFLICT", "the message is being recorded by another attempt")
}

// MailByIdempotencyKey finds the message a tenant recorded under an idempotency key.
func (s *Store) MailByIdempotencyKey(ctx context.Context, sys models.Scope, key string) (*models.MailMessage, error) {
	var m models.MailMessage
	err := s.core.DB(ctx).Where(store.Of(sys).Tenant()).Where("idempotency_key = ?", key).Take(&m).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("MAIL_MESSAGE_NOT_FOUND", "mail message")
	}
	if err != nil {
		return nil, err
	}
	return &m, nil
}

func mailNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// mailRows starts a query on the principal's outbox. Messages go to people of every partner
// and of the tenant's own staff, so only operators read them: partner principals see none.
func (sc *Scoped) mailRows(ctx context.Context) *gorm.DB {
	return sc.Scope.OperatorRows(sc.s.core.DB(ctx).Model(&models.MailMessage{}))
}

// ListMail lists the tenant's outgoing messages, oldest first, without their bodies.
func (sc *Scoped) ListMail(ctx context.Context, f models.MailFilter, pg models.Page) ([]models.MailMessage, string, error) {
	q := sc.mailRows(ctx).Omit("text_body", "html_body")
	if f.To != "" {
		q = q.Where("LOWER(to_address) = LOWER(?)", f.To)
	}
	if f.Purpose != "" {
		q = q.Where("purpose = ?", f.Purpose)
	}
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if !f.CreatedFrom.IsZero() {
		q = q.Where("created_at >= ?", f.CreatedFrom.UTC())
	}
	if !f.CreatedBefore.IsZero() {
		q = q.Where("created_at < ?", f.CreatedBefore.UTC())
	}
	return store.Page(q, pg, func(m models.MailMessage) string { return m.ID })
}

// MailMessage finds one outgoing message of the tenant, with its bodies.
func (sc *Scoped) MailMessage(ctx context.Context, id string) (*models.MailMessage, error) {
	var m models.MailMessage
	err := sc.mailRows(ctx).Where("id = ?", id).Take(&m).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("MAIL_MESSAGE_NOT_FOUND", "mail message")
	}
	if err != nil {
		return nil, err
	}
	return &m, nil
}
