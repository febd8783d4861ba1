// Package customers keeps customers and the events about them: the event log as each principal
// may read it, and the ingest of events sent by integrations.
package customers

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/ingest"
)

// Store keeps customers and the event log, and takes in events from integrations.
type Store struct {
	core   *store.Store
	ingest *ingest.Engine
}

// New is the customers store on core's database; ingested events are written by engine.
func New(core *store.Store, engine *ingest.Engine) *Store {
	return &Store{core: core, ingest: engine}
}

// Scoped is the customer and event store as one principal sees it: partners see only their own organisation's customers and events.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the customers store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

// Payload is the payload of customer.* events.
func Payload(c *models.Customer) string {
	b, _ := json.Marshal(models.CustomerEventPayload{
		CustomerID: c.ID, Email: store.Deref(c.Email), ExternalID: store.Deref(c.ExternalID), Name: c.Name, PartnerID: store.Deref(c.PartnerID),
	})
	return string(b)
}

func (sc *Scoped) customerRows(ctx context.Context) *gorm.DB {
	return sc.PartnerRows(ctx, &models.Customer{}, "partner_id")
}

// CreateCustomer adds a customer. Partner principals create customers attributed to
// themselves; operators may attribute it to any partner of the tenant or to none.
func (sc *Scoped) CreateCustomer(ctx context.Context, c *models.Customer) error {
	c.ID = models.NewID()
	c.TenantID = sc.P.TenantID
	if c.Email != nil {
		e := store.NormalizeEmail(*c.Email)
		c.Email = &e
	}
	if sc.P.PartnerID != "" && c.PartnerID == nil {
		pid := sc.P.PartnerID
		c.PartnerID = &pid
	}
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if c.PartnerID != nil {
			if err := sc.Scope.CheckPartner(tx, *c.PartnerID, "body.partnerId"); err != nil {
				return err
			}
		}
		if err := tx.Create(c).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, c.TenantID, "customer.created", "customer", c.ID, "email", "externalId", "name", "partnerId"); err != nil {
			return err
		}
		_, err := ev.Emit(ctx, tx, c.TenantID, models.NewEvent{Type: models.EventCustomerCreated, CustomerID: &c.ID, PartnerID: c.PartnerID, Payload: Payload(c)})
		return err
	})
	return store.Translate(err, "CUSTOMER_EXISTS", "a customer with this email or external id exists")
}

// ListCustomers lists the customers the principal may see, oldest first.
func (sc *Scoped) ListCustomers(ctx context.Context, f models.CustomerFilter, pg models.Page) ([]models.Customer, string, error) {
	q := sc.customerRows(ctx)
	if f.PartnerID != "" {
		q = q.Where("partner_id = ?", f.PartnerID)
	}
	if f.Unattributed {
		q = q.Where("partner_id IS NULL")
	}
	if f.Email != "" {
		q = q.Where("email = ?", store.NormalizeEmail(f.Email))
	}
	q = store.Containing(q, f.Q, "name", "email", "external_id")
	return store.Page(q, pg, func(c models.Customer) string { return c.ID })
}

// Customer finds one customer the principal may see.
func (sc *Scoped) Customer(ctx context.Context, id string) (*models.Customer, error) {
	var c models.Customer
	err := sc.customerRows(ctx).Where("id = ?", id).Take(&c).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("CUSTOMER_NOT_FOUND", "customer")
	}
	return &c, err
}

// UpdateCustomer changes a customer. Only operators change the attribution.
func (sc *Scoped) UpdateCustomer(ctx context.Context, id string, ch models.CustomerChanges) (*models.Customer, error) {
	c, err := sc.Customer(ctx, id)
	if err != nil {
		return nil, err
	}
	updates := map[string]any{}
	var changed []string
	setPtr := func(col, field string, v *string, dst **string) {
		if v == nil || store.Deref(*dst) == *v {
			return
		}
		*dst = store.NonEmpty(*v)
		updates[col] = *dst
		changed = append(changed, field)
	}
	if ch.Email != nil {
		e := store.NormalizeEmail(*ch.Email)
		ch.Email = &e
	}
	setPtr("email", "email", ch.Email, &c.Email)
	setPtr("external_id", "externalId", ch.ExternalID, &c.ExternalID)
	if ch.Name != nil && *ch.Name != c.Name {
		c.Name = *ch.Name
		updates["name"] = c.Name
		changed = append(changed, "name")
	}
	reattributed := ch.PartnerID != nil && *ch.PartnerID != store.Deref(c.PartnerID)
	if reattributed && sc.P.PartnerID != "" {
		return nil, models.Errorf(models.KindForbidden, "ATTRIBUTION_LOCKED", "only operators change which partner a customer is attributed to")
	}
	setPtr("partner_id", "partnerId", ch.PartnerID, &c.PartnerID)
	if len(changed) == 0 {
		return c, nil
	}
	c.UpdatedAt = time.Now().UTC()
	updates["updated_at"] = c.UpdatedAt
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if reattributed && c.PartnerID != nil {
			if err := sc.Scope.CheckPartner(tx, *c.PartnerID, "body.partnerId"); err != nil {
				return err
			}
		}
		if err := tx.Model(&models.Customer{}).Where(sc.Scope.Tenant()).Where("id = ?", c.ID).Updates(updates).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, c.TenantID, "customer.updated", "customer", c.ID, changed...); err != nil {
			return err
		}
		typ := models.EventCustomerUpdated
		if reattributed {
			typ = models.EventCustomerAttributed
		}
		_, err := ev.Emit(ctx, tx, c.TenantID, models.NewEvent{Type: typ, CustomerID: &c.ID, PartnerID: c.PartnerID, Payload: Payload(c)})
		return err
	})
	if err != nil {
		return nil, store.Translate(err, "CUSTOMER_EXISTS", "a customer with this email or external id exists")
	}
	return c, nil
}

// DeleteCustomer removes a customer. Its events stay, with their partner attribution, so that
// metrics and commissions keep their history.
func (sc *Scoped) DeleteCustomer(ctx context.Context, id string) error {
	c, err := sc.Customer(ctx, id)
	if err != nil {
		return err
	}
	return sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if err := tx.Where(sc.Scope.Tenant()).Where("id = ?", c.ID).Delete(&models.Customer{}).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, c.TenantID, "customer.deleted", "customer", c.ID); err != nil {
			return err
		}
		_, err := ev.Emit(ctx, tx, c.TenantID, models.NewEvent{Type: models.EventCustomerDeleted, CustomerID: &c.ID, PartnerID: c.PartnerID, Payload: Payload(c)})
		return err
	})
}

// Ingest stores events sent by an integration: it resolves each event's customer (creating an
// unattributed one for an unknown email when the tenant allows it), stores each event once per
// client event id, and reports per event what happened. Events of a partner-bound key may only
// name that partner's customers, and customers it creates are attributed to it.
func (sc *Scoped) Ingest(ctx context.Context, in []models.IngestEvent) ([]models.IngestResult, error) {
	results := make([]models.IngestResult, len(in))
	if sc.P.TenantID == "" {
		return nil, models.NotFound("TENANT_NOT_FOUND", "tenant")
	}
	customers, err := sc.resolveCustomers(ctx, in, results)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	var events []*models.Event
	firstOf := map[string]int{} // external id → index of its first event in this request
	for i, e := range in {
		if results[i].Status == models.IngestRejected {
			continue
		}
		c := customers[i]
		results[i].CustomerID = c.ID
		if e.ExternalID != "" {
			if j, seen := firstOf[e.ExternalID]; seen {
				results[i].Status = models.IngestDuplicate
				results[i].EventID = "@" + strconv.Itoa(j) // resolved below
				continue
			}
			firstOf[e.ExternalID] = i
		}
		ev := store.EventOf(ctx, sc.P.TenantID, models.EventSourceIngest, models.NewEvent{
			Type: e.Type, CustomerID: &c.ID, PartnerID: c.PartnerID, Payload: e.Payload, OccurredAt: e.OccurredAt,
		}, now)
		ev.ExternalID = store.NonEmpty(e.ExternalID)
		results[i].EventID = ev.ID
		results[i].Status = models.IngestStored
		events = append(events, ev)
	}
	if len(events) == 0 {
		return results, nil
	}
	// Concurrent requests share one transaction (package ingest). An event whose client id
	// was already stored (earlier, or by a concurrent request) was skipped by the insert: the
	// id stored under its client id differs from ours.
	storedID, err := sc.s.ingest.Commit(ctx, events)
	if err != nil {
		return nil, err
	}
	for i := range results {
		if results[i].Status != models.IngestStored || in[i].ExternalID == "" {
			continue
		}
		if id := storedID[in[i].ExternalID]; id != results[i].EventID {
			results[i].Status, results[i].EventID = models.IngestDuplicate, id
		}
	}
	for i := range results {
		if results[i].Status == models.IngestDuplicate && len(results[i].EventID) > 0 && results[i].EventID[0] == '@' {
			results[i].EventID = results[firstOf[in[i].ExternalID]].EventID
		}
	}
	return results, nil
}

// resolveCustomers finds (or creates) the customer of each event; events whose customer
// cannot be resolved are marked rejected in results.
func (sc *Scoped) resolveCustomers(ctx context.Context, in []models.IngestEvent, results []models.IngestResult) ([]*models.Customer, error) {
	cache, now := sc.s.ingest.Customers(), time.Now()
	byEmail, byID := map[string]*models.Customer{}, map[string]*models.Customer{}
	var emails, ids []string
	for i := range in {
		in[i].CustomerEmail = store.NormalizeEmail(in[i].CustomerEmail)
		if e := in[i].CustomerEmail; e != "" && byEmail[e] == nil {
			if c := cache.ByEmail(sc.P.TenantID, e, now); c != nil {
				byEmail[e] = c
			} else {
				emails = append(emails, e)
			}
		}
		if id := in[i].CustomerID; id != "" && byID[id] == nil {
			if c := cache.ByID(sc.P.TenantID, id, now); c != nil {
				byID[id] = c
			} else {
				ids = append(ids, id)
			}
		}
	}
	load := func() error {
		if len(emails) == 0 && len(ids) == 0 {
			return nil
		}
		var found []models.Customer
		q := sc.s.core.DB(ctx).Where(sc.Scope.Tenant())
		switch {
		case len(emails) > 0 && len(ids) > 0:
			q = q.Where("email IN ? OR id IN ?", uniq(emails), uniq(ids))
		case len(emails) > 0:
			q = q.Where("email IN ?", uniq(emails))
		default:
			q = q.Where("id IN ?", uniq(ids))
		}
		if err := q.Find(&found).Error; err != nil {
			return err
		}
		cache.Put(sc.P.TenantID, found, now)
		for i := range found {
			c := &found[i]
			byID[c.ID] = c
			if c.Email != nil {
				byEmail[*c.Email] = c
			}
		}
		return nil
	}
	if err := load(); err != nil {
		return nil, err
	}
	var missing []string
	for _, e := range in {
		if e.CustomerEmail != "" && e.CustomerID == "" && byEmail[e.CustomerEmail] == nil && !slices.Contains(missing, e.CustomerEmail) {
			missing = append(missing, e.CustomerEmail)
		}
	}
	if len(missing) > 0 {
		allowed, err := sc.ingestCreatesCustomers(ctx)
		if err != nil {
			return nil, err
		}
		if allowed {
			if err := sc.createIngestCustomers(ctx, missing); err != nil {
				return nil, err
			}
			emails, ids = missing, nil
			if err := load(); err != nil {
				return nil, err
			}
		}
	}
	out := make([]*models.Customer, len(in))
	for i, e := range in {
		var c *models.Customer
		switch {
		case e.CustomerID != "":
			c = byID[e.CustomerID]
			if c == nil || !sc.mayUse(c) {
				results[i] = rejected(models.Invalid("CUSTOMER_NOT_FOUND", "no customer has this id",
					models.FieldError{Location: "body.customerId", Message: "no customer has this id", Value: e.CustomerID}))
				continue
			}
			if e.CustomerEmail != "" && store.Deref(c.Email) != e.CustomerEmail {
				results[i] = rejected(models.Invalid("CUSTOMER_MISMATCH", "customerEmail and customerId name different customers",
					models.FieldError{Location: "body.customerEmail", Message: "is not the email of the customer named by customerId", Value: e.CustomerEmail}))
				continue
			}
		default:
			c = byEmail[e.CustomerEmail]
			if c == nil {
				results[i] = rejected(models.Invalid("CUSTOMER_NOT_FOUND", "no customer has this email and this tenant does not create customers on ingest",
					models.FieldError{Location: "body.customerEmail", Message: "unknown customer", Value: e.CustomerEmail}))
				continue
			}
			if !sc.mayUse(c) {
				results[i] = rejected(models.Invalid("CUSTOMER_NOT_FOUND", "no customer of your partner organisation has this email",
					models.FieldError{Location: "body.customerEmail", Message: "unknown customer", Value: e.CustomerEmail}))
				continue
			}
		}
		out[i] = c
	}
	return out, nil
}

func rejected(err *models.Error) models.IngestResult {
	return models.IngestResult{Status: models.IngestRejected, Err: err}
}

// mayUse reports whether the principal may attribute events to c.
func (sc *Scoped) mayUse(c *models.Customer) bool {
	return sc.P.PartnerID == "" || store.Deref(c.PartnerID) == sc.P.PartnerID
}

func (sc *Scoped) ingestCreatesCustomers(ctx context.Context) (bool, error) {
	t, err := sc.s.core.TenantByID(ctx, sc.P.TenantID)
	if err != nil {
		return false, err
	}
	return t.IngestCreatesCustomers, nil
}

// createIngestCustomers creates customers for unknown emails; one created meanwhile by
// another request is kept as it is.
func (sc *Scoped) createIngestCustomers(ctx context.Context, emails []string) error {
	now := time.Now().UTC()
	if _, err := sc.s.core.Subscribed(ctx, models.System(sc.P.TenantID), models.EventCustomerCreated); err != nil {
		return err // loaded before the transaction: see anySubscribed
	}
	// In one order for every request, so that two requests creating the same customers wait for
	// each other instead of deadlocking.
	emails = slices.Sorted(slices.Values(emails))
	return sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		for _, email := range emails {
			c := &models.Customer{ID: models.NewID(), TenantID: sc.P.TenantID, Email: &email, PartnerID: store.NonEmpty(sc.P.PartnerID), CreatedAt: now, UpdatedAt: now}
			res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(c)
			if res.Error != nil {
				return res.Error
			}
			if res.RowsAffected == 0 {
				continue
			}
			if _, err := ev.Emit(ctx, tx, c.TenantID, models.NewEvent{Type: models.EventCustomerCreated, CustomerID: &c.ID, PartnerID: c.PartnerID, Payload: Payload(c)}); err != nil {
				return err
			}
		}
		return nil
	})
}

func uniq(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}
