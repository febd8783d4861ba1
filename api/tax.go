package api

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/blobstore"
	"github.com/partnerd/partnerd/models"
)

// TaxStore is what the tax record operations need of storage, as the caller sees it.
type TaxStore interface {
	TaxRecord(ctx context.Context, partnerID string) (*models.TaxRecord, error)
	ListTaxRecords(ctx context.Context, f models.TaxRecordFilter, pg models.Page) ([]models.TaxRecord, string, error)
	SubmitTaxDetails(ctx context.Context, partnerID string, d models.TaxDetails, taxID models.Sealed, masked string) (*models.TaxRecord, error)
	AttachTaxForm(ctx context.Context, partnerID string, f models.TaxFormFile) (*models.TaxRecord, string, error)
	ReviewTaxRecord(ctx context.Context, partnerID string, approve bool, reason string) (*models.TaxRecord, error)
	TaxSettings(ctx context.Context) (models.TaxSettings, error)
	SaveTaxSettings(ctx context.Context, requirement string) (models.TaxSettings, error)
	PayoutTotals(ctx context.Context, year int) ([]models.PayoutTotal, error)
}

// tax is the tax record store as the caller sees it.
func (s *Server) tax(ctx context.Context) TaxStore {
	return s.deps.Modules.Tax(models.PrincipalFrom(ctx))
}

// TaxForm is the signed form of a tax record.
type TaxForm struct {
	FileName    string    `json:"fileName"`
	ContentType string    `json:"contentType" doc:"Told from the file's bytes"`
	Size        int64     `json:"size" doc:"In bytes"`
	SHA256      string    `json:"sha256"`
	UploadedAt  time.Time `json:"uploadedAt"`
}

// TaxRecord is a partner's tax details as the API shows them: the tax id only masked.
type TaxRecord struct {
	ID          string     `json:"id"`
	PartnerID   string     `json:"partnerId"`
	LegalName   string     `json:"legalName"`
	Country     string     `json:"country" doc:"ISO 3166 alpha-2"`
	FormKind    string     `json:"formKind" enum:"w9,w8ben,w8bene,eu_vat"`
	TaxIDMasked string     `json:"taxIdMasked" doc:"The last four characters of the tax id; the id itself is sealed and never shown" example:"••••6789"`
	Status      string     `json:"status" enum:"submitted,approved,rejected"`
	Reason      string     `json:"reason,omitempty" doc:"Why finance rejected it"`
	Form        *TaxForm   `json:"form,omitempty" doc:"The uploaded signed form; W-9 and W-8 records need one before approval"`
	SubmittedBy string     `json:"submittedBy"`
	SubmittedAt time.Time  `json:"submittedAt"`
	ReviewedBy  string     `json:"reviewedBy,omitempty"`
	ReviewedAt  *time.Time `json:"reviewedAt,omitempty"`
	UpdatedAt   time.Time  `json:"updatedAt"`
}

func taxRecordOf(r *models.TaxRecord) TaxRecord {
	out := TaxRecord{ID: r.ID, PartnerID: r.PartnerID, LegalName: r.LegalName, Country: r.Country, FormKind: r.FormKind, TaxIDMasked: r.TaxIDMasked,
		Status: r.Status, Reason: r.Reason, SubmittedBy: r.SubmittedBy, SubmittedAt: r.SubmittedAt, ReviewedBy: r.ReviewedBy, ReviewedAt: r.ReviewedAt,
		UpdatedAt: r.UpdatedAt}
	if r.HasForm() && r.FormUploadedAt != nil {
		out.Form = &TaxForm{FileName: r.FormFileName, ContentType: r.FormContentType, Size: r.FormSize, SHA256: r.FormSHA256, UploadedAt: *r.FormUploadedAt}
	}
	return out
}

// TaxPartnerPath names the partner whose tax record an operation concerns.
type TaxPartnerPath struct {
	PartnerID string `path:"partnerId" maxLength:"36" doc:"The partner organisation"`
}

// SubmitTaxDetailsInput submits a partner's tax details.
type SubmitTaxDetailsInput struct {
	TaxPartnerPath
	Body struct {
		LegalName string `json:"legalName" minLength:"1" maxLength:"200" doc:"The legal name of the person or entity, as on the form"`
		Country   string `json:"country" minLength:"2" maxLength:"2" doc:"ISO 3166 alpha-2 country of tax residence" example:"US"`
		FormKind  string `json:"formKind" enum:"w9,w8ben,w8bene,eu_vat" doc:"w9: US persons (SSN or EIN); w8ben: foreign individuals; w8bene: foreign entities; eu_vat: an EU VAT id in its member state's format"`
		TaxID     string `json:"taxId" minLength:"1" maxLength:"50" doc:"The SSN or EIN (w9), the foreign tax identifying number (w8ben, w8bene) or the VAT id with its country prefix (eu_vat). Sealed at rest; responses show only its last four characters."`
	}
}

// ListTaxRecordsInput filters tax records.
type ListTaxRecordsInput struct {
	ListParams
	PartnerID string `query:"partnerId" maxLength:"36"`
	Status    string `query:"status" enum:"submitted,approved,rejected"`
}

// UploadTaxFormInput is the signed form of a partner's tax record.
type UploadTaxFormInput struct {
	TaxPartnerPath
	Name string `query:"name" required:"true" minLength:"1" maxLength:"200" pattern:"^[^/\\\\]+$" doc:"The file's name, without a path" example:"w9-signed.pdf"`
}

// TaxReasonInput rejects a tax record with a reason.
type TaxReasonInput struct {
	TaxPartnerPath
	Body struct {
		Reason string `json:"reason" minLength:"1" maxLength:"1000"`
	}
}

// TaxSettings is the tenant's rule on withdrawals of partners without an approved tax record.
type TaxSettings struct {
	Requirement string     `json:"requirement" enum:"off,warn,block" doc:"off: no rule; warn: such withdrawals carry a warning; block: they are refused with 403 TAX_RECORD_REQUIRED, at request and at approval"`
	UpdatedAt   *time.Time `json:"updatedAt,omitempty"`
}

func taxSettingsOf(st models.TaxSettings) TaxSettings {
	out := TaxSettings{Requirement: st.Requirement}
	if !st.UpdatedAt.IsZero() {
		at := st.UpdatedAt
		out.UpdatedAt = &at
	}
	return out
}

// TaxSettingsInput replaces the tax settings.
type TaxSettingsInput struct {
	Body TaxSettings
}

// PayoutTotalsInput names the year of a payout report.
type PayoutTotalsInput struct {
	Year int `query:"year" required:"true" minimum:"2000" maximum:"2200" doc:"The calendar year (UTC) the payouts were paid in"`
}

// TaxRecordOutput is one tax record.
type TaxRecordOutput struct{ Body TaxRecord }

// TaxRecordListOutput is a page of tax records.
type TaxRecordListOutput struct{ Body ListBody[TaxRecord] }

// TaxSettingsOutput is the tax settings.
type TaxSettingsOutput struct{ Body TaxSettings }

// PayoutTotalsOutput is a CSV report.
type PayoutTotalsOutput struct {
	ContentType        string `header:"Content-Type"`
	ContentDisposition string `header:"Content-Disposition"`
	Body               []byte
}

func registerTaxRoutes(s *Server) {
	tags := []string{"Tax"}
	op := func(id, method, path, summary, description string, status int, errs ...int) huma.Operation {
		return huma.Operation{OperationID: id, Method: method, Path: path, Tags: tags, Summary: summary, Description: description,
			DefaultStatus: status, Security: UsersOrKeys, Errors: errs}
	}
	register(s, op("list-tax-records", http.MethodGet, "/api/tax-records", "List tax records",
		"Tax ids are masked. Partners see only their own.", 0), Requires(authz.TaxRead), s.listTaxRecords)
	register(s, op("get-tax-record", http.MethodGet, "/api/tax-records/{partnerId}", "Get a partner's tax record",
		"The tax id is masked. Partners see only their own; none yet is 404 TAX_RECORD_NOT_FOUND.", 0, http.StatusNotFound), Requires(authz.TaxRead), s.getTaxRecord)
	submit := op("submit-tax-details", http.MethodPut, "/api/tax-records/{partnerId}", "Submit a partner's tax details",
		"Replaces the partner's tax details and submits them for finance's review; a signed form uploaded before no longer counts (it named the earlier details). "+
			"A W-9 is for US persons with the nine digits of an SSN or EIN; W-8BEN and W-8BEN-E for anyone else; an EU VAT id must match its member state's format (422 INVALID_TAX_DETAILS). "+
			"The tax id is sealed at rest and only ever shown masked. Partners submit their own. Audited; emits tax.record_submitted.", 0,
		http.StatusForbidden, http.StatusUnprocessableEntity, http.StatusServiceUnavailable)
	submit.RequestBody = requestExample(`{"legalName": "Northwind Traders Inc.", "country": "US", "formKind": "w9", "taxId": "12-3456789"}`)
	register(s, submit, Requires(authz.TaxWrite), s.submitTaxDetails)

	upload := op("upload-tax-form", http.MethodPut, "/api/tax-records/{partnerId}/form", "Upload the signed tax form",
		fmt.Sprintf("The request body is the signed form's bytes: a PDF, PNG or JPEG (told from the bytes, else 415) of at most %d MiB (413). "+
			"It replaces an earlier form and submits the record for review again. Partners upload their own; a partner without tax details is 404. Emits tax.record_submitted.",
			models.MaxTaxFormBytes>>20), 0,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
		http.StatusUnprocessableEntity, http.StatusServiceUnavailable)
	maxFile := int(models.MaxTaxFormBytes)
	upload.MaxBodyBytes = models.MaxTaxFormBytes
	upload.Metadata = map[string]any{metaStreamBody: true}
	upload.RequestBody = &huma.RequestBody{Required: true, Description: "The signed form's bytes", Content: map[string]*huma.MediaType{
		"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary", MaxLength: &maxFile}}}}
	register(s, upload, Requires(authz.TaxWrite), s.uploadTaxForm)
	download := op("download-tax-form", http.MethodGet, "/api/tax-records/{partnerId}/form", "Download the signed tax form",
		"Partners download only their own; a record without a form is 404 TAX_FORM_NOT_FOUND.", 0, http.StatusNotFound, http.StatusServiceUnavailable)
	download.Responses = map[string]*huma.Response{"200": {Description: "The form's bytes", Content: map[string]*huma.MediaType{
		"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}}}
	register(s, download, Requires(authz.TaxRead), s.downloadTaxForm)

	register(s, op("approve-tax-record", http.MethodPost, "/api/tax-records/{partnerId}/approve", "Approve a partner's tax record",
		"Finance only. A submitted record is approved; a W-9 or W-8 needs its signed form first (409 TAX_FORM_REQUIRED); whoever submitted it cannot approve it (403 FOUR_EYES). Audited; emits tax.record_approved.", 0,
		http.StatusForbidden, http.StatusNotFound, http.StatusConflict), Requires(authz.TaxReview), s.approveTaxRecord)
	reject := op("reject-tax-record", http.MethodPost, "/api/tax-records/{partnerId}/reject", "Reject a partner's tax record",
		"Finance only, with the reason the partner reads; a submitted or approved record can be rejected. Audited; emits tax.record_rejected.", 0,
		http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity)
	reject.RequestBody = requestExample(`{"reason": "The legal name does not match the signed W-9."}`)
	register(s, reject, Requires(authz.TaxReview), s.rejectTaxRecord)

	register(s, op("get-tax-settings", http.MethodGet, "/api/tax-settings", "Get the tax settings",
		"Operators only: whether withdrawals need an approved tax record.", 0), Requires(authz.TaxReview), s.getTaxSettings)
	settings := op("update-tax-settings", http.MethodPut, "/api/tax-settings", "Replace the tax settings",
		"Operators only. Audited.", 0, http.StatusUnprocessableEntity)
	settings.RequestBody = requestExample(`{"requirement": "block"}`)
	register(s, settings, Requires(authz.TaxReview), s.updateTaxSettings)

	totals := op("export-payout-totals", http.MethodGet, "/api/tax-reports/payout-totals", "Export a year's payout totals per partner as CSV",
		"Operators only: the basis of a 1099. One line per partner and currency with the payouts paid in the calendar year (UTC), their sum in minor units, "+
			"and the partner's tax record (legal name, country, form, masked tax id, status). Currencies are never added together.", 0)
	totals.Responses = map[string]*huma.Response{"200": {Description: "The report", Content: map[string]*huma.MediaType{
		"text/csv": {Schema: &huma.Schema{Type: huma.TypeString,
			Description: "Header row; one line per partner and currency (partnerId, partnerName, legalName, country, formKind, taxIdMasked, taxRecordStatus, currency, amount, payouts)"}}}}}
	register(s, totals, Requires(authz.TaxReview), s.exportPayoutTotals)
}

func taxRecordOutput(r *models.TaxRecord, err error) (*TaxRecordOutput, error) {
	if err != nil {
		return nil, err
	}
	return &TaxRecordOutput{Body: taxRecordOf(r)}, nil
}

// listTaxRecords lists tax records.
func (s *Server) listTaxRecords(ctx context.Context, in *ListTaxRecordsInput) (*TaxRecordListOutput, error) {
	f := models.TaxRecordFilter{PartnerID: in.PartnerID, Status: in.Status}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.TaxRecord, string, error) {
		return s.tax(ctx).ListTaxRecords(ctx, f, pg)
	}, taxRecordOf)
	return &TaxRecordListOutput{Body: body}, err
}

// getTaxRecord answers a partner's tax record.
func (s *Server) getTaxRecord(ctx context.Context, in *TaxPartnerPath) (*TaxRecordOutput, error) {
	return taxRecordOutput(s.tax(ctx).TaxRecord(ctx, in.PartnerID))
}

// submitTaxDetails checks and seals a partner's tax details and submits them for review.
func (s *Server) submitTaxDetails(ctx context.Context, in *SubmitTaxDetailsInput) (*TaxRecordOutput, error) {
	b := in.Body
	d, bad := models.CheckTaxDetails(models.TaxDetails{LegalName: b.LegalName, Country: b.Country, FormKind: b.FormKind, TaxID: b.TaxID})
	if bad != nil {
		return nil, bad
	}
	keys := s.deps.Webhooks.Keyring
	if keys == nil {
		return nil, errSealingUnavailable()
	}
	p := models.PrincipalFrom(ctx)
	sealed, err := keys.Seal(models.Secret(d.TaxID), models.SealContext{TenantID: p.TenantID, Table: "tax_records", RowID: in.PartnerID, Field: "tax_id"})
	if err != nil {
		return nil, err
	}
	return taxRecordOutput(s.tax(ctx).SubmitTaxDetails(ctx, in.PartnerID, d, sealed, models.Secret(d.TaxID).Masked()))
}

// uploadTaxForm stores a signed form and records it on the partner's tax record; the file is
// removed again when the record cannot be written, and the form it replaced once it is.
func (s *Server) uploadTaxForm(ctx context.Context, in *UploadTaxFormInput) (*TaxRecordOutput, error) {
	st := s.tax(ctx)
	if _, err := st.TaxRecord(ctx, in.PartnerID); err != nil {
		return nil, err // nothing is stored for a record the caller cannot see
	}
	obj, err := s.storeUpload(ctx, "tax", blobstore.Limits{MaxBytes: models.MaxTaxFormBytes, Types: models.TaxFormTypes})
	if err != nil {
		return nil, err
	}
	r, replaced, err := st.AttachTaxForm(ctx, in.PartnerID, models.TaxFormFile{BlobKey: obj.Key, FileName: in.Name, ContentType: obj.ContentType, Size: obj.Size, SHA256: obj.SHA256})
	drop := replaced
	if err != nil {
		drop = obj.Key
	}
	if drop != "" {
		if derr := s.deps.Blobs.Delete(context.WithoutCancel(ctx), drop); derr != nil {
			s.log.ErrorContext(ctx, "deleting an orphaned upload failed", "request_id", RequestID(ctx), "error", derr.Error())
		}
	}
	return taxRecordOutput(r, err)
}

// downloadTaxForm streams a tax record's signed form, always as a download.
func (s *Server) downloadTaxForm(ctx context.Context, in *TaxPartnerPath) (*huma.StreamResponse, error) {
	if _, err := s.blobs(); err != nil {
		return nil, err
	}
	r, err := s.tax(ctx).TaxRecord(ctx, in.PartnerID)
	if err != nil {
		return nil, err
	}
	if !r.HasForm() {
		return nil, models.NotFound("TAX_FORM_NOT_FOUND", "tax form")
	}
	f, err := s.openBlob(ctx, r.FormBlobKey, models.NotFound("TAX_FORM_NOT_FOUND", "tax form"))
	if err != nil {
		return nil, err
	}
	return downloadResponse(f, download{ContentType: r.FormContentType, FileName: r.FormFileName, ModTime: r.UpdatedAt}), nil
}

// approveTaxRecord approves a partner's tax record.
func (s *Server) approveTaxRecord(ctx context.Context, in *TaxPartnerPath) (*TaxRecordOutput, error) {
	return taxRecordOutput(s.tax(ctx).ReviewTaxRecord(ctx, in.PartnerID, true, ""))
}

// rejectTaxRecord rejects a partner's tax record with a reason.
func (s *Server) rejectTaxRecord(ctx context.Context, in *TaxReasonInput) (*TaxRecordOutput, error) {
	return taxRecordOutput(s.tax(ctx).ReviewTaxRecord(ctx, in.PartnerID, false, in.Body.Reason))
}

// getTaxSettings answers the tax settings.
func (s *Server) getTaxSettings(ctx context.Context, _ *struct{}) (*TaxSettingsOutput, error) {
	st, err := s.tax(ctx).TaxSettings(ctx)
	if err != nil {
		return nil, err
	}
	return &TaxSettingsOutput{Body: taxSettingsOf(st)}, nil
}

// updateTaxSettings replaces the tax settings.
func (s *Server) updateTaxSettings(ctx context.Context, in *TaxSettingsInput) (*TaxSettingsOutput, error) {
	st, err := s.tax(ctx).SaveTaxSettings(ctx, in.Body.Requirement)
	if err != nil {
		return nil, err
	}
	return &TaxSettingsOutput{Body: taxSettingsOf(st)}, nil
}

// exportPayoutTotals answers a year's payout totals per partner and currency as CSV.
func (s *Server) exportPayoutTotals(ctx context.Context, in *PayoutTotalsInput) (*PayoutTotalsOutput, error) {
	totals, err := s.tax(ctx).PayoutTotals(ctx, in.Year)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"partnerId", "partnerName", "legalName", "country", "formKind", "taxIdMasked", "taxRecordStatus", "currency", "amount", "payouts"})
	for _, t := range totals {
		var legal, country, kind, masked, status string
		if r := t.Record; r != nil {
			legal, country, kind, masked, status = r.LegalName, r.Country, r.FormKind, r.TaxIDMasked, r.Status
		}
		_ = w.Write([]string{t.PartnerID, csvText(t.PartnerName), csvText(legal), country, kind, masked, status, t.Currency,
			strconv.FormatInt(t.Amount, 10), strconv.FormatInt(t.Payouts, 10)})
	}
	w.Flush()
	name := "payout-totals-" + strconv.Itoa(in.Year) + ".csv"
	return &PayoutTotalsOutput{ContentType: "text/csv; charset=utf-8", ContentDisposition: `attachment; filename="` + name + `"`, Body: buf.Bytes()}, nil
}
