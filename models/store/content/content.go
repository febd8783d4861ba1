// Package content keeps the content library: folders, items that are files or links, their
// versions, tags and who may see them (all partners, partners at some levels, named partners).
package content

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// Store keeps the content library.
type Store struct {
	core *store.Store
}

// New is the content store on core's database.
func New(core *store.Store) *Store { return &Store{core: core} }

// Scoped is the content library as one principal sees it: operators see every item of their
// tenant, partners only the active, unexpired items visible to them.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the content store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

// CreateContentFolder adds a folder; its name is unique in the tenant.
func (sc *Scoped) CreateContentFolder(ctx context.Context, name string) (*models.ContentFolder, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, models.Invalid("NAME_REQUIRED", "a folder needs a name", models.FieldError{Location: "body.name", Message: "required"})
	}
	now := time.Now().UTC()
	f := &models.ContentFolder{ID: models.NewID(), TenantID: sc.P.TenantID, Name: name, CreatedAt: now, UpdatedAt: now}
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var n int64
		if err := sc.Scope.Rows(tx.Model(&models.ContentFolder{})).Where("name = ?", name).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return models.Conflict("FOLDER_EXISTS", "a folder of that name exists")
		}
		if err := tx.Create(f).Error; err != nil {
			return store.Translate(err, "FOLDER_EXISTS", "a folder of that name exists")
		}
		if err := store.WriteAudit(ctx, tx, f.TenantID, "content.folder_created", "content_folder", f.ID, "name"); err != nil {
			return err
		}
		_, err := ev.Emit(ctx, tx, f.TenantID, models.NewEvent{Type: models.EventContentFolderCreated, SubjectID: &f.ID,
			Payload: store.MustJSON(models.ContentFolderEventPayload{FolderID: f.ID, Name: f.Name})})
		return err
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// ListContentFolders lists the tenant's folders.
func (sc *Scoped) ListContentFolders(ctx context.Context, pg models.Page) ([]models.ContentFolder, string, error) {
	return store.Page(sc.Rows(ctx, &models.ContentFolder{}), pg, func(f models.ContentFolder) string { return f.ID })
}

// checkFolder refuses a folder id that is not the tenant's.
func (sc *Scoped) checkFolder(tx *gorm.DB, id string) error {
	var n int64
	if err := sc.Scope.Rows(tx.Model(&models.ContentFolder{})).Where("id = ?", id).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return models.Invalid("FOLDER_NOT_FOUND", "no such folder", models.FieldError{Location: "body.folderId", Message: "no such folder", Value: id})
	}
	return nil
}

// checkPartners refuses partner ids that are not the tenant's.
func (sc *Scoped) checkPartners(tx *gorm.DB, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	var found []string
	if err := sc.Scope.Rows(tx.Model(&models.Partner{})).Where("id IN ?", ids).Pluck("id", &found).Error; err != nil {
		return err
	}
	for _, id := range ids {
		if !slices.Contains(found, id) {
			return models.Invalid("PARTNER_NOT_FOUND", "no such partner",
				models.FieldError{Location: "body.visibility.partnerIds", Message: "no such partner", Value: id})
		}
	}
	return nil
}

// normalizeVisibility trims and de-duplicates levels and partner ids.
func normalizeVisibility(v models.ContentVisibility) models.ContentVisibility {
	clean := func(in []string) []string {
		out := []string{}
		for _, s := range in {
			s = strings.TrimSpace(s)
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return out
	}
	return models.ContentVisibility{AllPartners: v.AllPartners, Levels: clean(v.Levels), PartnerIDs: clean(v.PartnerIDs)}
}

// writeTags replaces an item's tags.
func writeTags(tx *gorm.DB, sc store.Scope, it *models.ContentItem) error {
	if err := sc.Rows(tx).Where("item_id = ?", it.ID).Delete(&models.ContentTag{}).Error; err != nil {
		return err
	}
	for _, t := range it.Tags {
		if err := tx.Create(&models.ContentTag{TenantID: it.TenantID, ItemID: it.ID, Tag: t}).Error; err != nil {
			return err
		}
	}
	return nil
}

// writeGrants replaces an item's visibility grants.
func writeGrants(tx *gorm.DB, sc store.Scope, it *models.ContentItem) error {
	if err := sc.Rows(tx).Where("item_id = ?", it.ID).Delete(&models.ContentGrant{}).Error; err != nil {
		return err
	}
	for _, l := range it.Levels {
		if err := tx.Create(&models.ContentGrant{TenantID: it.TenantID, ItemID: it.ID, Kind: models.ContentGrantLevel, Value: l}).Error; err != nil {
			return err
		}
	}
	for _, p := range it.PartnerIDs {
		if err := tx.Create(&models.ContentGrant{TenantID: it.TenantID, ItemID: it.ID, Kind: models.ContentGrantPartner, Value: p}).Error; err != nil {
			return err
		}
	}
	return nil
}

func payloadOf(it *models.ContentItem) models.ContentEventPayload {
	return models.ContentEventPayload{ItemID: it.ID, Kind: it.Kind, Title: it.Title, FolderID: store.Deref(it.FolderID),
		VersionID: store.Deref(it.CurrentVersionID), VersionNumber: it.VersionNumber, FileName: it.FileName, Size: it.Size}
}

func emitItem(ctx context.Context, tx *gorm.DB, ev *store.Outbox, it *models.ContentItem, typ string, p models.ContentEventPayload) error {
	b, _ := json.Marshal(p)
	id := it.ID
	_, err := ev.Emit(ctx, tx, it.TenantID, models.NewEvent{Type: typ, SubjectID: &id, Payload: string(b)})
	return err
}

// CreateContentItem adds a file or link item. A file item is visible to partners once its
// first version is uploaded.
func (sc *Scoped) CreateContentItem(ctx context.Context, n models.NewContentItem) (*models.ContentItem, error) {
	if err := models.ValidateNewContentItem(&n); err != nil {
		return nil, err
	}
	vis := normalizeVisibility(n.Visibility)
	now := time.Now().UTC()
	it := &models.ContentItem{ID: models.NewID(), TenantID: sc.P.TenantID, FolderID: store.NonEmpty(n.FolderID), Kind: n.Kind,
		Title: n.Title, Description: n.Description, Language: n.Language, URL: n.URL, AllPartners: vis.AllPartners,
		Status: models.ContentActive, ExpiresAt: utc(n.ExpiresAt), CreatedBy: sc.P.ActorID(), CreatedAt: now, UpdatedAt: now,
		Tags: n.Tags, Levels: vis.Levels, PartnerIDs: vis.PartnerIDs}
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if n.FolderID != "" {
			if err := sc.checkFolder(tx, n.FolderID); err != nil {
				return err
			}
		}
		if err := sc.checkPartners(tx, vis.PartnerIDs); err != nil {
			return err
		}
		if err := tx.Create(it).Error; err != nil {
			return err
		}
		if err := writeTags(tx, sc.Scope, it); err != nil {
			return err
		}
		if err := writeGrants(tx, sc.Scope, it); err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, it.TenantID, "content.item_created", "content_item", it.ID,
			"kind", "title", "folderId", "visibility"); err != nil {
			return err
		}
		return emitItem(ctx, tx, ev, it, models.EventContentItemCreated, payloadOf(it))
	})
	if err != nil {
		return nil, err
	}
	return it, nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// visible limits q (on content_items) to what the principal may see: the tenant's items for
// operators; for a partner, active unexpired items that are links or have a file, visible to all
// partners, to its level or to it by name.
func (sc *Scoped) visible(tx *gorm.DB, q *gorm.DB) (*gorm.DB, error) {
	q = sc.Scope.Rows(q)
	partner := sc.Scope.PartnerID()
	if partner == "" {
		return q, nil
	}
	var levels []string
	if err := sc.Scope.Rows(tx.Model(&models.Partner{})).Where("id = ?", partner).Pluck("level", &levels).Error; err != nil {
		return nil, err
	}
	level := ""
	if len(levels) == 1 {
		level = levels[0]
	}
	q = q.Where("status = ?", models.ContentActive).
		Where("(expires_at IS NULL OR expires_at > ?)", time.Now().UTC()).
		Where("(kind = ? OR current_version_id IS NOT NULL)", models.ContentLink)
	// The tenant's own grants of one kind and value (index content_grants_lookup).
	grants := func(kind, value string) *gorm.DB {
		return sc.Scope.Rows(tx.Session(&gorm.Session{NewDB: true}).Model(&models.ContentGrant{})).Select("item_id").Where("kind = ? AND value = ?", kind, value)
	}
	if level != "" {
		return q.Where("(all_partners = ? OR id IN (?) OR id IN (?))",
			true, grants(models.ContentGrantPartner, partner), grants(models.ContentGrantLevel, level)), nil
	}
	return q.Where("(all_partners = ? OR id IN (?))", true, grants(models.ContentGrantPartner, partner)), nil
}

// ListContentItems lists the items the principal may see, filtered. A text search runs with
// plans made for its pattern (store.CustomPlanned), so that Postgres finds it through the
// trigram indexes of title and description on every page.
func (sc *Scoped) ListContentItems(ctx context.Context, f models.ContentFilter, pg models.Page) ([]models.ContentItem, string, error) {
	if f.Query == "" {
		return sc.listContentItems(sc.s.core.DB(ctx), f, pg)
	}
	var (
		items []models.ContentItem
		next  string
	)
	err := sc.s.core.CustomPlanned(ctx, func(db *gorm.DB) error {
		var err error
		items, next, err = sc.listContentItems(db, f, pg)
		return err
	})
	return items, next, err
}

func (sc *Scoped) listContentItems(db *gorm.DB, f models.ContentFilter, pg models.Page) ([]models.ContentItem, string, error) {
	q, err := sc.visible(db, db.Model(&models.ContentItem{}))
	if err != nil {
		return nil, "", err
	}
	if sc.Scope.PartnerID() == "" {
		status := models.ContentActive
		if f.Archived {
			status = models.ContentArchived
		}
		q = q.Where("status = ?", status)
	}
	if f.FolderID != "" {
		q = q.Where("folder_id = ?", f.FolderID)
	}
	if f.Kind != "" {
		q = q.Where("kind = ?", f.Kind)
	}
	if f.Language != "" {
		q = q.Where("language = ?", f.Language)
	}
	if f.Tag != "" {
		tagged := sc.Scope.Rows(db.Model(&models.ContentTag{})).Select("item_id").Where("tag = ?", strings.ToLower(strings.TrimSpace(f.Tag)))
		q = q.Where("id IN (?)", tagged)
	}
	q = store.Containing(q, f.Query, "title", "description")
	items, next, err := store.Page(q, pg, func(it models.ContentItem) string { return it.ID })
	if err != nil {
		return nil, "", err
	}
	return items, next, sc.withDetails(db, items)
}

// withDetails loads the tags and, for operators, the grants of items.
func (sc *Scoped) withDetails(db *gorm.DB, items []models.ContentItem) error {
	if len(items) == 0 {
		return nil
	}
	ids := make([]string, len(items))
	byID := make(map[string]*models.ContentItem, len(items))
	for i := range items {
		ids[i] = items[i].ID
		byID[items[i].ID] = &items[i]
		items[i].Tags, items[i].Levels, items[i].PartnerIDs = []string{}, []string{}, []string{}
	}
	var tags []models.ContentTag
	if err := sc.Scope.Rows(db.Model(&models.ContentTag{})).Where("item_id IN ?", ids).Order("tag").Find(&tags).Error; err != nil {
		return err
	}
	for _, t := range tags {
		byID[t.ItemID].Tags = append(byID[t.ItemID].Tags, t.Tag)
	}
	if sc.Scope.PartnerID() != "" {
		return nil // partners do not learn who else sees an item
	}
	var grants []models.ContentGrant
	if err := sc.Scope.Rows(db.Model(&models.ContentGrant{})).Where("item_id IN ?", ids).Order("value").Find(&grants).Error; err != nil {
		return err
	}
	for _, g := range grants {
		it := byID[g.ItemID]
		if g.Kind == models.ContentGrantLevel {
			it.Levels = append(it.Levels, g.Value)
		} else {
			it.PartnerIDs = append(it.PartnerIDs, g.Value)
		}
	}
	return nil
}

// item finds one item the principal may see in tx.
func (sc *Scoped) item(tx *gorm.DB, id string) (*models.ContentItem, error) {
	q, err := sc.visible(tx, tx.Model(&models.ContentItem{}))
	if err != nil {
		return nil, err
	}
	var it models.ContentItem
	if err := q.Where("id = ?", id).Take(&it).Error; err != nil {
		return nil, store.NotFoundAs(err, "CONTENT_NOT_FOUND", "content item")
	}
	items := []models.ContentItem{it}
	if err := sc.withDetails(tx, items); err != nil {
		return nil, err
	}
	return &items[0], nil
}

// ContentItem finds one item the principal may see; another's is not found.
func (sc *Scoped) ContentItem(ctx context.Context, id string) (*models.ContentItem, error) {
	return sc.item(sc.s.core.DB(ctx), id)
}

// parseChanges checks an item's metadata as ch would leave it (models.ParseContentMeta).
func parseChanges(it *models.ContentItem, ch models.ContentChanges) (models.ContentMeta, error) {
	m := models.ContentMeta{Title: it.Title, Description: it.Description, Language: it.Language, FolderID: store.Deref(it.FolderID),
		Tags: it.Tags, ExpiresAt: it.ExpiresAt}
	if ch.Title != nil {
		m.Title = *ch.Title
	}
	if ch.Description != nil {
		m.Description = *ch.Description
	}
	if ch.Language != nil {
		m.Language = *ch.Language
	}
	if ch.FolderID != nil {
		m.FolderID = *ch.FolderID
	}
	if ch.Tags != nil {
		m.Tags = *ch.Tags
	}
	if ch.ExpiresAt != nil || ch.ClearExpiry {
		m.ExpiresAt = ch.ExpiresAt
	}
	return models.ParseContentMeta(m)
}

// UpdateContentItem changes an item's details or visibility.
func (sc *Scoped) UpdateContentItem(ctx context.Context, id string, ch models.ContentChanges) (*models.ContentItem, error) {
	var it *models.ContentItem
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var err error
		if it, err = sc.item(tx, id); err != nil {
			return err
		}
		meta, err := parseChanges(it, ch)
		if err != nil {
			return err
		}
		var changed []string
		if ch.FolderID != nil {
			if *ch.FolderID != "" {
				if err := sc.checkFolder(tx, *ch.FolderID); err != nil {
					return err
				}
			}
			it.FolderID = store.NonEmpty(*ch.FolderID)
			changed = append(changed, "folderId")
		}
		if ch.Title != nil {
			it.Title = meta.Title
			changed = append(changed, "title")
		}
		if ch.Description != nil {
			it.Description = meta.Description
			changed = append(changed, "description")
		}
		if ch.Language != nil {
			it.Language = meta.Language
			changed = append(changed, "language")
		}
		if ch.URL != nil {
			if it.Kind != models.ContentLink {
				return models.Invalid("URL_NOT_ALLOWED", "a file item has no URL; upload a new version", models.FieldError{Location: "body.url", Message: "only for links"})
			}
			if err := models.ValidateContentURL(*ch.URL); err != nil {
				return err
			}
			it.URL = *ch.URL
			changed = append(changed, "url")
		}
		if ch.ExpiresAt != nil || ch.ClearExpiry {
			it.ExpiresAt = meta.ExpiresAt
			changed = append(changed, "expiresAt")
		}
		if ch.Tags != nil {
			it.Tags = meta.Tags
			if err := writeTags(tx, sc.Scope, it); err != nil {
				return err
			}
			changed = append(changed, "tags")
		}
		if ch.Visibility != nil {
			vis := normalizeVisibility(*ch.Visibility)
			if err := sc.checkPartners(tx, vis.PartnerIDs); err != nil {
				return err
			}
			it.AllPartners, it.Levels, it.PartnerIDs = vis.AllPartners, vis.Levels, vis.PartnerIDs
			if err := writeGrants(tx, sc.Scope, it); err != nil {
				return err
			}
			changed = append(changed, "visibility")
		}
		if len(changed) == 0 {
			return nil
		}
		it.UpdatedAt = time.Now().UTC()
		if err := sc.Scope.Rows(tx.Model(&models.ContentItem{})).Where("id = ?", it.ID).Updates(map[string]any{
			"folder_id": it.FolderID, "title": it.Title, "description": it.Description, "language": it.Language, "url": it.URL,
			"expires_at": it.ExpiresAt, "all_partners": it.AllPartners, "updated_at": it.UpdatedAt}).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, it.TenantID, "content.item_updated", "content_item", it.ID, changed...); err != nil {
			return err
		}
		return emitItem(ctx, tx, ev, it, models.EventContentItemUpdated, payloadOf(it))
	})
	if err != nil {
		return nil, err
	}
	return it, nil
}

// ArchiveContentItem takes an item out of the library: partners no longer see it; its files and
// history stay.
func (sc *Scoped) ArchiveContentItem(ctx context.Context, id string) (*models.ContentItem, error) {
	var it *models.ContentItem
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var err error
		if it, err = sc.item(tx, id); err != nil {
			return err
		}
		if it.Status == models.ContentArchived {
			return nil
		}
		it.Status, it.UpdatedAt = models.ContentArchived, time.Now().UTC()
		if err := sc.Scope.Rows(tx.Model(&models.ContentItem{})).Where("id = ?", it.ID).
			Updates(map[string]any{"status": it.Status, "updated_at": it.UpdatedAt}).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, it.TenantID, "content.item_archived", "content_item", it.ID, "status"); err != nil {
			return err
		}
		return emitItem(ctx, tx, ev, it, models.EventContentItemArchived, payloadOf(it))
	})
	if err != nil {
		return nil, err
	}
	return it, nil
}

// AddContentVersion makes an uploaded file the current version of a file item; earlier
// versions stay in its history.
func (sc *Scoped) AddContentVersion(ctx context.Context, id string, up models.ContentUpload) (*models.ContentVersion, error) {
	name, err := models.ParseContentFileName(up.FileName)
	if err != nil {
		return nil, err
	}
	var v *models.ContentVersion
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var it models.ContentItem
		if err := store.LockRow(sc.s.core, tx, &it, sc.Scope, id); err != nil {
			return store.NotFoundAs(err, "CONTENT_NOT_FOUND", "content item")
		}
		if it.Kind != models.ContentFile {
			return models.Invalid("NOT_A_FILE", "only file items take uploads")
		}
		if it.Status != models.ContentActive {
			return models.Conflict("CONTENT_ARCHIVED", "the item is archived")
		}
		now := time.Now().UTC()
		v = &models.ContentVersion{ID: models.NewID(), TenantID: it.TenantID, ItemID: it.ID, Number: it.VersionNumber + 1,
			BlobKey: up.BlobKey, FileName: name, ContentType: up.ContentType, Size: up.Size,
			SHA256: up.SHA256, CreatedBy: sc.P.ActorID(), CreatedAt: now}
		if err := tx.Create(v).Error; err != nil {
			return store.Translate(err, "CONTENT_VERSION_CONFLICT", "another version was uploaded at the same time")
		}
		it.CurrentVersionID, it.VersionNumber, it.FileName, it.ContentType, it.Size, it.SHA256, it.UpdatedAt =
			&v.ID, v.Number, v.FileName, v.ContentType, v.Size, v.SHA256, now
		if err := sc.Scope.Rows(tx.Model(&models.ContentItem{})).Where("id = ?", it.ID).Updates(map[string]any{
			"current_version_id": v.ID, "version_number": v.Number, "file_name": v.FileName, "content_type": v.ContentType,
			"size": v.Size, "sha256": v.SHA256, "updated_at": now}).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, it.TenantID, "content.version_added", "content_item", it.ID, "file"); err != nil {
			return err
		}
		return emitItem(ctx, tx, ev, &it, models.EventContentVersionAdded, payloadOf(&it))
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// ListContentVersions lists the versions of an item the principal may see, oldest first.
func (sc *Scoped) ListContentVersions(ctx context.Context, id string, pg models.Page) ([]models.ContentVersion, string, error) {
	db := sc.s.core.DB(ctx)
	if _, err := sc.item(db, id); err != nil {
		return nil, "", err
	}
	if pg.Limit <= 0 {
		pg.Limit = 20
	}
	q := sc.Scope.Rows(db.Model(&models.ContentVersion{})).Where("item_id = ?", id)
	if pg.After != "" {
		var after models.ContentVersion
		if err := sc.Scope.Rows(db.Model(&models.ContentVersion{})).Where("id = ?", pg.After).Take(&after).Error; err == nil {
			q = q.Where("number > ?", after.Number)
		}
	}
	var out []models.ContentVersion
	if err := q.Order("number").Limit(pg.Limit + 1).Find(&out).Error; err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > pg.Limit {
		out = out[:pg.Limit]
		next = out[len(out)-1].ID
	}
	return out, next, nil
}

// ContentDownload finds the file the principal may download: the item's current version, or,
// for operators, the version named (versionID not empty).
func (sc *Scoped) ContentDownload(ctx context.Context, id, versionID string) (*models.ContentItem, *models.ContentVersion, error) {
	db := sc.s.core.DB(ctx)
	it, err := sc.item(db, id)
	if err != nil {
		return nil, nil, err
	}
	if it.Kind != models.ContentFile || it.CurrentVersionID == nil {
		return nil, nil, models.NotFound("CONTENT_FILE_NOT_FOUND", "file")
	}
	if versionID == "" || sc.Scope.PartnerID() != "" {
		versionID = *it.CurrentVersionID
	}
	var v models.ContentVersion
	if err := sc.Scope.Rows(db.Model(&models.ContentVersion{})).Where("id = ? AND item_id = ?", versionID, it.ID).Take(&v).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, nil, models.NotFound("CONTENT_VERSION_NOT_FOUND", "version")
		}
		return nil, nil, err
	}
	return it, &v, nil
}

// RecordContentDownload emits content.downloaded for a download that started, attributed to the
// downloading partner (none for operators).
func (sc *Scoped) RecordContentDownload(ctx context.Context, it *models.ContentItem, v *models.ContentVersion) error {
	return sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		p := payloadOf(it)
		p.VersionID, p.VersionNumber, p.FileName, p.Size = v.ID, v.Number, v.FileName, v.Size
		p.PartnerID = sc.Scope.PartnerID()
		b, _ := json.Marshal(p)
		id := it.ID
		ne := models.NewEvent{Type: models.EventContentDownloaded, SubjectID: &id, Payload: string(b)}
		if p.PartnerID != "" {
			partner := p.PartnerID
			ne.PartnerID = &partner
		}
		_, err := ev.Emit(ctx, tx, it.TenantID, ne)
		return err
	})
}

// VisibleContentItems are the items among ids that the principal may see (for a partner:
// active, unexpired, with a file or a link, visible to it), in no particular order.
func (sc *Scoped) VisibleContentItems(ctx context.Context, ids []string) ([]models.ContentItem, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	db := sc.s.core.DB(ctx)
	q, err := sc.visible(db, db.Model(&models.ContentItem{}))
	if err != nil {
		return nil, err
	}
	var items []models.ContentItem
	if err := q.Where("id IN ?", ids).Find(&items).Error; err != nil {
		return nil, err
	}
	return items, nil
}
