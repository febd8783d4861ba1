// Package branding keeps portal brands: a tenant's name, colours, support email, CSS variables,
// logo and favicon, and the co-brand logo of each partner that has one.
package branding

import (
	"context"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// Store keeps portal brands.
type Store struct {
	core *store.Store
}

// New is the branding store on core's database.
func New(core *store.Store) *Store { return &Store{core: core} }

// Scoped is the brands as one principal sees them: a tenant's operators manage their tenant's
// brand and its partners' co-brands; partners manage none.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the branding store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// operator refuses partner principals: brands are the tenant's configuration.
func (sc *Scoped) operator() error {
	if sc.Scope.TenantID() == "" || sc.Scope.PartnerID() != "" {
		return models.Errorf(models.KindForbidden, "OPERATORS_ONLY", "only the tenant's operators manage its brand")
	}
	return nil
}

// checkPartner checks, in tx, that partnerID (when set) is a partner of the caller's tenant.
func (sc *Scoped) checkPartner(tx *gorm.DB, partnerID string) error {
	if partnerID == "" {
		return nil
	}
	if err := sc.Scope.CheckPartner(tx, partnerID, "path.id"); err != nil {
		var me *models.Error
		if errors.As(err, &me) && me.Code == "PARTNER_NOT_FOUND" {
			return models.NotFound("PARTNER_NOT_FOUND", "partner")
		}
		return err
	}
	return nil
}

// load reads, in tx, the brand of partnerID ("" for the tenant's), or an empty one.
func (sc *Scoped) load(tx *gorm.DB, partnerID string, lock bool) (*models.Branding, error) {
	q := sc.Scope.Rows(tx.Model(&models.Branding{})).Where("partner_id = ?", partnerID)
	if lock && sc.s.core.Dialect() == store.Postgres {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var b models.Branding
	err := q.Take(&b).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return &models.Branding{TenantID: sc.Scope.TenantID(), PartnerID: partnerID}, nil
	}
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// Branding is the tenant's brand (partnerID empty) or a partner's co-brand.
func (sc *Scoped) Branding(ctx context.Context, partnerID string) (*models.Branding, error) {
	if err := sc.operator(); err != nil {
		return nil, err
	}
	var b *models.Branding
	err := sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := sc.checkPartner(tx, partnerID); err != nil {
			return err
		}
		var err error
		b, err = sc.load(tx, partnerID, false)
		return err
	})
	return b, err
}

// change runs fn on the locked brand of partnerID, created empty when missing, saves it and
// writes the audit entry action naming the fields changed.
func (sc *Scoped) change(ctx context.Context, partnerID, action string, fn func(b *models.Branding) ([]string, error)) (*models.Branding, error) {
	if err := sc.operator(); err != nil {
		return nil, err
	}
	var b *models.Branding
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		if err := sc.checkPartner(tx, partnerID); err != nil {
			return err
		}
		empty := models.Branding{TenantID: sc.Scope.TenantID(), PartnerID: partnerID, UpdatedAt: now()}
		if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&empty).Error; err != nil {
			return err
		}
		var err error
		if b, err = sc.load(tx, partnerID, true); err != nil {
			return err
		}
		changed, err := fn(b)
		if err != nil {
			return err
		}
		b.UpdatedAt = now()
		if err := sc.Scope.Rows(tx.Model(&models.Branding{})).Where("partner_id = ?", partnerID).
			Select("*").Omit("tenant_id", "partner_id").Updates(b).Error; err != nil {
			return err
		}
		target := "tenant"
		if partnerID != "" {
			target = partnerID
		}
		return store.WriteAudit(ctx, tx, b.TenantID, action, "branding", target, changed...)
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// UpdateBranding changes the tenant's brand: its name, colours, support email and CSS variables.
func (sc *Scoped) UpdateBranding(ctx context.Context, ch models.BrandingChanges) (*models.Branding, error) {
	if ch.Theme != nil {
		if err := models.CheckThemeTokens(*ch.Theme); err != nil {
			return nil, err
		}
	}
	if ch.SetCSSVariables {
		if err := models.CheckCSSVariables(ch.CSSVariables); err != nil {
			return nil, err
		}
	}
	if ch.SupportEmail != nil {
		e := strings.TrimSpace(*ch.SupportEmail)
		if a, err := models.ParseMailAddress(e); e != "" && (err != nil || a.Address != e) {
			return nil, models.Invalid("INVALID_EMAIL", "the support email is not an address",
				models.FieldError{Location: "body.supportEmail", Message: "an email address", Value: e})
		}
		ch.SupportEmail = &e
	}
	return sc.change(ctx, "", "branding.updated", func(b *models.Branding) ([]string, error) {
		var changed []string
		if ch.Name != nil {
			b.Name = strings.TrimSpace(*ch.Name)
			changed = append(changed, "name")
		}
		if ch.Theme != nil {
			b.Theme = *ch.Theme
			changed = append(changed, "theme")
		}
		if ch.SupportEmail != nil {
			b.SupportEmail = *ch.SupportEmail
			changed = append(changed, "supportEmail")
		}
		if ch.SetCSSVariables {
			b.CSSVariables = ch.CSSVariables
			changed = append(changed, "cssVariables")
		}
		return changed, nil
	})
}

// SetBrandImage stores img as the logo or favicon of the tenant's brand (partnerID empty) or as
// a partner's co-brand logo, and returns the image it replaces (for its blob to be deleted).
func (sc *Scoped) SetBrandImage(ctx context.Context, partnerID, kind string, img models.BrandImage) (*models.Branding, models.BrandImage, error) {
	var old models.BrandImage
	b, err := sc.change(ctx, partnerID, "branding."+kind+"_set", func(b *models.Branding) ([]string, error) {
		slot, err := imageSlot(b, partnerID, kind)
		if err != nil {
			return nil, err
		}
		old, *slot = *slot, img
		return []string{kind}, nil
	})
	return b, old, err
}

// ClearBrandImage removes a logo or favicon and returns it (for its blob to be deleted).
func (sc *Scoped) ClearBrandImage(ctx context.Context, partnerID, kind string) (*models.Branding, models.BrandImage, error) {
	var old models.BrandImage
	b, err := sc.change(ctx, partnerID, "branding."+kind+"_removed", func(b *models.Branding) ([]string, error) {
		slot, err := imageSlot(b, partnerID, kind)
		if err != nil {
			return nil, err
		}
		old, *slot = *slot, models.BrandImage{}
		return []string{kind}, nil
	})
	return b, old, err
}

// imageSlot is where an image of kind goes in b: a partner's co-brand has a logo only.
func imageSlot(b *models.Branding, partnerID, kind string) (*models.BrandImage, error) {
	switch {
	case kind == models.BrandLogo:
		return &b.Logo, nil
	case kind == models.BrandFavicon && partnerID == "":
		return &b.Favicon, nil
	}
	return nil, models.Invalid("INVALID_IMAGE_KIND", "a partner's co-brand has a logo only")
}

// PublicBranding is what the portal of tenantID shows, with the co-brand logo of partnerID
// when it is set: presentation data only.
func (s *Store) PublicBranding(ctx context.Context, tenantID, partnerID string) (*models.PublicBranding, error) {
	t, err := s.core.TenantByID(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	sys := store.System(tenantID)
	ids := []string{""}
	if partnerID != "" {
		ids = append(ids, partnerID)
	}
	var rows []models.Branding
	if err := sys.Rows(s.core.DB(ctx).Model(&models.Branding{})).Where("partner_id IN ?", ids).Find(&rows).Error; err != nil {
		return nil, err
	}
	out := &models.PublicBranding{TenantSlug: t.Slug, Name: t.Name}
	for _, r := range rows {
		if r.UpdatedAt.After(out.UpdatedAt) {
			out.UpdatedAt = r.UpdatedAt
		}
		if r.PartnerID != "" {
			out.PartnerLogo = r.Logo
			continue
		}
		if r.Name != "" {
			out.Name = r.Name
		}
		out.Theme, out.SupportEmail, out.CSSVariables, out.Logo, out.Favicon = r.Theme, r.SupportEmail, r.CSSVariables, r.Logo, r.Favicon
	}
	return out, nil
}

// BrandImageBySHA256 finds a stored logo or favicon by the SHA-256 of its bytes. Brand images
// are public presentation data, so any tenant's image of those bytes answers.
func (s *Store) BrandImageBySHA256(ctx context.Context, sum string) (models.BrandImage, error) {
	var b models.Branding
	err := s.core.DB(ctx).Model(&models.Branding{}).Where("logo_sha256 = ?", sum).
		Select("logo_key", "logo_content_type", "logo_sha256", "logo_width", "logo_height").Limit(1).Find(&b).Error
	if err != nil {
		return models.BrandImage{}, err
	}
	if !b.Logo.Empty() {
		return b.Logo, nil
	}
	err = s.core.DB(ctx).Model(&models.Branding{}).Where("favicon_sha256 = ?", sum).
		Select("favicon_key", "favicon_content_type", "favicon_sha256", "favicon_width", "favicon_height").Limit(1).Find(&b).Error
	if err != nil {
		return models.BrandImage{}, err
	}
	if b.Favicon.Empty() {
		return models.BrandImage{}, models.NotFound("IMAGE_NOT_FOUND", "image")
	}
	return b.Favicon, nil
}
