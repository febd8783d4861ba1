// Package webhooks keeps webhook endpoints, their deliveries and their attempts: the webhook
// module's persistence and business transactions on the core store.
package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// Store keeps the webhook endpoints of every tenant, their deliveries and attempts.
type Store struct {
	core *store.Store
}

// New is the webhook store on core's database.
func New(core *store.Store) *Store { return &Store{core: core} }

// Scoped is the webhook store as one principal sees it: operators of the principal's tenant
// manage its endpoints; partner principals see none.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the webhook store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

// EventPatterns lists the event-type patterns of a tenant's enabled webhooks.
func (s *Store) EventPatterns(ctx context.Context, sys models.Scope) ([]string, error) {
	hooks, err := s.enabledWebhooks(ctx, sys.TenantID())
	if err != nil {
		return nil, err
	}
	var out []string
	for i := range hooks {
		out = append(out, hooks[i].Patterns()...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// RouteEvent sends e to the enabled endpoints subscribed to its type.
func (s *Store) RouteEvent(ctx context.Context, e *models.Event, r *models.EventRoutes) error {
	var err error
	r.Webhooks, err = s.WebhooksFor(ctx, models.System(e.TenantID), e.Type)
	return err
}

// WebhooksFor lists the ids of a tenant's enabled webhook endpoints subscribed to eventType.
func (s *Store) WebhooksFor(ctx context.Context, sys models.Scope, eventType string) ([]string, error) {
	hooks, err := s.enabledWebhooks(ctx, sys.TenantID())
	if err != nil {
		return nil, err
	}
	var ids []string
	for i := range hooks {
		if models.MatchAnyEventType(hooks[i].Patterns(), eventType) {
			ids = append(ids, hooks[i].ID)
		}
	}
	return ids, nil
}

func (s *Store) enabledWebhooks(ctx context.Context, tenantID string) ([]models.Webhook, error) {
	var hooks []models.Webhook
	err := s.core.DB(ctx).Select("id", "event_types").
		Where(store.System(tenantID).Tenant()).Where("enabled = ?", true).Order("id").Find(&hooks).Error
	return hooks, err
}

func webhookNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// webhookRows starts a query on the principal's webhooks. Endpoints receive every event of the
// tenant, so partner principals see none.
func (sc *Scoped) webhookRows(ctx context.Context, model any) *gorm.DB {
	return sc.Scope.OperatorRows(sc.s.core.DB(ctx).Model(model))
}

func eventTypesJSON(patterns []string) string {
	p := slices.Clone(patterns)
	slices.Sort(p)
	b, _ := json.Marshal(slices.Compact(p))
	return string(b)
}

// CreateWebhook adds an endpoint. The caller sets w.ID (the secret is sealed for it) and the
// sealed secret; the tenant comes from the principal.
func (sc *Scoped) CreateWebhook(ctx context.Context, w *models.Webhook, eventTypes []string) error {
	if w.ID == "" {
		w.ID = models.NewID()
	}
	w.TenantID = sc.P.TenantID
	w.EventTypes = eventTypesJSON(eventTypes)
	w.CreatedAt = webhookNow()
	w.UpdatedAt = w.CreatedAt
	if !w.Enabled {
		w.DisabledAt = &w.CreatedAt
	}
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		if err := tx.Create(w).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, w.TenantID, "webhook.created", "webhook", w.ID, "url", "description", "eventTypes", "enabled", "secret")
	})
	if err == nil {
		sc.s.core.InvalidateSubscriptions(w.TenantID)
	}
	return err
}

// ListWebhooks lists the tenant's endpoints, oldest first.
func (sc *Scoped) ListWebhooks(ctx context.Context, pg models.Page) ([]models.Webhook, string, error) {
	return store.Page(sc.webhookRows(ctx, &models.Webhook{}), pg, func(w models.Webhook) string { return w.ID })
}

// Webhook finds one endpoint of the tenant.
func (sc *Scoped) Webhook(ctx context.Context, id string) (*models.Webhook, error) {
	var w models.Webhook
	err := sc.webhookRows(ctx, &models.Webhook{}).Where("id = ?", id).Take(&w).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("WEBHOOK_NOT_FOUND", "webhook")
	}
	return &w, err
}

// UpdateWebhook changes an endpoint. Enabling it again clears the record of its failures.
func (sc *Scoped) UpdateWebhook(ctx context.Context, id string, ch models.WebhookChanges) (*models.Webhook, error) {
	w, err := sc.Webhook(ctx, id)
	if err != nil {
		return nil, err
	}
	updates := map[string]any{}
	var changed []string
	if ch.URL != nil && *ch.URL != w.URL {
		w.URL = *ch.URL
		updates["url"], changed = w.URL, append(changed, "url")
	}
	if ch.Description != nil && *ch.Description != w.Description {
		w.Description = *ch.Description
		updates["description"], changed = w.Description, append(changed, "description")
	}
	if ch.EventTypes != nil {
		if et := eventTypesJSON(ch.EventTypes); et != w.EventTypes {
			w.EventTypes = et
			updates["event_types"], changed = et, append(changed, "eventTypes")
		}
	}
	t := webhookNow()
	if ch.Enabled != nil && *ch.Enabled != w.Enabled {
		w.Enabled = *ch.Enabled
		updates["enabled"], changed = w.Enabled, append(changed, "enabled")
		if w.Enabled {
			w.DisabledAt, w.DisabledReason, w.FailingSince = nil, "", nil
		} else {
			w.DisabledAt, w.DisabledReason = &t, ""
		}
		updates["disabled_at"], updates["disabled_reason"], updates["failing_since"] = w.DisabledAt, w.DisabledReason, w.FailingSince
	}
	if len(changed) == 0 {
		return w, nil
	}
	w.UpdatedAt = t
	updates["updated_at"] = t
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		res := tx.Model(&models.Webhook{}).Where(sc.Scope.Tenant()).Where("id = ?", w.ID).Updates(updates)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return models.NotFound("WEBHOOK_NOT_FOUND", "webhook")
		}
		return store.WriteAudit(ctx, tx, w.TenantID, "webhook.updated", "webhook", w.ID, changed...)
	})
	if err != nil {
		return nil, err
	}
	sc.s.core.InvalidateSubscriptions(w.TenantID)
	return w, nil
}

// DeleteWebhook removes an endpoint with its deliveries; deliveries still retrying stop at
// their next attempt.
func (sc *Scoped) DeleteWebhook(ctx context.Context, id string) error {
	w, err := sc.Webhook(ctx, id)
	if err != nil {
		return err
	}
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		tenant := store.System(w.TenantID).Tenant()
		if err := tx.Where(tenant).Where("webhook_id = ?", w.ID).Delete(&models.WebhookAttempt{}).Error; err != nil {
			return err
		}
		if err := tx.Where(tenant).Where("webhook_id = ?", w.ID).Delete(&models.WebhookDelivery{}).Error; err != nil {
			return err
		}
		if err := tx.Where(store.System(w.TenantID).Tenant()).Where("id = ?", w.ID).Delete(&models.Webhook{}).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, w.TenantID, "webhook.deleted", "webhook", w.ID)
	})
	if err == nil {
		sc.s.core.InvalidateSubscriptions(w.TenantID)
	}
	return err
}

// RotateWebhookSecret replaces an endpoint's secret; the previous one keeps signing until
// rot.PreviousExpiresAt. It answers a conflict when another rotation came first.
func (sc *Scoped) RotateWebhookSecret(ctx context.Context, id string, rot models.WebhookSecretRotation) (*models.Webhook, error) {
	w, err := sc.Webhook(ctx, id)
	if err != nil {
		return nil, err
	}
	t := webhookNow()
	exp := rot.PreviousExpiresAt.UTC().Truncate(time.Microsecond)
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		res := tx.Model(&models.Webhook{}).Where(store.System(w.TenantID).Tenant()).Where("id = ? AND secret = ?", w.ID, rot.Expect).
			Updates(map[string]any{"secret": rot.Secret, "secret_hint": rot.SecretHint, "previous_secret": rot.PreviousSecret,
				"previous_secret_expires_at": exp, "updated_at": t})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return models.Conflict("SECRET_ROTATED_MEANWHILE", "the secret was rotated by another request; try again")
		}
		return store.WriteAudit(ctx, tx, w.TenantID, "webhook.secret_rotated", "webhook", w.ID, "secret")
	})
	if err != nil {
		return nil, err
	}
	w.Secret, w.SecretHint, w.PreviousSecret, w.PreviousSecretExpiresAt, w.UpdatedAt = rot.Secret, rot.SecretHint, rot.PreviousSecret, &exp, t
	return w, nil
}

// CreateTestDelivery records a test-send of a synthetic message to an endpoint; d.ID and
// d.MessageID may be preset, d.Body holds the message.
func (sc *Scoped) CreateTestDelivery(ctx context.Context, webhookID string, d *models.WebhookDelivery) error {
	w, err := sc.Webhook(ctx, webhookID)
	if err != nil {
		return err
	}
	if d.ID == "" {
		d.ID = models.NewID()
	}
	if d.MessageID == "" {
		d.MessageID = d.ID
	}
	d.TenantID, d.WebhookID, d.Test, d.Status, d.EventID = w.TenantID, w.ID, true, models.DeliveryPending, nil
	d.CreatedAt = webhookNow()
	d.UpdatedAt = d.CreatedAt
	return sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		if err := tx.Create(d).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, w.TenantID, "webhook.tested", "webhook", w.ID)
	})
}

// ListWebhookDeliveries lists the deliveries of an endpoint, oldest first.
func (sc *Scoped) ListWebhookDeliveries(ctx context.Context, webhookID string, f models.DeliveryFilter, pg models.Page) ([]models.WebhookDelivery, string, error) {
	if _, err := sc.Webhook(ctx, webhookID); err != nil {
		return nil, "", err
	}
	q := sc.webhookRows(ctx, &models.WebhookDelivery{}).Where("webhook_id = ?", webhookID).Omit("body")
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	return store.Page(q, pg, func(d models.WebhookDelivery) string { return d.ID })
}

// maxAttemptsShown bounds the attempts a delivery's detail lists (the newest ones).
const maxAttemptsShown = 200

// WebhookDelivery finds one delivery of an endpoint with its attempts, oldest first.
func (sc *Scoped) WebhookDelivery(ctx context.Context, webhookID, deliveryID string) (*models.WebhookDelivery, []models.WebhookAttempt, error) {
	var d models.WebhookDelivery
	err := sc.webhookRows(ctx, &models.WebhookDelivery{}).Where("webhook_id = ? AND id = ?", webhookID, deliveryID).Take(&d).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil, models.NotFound("DELIVERY_NOT_FOUND", "delivery")
	}
	if err != nil {
		return nil, nil, err
	}
	var attempts []models.WebhookAttempt
	err = sc.s.core.DB(ctx).Where(store.System(d.TenantID).Tenant()).Where("delivery_id = ?", d.ID).
		Order("number DESC").Limit(maxAttemptsShown).Find(&attempts).Error
	slices.Reverse(attempts)
	return &d, attempts, err
}

// ReplayWebhookDelivery records that a delivery is sent again and returns it with its replay
// count raised. The endpoint must be enabled.
func (sc *Scoped) ReplayWebhookDelivery(ctx context.Context, webhookID, deliveryID string) (*models.WebhookDelivery, error) {
	w, err := sc.Webhook(ctx, webhookID)
	if err != nil {
		return nil, err
	}
	d, _, err := sc.WebhookDelivery(ctx, webhookID, deliveryID)
	if err != nil {
		return nil, err
	}
	if !w.Enabled {
		return nil, models.Conflict("WEBHOOK_DISABLED", "the webhook is disabled; enable it before replaying")
	}
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		if err := tx.Model(&models.WebhookDelivery{}).Where(store.System(d.TenantID).Tenant()).Where("id = ?", d.ID).
			Update("replays", gorm.Expr("replays + 1")).Error; err != nil {
			return err
		}
		if err := tx.Where(store.System(d.TenantID).Tenant()).Where("id = ?", d.ID).Take(d).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, d.TenantID, "webhook.delivery_replayed", "webhook_delivery", d.ID)
	})
	return d, err
}

// BeginWebhookDelivery starts a delivery for a workflow: it creates the delivery of an event to
// an endpoint (once, however often it is called) or, for a replay or a test-send, marks the
// named delivery pending again. It answers not found when the endpoint, the event or the
// delivery is gone, and a conflict when the endpoint is disabled.
func (s *Store) BeginWebhookDelivery(ctx context.Context, in models.DeliveryStart) (*models.WebhookDelivery, error) {
	var w models.Webhook
	err := s.core.DB(ctx).Where(store.System(in.TenantID).Tenant()).Where("id = ?", in.WebhookID).Take(&w).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("WEBHOOK_NOT_FOUND", "webhook")
	}
	if err != nil {
		return nil, err
	}
	var d models.WebhookDelivery
	if in.DeliveryID != "" {
		err := s.core.DB(ctx).Where(store.System(in.TenantID).Tenant()).Where("webhook_id = ? AND id = ?", in.WebhookID, in.DeliveryID).Take(&d).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, models.NotFound("DELIVERY_NOT_FOUND", "delivery")
		}
		if err != nil {
			return nil, err
		}
		if !w.Enabled && !d.Test {
			return nil, models.Conflict("WEBHOOK_DISABLED", "the webhook is disabled")
		}
		t := webhookNow()
		err = s.core.DB(ctx).Model(&models.WebhookDelivery{}).Where(store.System(d.TenantID).Tenant()).Where("id = ?", d.ID).
			Updates(map[string]any{"status": models.DeliveryPending, "completed_at": nil, "updated_at": t}).Error
		d.Status, d.CompletedAt, d.UpdatedAt = models.DeliveryPending, nil, t
		return &d, err
	}
	if !w.Enabled {
		return nil, models.Conflict("WEBHOOK_DISABLED", "the webhook is disabled")
	}
	e, err := s.core.EventByID(ctx, models.System(in.TenantID), in.EventID)
	if err != nil {
		return nil, err
	}
	t := webhookNow()
	d = models.WebhookDelivery{ID: models.NewID(), TenantID: in.TenantID, WebhookID: w.ID, EventID: &e.ID, EventType: e.Type,
		MessageID: e.ID, Status: models.DeliveryPending, CreatedAt: t, UpdatedAt: t}
	if err := s.core.DB(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&d).Error; err != nil {
		return nil, err
	}
	var stored models.WebhookDelivery
	err = s.core.DB(ctx).Where(store.System(in.TenantID).Tenant()).Where("webhook_id = ? AND event_id = ?", w.ID, e.ID).Take(&stored).Error
	return &stored, err
}

// WebhookDispatch loads what one attempt of a delivery needs. It answers not found when the
// endpoint or the delivery is gone.
func (s *Store) WebhookDispatch(ctx context.Context, sys models.Scope, webhookID, deliveryID string) (*models.WebhookDispatch, error) {
	var out models.WebhookDispatch
	db := s.core.DB(ctx)
	err := db.Where(store.Of(sys).Tenant()).Where("id = ?", webhookID).Take(&out.Webhook).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("WEBHOOK_NOT_FOUND", "webhook")
	}
	if err != nil {
		return nil, err
	}
	err = db.Where(store.Of(sys).Tenant()).Where("webhook_id = ? AND id = ?", webhookID, deliveryID).Take(&out.Delivery).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("DELIVERY_NOT_FOUND", "delivery")
	}
	if err != nil {
		return nil, err
	}
	switch {
	case out.Delivery.Body != nil:
		out.Body = []byte(*out.Delivery.Body)
	case out.Delivery.EventID != nil:
		e, err := s.core.EventByID(ctx, sys, *out.Delivery.EventID)
		if err != nil {
			return nil, err
		}
		if out.Body, err = models.WebhookBody(e); err != nil {
			return nil, err
		}
	default:
		return nil, models.NotFound("EVENT_NOT_FOUND", "event")
	}
	return &out, nil
}

// RecordWebhookAttempt stores one attempt and decides what follows: success ends the delivery
// and clears the endpoint's failure record; a failure starts or continues it, a 410 or a
// failure lasting rec.DisableAfter disables the endpoint (emitting webhook.disabled), and a
// failed final attempt ends the delivery. Test-sends never change the endpoint. Recording the
// same attempt id again changes nothing and reports the delivery's status.
func (s *Store) RecordWebhookAttempt(ctx context.Context, rec models.AttemptRecord) (models.AttemptOutcome, error) {
	var out models.AttemptOutcome
	at := rec.At.UTC().Truncate(time.Microsecond)
	err := s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var d models.WebhookDelivery
		err := tx.Where(store.System(rec.TenantID).Tenant()).Where("id = ?", rec.DeliveryID).Take(&d).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			out.Status = models.DeliveryCancelled
			return nil
		}
		if err != nil {
			return err
		}
		var seen int64
		if err := tx.Model(&models.WebhookAttempt{}).Where("id = ?", rec.AttemptID).Count(&seen).Error; err != nil {
			return err
		}
		if seen > 0 {
			out.Status = d.Status
			return nil
		}
		if err := tx.Model(&models.WebhookDelivery{}).Where("id = ?", d.ID).Update("attempts", gorm.Expr("attempts + 1")).Error; err != nil {
			return err
		}
		if err := tx.Model(&models.WebhookDelivery{}).Select("attempts").Where("id = ?", d.ID).Scan(&d.Attempts).Error; err != nil {
			return err
		}
		a := models.WebhookAttempt{ID: rec.AttemptID, TenantID: rec.TenantID, WebhookID: d.WebhookID, DeliveryID: d.ID, Number: d.Attempts,
			StatusCode: rec.StatusCode, LatencyMS: rec.LatencyMS, ResponseBody: rec.ResponseBody, Error: webhookTruncate(rec.Error, 1000), AttemptedAt: at}
		if err := tx.Create(&a).Error; err != nil {
			return err
		}
		ok := models.Succeeded(rec.StatusCode)
		out.Status = models.DeliveryPending
		switch {
		case ok:
			out.Status = models.DeliverySucceeded
		case d.Test || rec.Final:
			out.Status = models.DeliveryFailed
		}
		if !d.Test {
			if err := s.recordEndpointHealth(ctx, tx, ev, rec, at, ok, &out); err != nil {
				return err
			}
		}
		upd := map[string]any{"status": out.Status, "last_status_code": rec.StatusCode, "updated_at": webhookNow()}
		if out.Status != models.DeliveryPending {
			upd["completed_at"] = at
		}
		return tx.Model(&models.WebhookDelivery{}).Where("id = ?", d.ID).Updates(upd).Error
	})
	if err == nil && out.Disabled {
		s.core.InvalidateSubscriptions(rec.TenantID)
	}
	return out, err
}

// recordEndpointHealth keeps an endpoint's failure record and disables it when it answered 410
// or failed for too long.
func (s *Store) recordEndpointHealth(ctx context.Context, tx *gorm.DB, ev *store.Outbox, rec models.AttemptRecord, at time.Time, ok bool, out *models.AttemptOutcome) error {
	hook := tx.Model(&models.Webhook{}).Where(store.System(rec.TenantID).Tenant()).Where("id = ?", rec.WebhookID)
	if ok {
		return hook.Update("failing_since", nil).Error
	}
	if err := tx.Model(&models.Webhook{}).Where(store.System(rec.TenantID).Tenant()).Where("id = ? AND failing_since IS NULL", rec.WebhookID).
		Update("failing_since", at).Error; err != nil {
		return err
	}
	var w models.Webhook
	err := tx.Where(store.System(rec.TenantID).Tenant()).Where("id = ?", rec.WebhookID).Take(&w).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		out.Status = models.DeliveryCancelled
		return nil
	}
	if err != nil {
		return err
	}
	reason := ""
	switch {
	case rec.StatusCode == http.StatusGone:
		reason = models.WebhookDisabledGone
	case rec.DisableAfter > 0 && w.FailingSince != nil && at.Sub(*w.FailingSince) >= rec.DisableAfter:
		reason = models.WebhookDisabledFailing
	}
	if reason == "" {
		return nil
	}
	out.Status = models.DeliveryFailed
	res := tx.Model(&models.Webhook{}).Where(store.System(rec.TenantID).Tenant()).Where("id = ? AND enabled = ?", rec.WebhookID, true).
		Updates(map[string]any{"enabled": false, "disabled_reason": reason, "disabled_at": at, "updated_at": webhookNow()})
	if res.Error != nil || res.RowsAffected == 0 {
		return res.Error
	}
	out.Disabled, out.DisabledReason = true, reason
	if err := store.WriteAudit(ctx, tx, rec.TenantID, "webhook.disabled", "webhook", rec.WebhookID, "enabled"); err != nil {
		return err
	}
	payload, _ := json.Marshal(models.WebhookDisabledPayload{WebhookID: w.ID, URL: w.URL, Reason: reason})
	_, err = ev.Emit(ctx, tx, rec.TenantID, models.NewEvent{Type: models.EventWebhookDisabled, Payload: string(payload)})
	return err
}

// EndWebhookDelivery sets the final status of a delivery that stopped without an attempt.
func (s *Store) EndWebhookDelivery(ctx context.Context, sys models.Scope, deliveryID, status string) error {
	t := webhookNow()
	return s.core.DB(ctx).Model(&models.WebhookDelivery{}).Where(store.Of(sys).Tenant()).Where("id = ?", deliveryID).
		Updates(map[string]any{"status": status, "completed_at": t, "updated_at": t}).Error
}

func webhookTruncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n-- // do not cut a UTF-8 sequence
	}
	return s[:n]
}
