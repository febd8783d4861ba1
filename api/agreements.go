package api

import (
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/blobstore"
	"github.com/partnerd/partnerd/models"
)

// AgreementStore is what the agreement operations need of storage, as the caller sees it.
type AgreementStore interface {
	CreateAgreement(ctx context.Context, n models.NewAgreement) (*models.Agreement, error)
	ListAgreements(ctx context.Context, pg models.Page) ([]models.Agreement, string, error)
	Agreement(ctx context.Context, id string) (*models.Agreement, error)
	CreateAgreementVersion(ctx context.Context, id, markdown, summary string) (*models.AgreementVersion, error)
	CreateAgreementPDFVersion(ctx context.Context, id string, up models.AgreementUpload) (*models.AgreementVersion, error)
	ListAgreementVersions(ctx context.Context, id string, pg models.Page) ([]models.AgreementVersion, string, error)
	AgreementVersion(ctx context.Context, id, versionID string) (*models.Agreement, *models.AgreementVersion, error)
	PublishAgreementVersion(ctx context.Context, id, versionID string, req *models.AgreementRequirement) (*models.Agreement, *models.AgreementVersion, error)
	SetAgreementRequirement(ctx context.Context, id string, req *models.AgreementRequirement) (*models.Agreement, error)
	AcceptAgreementVersion(ctx context.Context, in models.AcceptanceInput) (*models.AgreementAcceptance, bool, error)
	ListAcceptances(ctx context.Context, f models.AcceptanceFilter, pg models.Page) ([]models.AgreementAcceptance, string, error)
	EachAcceptance(ctx context.Context, f models.AcceptanceFilter, fn func([]models.AgreementAcceptance) error) error
	AcceptanceCertificate(ctx context.Context, id string) (*models.AgreementCertificate, error)
	GrantAgreementGrace(ctx context.Context, partnerID string, until time.Time, reason string) (*models.AgreementGrace, error)
	ListAgreementGraces(ctx context.Context, partnerID string, pg models.Page) ([]models.AgreementGrace, string, error)
	PendingAgreements(ctx context.Context, partnerID string) ([]models.PendingAgreement, error)
	RequireAgreements(ctx context.Context, partnerID string) error
}

// agreements is the agreements store as the caller sees it.
func (s *Server) agreements(ctx context.Context) AgreementStore {
	return s.deps.Modules.Agreements(models.PrincipalFrom(ctx))
}

// requireAgreements is where deal registration and withdrawal requests ask whether a partner
// may act: a partner principal that has not accepted a required agreement version in force is
// refused (403 AGREEMENT_REQUIRED, naming the agreement and version); operators never are.
func (s *Server) requireAgreements(ctx context.Context) error {
	p := models.PrincipalFrom(ctx)
	if !p.IsPartner() {
		return nil
	}
	return s.agreements(ctx).RequireAgreements(ctx, p.PartnerID)
}

// AgreementRequirement says which version partners must accept, which partners and from when.
type AgreementRequirement struct {
	VersionID     string    `json:"versionId"`
	VersionNumber int       `json:"versionNumber"`
	AllPartners   bool      `json:"allPartners"`
	Levels        []string  `json:"levels" nullable:"false" doc:"The levels whose partners must accept (when not allPartners)"`
	From          time.Time `json:"from" doc:"From this time partners that have not accepted are refused deal registration and withdrawals"`
}

// Agreement is a legal document partners accept.
type Agreement struct {
	ID            string                `json:"id"`
	Kind          string                `json:"kind" enum:"partner_agreement,nda,program_terms,other"`
	Title         string                `json:"title"`
	Description   string                `json:"description,omitempty"`
	LatestVersion int                   `json:"latestVersion" doc:"The number of the newest version, draft or published; 0 for none"`
	Requirement   *AgreementRequirement `json:"requirement,omitempty" doc:"The version partners must accept; absent when none is required"`
	CreatedAt     time.Time             `json:"createdAt"`
	UpdatedAt     time.Time             `json:"updatedAt"`
}

func agreementOf(a *models.Agreement) Agreement {
	out := Agreement{ID: a.ID, Kind: a.Kind, Title: a.Title, Description: a.Description, LatestVersion: a.LatestVersion,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	if a.RequiredVersionID != nil {
		r := AgreementRequirement{VersionID: *a.RequiredVersionID, VersionNumber: a.RequiredVersionNumber, AllPartners: a.RequireAllPartners,
			Levels: a.RequiredLevels}
		if r.Levels == nil {
			r.Levels = []string{}
		}
		if a.RequiredFrom != nil {
			r.From = *a.RequiredFrom
		}
		out.Requirement = &r
	}
	return out
}

// AgreementVersion is one text of an agreement.
type AgreementVersion struct {
	ID          string     `json:"id"`
	AgreementID string     `json:"agreementId"`
	Number      int        `json:"number"`
	Status      string     `json:"status" enum:"draft,published"`
	ContentType string     `json:"contentType" example:"text/markdown; charset=utf-8" doc:"Markdown text, or application/pdf for an uploaded PDF"`
	FileName    string     `json:"fileName,omitempty" doc:"The uploaded PDF's name (PDF versions)" example:"reseller-agreement-2027.pdf"`
	Size        int64      `json:"size" doc:"The document's size in bytes"`
	SHA256      string     `json:"sha256" doc:"Hex SHA-256 of the exact bytes get-agreement-document serves"`
	Summary     string     `json:"summary,omitempty" doc:"What changed from the previous version"`
	CreatedAt   time.Time  `json:"createdAt"`
	PublishedAt *time.Time `json:"publishedAt,omitempty"`
}

func agreementVersionOf(v *models.AgreementVersion) AgreementVersion {
	return AgreementVersion{ID: v.ID, AgreementID: v.AgreementID, Number: v.Number, Status: v.Status, ContentType: v.ContentType,
		FileName: v.FileName, Size: v.Size, SHA256: v.SHA256, Summary: v.Summary, CreatedAt: v.CreatedAt, PublishedAt: v.PublishedAt}
}

// AgreementAcceptance is the record of one acceptance.
type AgreementAcceptance struct {
	ID             string    `json:"id"`
	AgreementID    string    `json:"agreementId"`
	AgreementTitle string    `json:"agreementTitle,omitempty" doc:"The agreement's title (in listings)"`
	VersionID      string    `json:"versionId"`
	VersionNumber  int       `json:"versionNumber"`
	SHA256         string    `json:"sha256" doc:"Hex SHA-256 of the document accepted"`
	PartnerID      string    `json:"partnerId"`
	UserID         string    `json:"userId" doc:"Who accepted (an operator when onBehalf)"`
	OnBehalf       bool      `json:"onBehalf" doc:"An operator recorded an acceptance given outside the portal"`
	ClientAddress  string    `json:"clientAddress"`
	UserAgent      string    `json:"userAgent"`
	AcceptedAt     time.Time `json:"acceptedAt"`
}

func acceptanceOf(a *models.AgreementAcceptance) AgreementAcceptance {
	return AgreementAcceptance{ID: a.ID, AgreementID: a.AgreementID, AgreementTitle: a.AgreementTitle, VersionID: a.VersionID, VersionNumber: a.VersionNumber, SHA256: a.SHA256,
		PartnerID: a.PartnerID, UserID: a.UserID, OnBehalf: a.OnBehalf, ClientAddress: a.ClientAddress, UserAgent: a.UserAgent, AcceptedAt: a.AcceptedAt}
}

// PendingAgreement is an agreement a partner must accept and has not.
type PendingAgreement struct {
	AgreementID   string     `json:"agreementId"`
	Kind          string     `json:"kind"`
	Title         string     `json:"title"`
	VersionID     string     `json:"versionId"`
	VersionNumber int        `json:"versionNumber"`
	SHA256        string     `json:"sha256"`
	ContentType   string     `json:"contentType" doc:"The document's media type: Markdown text or application/pdf" example:"application/pdf"`
	FileName      string     `json:"fileName,omitempty" doc:"The PDF's file name (PDF versions)"`
	From          time.Time  `json:"from" doc:"When the requirement starts refusing the partner"`
	Blocking      bool       `json:"blocking" doc:"The partner is refused deal registration and withdrawals until it accepts (the portal shows only the agreement)"`
	GraceUntil    *time.Time `json:"graceUntil,omitempty" doc:"The end of the partner's grace period"`
}

// AgreementGrace is one grace period granted to a partner.
type AgreementGrace struct {
	ID        string    `json:"id"`
	PartnerID string    `json:"partnerId"`
	Until     time.Time `json:"until"`
	Reason    string    `json:"reason"`
	GrantedBy string    `json:"grantedBy"`
	CreatedAt time.Time `json:"createdAt"`
}

func graceOf(g *models.AgreementGrace) AgreementGrace {
	return AgreementGrace{ID: g.ID, PartnerID: g.PartnerID, Until: g.Until, Reason: g.Reason, GrantedBy: g.GrantedBy, CreatedAt: g.CreatedAt}
}

// CertificateKey is a public key that verifies acceptance certificates.
type CertificateKey struct {
	KeyID     string `json:"kid" example:"v1"`
	KeyType   string `json:"kty" example:"OKP"`
	Curve     string `json:"crv" example:"Ed25519"`
	PublicKey string `json:"x" doc:"The Ed25519 public key, base64url without padding (RFC 8037)"`
	Use       string `json:"use" example:"sig"`
	Algorithm string `json:"alg" example:"EdDSA"`
}

// SignedAgreementCertificate is a signed statement of one acceptance.
type SignedAgreementCertificate struct {
	Certificate models.AgreementCertificate `json:"certificate" doc:"What the signature covers, for reading; the JWS payload is authoritative"`
	JWS         string                      `json:"jws" doc:"Compact JWS (RFC 7515, alg EdDSA) whose payload is the certificate's JSON; verify it with the key of its kid from list-agreement-certificate-keys"`
}

// Inputs and outputs.
type (
	// CreateAgreementInput adds an agreement.
	CreateAgreementInput struct {
		Body struct {
			Kind        string `json:"kind" enum:"partner_agreement,nda,program_terms,other" example:"partner_agreement"`
			Title       string `json:"title" minLength:"1" maxLength:"200" example:"Reseller partner agreement"`
			Description string `json:"description,omitempty" maxLength:"2000" example:"The terms every reseller accepts."`
		}
	}
	// CreateAgreementVersionInput writes a draft version.
	CreateAgreementVersionInput struct {
		ID   string `path:"id" maxLength:"36"`
		Body struct {
			Markdown string `json:"markdown" minLength:"1" maxLength:"524288" doc:"The document, Markdown; its SHA-256 is over these exact UTF-8 bytes" example:"# Reseller partner agreement\n\n1. Term. This agreement runs for one year."`
			Summary  string `json:"summary,omitempty" maxLength:"2000" example:"Adds the term clause."`
		}
	}
	// UploadAgreementPDFInput is a PDF for a new draft version: the request body is its bytes.
	UploadAgreementPDFInput struct {
		ID       string `path:"id" maxLength:"36"`
		FileName string `query:"fileName" required:"true" minLength:"1" maxLength:"255" doc:"The PDF's name, offered on download" example:"reseller-agreement-2027.pdf"`
		Summary  string `query:"summary" maxLength:"2000" doc:"What changed from the previous version" example:"Adds the term clause."`
	}
	// AgreementDocumentInput names a version and, for a PDF, byte ranges.
	AgreementDocumentInput struct {
		AgreementVersionPath
		Range string `header:"Range" maxLength:"200" doc:"Byte ranges (RFC 9110)"`
	}
	// AgreementVersionPath names a version of an agreement.
	AgreementVersionPath struct {
		ID        string `path:"id" maxLength:"36"`
		VersionID string `path:"versionId" maxLength:"36"`
	}
	// RequirementInput says which partners must accept and from when.
	RequirementInput struct {
		AllPartners bool       `json:"allPartners,omitempty" doc:"Every partner must accept" example:"true"`
		Levels      []string   `json:"levels,omitempty" maxItems:"50" maxLength:"64" doc:"Partners at these levels must accept" example:"[]"`
		From        *time.Time `json:"from,omitempty" doc:"From when partners that have not accepted are refused; now when absent" example:"2027-01-01T00:00:00Z"`
	}
	// PublishAgreementVersionInput publishes a draft, optionally requiring it.
	PublishAgreementVersionInput struct {
		AgreementVersionPath
		Body struct {
			Require *RequirementInput `json:"require,omitempty" doc:"Make partners accept this version (they are asked to); the previous requirement is replaced"`
		}
	}
	// SetAgreementRequirementInput replaces an agreement's requirement.
	SetAgreementRequirementInput struct {
		ID   string `path:"id" maxLength:"36"`
		Body struct {
			VersionID string `json:"versionId,omitempty" maxLength:"36" doc:"The published version partners must accept; empty requires nothing any more" example:"0193a7c2-8a51-7d41-9c3e-6f0f2b1f4a10"`
			RequirementInput
		}
	}
	// AcceptAgreementVersionInput accepts a version.
	AcceptAgreementVersionInput struct {
		AgreementVersionPath
		UserAgent string `header:"User-Agent" maxLength:"2000"`
		Body      struct {
			PartnerID string `json:"partnerId,omitempty" maxLength:"36" doc:"The partner the acceptance is for (operators recording one; partners accept for themselves)" example:"0193a7c2-8a51-7d41-9c3e-6f0f2b1f4a10"`
			SHA256    string `json:"sha256,omitempty" maxLength:"64" doc:"The SHA-256 of the document shown; refused (409 AGREEMENT_HASH_MISMATCH) when it is not the version's" example:"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"`
		}
	}
	// AgreementVersionsInput pages an agreement's versions.
	AgreementVersionsInput struct {
		ListParams
		ID string `path:"id" maxLength:"36"`
	}
	// PendingAgreementsInput names the partner.
	PendingAgreementsInput struct {
		PartnerID string `query:"partnerId" maxLength:"36" doc:"The partner (operators; partners see their own)"`
	}
	// AcceptancesFilter narrows acceptances.
	AcceptancesFilter struct {
		AgreementID string `query:"agreementId" maxLength:"36"`
		VersionID   string `query:"versionId" maxLength:"36"`
		PartnerID   string `query:"partnerId" maxLength:"36"`
	}
	// ListAcceptancesInput pages acceptances.
	ListAcceptancesInput struct {
		ListParams
		AcceptancesFilter
	}
	// GrantAgreementGraceInput grants a grace period.
	GrantAgreementGraceInput struct {
		Body struct {
			PartnerID string    `json:"partnerId" minLength:"1" maxLength:"36" example:"0193a7c2-8a51-7d41-9c3e-6f0f2b1f4a10"`
			Until     time.Time `json:"until" doc:"The partner may act without its pending agreements until then; a past time ends a grace period" example:"2027-01-31T00:00:00Z"`
			Reason    string    `json:"reason" minLength:"1" maxLength:"500" example:"Their legal team reviews the new terms."`
		}
	}
	// ListAgreementGracesInput pages grace grants.
	ListAgreementGracesInput struct {
		ListParams
		PartnerID string `query:"partnerId" maxLength:"36"`
	}

	// AgreementOutput is one agreement.
	AgreementOutput struct{ Body Agreement }
	// AgreementListOutput is a page of agreements.
	AgreementListOutput struct{ Body ListBody[Agreement] }
	// AgreementVersionOutput is one version.
	AgreementVersionOutput struct{ Body AgreementVersion }
	// AgreementVersionListOutput is a page of versions.
	AgreementVersionListOutput struct{ Body ListBody[AgreementVersion] }
	// AcceptanceOutput is one acceptance.
	AcceptanceOutput struct{ Body AgreementAcceptance }
	// AcceptanceListOutput is a page of acceptances.
	AcceptanceListOutput struct{ Body ListBody[AgreementAcceptance] }
	// PendingAgreementsOutput lists pending agreements.
	PendingAgreementsOutput struct {
		Body struct {
			Data     []PendingAgreement `json:"data" nullable:"false"`
			Blocking bool               `json:"blocking" doc:"Some agreement refuses the partner now"`
		}
	}
	// CertificateOutput is a signed certificate.
	CertificateOutput struct{ Body SignedAgreementCertificate }
	// CertificateKeysOutput lists the verifying keys (a JWK set).
	CertificateKeysOutput struct {
		Body struct {
			Keys []CertificateKey `json:"keys" nullable:"false"`
		}
	}
	// AgreementGraceOutput is one grace grant.
	AgreementGraceOutput struct{ Body AgreementGrace }
	// AgreementGraceListOutput is a page of grace grants.
	AgreementGraceListOutput struct{ Body ListBody[AgreementGrace] }
)

func (r *RequirementInput) model(versionID string) *models.AgreementRequirement {
	if r == nil {
		return nil
	}
	out := &models.AgreementRequirement{VersionID: versionID, AllPartners: r.AllPartners, Levels: r.Levels}
	if r.From != nil {
		out.From = *r.From
	}
	return out
}

func registerAgreementRoutes(s *Server) {
	tags := []string{"Agreements"}
	register(s, huma.Operation{OperationID: "list-agreements", Method: http.MethodGet, Path: "/api/agreements", Tags: tags,
		Summary: "List legal agreements", Description: "Partners see the agreements required of them.", Security: UsersOrKeys},
		Requires(authz.AgreementsRead), s.listAgreements)
	register(s, huma.Operation{OperationID: "create-agreement", Method: http.MethodPost, Path: "/api/agreements", Tags: tags,
		RequestBody: requestExample(`{"kind": "partner_agreement", "title": "Reseller partner agreement", "description": "The terms every reseller accepts."}`),
		Summary:     "Add a legal agreement", Description: "Nothing is required of partners until a version is published and required. Audited.",
		DefaultStatus: http.StatusCreated, Security: UsersOrKeys, Errors: []int{http.StatusUnprocessableEntity}},
		Requires(authz.AgreementsManage), s.createAgreement)
	register(s, huma.Operation{OperationID: "get-agreement", Method: http.MethodGet, Path: "/api/agreements/{id}", Tags: tags,
		Summary: "Get a legal agreement with its requirement", Description: "An agreement not required of the partner is 404.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.AgreementsRead), s.getAgreement)
	register(s, huma.Operation{OperationID: "list-agreement-versions", Method: http.MethodGet, Path: "/api/agreements/{id}/versions", Tags: tags,
		Summary: "List an agreement's versions, oldest first", Description: "Partners see the published ones.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.AgreementsRead), s.listAgreementVersions)
	register(s, huma.Operation{OperationID: "create-agreement-version", Method: http.MethodPost, Path: "/api/agreements/{id}/versions", Tags: tags,
		RequestBody:   requestExample(`{"markdown": "# Reseller partner agreement\n\n1. Term. This agreement runs for one year.", "summary": "Adds the term clause."}`),
		Summary:       "Write a draft version of an agreement",
		Description:   "The document is Markdown, at most 512 KiB; its SHA-256 is over its exact UTF-8 bytes. A draft is seen by operators only until it is published. Audited.",
		DefaultStatus: http.StatusCreated, Security: UsersOrKeys,
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity}},
		Requires(authz.AgreementsManage), s.createAgreementVersion)
	pdfMax := s.agreementPDFMaxBytes()
	register(s, huma.Operation{OperationID: "upload-agreement-pdf", Method: http.MethodPost, Path: "/api/agreements/{id}/pdf-versions", Tags: tags,
		Summary:       "Upload a PDF as a draft version of an agreement",
		Description:   "The request body is the PDF's bytes (any Content-Type; the type is told from the bytes and must be application/pdf). Its SHA-256 is over exactly those bytes, kept in the file store. Over the size limit is 413 FILE_TOO_LARGE, another type 415 UNSUPPORTED_FILE_TYPE, both before anything is kept. A draft is seen by operators only until it is published; a published version never changes. Audited.",
		DefaultStatus: http.StatusCreated, Security: UsersOrKeys, MaxBodyBytes: pdfMax,
		RequestBody: &huma.RequestBody{Required: true, Description: "The PDF's bytes", Content: map[string]*huma.MediaType{
			"application/pdf": {Schema: &huma.Schema{Type: "string", Format: "binary", MaxLength: ptrInt(int(pdfMax))}}}},
		Metadata: map[string]any{metaStreamBody: true},
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
			http.StatusUnprocessableEntity, http.StatusServiceUnavailable}},
		Requires(authz.AgreementsManage), s.uploadAgreementPDF)
	register(s, huma.Operation{OperationID: "get-agreement-version", Method: http.MethodGet, Path: "/api/agreements/{id}/versions/{versionId}", Tags: tags,
		Summary: "Get an agreement version's details and hash", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.AgreementsRead), s.getAgreementVersion)
	register(s, huma.Operation{OperationID: "get-agreement-document", Method: http.MethodGet, Path: "/api/agreements/{id}/versions/{versionId}/document", Tags: tags,
		Summary:     "Get an agreement version's document, byte for byte",
		Description: "The exact bytes whose SHA-256 the version shows (also in ETag and Repr-Digest): Markdown text, or the PDF as uploaded. Range requests are answered (206).",
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusRequestedRangeNotSatisfiable, http.StatusServiceUnavailable},
		Responses: map[string]*huma.Response{
			"200": {Description: "The document", Content: map[string]*huma.MediaType{
				"text/markdown":   {Schema: &huma.Schema{Type: huma.TypeString}},
				"application/pdf": {Schema: &huma.Schema{Type: huma.TypeString, Format: "binary"}}}},
			"206": {Description: "The requested byte ranges"},
		}},
		Requires(authz.AgreementsRead), s.getAgreementDocument)
	register(s, huma.Operation{OperationID: "publish-agreement-version", Method: http.MethodPost, Path: "/api/agreements/{id}/versions/{versionId}/publish", Tags: tags,
		RequestBody: requestExample(`{"require": {"allPartners": true, "from": "2027-01-01T00:00:00Z"}}`),
		Summary:     "Publish a draft version, optionally requiring it",
		Description: "A published version never changes (the database refuses it). With require, the partners it applies to must accept it: they see it in their pending agreements and, from the given time, are refused deal registration and withdrawals until they accept. Emits agreement.published. Audited. Publishing twice is 409 AGREEMENT_VERSION_PUBLISHED.",
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}},
		Requires(authz.AgreementsManage), s.publishAgreementVersion)
	register(s, huma.Operation{OperationID: "set-agreement-requirement", Method: http.MethodPut, Path: "/api/agreements/{id}/requirement", Tags: tags,
		RequestBody: requestExample(`{"versionId": "0193a7c2-8a51-7d41-9c3e-6f0f2b1f4a10", "levels": ["Gold"], "from": "2027-01-01T00:00:00Z"}`),
		Summary:     "Say which published version partners must accept, which partners and from when",
		Description: "An empty versionId requires nothing any more. Emits agreement.requirement_changed. Audited.",
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity}},
		Requires(authz.AgreementsManage), s.setAgreementRequirement)
	register(s, huma.Operation{OperationID: "accept-agreement-version", Method: http.MethodPost, Path: "/api/agreements/{id}/versions/{versionId}/accept", Tags: tags,
		RequestBody:   requestExample(`{"sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}`),
		Summary:       "Accept a published agreement version",
		Description:   "Records who accepted, for which partner, the version and its hash, when, from which address and user agent; the record is append-only. Partners accept for themselves; an operator records an acceptance given outside the portal for the partner it names (marked onBehalf). Accepting again answers the first acceptance (200). Emits agreement.accepted.",
		DefaultStatus: http.StatusCreated, Security: UsersOnly,
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}},
		Requires(authz.AgreementsAccept), s.acceptAgreementVersion)
	register(s, huma.Operation{OperationID: "list-pending-agreements", Method: http.MethodGet, Path: "/api/pending-agreements", Tags: tags,
		Summary:     "The agreements a partner must accept and has not",
		Description: "For the portal's banner: partners get their own; operators name partnerId. blocking says the partner is refused deal registration and withdrawals until it accepts.",
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity}},
		Requires(authz.AgreementsRead), s.listPendingAgreements)
	register(s, huma.Operation{OperationID: "list-agreement-acceptances", Method: http.MethodGet, Path: "/api/agreement-acceptances", Tags: tags,
		Summary: "List acceptances, oldest first", Description: "Partners see their own.", Security: UsersOrKeys},
		Requires(authz.AgreementsRead), s.listAcceptances)
	register(s, huma.Operation{OperationID: "export-agreement-acceptances", Method: http.MethodGet, Path: "/api/agreement-acceptances/export", Tags: tags,
		Summary:     "Export acceptances as CSV",
		Description: "Streams every acceptance matching the filters, oldest first, read 500 at a time. Partners export their own. Cells that a spreadsheet would run as a formula are prefixed with '.",
		Security:    UsersOrKeys,
		Responses: map[string]*huma.Response{"200": {Description: "The acceptances", Content: map[string]*huma.MediaType{
			"text/csv": {Schema: &huma.Schema{Type: huma.TypeString,
				Description: "Header row; one line per acceptance (acceptedAt, acceptanceId, agreementId, versionId, versionNumber, sha256, partnerId, userId, onBehalf, clientAddress, userAgent)"}}}}}},
		Requires(authz.AgreementsRead), s.exportAcceptances)
	register(s, huma.Operation{OperationID: "get-agreement-certificate", Method: http.MethodGet, Path: "/api/agreement-acceptances/{id}/certificate", Tags: tags,
		Summary:     "A signed certificate of one acceptance",
		Description: "A compact JWS (EdDSA over Ed25519) whose payload is the certificate's JSON; anyone can verify it with the public key of its kid (list-agreement-certificate-keys).",
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusServiceUnavailable}},
		Requires(authz.AgreementsRead), s.getAgreementCertificate)
	register(s, huma.Operation{OperationID: "list-agreement-certificate-keys", Method: http.MethodGet, Path: "/api/agreement-certificate-keys", Tags: tags,
		Summary:     "The public keys that verify acceptance certificates",
		Description: "Public: a JWK set (RFC 8037 OKP Ed25519 keys) by kid, newest first; retired keys stay listed so that old certificates verify. With kid, only that key (404 when unknown).",
		Errors:      []int{http.StatusNotFound, http.StatusServiceUnavailable}}, Public(), s.listCertificateKeys)
	register(s, huma.Operation{OperationID: "grant-agreement-grace", Method: http.MethodPost, Path: "/api/agreement-graces", Tags: tags,
		RequestBody:   requestExample(`{"partnerId": "0193a7c2-8a51-7d41-9c3e-6f0f2b1f4a10", "until": "2027-01-31T00:00:00Z", "reason": "Their legal team reviews the new terms."}`),
		Summary:       "Let a partner act without its pending agreements until a date",
		Description:   "The latest grant of a partner counts; a past date ends its grace period. Every grant is kept. Emits agreement.grace_granted. Audited.",
		DefaultStatus: http.StatusCreated, Security: UsersOrKeys, Errors: []int{http.StatusUnprocessableEntity}},
		Requires(authz.AgreementsManage), s.grantAgreementGrace)
	register(s, huma.Operation{OperationID: "list-agreement-graces", Method: http.MethodGet, Path: "/api/agreement-graces", Tags: tags,
		Summary: "List grace grants, oldest first", Security: UsersOrKeys},
		Requires(authz.AgreementsManage), s.listAgreementGraces)
}

func (s *Server) listAgreements(ctx context.Context, in *ListParams) (*AgreementListOutput, error) {
	body, err := listPage(ctx, s, *in, func(pg models.Page) ([]models.Agreement, string, error) {
		return s.agreements(ctx).ListAgreements(ctx, pg)
	}, agreementOf)
	return &AgreementListOutput{Body: body}, err
}

func agreementOutput(a *models.Agreement, err error) (*AgreementOutput, error) {
	if err != nil {
		return nil, err
	}
	return &AgreementOutput{Body: agreementOf(a)}, nil
}

func (s *Server) createAgreement(ctx context.Context, in *CreateAgreementInput) (*AgreementOutput, error) {
	return agreementOutput(s.agreements(ctx).CreateAgreement(ctx, models.NewAgreement{Kind: in.Body.Kind, Title: in.Body.Title, Description: in.Body.Description}))
}

func (s *Server) getAgreement(ctx context.Context, in *IDPath) (*AgreementOutput, error) {
	return agreementOutput(s.agreements(ctx).Agreement(ctx, in.ID))
}

func (s *Server) listAgreementVersions(ctx context.Context, in *AgreementVersionsInput) (*AgreementVersionListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.AgreementVersion, string, error) {
		return s.agreements(ctx).ListAgreementVersions(ctx, in.ID, pg)
	}, agreementVersionOf)
	return &AgreementVersionListOutput{Body: body}, err
}

func (s *Server) createAgreementVersion(ctx context.Context, in *CreateAgreementVersionInput) (*AgreementVersionOutput, error) {
	v, err := s.agreements(ctx).CreateAgreementVersion(ctx, in.ID, in.Body.Markdown, in.Body.Summary)
	if err != nil {
		return nil, err
	}
	return &AgreementVersionOutput{Body: agreementVersionOf(v)}, nil
}

func (s *Server) getAgreementVersion(ctx context.Context, in *AgreementVersionPath) (*AgreementVersionOutput, error) {
	_, v, err := s.agreements(ctx).AgreementVersion(ctx, in.ID, in.VersionID)
	if err != nil {
		return nil, err
	}
	return &AgreementVersionOutput{Body: agreementVersionOf(v)}, nil
}

// agreementPDFMaxBytes is the largest PDF agreement version accepted.
func (s *Server) agreementPDFMaxBytes() int64 {
	if s.cfg.AgreementPDFMaxBytes > 0 {
		return s.cfg.AgreementPDFMaxBytes
	}
	return models.MaxAgreementPDF
}

func (s *Server) uploadAgreementPDF(ctx context.Context, in *UploadAgreementPDFInput) (*AgreementVersionOutput, error) {
	st := s.agreements(ctx)
	if _, err := st.Agreement(ctx, in.ID); err != nil {
		return nil, err // nothing is stored for an agreement the caller cannot see
	}
	name, err := models.ParseContentFileName(in.FileName)
	if err != nil {
		return nil, err
	}
	obj, err := s.storeUpload(ctx, "agreements", blobstore.Limits{MaxBytes: s.agreementPDFMaxBytes(), Types: []string{models.AgreementPDFType}})
	if err != nil {
		return nil, err
	}
	v, err := st.CreateAgreementPDFVersion(ctx, in.ID, models.AgreementUpload{BlobKey: obj.Key, FileName: name,
		ContentType: obj.ContentType, Size: obj.Size, SHA256: obj.SHA256, Summary: in.Summary})
	if err != nil {
		if derr := s.deps.Blobs.Delete(context.WithoutCancel(ctx), obj.Key); derr != nil {
			s.log.ErrorContext(ctx, "deleting an orphaned upload failed", "request_id", RequestID(ctx), "error", derr.Error())
		}
		return nil, err
	}
	return &AgreementVersionOutput{Body: agreementVersionOf(v)}, nil
}

// getAgreementDocument serves a version's document as the exact bytes hashed: Markdown from the
// database, a PDF streamed from the file store; both answer Range requests.
func (s *Server) getAgreementDocument(ctx context.Context, in *AgreementDocumentInput) (*huma.StreamResponse, error) {
	_, v, err := s.agreements(ctx).AgreementVersion(ctx, in.ID, in.VersionID)
	if err != nil {
		return nil, err
	}
	var doc io.ReadSeeker = strings.NewReader(v.Body)
	var closer io.Closer
	if v.IsFile() {
		b, err := s.blobs()
		if err != nil {
			return nil, err
		}
		f, err := b.Open(ctx, v.BlobKey)
		if errors.Is(err, blobstore.ErrNotFound) {
			return nil, models.NotFound("AGREEMENT_FILE_NOT_FOUND", "agreement file")
		}
		if err != nil {
			return nil, err
		}
		doc, closer = f, f
	}
	raw, _ := hex.DecodeString(v.SHA256)
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		if closer != nil {
			defer func() { _ = closer.Close() }()
		}
		c := ginOf(hctx)
		if c == nil {
			hctx.SetStatus(http.StatusInternalServerError)
			return
		}
		h := c.Writer.Header()
		h.Set("Content-Type", v.ContentType)
		h.Set("ETag", `"`+v.SHA256+`"`)
		h.Set("Repr-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(raw)+":")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "private, no-cache")
		if v.IsFile() {
			h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": v.FileName}))
		}
		http.ServeContent(c.Writer, c.Request, "", v.CreatedAt, doc)
	}}, nil
}

func (s *Server) publishAgreementVersion(ctx context.Context, in *PublishAgreementVersionInput) (*AgreementOutput, error) {
	a, _, err := s.agreements(ctx).PublishAgreementVersion(ctx, in.ID, in.VersionID, in.Body.Require.model(""))
	return agreementOutput(a, err)
}

func (s *Server) setAgreementRequirement(ctx context.Context, in *SetAgreementRequirementInput) (*AgreementOutput, error) {
	var req *models.AgreementRequirement
	if in.Body.VersionID != "" {
		req = in.Body.model(in.Body.VersionID)
	}
	return agreementOutput(s.agreements(ctx).SetAgreementRequirement(ctx, in.ID, req))
}

// AcceptanceCreatedOutput is an acceptance, with 201 when it is new and 200 when it was recorded before.
type AcceptanceCreatedOutput struct {
	Status int `json:"-"`
	Body   AgreementAcceptance
}

func (s *Server) acceptAgreementVersion(ctx context.Context, in *AcceptAgreementVersionInput) (*AcceptanceCreatedOutput, error) {
	acc, created, err := s.agreements(ctx).AcceptAgreementVersion(ctx, models.AcceptanceInput{AgreementID: in.ID, VersionID: in.VersionID,
		PartnerID: in.Body.PartnerID, SHA256: in.Body.SHA256, ClientAddress: models.RequestMetaFrom(ctx).ClientAddress, UserAgent: in.UserAgent})
	if err != nil {
		return nil, err
	}
	status := http.StatusCreated
	if !created {
		status = http.StatusOK
	}
	return &AcceptanceCreatedOutput{Status: status, Body: acceptanceOf(acc)}, nil
}

func (s *Server) listPendingAgreements(ctx context.Context, in *PendingAgreementsInput) (*PendingAgreementsOutput, error) {
	list, err := s.agreements(ctx).PendingAgreements(ctx, in.PartnerID)
	if err != nil {
		return nil, err
	}
	out := &PendingAgreementsOutput{}
	out.Body.Data = make([]PendingAgreement, 0, len(list))
	for _, p := range list {
		out.Body.Data = append(out.Body.Data, PendingAgreement{AgreementID: p.Agreement.ID, Kind: p.Agreement.Kind, Title: p.Agreement.Title,
			VersionID: p.Version.ID, VersionNumber: p.Version.Number, SHA256: p.Version.SHA256,
			ContentType: p.Version.ContentType, FileName: p.Version.FileName, From: p.From, Blocking: p.Blocking, GraceUntil: p.GraceUntil})
		out.Body.Blocking = out.Body.Blocking || p.Blocking
	}
	return out, nil
}

func (f AcceptancesFilter) model() models.AcceptanceFilter {
	return models.AcceptanceFilter{AgreementID: f.AgreementID, VersionID: f.VersionID, PartnerID: f.PartnerID}
}

func (s *Server) listAcceptances(ctx context.Context, in *ListAcceptancesInput) (*AcceptanceListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.AgreementAcceptance, string, error) {
		return s.agreements(ctx).ListAcceptances(ctx, in.model(), pg)
	}, acceptanceOf)
	return &AcceptanceListOutput{Body: body}, err
}

// csvCell keeps a cell from being run as a formula by a spreadsheet (OWASP CSV injection).
func csvCell(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

func (s *Server) exportAcceptances(ctx context.Context, in *AcceptancesFilter) (*huma.StreamResponse, error) {
	st := s.agreements(ctx)
	f := in.model()
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		hctx.SetHeader("Content-Type", "text/csv; charset=utf-8")
		hctx.SetHeader("Content-Disposition", `attachment; filename="agreement-acceptances.csv"`)
		hctx.SetHeader("Cache-Control", "private, no-store")
		hctx.SetStatus(http.StatusOK)
		w := csv.NewWriter(hctx.BodyWriter())
		_ = w.Write([]string{"acceptedAt", "acceptanceId", "agreementId", "versionId", "versionNumber", "sha256", "partnerId", "userId",
			"onBehalf", "clientAddress", "userAgent"})
		err := st.EachAcceptance(ctx, f, func(batch []models.AgreementAcceptance) error {
			for _, a := range batch {
				if err := w.Write([]string{a.AcceptedAt.UTC().Format(time.RFC3339Nano), a.ID, a.AgreementID, a.VersionID, strconv.Itoa(a.VersionNumber),
					a.SHA256, a.PartnerID, a.UserID, strconv.FormatBool(a.OnBehalf), csvCell(a.ClientAddress), csvCell(a.UserAgent)}); err != nil {
					return err
				}
			}
			w.Flush()
			return w.Error()
		})
		w.Flush()
		if err != nil {
			s.log.ErrorContext(ctx, "exporting acceptances stopped", "request_id", RequestID(ctx), "error", err.Error())
		}
	}}, nil
}

func (s *Server) getAgreementCertificate(ctx context.Context, in *IDPath) (*CertificateOutput, error) {
	if s.deps.Certificates == nil {
		return nil, models.Errorf(models.KindUnavailable, "CERTIFICATES_UNAVAILABLE", "certificate signing is not configured")
	}
	cert, err := s.agreements(ctx).AcceptanceCertificate(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	payload, err := json.Marshal(cert)
	if err != nil {
		return nil, err
	}
	jws, err := s.deps.Certificates.Sign(payload)
	if err != nil {
		return nil, err
	}
	return &CertificateOutput{Body: SignedAgreementCertificate{Certificate: *cert, JWS: jws}}, nil
}

// CertificateKeysInput names one key.
type CertificateKeysInput struct {
	KeyID string `query:"kid" maxLength:"16" doc:"Only this key" example:"v1"`
}

func (s *Server) listCertificateKeys(_ context.Context, in *CertificateKeysInput) (*CertificateKeysOutput, error) {
	if s.deps.Certificates == nil {
		return nil, models.Errorf(models.KindUnavailable, "CERTIFICATES_UNAVAILABLE", "certificate signing is not configured")
	}
	keys, err := s.deps.Certificates.PublicKeys()
	if err != nil {
		return nil, err
	}
	out := &CertificateKeysOutput{}
	out.Body.Keys = make([]CertificateKey, 0, len(keys))
	for _, k := range keys {
		if in.KeyID != "" && k.KeyID != in.KeyID {
			continue
		}
		out.Body.Keys = append(out.Body.Keys, CertificateKey{KeyID: k.KeyID, KeyType: "OKP", Curve: "Ed25519",
			PublicKey: base64.RawURLEncoding.EncodeToString(k.PublicKey), Use: "sig", Algorithm: "EdDSA"})
	}
	if in.KeyID != "" && len(out.Body.Keys) == 0 {
		return nil, models.NotFound("CERTIFICATE_KEY_NOT_FOUND", "certificate key")
	}
	return out, nil
}

func (s *Server) grantAgreementGrace(ctx context.Context, in *GrantAgreementGraceInput) (*AgreementGraceOutput, error) {
	g, err := s.agreements(ctx).GrantAgreementGrace(ctx, in.Body.PartnerID, in.Body.Until, in.Body.Reason)
	if err != nil {
		return nil, err
	}
	return &AgreementGraceOutput{Body: graceOf(g)}, nil
}

func (s *Server) listAgreementGraces(ctx context.Context, in *ListAgreementGracesInput) (*AgreementGraceListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.AgreementGrace, string, error) {
		return s.agreements(ctx).ListAgreementGraces(ctx, in.PartnerID, pg)
	}, graceOf)
	return &AgreementGraceListOutput{Body: body}, err
}
