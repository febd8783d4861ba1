// Package agreements keeps legal agreements: their versions (immutable once published), which
// version partners must accept, the append-only record of acceptances, grace periods, and the
// one decision whether a partner may act (RequireAgreements).
package agreements

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// Store keeps legal agreements and their acceptances.
type Store struct {
	core *store.Store
}

// New is the agreements store on core's database.
func New(core *store.Store) *Store { return &Store{core: core} }

// Scoped is the agreements as one principal sees them: operators see every agreement of their
// tenant and every acceptance; a partner sees the agreements required of it, their published
// versions and its own acceptances.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the agreements store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

func payloadOf(a *models.Agreement) models.AgreementEventPayload {
	p := models.AgreementEventPayload{AgreementID: a.ID, Kind: a.Kind, Title: a.Title}
	if a.RequiredVersionID != nil {
		p.Required, p.AllPartners, p.Levels, p.RequiredFrom = true, a.RequireAllPartners, a.RequiredLevels, a.RequiredFrom
		p.VersionID, p.VersionNumber = *a.RequiredVersionID, a.RequiredVersionNumber
	}
	return p
}

func emit(ctx context.Context, tx *gorm.DB, ev *store.Outbox, tenantID, typ string, p models.AgreementEventPayload) error {
	subject := p.AgreementID
	ne := models.NewEvent{Type: typ, SubjectID: &subject, Payload: store.MustJSON(p)}
	if p.PartnerID != "" {
		partner := p.PartnerID
		ne.PartnerID = &partner
	}
	_, err := ev.Emit(ctx, tx, tenantID, ne)
	return err
}

// CreateAgreement adds an agreement without versions; nothing is required of partners yet.
func (sc *Scoped) CreateAgreement(ctx context.Context, n models.NewAgreement) (*models.Agreement, error) {
	n.Title = strings.TrimSpace(n.Title)
	if n.Title == "" {
		return nil, models.Invalid("TITLE_REQUIRED", "an agreement needs a title", models.FieldError{Location: "body.title", Message: "required"})
	}
	if strings.ContainsAny(n.Title, "\t\r\n") {
		// The title is the subject line of the notices that ask partners to accept.
		return nil, models.Invalid("INVALID_TITLE", "an agreement's title is one line", models.FieldError{Location: "body.title", Message: "one line, no tabs"})
	}
	if !slices.Contains(models.AgreementKinds, n.Kind) {
		return nil, models.Invalid("INVALID_KIND", "kind is partner_agreement, nda, program_terms or other",
			models.FieldError{Location: "body.kind", Message: "unknown kind", Value: n.Kind})
	}
	t := now()
	a := &models.Agreement{ID: models.NewID(), TenantID: sc.P.TenantID, Kind: n.Kind, Title: n.Title, Description: n.Description,
		CreatedBy: sc.P.ActorID(), CreatedAt: t, UpdatedAt: t, RequiredLevels: []string{}}
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if err := tx.Create(a).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, a.TenantID, "agreement.created", "agreement", a.ID, "kind", "title"); err != nil {
			return err
		}
		return emit(ctx, tx, ev, a.TenantID, models.EventAgreementCreated, payloadOf(a))
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// partnerLevel is the level of the scope's partner ("" for none).
func (sc *Scoped) partnerLevel(tx *gorm.DB, partnerID string) (string, error) {
	var p models.Partner
	if err := sc.Scope.Rows(tx.Model(&models.Partner{})).Where("id = ?", partnerID).Take(&p).Error; err != nil {
		return "", store.NotFoundAs(err, "PARTNER_NOT_FOUND", "partner")
	}
	return p.Level, nil
}

// visible limits q (on agreements) to what the principal sees: the tenant's agreements for
// operators; for a partner, those whose requirement applies to it.
func (sc *Scoped) visible(tx, q *gorm.DB) (*gorm.DB, error) {
	q = sc.Scope.Rows(q)
	partner := sc.Scope.PartnerID()
	if partner == "" {
		return q, nil
	}
	level, err := sc.partnerLevel(tx, partner)
	if err != nil {
		return nil, err
	}
	q = q.Where("required_version_id IS NOT NULL")
	return q.Where("(require_all_partners = ? OR id IN (?))", true, sc.requiredOfLevel(tx, level)), nil
}

// requiredOfLevel selects the ids of the tenant's agreements required of partners at level.
func (sc *Scoped) requiredOfLevel(db *gorm.DB, level string) *gorm.DB {
	return sc.Scope.Rows(db.Session(&gorm.Session{NewDB: true}).Model(&models.AgreementLevel{})).Select("agreement_id").Where("level = ?", level)
}

// withDetails loads the required levels and version numbers of agreements.
func (sc *Scoped) withDetails(db *gorm.DB, list []models.Agreement) error {
	if len(list) == 0 {
		return nil
	}
	ids := make([]string, len(list))
	byID := map[string]*models.Agreement{}
	var versions []string
	for i := range list {
		ids[i] = list[i].ID
		byID[list[i].ID] = &list[i]
		list[i].RequiredLevels = []string{}
		if list[i].RequiredVersionID != nil {
			versions = append(versions, *list[i].RequiredVersionID)
		}
	}
	var levels []models.AgreementLevel
	if err := sc.Scope.Rows(db.Model(&models.AgreementLevel{})).Where("agreement_id IN ?", ids).Order("level").Find(&levels).Error; err != nil {
		return err
	}
	for _, l := range levels {
		byID[l.AgreementID].RequiredLevels = append(byID[l.AgreementID].RequiredLevels, l.Level)
	}
	if len(versions) > 0 {
		var vs []models.AgreementVersion
		if err := sc.Scope.Rows(db.Model(&models.AgreementVersion{})).Select("id", "agreement_id", "number").Where("id IN ?", versions).Find(&vs).Error; err != nil {
			return err
		}
		for _, v := range vs {
			byID[v.AgreementID].RequiredVersionNumber = v.Number
		}
	}
	if sc.Scope.PartnerID() != "" {
		// A partner learns of no version it cannot read: drafts and later ones stay the desk's.
		for i := range list {
			list[i].LatestVersion = list[i].RequiredVersionNumber
		}
	}
	return nil
}

// ListAgreements lists the agreements the principal sees.
func (sc *Scoped) ListAgreements(ctx context.Context, pg models.Page) ([]models.Agreement, string, error) {
	db := sc.s.core.DB(ctx)
	q, err := sc.visible(db, db.Model(&models.Agreement{}))
	if err != nil {
		return nil, "", err
	}
	list, next, err := store.Page(q, pg, func(a models.Agreement) string { return a.ID })
	if err != nil {
		return nil, "", err
	}
	return list, next, sc.withDetails(db, list)
}

func (sc *Scoped) agreement(tx *gorm.DB, id string) (*models.Agreement, error) {
	q, err := sc.visible(tx, tx.Model(&models.Agreement{}))
	if err != nil {
		return nil, err
	}
	var a models.Agreement
	if err := q.Where("id = ?", id).Take(&a).Error; err != nil {
		return nil, store.NotFoundAs(err, "AGREEMENT_NOT_FOUND", "agreement")
	}
	list := []models.Agreement{a}
	if err := sc.withDetails(tx, list); err != nil {
		return nil, err
	}
	return &list[0], nil
}

// Agreement finds one agreement the principal sees; another is not found.
func (sc *Scoped) Agreement(ctx context.Context, id string) (*models.Agreement, error) {
	return sc.agreement(sc.s.core.DB(ctx), id)
}

// CreateAgreementVersion adds a draft version holding markdown, numbered after the latest.
func (sc *Scoped) CreateAgreementVersion(ctx context.Context, id, markdown, summary string) (*models.AgreementVersion, error) {
	if err := models.ValidateAgreementDocument(markdown); err != nil {
		return nil, err
	}
	return sc.addVersion(ctx, id, models.AgreementVersion{ContentType: models.AgreementContentType, Body: markdown,
		Size: int64(len(markdown)), SHA256: models.SHA256Hex([]byte(markdown)), Summary: summary})
}

// CreateAgreementPDFVersion adds a draft version whose document is an uploaded PDF, numbered
// after the latest; its hash is the upload's.
func (sc *Scoped) CreateAgreementPDFVersion(ctx context.Context, id string, up models.AgreementUpload) (*models.AgreementVersion, error) {
	if up.BlobKey == "" || up.ContentType != models.AgreementPDFType || up.Size <= 0 || len(up.SHA256) != 64 {
		return nil, models.Invalid("INVALID_DOCUMENT", "an agreement file is a stored, non-empty PDF")
	}
	name, err := models.ParseContentFileName(up.FileName)
	if err != nil {
		return nil, err
	}
	if len(up.Summary) > 2000 || models.TextProblem(up.Summary) != "" {
		return nil, models.Invalid("INVALID_SUMMARY", "a summary is at most 2000 bytes of text", models.FieldError{Location: "query.summary", Message: "too long or not text"})
	}
	return sc.addVersion(ctx, id, models.AgreementVersion{ContentType: up.ContentType, BlobKey: up.BlobKey, FileName: name,
		Size: up.Size, SHA256: up.SHA256, Summary: strings.TrimSpace(up.Summary)})
}

// addVersion stores v, a document with its hash, as the agreement's next draft version.
func (sc *Scoped) addVersion(ctx context.Context, id string, v models.AgreementVersion) (*models.AgreementVersion, error) {
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var a models.Agreement
		if err := store.LockRow(sc.s.core, tx, &a, sc.Scope, id); err != nil {
			return store.NotFoundAs(err, "AGREEMENT_NOT_FOUND", "agreement")
		}
		v.ID, v.TenantID, v.AgreementID, v.Number = models.NewID(), a.TenantID, a.ID, a.LatestVersion+1
		v.Status, v.CreatedBy, v.CreatedAt = models.AgreementDraft, sc.P.ActorID(), now()
		if err := tx.Create(&v).Error; err != nil {
			return store.Translate(err, "AGREEMENT_VERSION_CONFLICT", "another version was written at the same time")
		}
		if err := sc.Scope.Rows(tx.Model(&models.Agreement{})).Where("id = ?", a.ID).
			Updates(map[string]any{"latest_version": v.Number, "updated_at": v.CreatedAt}).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, a.TenantID, "agreement.version_created", "agreement", a.ID, "version"); err != nil {
			return err
		}
		p := models.AgreementEventPayload{AgreementID: a.ID, Kind: a.Kind, Title: a.Title, VersionID: v.ID, VersionNumber: v.Number, SHA256: v.SHA256}
		return emit(ctx, tx, ev, a.TenantID, models.EventAgreementVersionCreated, p)
	})
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// versions limits q (on agreement_versions) to what the principal sees: partners only
// published versions.
func (sc *Scoped) versions(q *gorm.DB) *gorm.DB {
	q = sc.Scope.Rows(q)
	if sc.Scope.PartnerID() != "" {
		q = q.Where("status = ?", models.AgreementPublished)
	}
	return q
}

// ListAgreementVersions lists an agreement's versions, oldest first; partners see the published
// ones.
func (sc *Scoped) ListAgreementVersions(ctx context.Context, id string, pg models.Page) ([]models.AgreementVersion, string, error) {
	db := sc.s.core.DB(ctx)
	if _, err := sc.agreement(db, id); err != nil {
		return nil, "", err
	}
	q := sc.versions(db.Model(&models.AgreementVersion{})).Omit("body").Where("agreement_id = ?", id)
	return store.Page(q, pg, func(v models.AgreementVersion) string { return v.ID })
}

func (sc *Scoped) version(tx *gorm.DB, id, versionID string) (*models.Agreement, *models.AgreementVersion, error) {
	a, err := sc.agreement(tx, id)
	if err != nil {
		return nil, nil, err
	}
	var v models.AgreementVersion
	if err := sc.versions(tx.Model(&models.AgreementVersion{})).Where("id = ? AND agreement_id = ?", versionID, id).Take(&v).Error; err != nil {
		return nil, nil, store.NotFoundAs(err, "AGREEMENT_VERSION_NOT_FOUND", "agreement version")
	}
	return a, &v, nil
}

// AgreementVersion finds one version, with its document, that the principal sees.
func (sc *Scoped) AgreementVersion(ctx context.Context, id, versionID string) (*models.Agreement, *models.AgreementVersion, error) {
	return sc.version(sc.s.core.DB(ctx), id, versionID)
}

// PublishAgreementVersion publishes a draft: from then on it never changes. With a
// requirement, partners must accept it (those it applies to are asked to).
func (sc *Scoped) PublishAgreementVersion(ctx context.Context, id, versionID string, req *models.AgreementRequirement) (*models.Agreement, *models.AgreementVersion, error) {
	var a *models.Agreement
	var v *models.AgreementVersion
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var locked models.Agreement
		if err := store.LockRow(sc.s.core, tx, &locked, sc.Scope, id); err != nil {
			return store.NotFoundAs(err, "AGREEMENT_NOT_FOUND", "agreement")
		}
		var err error
		if a, v, err = sc.version(tx, id, versionID); err != nil {
			return err
		}
		if v.Status == models.AgreementPublished {
			return models.Conflict("AGREEMENT_VERSION_PUBLISHED", "the version is published already")
		}
		t := now()
		v.Status, v.PublishedAt, v.PublishedBy = models.AgreementPublished, &t, sc.P.ActorID()
		if err := sc.Scope.Rows(tx.Model(&models.AgreementVersion{})).Where("id = ? AND status = ?", v.ID, models.AgreementDraft).
			Updates(map[string]any{"status": v.Status, "published_at": t, "published_by": v.PublishedBy}).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, a.TenantID, "agreement.version_published", "agreement", a.ID, "version"); err != nil {
			return err
		}
		if req != nil {
			req.VersionID = v.ID
			if err := sc.setRequirement(ctx, tx, ev, a, req, false); err != nil {
				return err
			}
		}
		p := payloadOf(a)
		p.VersionID, p.VersionNumber, p.SHA256, p.Required = v.ID, v.Number, v.SHA256, a.RequiredVersionID != nil && *a.RequiredVersionID == v.ID
		return emit(ctx, tx, ev, a.TenantID, models.EventAgreementPublished, p)
	})
	if err != nil {
		return nil, nil, err
	}
	return a, v, nil
}

// SetAgreementRequirement changes which published version partners must accept, which
// partners and from when; nil requires nothing any more.
func (sc *Scoped) SetAgreementRequirement(ctx context.Context, id string, req *models.AgreementRequirement) (*models.Agreement, error) {
	var a *models.Agreement
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var locked models.Agreement
		if err := store.LockRow(sc.s.core, tx, &locked, sc.Scope, id); err != nil {
			return store.NotFoundAs(err, "AGREEMENT_NOT_FOUND", "agreement")
		}
		var err error
		if a, err = sc.agreement(tx, id); err != nil {
			return err
		}
		return sc.setRequirement(ctx, tx, ev, a, req, true)
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

func (sc *Scoped) setRequirement(ctx context.Context, tx *gorm.DB, ev *store.Outbox, a *models.Agreement, req *models.AgreementRequirement, announce bool) error {
	a.RequiredVersionID, a.RequireAllPartners, a.RequiredFrom, a.RequiredLevels, a.RequiredVersionNumber = nil, false, nil, []string{}, 0
	if req != nil {
		var v models.AgreementVersion
		if err := sc.Scope.Rows(tx.Model(&models.AgreementVersion{})).Where("id = ? AND agreement_id = ?", req.VersionID, a.ID).Take(&v).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return models.Invalid("AGREEMENT_VERSION_NOT_FOUND", "no such version of the agreement",
					models.FieldError{Location: "body.versionId", Message: "no such version", Value: req.VersionID})
			}
			return err
		}
		if v.Status != models.AgreementPublished {
			return models.Invalid("AGREEMENT_VERSION_NOT_PUBLISHED", "only a published version can be required",
				models.FieldError{Location: "body.versionId", Message: "a draft", Value: req.VersionID})
		}
		levels := []string{}
		for _, l := range req.Levels {
			if l = strings.TrimSpace(l); l != "" && !slices.Contains(levels, l) {
				levels = append(levels, l)
			}
		}
		if !req.AllPartners && len(levels) == 0 {
			return models.Invalid("REQUIREMENT_AUDIENCE_REQUIRED", "a requirement applies to all partners or to named levels",
				models.FieldError{Location: "body.levels", Message: "name levels or set allPartners"})
		}
		from := req.From.UTC()
		if req.From.IsZero() {
			from = now()
		}
		a.RequiredVersionID, a.RequireAllPartners, a.RequiredFrom, a.RequiredVersionNumber = &v.ID, req.AllPartners, &from, v.Number
		if !req.AllPartners {
			a.RequiredLevels = levels
		}
	}
	a.UpdatedAt = now()
	if err := sc.Scope.Rows(tx.Model(&models.Agreement{})).Where("id = ?", a.ID).Updates(map[string]any{
		"required_version_id": a.RequiredVersionID, "require_all_partners": a.RequireAllPartners, "required_from": a.RequiredFrom,
		"updated_at": a.UpdatedAt}).Error; err != nil {
		return err
	}
	if err := sc.Scope.Rows(tx).Where("agreement_id = ?", a.ID).Delete(&models.AgreementLevel{}).Error; err != nil {
		return err
	}
	for _, l := range a.RequiredLevels {
		if err := tx.Create(&models.AgreementLevel{TenantID: a.TenantID, AgreementID: a.ID, Level: l}).Error; err != nil {
			return err
		}
	}
	if err := store.WriteAudit(ctx, tx, a.TenantID, "agreement.requirement_changed", "agreement", a.ID,
		"requiredVersionId", "allPartners", "levels", "requiredFrom"); err != nil {
		return err
	}
	if !announce {
		return nil
	}
	return emit(ctx, tx, ev, a.TenantID, models.EventAgreementRequirementChanged, payloadOf(a))
}

// AcceptAgreementVersion records that the principal's user accepted a published version for a
// partner. Accepting a version twice answers the first acceptance (created false). Operators
// record an acceptance given outside the portal; it says so (OnBehalf).
func (sc *Scoped) AcceptAgreementVersion(ctx context.Context, in models.AcceptanceInput) (*models.AgreementAcceptance, bool, error) {
	if sc.P.UserID == "" {
		return nil, false, models.Errorf(models.KindForbidden, "USER_REQUIRED", "only a person can accept an agreement")
	}
	partner := in.PartnerID
	if own := sc.Scope.PartnerID(); own != "" {
		if partner != "" && partner != own {
			return nil, false, models.Errorf(models.KindForbidden, "OTHER_PARTNER", "you can only act for your own partner organisation")
		}
		partner = own
	}
	if partner == "" {
		return nil, false, models.Invalid("PARTNER_REQUIRED", "name the partner the acceptance is for",
			models.FieldError{Location: "body.partnerId", Message: "required for operators"})
	}
	var acc *models.AgreementAcceptance
	created := false
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		// One acceptance at a time per agreement, and none while it is published or required
		// anew: a second concurrent acceptance finds the first, on Postgres as on SQLite.
		var locked models.Agreement
		if err := store.LockRow(sc.s.core, tx, &locked, sc.Scope, in.AgreementID); err != nil {
			return store.NotFoundAs(err, "AGREEMENT_NOT_FOUND", "agreement")
		}
		a, v, err := sc.version(tx, in.AgreementID, in.VersionID)
		if err != nil {
			return err
		}
		if err := sc.Scope.CheckPartner(tx, partner, "body.partnerId"); err != nil {
			return err
		}
		if v.Status != models.AgreementPublished {
			return models.Conflict("AGREEMENT_VERSION_NOT_PUBLISHED", "only a published version can be accepted")
		}
		if in.SHA256 != "" && !strings.EqualFold(in.SHA256, v.SHA256) {
			return models.Conflict("AGREEMENT_HASH_MISMATCH", "the document shown is not the version's: reload it and accept again")
		}
		var prev models.AgreementAcceptance
		err = sc.Scope.Rows(tx.Model(&models.AgreementAcceptance{})).Where("version_id = ? AND partner_id = ?", v.ID, partner).Take(&prev).Error
		if err == nil {
			acc = &prev
			return nil
		}
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		acc = &models.AgreementAcceptance{ID: models.NewID(), TenantID: a.TenantID, AgreementID: a.ID, VersionID: v.ID,
			VersionNumber: v.Number, SHA256: v.SHA256, PartnerID: partner, UserID: sc.P.UserID, OnBehalf: sc.Scope.PartnerID() == "",
			ClientAddress: models.ClipBytes(in.ClientAddress, 64), UserAgent: models.ClipBytes(in.UserAgent, 500), AcceptedAt: now()}
		if err := tx.Create(acc).Error; err != nil {
			return store.Translate(err, "AGREEMENT_ACCEPTED", "the version was accepted at the same time")
		}
		created = true
		if err := store.WriteAudit(ctx, tx, a.TenantID, "agreement.accepted", "agreement_acceptance", acc.ID, "agreementId", "versionId", "partnerId"); err != nil {
			return err
		}
		p := models.AgreementEventPayload{AgreementID: a.ID, Kind: a.Kind, Title: a.Title, VersionID: v.ID, VersionNumber: v.Number,
			SHA256: v.SHA256, Required: a.RequiredVersionID != nil && *a.RequiredVersionID == v.ID, PartnerID: partner,
			UserID: acc.UserID, AcceptanceID: acc.ID}
		return emit(ctx, tx, ev, a.TenantID, models.EventAgreementAccepted, p)
	})
	if err != nil {
		return nil, false, err
	}
	return acc, created, nil
}

// acceptances limits q to the acceptances the principal sees, filtered: a partner only its own.
func (sc *Scoped) acceptances(db *gorm.DB, f models.AcceptanceFilter) *gorm.DB {
	q := sc.Scope.PartnerRows(db.Model(&models.AgreementAcceptance{}), "partner_id")
	if f.AgreementID != "" {
		q = q.Where("agreement_id = ?", f.AgreementID)
	}
	if f.VersionID != "" {
		q = q.Where("version_id = ?", f.VersionID)
	}
	if f.PartnerID != "" {
		q = q.Where("partner_id = ?", f.PartnerID)
	}
	return q
}

// ListAcceptances lists acceptances, oldest first; partners see their own.
func (sc *Scoped) ListAcceptances(ctx context.Context, f models.AcceptanceFilter, pg models.Page) ([]models.AgreementAcceptance, string, error) {
	db := sc.s.core.DB(ctx)
	page, next, err := store.Page(sc.acceptances(db, f), pg, func(a models.AgreementAcceptance) string { return a.ID })
	if err != nil || len(page) == 0 {
		return page, next, err
	}
	ids := make([]string, 0, len(page))
	for _, a := range page {
		if !slices.Contains(ids, a.AgreementID) {
			ids = append(ids, a.AgreementID)
		}
	}
	var titles []struct{ ID, Title string }
	if err := sc.Scope.Rows(db.Model(&models.Agreement{})).Select("id", "title").Where("id IN ?", ids).Find(&titles).Error; err != nil {
		return nil, "", err
	}
	for i := range page {
		for _, t := range titles {
			if t.ID == page[i].AgreementID {
				page[i].AgreementTitle = t.Title
			}
		}
	}
	return page, next, nil
}

// ExportBatch is how many acceptances EachAcceptance reads at a time.
const ExportBatch = 500

// EachAcceptance hands every acceptance the principal sees, oldest first, to fn in batches of
// at most ExportBatch, so that an export's memory does not grow with the record.
func (sc *Scoped) EachAcceptance(ctx context.Context, f models.AcceptanceFilter, fn func([]models.AgreementAcceptance) error) error {
	after := ""
	for {
		page, next, err := store.Page(sc.acceptances(sc.s.core.DB(ctx), f), models.Page{Limit: ExportBatch, After: after},
			func(a models.AgreementAcceptance) string { return a.ID })
		if err != nil {
			return err
		}
		if len(page) > 0 {
			if err := fn(page); err != nil {
				return err
			}
		}
		if next == "" {
			return nil
		}
		after = next
	}
}

// AcceptanceCertificate is the statement of one acceptance the principal sees, ready to sign.
func (sc *Scoped) AcceptanceCertificate(ctx context.Context, id string) (*models.AgreementCertificate, error) {
	db := sc.s.core.DB(ctx)
	var acc models.AgreementAcceptance
	if err := sc.acceptances(db, models.AcceptanceFilter{}).Where("id = ?", id).Take(&acc).Error; err != nil {
		return nil, store.NotFoundAs(err, "ACCEPTANCE_NOT_FOUND", "acceptance")
	}
	var a models.Agreement
	if err := sc.Scope.Rows(db.Model(&models.Agreement{})).Where("id = ?", acc.AgreementID).Take(&a).Error; err != nil {
		return nil, err
	}
	var v models.AgreementVersion
	if err := sc.Scope.Rows(db.Model(&models.AgreementVersion{})).Omit("body").Where("id = ?", acc.VersionID).Take(&v).Error; err != nil {
		return nil, err
	}
	var p models.Partner
	if err := sc.Scope.Rows(db.Model(&models.Partner{})).Where("id = ?", acc.PartnerID).Take(&p).Error; err != nil {
		return nil, err
	}
	var u models.User
	if err := sc.Scope.Rows(db.Model(&models.User{})).Where("id = ?", acc.UserID).Take(&u).Error; err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, err
	}
	if acc.OnBehalf && sc.Scope.PartnerID() != "" {
		u.Email = "" // an operator recorded it: a partner's copy names no operator's address
	}
	return &models.AgreementCertificate{Type: "partnerd.agreement-acceptance", AcceptanceID: acc.ID, TenantID: acc.TenantID,
		AgreementID: a.ID, Agreement: a.Title, VersionID: acc.VersionID, VersionNumber: acc.VersionNumber, SHA256: acc.SHA256,
		ContentType: v.ContentType, FileName: v.FileName, PartnerID: p.ID, Partner: p.Name, UserID: acc.UserID, UserEmail: u.Email, OnBehalf: acc.OnBehalf,
		ClientAddress: acc.ClientAddress, UserAgent: acc.UserAgent, AcceptedAt: acc.AcceptedAt.UTC(), IssuedAt: now()}, nil
}

// GrantAgreementGrace lets a partner act without its pending agreements until until (a time in
// the past ends a grace period). Every grant is kept; the latest counts.
func (sc *Scoped) GrantAgreementGrace(ctx context.Context, partnerID string, until time.Time, reason string) (*models.AgreementGrace, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, models.Invalid("REASON_REQUIRED", "say why the partner gets a grace period", models.FieldError{Location: "body.reason", Message: "required"})
	}
	g := &models.AgreementGrace{ID: models.NewID(), TenantID: sc.P.TenantID, PartnerID: partnerID, Until: until.UTC(),
		Reason: models.ClipBytes(reason, 500), GrantedBy: sc.P.ActorID(), CreatedAt: now()}
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if err := sc.Scope.CheckPartner(tx, partnerID, "body.partnerId"); err != nil {
			return err
		}
		if err := tx.Create(g).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, g.TenantID, "agreement.grace_granted", "partner", partnerID, "graceUntil", "reason"); err != nil {
			return err
		}
		until := g.Until
		_, err := ev.Emit(ctx, tx, g.TenantID, models.NewEvent{Type: models.EventAgreementGraceGranted, SubjectID: &g.PartnerID, PartnerID: &g.PartnerID,
			Payload: store.MustJSON(models.AgreementEventPayload{PartnerID: g.PartnerID, GraceUntil: &until})})
		return err
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// ListAgreementGraces lists grace grants, oldest first, of one partner or all.
func (sc *Scoped) ListAgreementGraces(ctx context.Context, partnerID string, pg models.Page) ([]models.AgreementGrace, string, error) {
	q := sc.Scope.OperatorRows(sc.s.core.DB(ctx).Model(&models.AgreementGrace{}))
	if partnerID != "" {
		q = q.Where("partner_id = ?", partnerID)
	}
	return store.Page(q, pg, func(g models.AgreementGrace) string { return g.ID })
}

// PendingAgreements lists the agreements a partner must accept and has not: for partners their
// own organisation, for operators the partner named. Each says whether it refuses the partner
// now (Blocking).
func (sc *Scoped) PendingAgreements(ctx context.Context, partnerID string) ([]models.PendingAgreement, error) {
	return sc.pending(sc.s.core.DB(ctx), partnerID)
}

func (sc *Scoped) pending(db *gorm.DB, partnerID string) ([]models.PendingAgreement, error) {
	if own := sc.Scope.PartnerID(); own != "" {
		if partnerID != "" && partnerID != own {
			return nil, models.NotFound("PARTNER_NOT_FOUND", "partner")
		}
		partnerID = own
	}
	if partnerID == "" {
		return nil, models.Invalid("PARTNER_REQUIRED", "name the partner", models.FieldError{Location: "query.partnerId", Message: "required for operators"})
	}
	level, err := sc.partnerLevel(db, partnerID)
	if err != nil {
		return nil, err
	}
	var required []models.Agreement
	if err := sc.Scope.Rows(db.Model(&models.Agreement{})).Where("required_version_id IS NOT NULL").
		Where("(require_all_partners = ? OR id IN (?))", true, sc.requiredOfLevel(db, level)).
		Order("id").Find(&required).Error; err != nil {
		return nil, err
	}
	if len(required) == 0 {
		return []models.PendingAgreement{}, nil
	}
	versionIDs := make([]string, len(required))
	for i, a := range required {
		versionIDs[i] = *a.RequiredVersionID
	}
	var accepted []string
	if err := sc.Scope.Rows(db.Model(&models.AgreementAcceptance{})).Where("partner_id = ? AND version_id IN ?", partnerID, versionIDs).
		Pluck("version_id", &accepted).Error; err != nil {
		return nil, err
	}
	var versions []models.AgreementVersion
	if err := sc.Scope.Rows(db.Model(&models.AgreementVersion{})).Omit("body").Where("id IN ?", versionIDs).Find(&versions).Error; err != nil {
		return nil, err
	}
	byID := map[string]models.AgreementVersion{}
	for _, v := range versions {
		byID[v.ID] = v
	}
	var grace *time.Time
	var graces []models.AgreementGrace
	if err := sc.Scope.Rows(db.Model(&models.AgreementGrace{})).Where("partner_id = ?", partnerID).Order("id DESC").Limit(1).Find(&graces).Error; err != nil {
		return nil, err
	}
	t := now()
	if len(graces) == 1 && graces[0].Until.After(t) {
		u := graces[0].Until.UTC()
		grace = &u
	}
	out := []models.PendingAgreement{}
	for _, a := range required {
		if slices.Contains(accepted, *a.RequiredVersionID) {
			continue
		}
		from := a.RequiredFrom.UTC()
		v := byID[*a.RequiredVersionID]
		a.RequiredVersionNumber = v.Number
		out = append(out, models.PendingAgreement{Agreement: a, Version: v, From: from, GraceUntil: grace,
			Blocking: !from.After(t) && grace == nil})
	}
	return out, nil
}

// RequireAgreements is the one decision whether a partner may register deals and request
// withdrawals: it may unless a required version it has not accepted is in force and no grace
// period covers it, which is refused with AGREEMENT_REQUIRED naming the agreement and version.
func (sc *Scoped) RequireAgreements(ctx context.Context, partnerID string) error {
	pending, err := sc.pending(sc.s.core.DB(ctx), partnerID)
	if err != nil {
		return err
	}
	for _, p := range pending {
		if p.Blocking {
			return &models.Error{Kind: models.KindForbidden, Code: "AGREEMENT_REQUIRED",
				Message: "accept \"" + p.Agreement.Title + "\" version " + strconv.Itoa(p.Version.Number) + " first (agreement " + p.Agreement.ID + ", version " + p.Version.ID + ")",
				Fields: []models.FieldError{
					{Location: "agreementId", Message: p.Agreement.Title, Value: p.Agreement.ID},
					{Location: "versionId", Message: "version " + strconv.Itoa(p.Version.Number), Value: p.Version.ID}}}
		}
	}
	return nil
}

// EventPatterns are the events the agreements module reacts to in every tenant: a published
// version.
func (s *Store) EventPatterns(context.Context, models.Scope) ([]string, error) {
	return []string{models.EventAgreementPublished, models.EventAgreementRequirementChanged}, nil
}

// RouteEvent asks the partners a newly required version applies to, by email, to accept it:
// when it is published as required, and when an operator requires it (or of more partners) later.
func (s *Store) RouteEvent(_ context.Context, e *models.Event, r *models.EventRoutes) error {
	if e.Type != models.EventAgreementPublished && e.Type != models.EventAgreementRequirementChanged {
		return nil
	}
	var p models.AgreementEventPayload
	if err := json.Unmarshal([]byte(e.Payload), &p); err == nil && p.Required {
		r.AgreementNotices = true
	}
	return nil
}

// MaxAgreementNotices bounds the messages one published version sends.
const MaxAgreementNotices = 10_000

// AgreementNotices are the messages that ask the active users of every partner a published,
// required version applies to, and that has not accepted it, to accept it (event names the
// agreement.published event). None when the version is no longer the required one.
func (s *Store) AgreementNotices(ctx context.Context, sys models.Scope, eventID string) ([]models.AgreementNotice, error) {
	sc := store.Of(sys)
	db := s.core.DB(ctx)
	var e models.Event
	if err := sc.Rows(db.Model(&models.Event{})).Where("id = ?", eventID).Take(&e).Error; err != nil {
		return nil, store.NotFoundAs(err, "EVENT_NOT_FOUND", "event")
	}
	var p models.AgreementEventPayload
	if err := json.Unmarshal([]byte(e.Payload), &p); err != nil || !p.Required {
		return nil, nil
	}
	var a models.Agreement
	if err := sc.Rows(db.Model(&models.Agreement{})).Where("id = ?", p.AgreementID).Take(&a).Error; err != nil {
		return nil, store.NotFoundAs(err, "AGREEMENT_NOT_FOUND", "agreement")
	}
	if a.RequiredVersionID == nil || *a.RequiredVersionID != p.VersionID {
		return nil, nil
	}
	partners := sc.Rows(db.Model(&models.Partner{})).Select("id")
	if !a.RequireAllPartners {
		levels := sc.Rows(db.Model(&models.AgreementLevel{})).Select("level").Where("agreement_id = ?", a.ID)
		partners = partners.Where("level IN (?)", levels)
	}
	accepted := sc.Rows(db.Model(&models.AgreementAcceptance{})).Select("partner_id").Where("version_id = ?", p.VersionID)
	var users []models.User
	if err := sc.Rows(db.Model(&models.User{})).Where("status = ?", models.UserStatusActive).
		Where("partner_id IN (?)", partners).Where("partner_id NOT IN (?)", accepted).
		Order("id").Limit(MaxAgreementNotices).Find(&users).Error; err != nil {
		return nil, err
	}
	from := ""
	if a.RequiredFrom != nil && a.RequiredFrom.After(time.Now()) {
		from = " from " + a.RequiredFrom.UTC().Format("2 January 2006")
	}
	out := make([]models.AgreementNotice, 0, len(users))
	for _, u := range users {
		name := u.Name
		if name == "" {
			name = u.Email
		}
		out = append(out, models.AgreementNotice{UserID: u.ID, To: u.Email,
			Subject: "Please accept: " + a.Title + " (version " + strconv.Itoa(p.VersionNumber) + ")",
			Text: "Hello " + name + ",\n\nVersion " + strconv.Itoa(p.VersionNumber) + " of " + a.Title + " was published. Your organisation must accept it" + from +
				"; until it does, registering deals and requesting withdrawals are paused.\n\nRead and accept it in the partner portal.\n"})
	}
	return out, nil
}
