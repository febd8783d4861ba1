package models

import (
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Kinds of content items.
const (
	ContentFile = "file"
	ContentLink = "link"
)

// Statuses of content items.
const (
	ContentActive   = "active"
	ContentArchived = "archived"
)

// Kinds of a content item's visibility grants.
const (
	ContentGrantLevel   = "level"
	ContentGrantPartner = "partner"
)

// ContentMaxBytes is the largest file a content item version may hold.
const ContentMaxBytes int64 = 256 << 20

// ContentTypes are the media types content files may have (told by their bytes): documents,
// images, video, audio, archives and text.
var ContentTypes = []string{
	"application/pdf", "text/plain", "image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml",
	"video/mp4", "video/webm", "video/quicktime", "audio/mpeg", "application/zip",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	"application/vnd.openxmlformats-officedocument.presentationml.presentation",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	"application/msword", "application/vnd.ms-powerpoint", "application/vnd.ms-excel",
	"application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.presentation",
	"application/vnd.oasis.opendocument.spreadsheet",
}

// ContentFolder groups content items.
type ContentFolder struct {
	ID        string `gorm:"primaryKey;size:36"`
	TenantID  string `gorm:"size:36;not null"`
	Name      string `gorm:"size:200;not null"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ContentItem is a file or a link of the content library. A file item's current version is
// denormalised onto it (FileName ... SHA256); its history is in ContentVersion.
type ContentItem struct {
	ID          string  `gorm:"primaryKey;size:36"`
	TenantID    string  `gorm:"size:36;not null"`
	FolderID    *string `gorm:"size:36"`
	Kind        string  `gorm:"size:8;not null"`
	Title       string  `gorm:"size:200;not null"`
	Description string  `gorm:"size:5000"`
	Language    string  `gorm:"size:35"`
	URL         string  `gorm:"column:url;size:2048"`
	// AllPartners makes the item visible to every partner; otherwise only the levels and
	// partners of its grants see it.
	AllPartners      bool
	Status           string  `gorm:"size:16;not null"`
	CurrentVersionID *string `gorm:"size:36"`
	VersionNumber    int     `gorm:"not null;default:0"`
	FileName         string  `gorm:"size:255"`
	ContentType      string  `gorm:"size:255"`
	Size             int64   `gorm:"not null;default:0"`
	SHA256           string  `gorm:"column:sha256;size:64"`
	ExpiresAt        *time.Time
	CreatedBy        string `gorm:"size:36"`
	CreatedAt        time.Time
	UpdatedAt        time.Time
	// Tags, Levels and PartnerIDs are loaded from their own tables.
	Tags       []string `gorm:"-"`
	Levels     []string `gorm:"-"`
	PartnerIDs []string `gorm:"-"`
}

// ContentVersion is one uploaded file of an item; versions are never changed.
type ContentVersion struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null"`
	ItemID      string `gorm:"size:36;not null"`
	Number      int    `gorm:"not null"`
	BlobKey     string `gorm:"size:100;not null"`
	FileName    string `gorm:"size:255;not null"`
	ContentType string `gorm:"size:255;not null"`
	Size        int64  `gorm:"not null"`
	SHA256      string `gorm:"column:sha256;size:64;not null"`
	CreatedBy   string `gorm:"size:36"`
	CreatedAt   time.Time
}

// ContentTag is one tag of an item.
type ContentTag struct {
	TenantID string `gorm:"size:36;not null"`
	ItemID   string `gorm:"primaryKey;size:36"`
	Tag      string `gorm:"primaryKey;size:50"`
}

// ContentGrant makes an item visible to a level (by name) or a partner (by id).
type ContentGrant struct {
	TenantID string `gorm:"size:36;not null"`
	ItemID   string `gorm:"primaryKey;size:36"`
	Kind     string `gorm:"primaryKey;size:8"`
	Value    string `gorm:"primaryKey;size:64"`
}

// NewContentItem is what an operator gives to create an item.
type NewContentItem struct {
	FolderID    string
	Kind        string
	Title       string
	Description string
	Language    string
	URL         string
	Tags        []string
	ExpiresAt   *time.Time
	Visibility  ContentVisibility
}

// ContentVisibility says which partners see an item: all, or those at Levels and those named.
type ContentVisibility struct {
	AllPartners bool
	Levels      []string
	PartnerIDs  []string
}

// ContentChanges change an item; nil fields stay.
type ContentChanges struct {
	FolderID    *string // "" moves it out of any folder
	Title       *string
	Description *string
	Language    *string
	URL         *string
	Tags        *[]string
	ExpiresAt   *time.Time
	ClearExpiry bool
	Visibility  *ContentVisibility
}

// ContentFilter narrows the content library; zero fields do not filter.
type ContentFilter struct {
	FolderID string
	Tag      string
	Language string
	Query    string
	Kind     string
	// Archived lists archived items instead of active ones (operators).
	Archived bool
}

// ContentUpload is a file arriving for an item, already stored in the blob store.
type ContentUpload struct {
	BlobKey     string
	FileName    string
	ContentType string
	Size        int64
	SHA256      string
}

// ContentEventPayload is the payload of content.* events.
type ContentEventPayload struct {
	ItemID        string `json:"itemId"`
	Kind          string `json:"kind"`
	Title         string `json:"title"`
	FolderID      string `json:"folderId,omitempty"`
	VersionID     string `json:"versionId,omitempty"`
	VersionNumber int    `json:"versionNumber,omitempty"`
	FileName      string `json:"fileName,omitempty"`
	Size          int64  `json:"size,omitempty" doc:"The file's size in bytes"`
	PartnerID     string `json:"partnerId,omitempty" doc:"The partner that downloaded (content.downloaded)"`
}

// ContentFolderEventPayload is the payload of content.folder_created.
type ContentFolderEventPayload struct {
	FolderID string `json:"folderId"`
	Name     string `json:"name"`
}

var (
	languageRE = regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)
	tagRE      = regexp.MustCompile(`^[a-z0-9][a-z0-9 _.-]{0,49}$`)
)

// NormalizeTags lower-cases, trims and de-duplicates tags, refusing malformed ones.
func NormalizeTags(tags []string) ([]string, error) {
	out := make([]string, 0, len(tags))
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if !tagRE.MatchString(t) {
			return nil, Invalid("INVALID_TAG", "tags are 1 to 50 lower-case letters, digits, spaces, dots, dashes or underscores",
				FieldError{Location: "body.tags", Message: "malformed tag", Value: t})
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, nil
}

// ValidateContentLanguage checks a BCP 47 language tag such as "en" or "pt-BR"; empty is allowed.
func ValidateContentLanguage(lang string) error {
	if lang != "" && !languageRE.MatchString(lang) {
		return Invalid("INVALID_LANGUAGE", "language is a BCP 47 tag such as en or pt-BR",
			FieldError{Location: "body.language", Message: "not a language tag", Value: lang})
	}
	return nil
}

// ValidateContentURL checks a link item's address: absolute http or https.
func ValidateContentURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Invalid("INVALID_URL", "a link is an absolute http or https URL",
			FieldError{Location: "body.url", Message: "not an http(s) URL", Value: raw})
	}
	return nil
}

// ValidateNewContentItem checks an item before it is stored and normalises its metadata
// (ParseContentMeta).
func ValidateNewContentItem(n *NewContentItem) error {
	meta, err := ParseContentMeta(ContentMeta{Title: n.Title, Description: n.Description, Language: n.Language,
		FolderID: n.FolderID, Tags: n.Tags, ExpiresAt: n.ExpiresAt})
	if err != nil {
		return err
	}
	switch n.Kind {
	case ContentLink:
		if err := ValidateContentURL(n.URL); err != nil {
			return err
		}
	case ContentFile:
		if n.URL != "" {
			return Invalid("URL_NOT_ALLOWED", "a file item has no URL; upload its file", FieldError{Location: "body.url", Message: "only for links"})
		}
	default:
		return Invalid("INVALID_KIND", "kind is file or link", FieldError{Location: "body.kind", Message: "file or link", Value: n.Kind})
	}
	n.Title, n.Tags, n.ExpiresAt = meta.Title, meta.Tags, meta.ExpiresAt
	return nil
}
