package models

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
	"unicode/utf8"
)

// Kinds of legal agreements.
const (
	AgreementPartner      = "partner_agreement"
	AgreementNDA          = "nda"
	AgreementProgramTerms = "program_terms"
	AgreementOther        = "other"
)

// AgreementKinds lists the kinds of agreements.
var AgreementKinds = []string{AgreementPartner, AgreementNDA, AgreementProgramTerms, AgreementOther}

// Statuses of an agreement version: a draft can be replaced by another draft; a published
// version never changes (the database refuses it).
const (
	AgreementDraft     = "draft"
	AgreementPublished = "published"
)

// AgreementContentType is the media type of an agreement version's document: Markdown text,
// served as exactly the bytes its SHA-256 was computed over.
const AgreementContentType = "text/markdown; charset=utf-8"

// MaxAgreementDocument is the largest agreement document, in bytes.
const MaxAgreementDocument = 512 << 10

// AgreementPDFType is the media type of an agreement version uploaded as a PDF: its bytes are
// kept in the blob store, exactly as uploaded, and its SHA-256 is over them.
const AgreementPDFType = "application/pdf"

// MaxAgreementPDF is the largest PDF agreement version accepted by default, in bytes.
const MaxAgreementPDF = 20 << 20

// Agreement is a legal document partners accept (partner agreement, NDA, program terms) with
// its requirement: which published version partners must have accepted, which partners (all,
// or those at RequiredLevels) and from when.
type Agreement struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null"`
	Kind        string `gorm:"size:32;not null"`
	Title       string `gorm:"size:200;not null"`
	Description string `gorm:"size:2000"`
	// RequiredVersionID is the version partners must accept; nil when none is required.
	RequiredVersionID *string `gorm:"size:36"`
	// RequireAllPartners makes the requirement apply to every partner; otherwise to the
	// partners at RequiredLevels.
	RequireAllPartners bool `gorm:"not null;default:false"`
	// RequiredFrom is when the requirement starts to refuse partners that have not accepted.
	RequiredFrom  *time.Time
	LatestVersion int    `gorm:"not null;default:0"`
	CreatedBy     string `gorm:"size:36"`
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// RequiredLevels is loaded from agreement_levels.
	RequiredLevels []string `gorm:"-"`
	// RequiredVersionNumber is loaded with the required version.
	RequiredVersionNumber int `gorm:"-"`
}

// AgreementLevel is one level an agreement's requirement applies to.
type AgreementLevel struct {
	TenantID    string `gorm:"size:36;not null"`
	AgreementID string `gorm:"primaryKey;size:36"`
	Level       string `gorm:"primaryKey;size:64"`
}

// AgreementVersion is one text of an agreement: Markdown in Body, or a PDF in the blob store
// under BlobKey. Its SHA-256 is over the exact bytes served to partners (Body as UTF-8, or the
// PDF's bytes).
type AgreementVersion struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null"`
	AgreementID string `gorm:"size:36;not null"`
	Number      int    `gorm:"not null"`
	Status      string `gorm:"size:16;not null"`
	ContentType string `gorm:"size:100;not null"`
	Body        string `gorm:"type:text;not null"`
	// BlobKey names a PDF version's file in the blob store; empty for Markdown.
	BlobKey string `gorm:"size:200;not null;default:''"`
	// FileName is the uploaded PDF's name, offered on download.
	FileName string `gorm:"size:255;not null;default:''"`
	Size     int64  `gorm:"not null"`
	SHA256   string `gorm:"column:sha256;size:64;not null"`
	// Summary says what changed from the previous version.
	Summary     string `gorm:"size:2000"`
	CreatedBy   string `gorm:"size:36"`
	CreatedAt   time.Time
	PublishedBy string `gorm:"size:36"`
	PublishedAt *time.Time
}

// IsFile reports whether the version's document is a file in the blob store (a PDF).
func (v *AgreementVersion) IsFile() bool { return v.BlobKey != "" }

// AgreementUpload is a PDF arriving as an agreement's new version, already stored in the blob
// store with its sniffed type, size and SHA-256.
type AgreementUpload struct {
	BlobKey     string
	FileName    string
	ContentType string
	Size        int64
	SHA256      string
	Summary     string
}

// AgreementAcceptance records that a user accepted one version of an agreement for a partner:
// the version's hash, when, from which address and user agent. Acceptances are append-only
// (the database refuses UPDATE and DELETE).
type AgreementAcceptance struct {
	ID            string `gorm:"primaryKey;size:36"`
	TenantID      string `gorm:"size:36;not null"`
	AgreementID   string `gorm:"size:36;not null"`
	VersionID     string `gorm:"size:36;not null"`
	VersionNumber int    `gorm:"not null"`
	SHA256        string `gorm:"column:sha256;size:64;not null"`
	PartnerID     string `gorm:"size:36;not null"`
	UserID        string `gorm:"size:36;not null"`
	// OnBehalf marks an acceptance an operator recorded for the partner (given outside the
	// portal, e.g. on paper); UserID is then the operator.
	OnBehalf      bool   `gorm:"not null;default:false"`
	ClientAddress string `gorm:"size:64"`
	UserAgent     string `gorm:"size:500"`
	AcceptedAt    time.Time
	// AgreementTitle is the accepted agreement's title, filled in by listings.
	AgreementTitle string `gorm:"-"`
}

// AgreementGrace lets a partner act without its pending agreements until Until. Grants are
// kept; the latest one of a partner counts.
type AgreementGrace struct {
	ID        string `gorm:"primaryKey;size:36"`
	TenantID  string `gorm:"size:36;not null"`
	PartnerID string `gorm:"size:36;not null"`
	Until     time.Time
	Reason    string `gorm:"size:500;not null"`
	GrantedBy string `gorm:"size:36"`
	CreatedAt time.Time
}

// NewAgreement is what an operator gives to create an agreement.
type NewAgreement struct {
	Kind        string
	Title       string
	Description string
}

// AgreementRequirement says which version partners must accept, which partners and from when.
type AgreementRequirement struct {
	VersionID   string
	AllPartners bool
	Levels      []string
	// From is when the requirement starts refusing; now when zero.
	From time.Time
}

// PendingAgreement is an agreement a partner must accept and has not: its required version,
// from when, and whether it refuses the partner now (Blocking; false before From and during a
// grace period).
type PendingAgreement struct {
	Agreement  Agreement
	Version    AgreementVersion
	From       time.Time
	Blocking   bool
	GraceUntil *time.Time
}

// AcceptanceInput is what a user accepts: a version of an agreement for a partner, as shown
// (SHA256, when the client names it), from an address and user agent.
type AcceptanceInput struct {
	AgreementID, VersionID string
	// PartnerID is the partner accepting; partners accept for themselves, operators name one.
	PartnerID string
	// SHA256 is the hash the client showed; when set it must be the version's.
	SHA256        string
	ClientAddress string
	UserAgent     string
}

// AcceptanceFilter narrows acceptances; zero fields do not filter.
type AcceptanceFilter struct {
	AgreementID string
	VersionID   string
	PartnerID   string
}

// AgreementCertificate is the signed statement of one acceptance.
type AgreementCertificate struct {
	Type          string    `json:"type" example:"partnerd.agreement-acceptance"`
	AcceptanceID  string    `json:"acceptanceId"`
	TenantID      string    `json:"tenantId"`
	AgreementID   string    `json:"agreementId"`
	Agreement     string    `json:"agreement" doc:"The agreement's title"`
	VersionID     string    `json:"versionId"`
	VersionNumber int       `json:"versionNumber"`
	SHA256        string    `json:"sha256" doc:"Hex SHA-256 of the exact document bytes accepted"`
	ContentType   string    `json:"contentType" doc:"The accepted document's media type: Markdown text or application/pdf"`
	FileName      string    `json:"fileName,omitempty" doc:"The PDF's file name (PDF versions)"`
	PartnerID     string    `json:"partnerId"`
	Partner       string    `json:"partner" doc:"The partner's name"`
	UserID        string    `json:"userId"`
	UserEmail     string    `json:"userEmail"`
	OnBehalf      bool      `json:"onBehalf" doc:"An operator recorded the acceptance for the partner"`
	ClientAddress string    `json:"clientAddress"`
	UserAgent     string    `json:"userAgent"`
	AcceptedAt    time.Time `json:"acceptedAt"`
	IssuedAt      time.Time `json:"issuedAt"`
}

// AgreementEventPayload is the payload of agreement.* events.
type AgreementEventPayload struct {
	AgreementID   string     `json:"agreementId"`
	Kind          string     `json:"kind"`
	Title         string     `json:"title"`
	VersionID     string     `json:"versionId,omitempty"`
	VersionNumber int        `json:"versionNumber,omitempty"`
	SHA256        string     `json:"sha256,omitempty" doc:"Hex SHA-256 of the version's document"`
	Required      bool       `json:"required,omitempty" doc:"The version is the one partners must accept"`
	AllPartners   bool       `json:"allPartners,omitempty"`
	Levels        []string   `json:"levels,omitempty"`
	RequiredFrom  *time.Time `json:"requiredFrom,omitempty"`
	PartnerID     string     `json:"partnerId,omitempty" doc:"The accepting partner (agreement.accepted) or the partner given grace"`
	UserID        string     `json:"userId,omitempty" doc:"Who accepted (agreement.accepted)"`
	AcceptanceID  string     `json:"acceptanceId,omitempty"`
	GraceUntil    *time.Time `json:"graceUntil,omitempty"`
}

// SHA256Hex is the hex SHA-256 of b.
func SHA256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ValidateAgreementDocument checks a version's Markdown text: not empty, valid UTF-8, within
// MaxAgreementDocument bytes.
func ValidateAgreementDocument(body string) error {
	if strings.TrimSpace(body) == "" {
		return Invalid("DOCUMENT_REQUIRED", "an agreement version needs its text", FieldError{Location: "body.markdown", Message: "required"})
	}
	if len(body) > MaxAgreementDocument {
		return Errorf(KindTooLarge, "DOCUMENT_TOO_LARGE", "the document is larger than %d bytes", MaxAgreementDocument)
	}
	if !utf8.ValidString(body) || strings.ContainsRune(body, 0) {
		return Invalid("INVALID_DOCUMENT", "the document is UTF-8 text", FieldError{Location: "body.markdown", Message: "not UTF-8 text"})
	}
	return nil
}

// AgreementApplies reports whether a requirement for allPartners or levels applies to a partner
// at level.
func AgreementApplies(allPartners bool, levels []string, level string) bool {
	if allPartners {
		return true
	}
	for _, l := range levels {
		if l == level && level != "" {
			return true
		}
	}
	return false
}

// MailPurposeAgreement marks the messages asking partners to accept an agreement version.
const MailPurposeAgreement = "agreement"

// AgreementNotice is one message asking a partner's user to accept a newly required version.
type AgreementNotice struct {
	UserID  string
	To      string
	Subject string
	Text    string
}
