// Package domains keeps custom domains: hosts that serve a tenant's portal, or one partner's
// co-branded portal, once a DNS TXT record proves the tenant controls them.
package domains

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// Store keeps custom domains.
type Store struct {
	core *store.Store
}

// New is the custom-domain store on core's database.
func New(core *store.Store) *Store { return &Store{core: core} }

// Scoped is the custom domains as one principal sees them: a tenant's operators manage them;
// partners see none.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the custom-domain store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// newToken is the value of a domain's TXT record.
func newToken() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return "partnerd-verify=" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

func payload(d *models.Domain) string {
	return store.MustJSON(models.DomainEventPayload{DomainID: d.ID, Host: d.Host, PartnerID: d.PartnerID, Status: d.Status})
}

// emit writes a domain.* event and its audit entry in tx.
func emit(ctx context.Context, tx *gorm.DB, ev *store.Outbox, d *models.Domain, typ string) error {
	if err := store.WriteAudit(ctx, tx, d.TenantID, typ, "domain", d.ID, "status"); err != nil {
		return err
	}
	_, err := ev.Emit(ctx, tx, d.TenantID, models.NewEvent{Type: typ, SubjectID: &d.ID, PartnerID: partnerRef(d.PartnerID), Payload: payload(d)})
	return err
}

func partnerRef(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}

// AddDomain adds a pending custom domain for the tenant's portal, or for partnerID's co-branded
// portal, with the token its TXT record must hold; it emits domain.added.
func (sc *Scoped) AddDomain(ctx context.Context, host, partnerID string) (*models.Domain, error) {
	if sc.Scope.PartnerID() != "" {
		return nil, models.Errorf(models.KindForbidden, "OPERATORS_ONLY", "only the tenant's operators manage custom domains")
	}
	h, err := models.CheckDomainHost(host)
	if err != nil {
		return nil, err
	}
	t := now()
	d := &models.Domain{ID: models.NewID(), TenantID: sc.Scope.TenantID(), PartnerID: partnerID, Host: h, Token: newToken(),
		Status: models.DomainPending, CreatedAt: t, UpdatedAt: t}
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if partnerID != "" {
			if err := sc.Scope.CheckPartner(tx, partnerID, "body.partnerId"); err != nil {
				return err
			}
		}
		var n int64
		if err := sc.Scope.Rows(tx.Model(&models.Domain{})).Count(&n).Error; err != nil {
			return err
		}
		if n >= models.MaxDomainsPerTenant {
			return models.Conflict("TOO_MANY_DOMAINS", "a tenant has at most 50 custom domains")
		}
		if err := tx.Create(d).Error; err != nil {
			return store.Translate(err, "DOMAIN_EXISTS", "the tenant has this host already")
		}
		return emit(ctx, tx, ev, d, models.EventDomainAdded)
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Domain is one custom domain of the tenant.
func (sc *Scoped) Domain(ctx context.Context, id string) (*models.Domain, error) {
	var d models.Domain
	err := sc.Scope.OperatorRows(sc.s.core.DB(ctx).Model(&models.Domain{})).Where("id = ?", id).Take(&d).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("DOMAIN_NOT_FOUND", "domain")
	}
	return &d, err
}

// ListDomains pages the tenant's custom domains, by host.
func (sc *Scoped) ListDomains(ctx context.Context, pg models.Page) ([]models.Domain, string, error) {
	q := sc.Scope.OperatorRows(sc.s.core.DB(ctx).Model(&models.Domain{}))
	return store.Page(q, pg, func(d models.Domain) string { return d.ID })
}

// RemoveDomain deletes a custom domain; its host stops serving at once. Emits domain.removed.
func (sc *Scoped) RemoveDomain(ctx context.Context, id string) (*models.Domain, error) {
	var d models.Domain
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		err := sc.Scope.OperatorRows(tx.Model(&models.Domain{})).Where("id = ?", id).Take(&d).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return models.NotFound("DOMAIN_NOT_FOUND", "domain")
		}
		if err != nil {
			return err
		}
		if err := sc.Scope.Rows(tx.Model(&models.Domain{})).Where("id = ?", id).Delete(&models.Domain{}).Error; err != nil {
			return err
		}
		return emit(ctx, tx, ev, &d, models.EventDomainRemoved)
	})
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// RestartVerification puts a failed or unverified domain back to pending (a verified or
// pending one stays as it is) for its verification to run again.
func (sc *Scoped) RestartVerification(ctx context.Context, id string) (*models.Domain, error) {
	d, err := sc.Domain(ctx, id)
	if err != nil {
		return nil, err
	}
	if d.Status == models.DomainFailed || d.Status == models.DomainUnverified {
		t := now()
		if err := sc.Scope.Rows(sc.s.core.DB(ctx).Model(&models.Domain{})).Where("id = ?", id).
			Updates(map[string]any{"status": models.DomainPending, "last_error": "", "missing_since": nil, "updated_at": t}).Error; err != nil {
			return nil, err
		}
		d.Status, d.LastError, d.MissingSince, d.UpdatedAt = models.DomainPending, "", nil, t
	}
	return d, nil
}

// DomainForCheck is a domain as verification sees it; ok is false when it no longer exists.
func (s *Store) DomainForCheck(ctx context.Context, sys models.Scope, id string) (models.Domain, bool, error) {
	var d models.Domain
	err := store.Of(sys).Rows(s.core.DB(ctx).Model(&models.Domain{})).Where("id = ?", id).Take(&d).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return d, false, nil
	}
	return d, err == nil, err
}

// RecordDomainCheck records the outcome of a look for domain id's TXT record at time at and
// moves its status: pending → verified when found; pending → failed when not found and final;
// verified → unverified when missing since longer than grace. It returns the domain's status
// afterwards ("" when the domain no longer exists) and emits the domain.* event of a change.
func (s *Store) RecordDomainCheck(ctx context.Context, sys models.Scope, id string, check models.DomainCheck, at time.Time, final bool, grace time.Duration) (string, error) {
	status := ""
	err := s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var d models.Domain
		err := store.Of(sys).Rows(tx.Model(&models.Domain{})).Where("id = ?", id).Take(&d).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		at = at.UTC().Truncate(time.Microsecond)
		d.CheckedAt, d.LastError, d.UpdatedAt = &at, check.Problem, now()
		event := ""
		switch {
		case check.Found && d.Status != models.DomainVerified:
			d.Status, d.VerifiedAt, d.MissingSince, d.LastError = models.DomainVerified, &at, nil, ""
			event = models.EventDomainVerified
		case check.Found:
			d.MissingSince = nil
		case d.Status == models.DomainPending && final:
			d.Status = models.DomainFailed
			event = models.EventDomainFailed
		case d.Status == models.DomainVerified && check.Problem == "":
			if d.MissingSince == nil {
				d.MissingSince = &at
			}
			if at.Sub(*d.MissingSince) >= grace {
				d.Status = models.DomainUnverified
				event = models.EventDomainUnverified
			}
		}
		if len(d.LastError) > 300 {
			d.LastError = d.LastError[:300]
		}
		if err := store.Of(sys).Rows(tx.Model(&models.Domain{})).Where("id = ?", id).
			Select("status", "last_error", "checked_at", "verified_at", "missing_since", "updated_at").Updates(&d).Error; err != nil {
			return err
		}
		status = d.Status
		if event != "" {
			return emit(ctx, tx, ev, &d, event)
		}
		return nil
	})
	return status, err
}

// VerifiedHost is what a verified host serves; a host no tenant has verified is not found. Each
// call is one database read.
func (s *Store) VerifiedHost(ctx context.Context, host string) (models.DomainSite, error) {
	var d models.Domain
	err := s.core.DB(ctx).Model(&models.Domain{}).Select("tenant_id", "partner_id", "host").
		Where("host = ? AND status = ?", host, models.DomainVerified).Order("verified_at").Limit(1).Take(&d).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return models.DomainSite{}, models.NotFound("HOST_NOT_FOUND", "host")
	}
	if err != nil {
		return models.DomainSite{}, err
	}
	return models.DomainSite{Host: d.Host, TenantID: d.TenantID, PartnerID: d.PartnerID}, nil
}

// operator refuses partner principals: the origins allowed to call the API are the tenant's
// configuration.
func (sc *Scoped) operator() error {
	if sc.Scope.TenantID() == "" || sc.Scope.PartnerID() != "" {
		return models.Errorf(models.KindForbidden, "OPERATORS_ONLY", "only the tenant's operators manage allowed origins")
	}
	return nil
}

// CORSOrigins are the origins, besides its verified custom domains, that the tenant allows to
// call the API from a browser, sorted.
func (sc *Scoped) CORSOrigins(ctx context.Context) ([]string, error) {
	if err := sc.operator(); err != nil {
		return nil, err
	}
	var out []string
	err := sc.Scope.Rows(sc.s.core.DB(ctx).Model(&models.CORSOrigin{})).Order("origin").Pluck("origin", &out).Error
	if out == nil {
		out = []string{}
	}
	return out, err
}

// SetCORSOrigins replaces the tenant's allowed origins (validated and normalised; at most
// models.MaxCORSOrigins) and writes an audit entry naming the origins added and removed. It
// returns the list now and the origins that changed either way.
func (sc *Scoped) SetCORSOrigins(ctx context.Context, origins []string) (list, changed []string, err error) {
	if err := sc.operator(); err != nil {
		return nil, nil, err
	}
	want, err := models.CheckCORSOrigins(origins)
	if err != nil {
		return nil, nil, err
	}
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		var had []string
		if err := sc.Scope.Rows(tx.Model(&models.CORSOrigin{})).Pluck("origin", &had).Error; err != nil {
			return err
		}
		var added, removed []string
		for _, o := range want {
			if !slices.Contains(had, o) {
				added = append(added, o)
			}
		}
		for _, o := range had {
			if !slices.Contains(want, o) {
				removed = append(removed, o)
			}
		}
		if len(added)+len(removed) == 0 {
			return nil
		}
		if len(removed) > 0 {
			if err := sc.Scope.Rows(tx.Model(&models.CORSOrigin{})).Where("origin IN ?", removed).Delete(&models.CORSOrigin{}).Error; err != nil {
				return err
			}
		}
		t := now()
		for _, o := range added {
			if err := tx.Create(&models.CORSOrigin{TenantID: sc.Scope.TenantID(), Origin: o, CreatedAt: t}).Error; err != nil {
				return err
			}
		}
		changed = append(append(changed, added...), removed...)
		fields := make([]string, 0, len(changed))
		for _, o := range added {
			fields = append(fields, "+"+o)
		}
		for _, o := range removed {
			fields = append(fields, "-"+o)
		}
		return store.WriteAudit(ctx, tx, sc.Scope.TenantID(), "cors_origins.updated", "tenant", sc.Scope.TenantID(), fields...)
	})
	if err != nil {
		return nil, nil, err
	}
	return want, changed, nil
}

// AllowsOrigin reports whether tenantID lists origin (normalised) among its allowed origins;
// an empty tenantID asks whether any tenant does. Each call is one database read.
func (s *Store) AllowsOrigin(ctx context.Context, tenantID, origin string) (bool, error) {
	q := s.core.DB(ctx).Model(&models.CORSOrigin{}).Where("origin = ?", origin)
	if tenantID != "" {
		q = store.Of(models.System(tenantID)).Rows(q)
	}
	var n int64
	err := q.Limit(1).Count(&n).Error
	return n > 0, err
}
