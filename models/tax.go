package models

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Tax form kinds: the US forms a payer collects (W-9 from US persons, W-8BEN from foreign
// individuals, W-8BEN-E from foreign entities) or, in the EU, the partner's VAT id.
const (
	TaxFormW9     = "w9"
	TaxFormW8BEN  = "w8ben"
	TaxFormW8BENE = "w8bene"
	TaxFormEUVAT  = "eu_vat"
)

// TaxFormKinds lists the kinds of tax form.
var TaxFormKinds = []string{TaxFormW9, TaxFormW8BEN, TaxFormW8BENE, TaxFormEUVAT}

// Tax record statuses: a partner submits; finance approves or rejects with a reason. Changing
// the details or the signed form submits the record again.
const (
	TaxRecordSubmitted = "submitted"
	TaxRecordApproved  = "approved"
	TaxRecordRejected  = "rejected"
)

// What a tenant does with withdrawals of partners without an approved tax record.
const (
	TaxRequirementOff   = "off"
	TaxRequirementWarn  = "warn"
	TaxRequirementBlock = "block"
)

// TaxRequirements lists the settings.
var TaxRequirements = []string{TaxRequirementOff, TaxRequirementWarn, TaxRequirementBlock}

// MaxTaxFormBytes bounds one uploaded signed form.
const MaxTaxFormBytes = 5 << 20

// TaxFormTypes are the media types a signed form may have (told by its bytes).
var TaxFormTypes = []string{"application/pdf", "image/png", "image/jpeg"}

// TaxRecord is a partner organisation's tax details: one per partner, replaced when the partner
// submits again. The tax id is sealed; only TaxIDMasked is ever shown.
type TaxRecord struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null"`
	PartnerID   string `gorm:"size:36;not null"`
	LegalName   string `gorm:"size:200;not null"`
	Country     string `gorm:"size:2;not null"`
	FormKind    string `gorm:"size:16;not null"`
	TaxID       Sealed `gorm:"column:tax_id;type:text;not null"`
	TaxIDMasked string `gorm:"column:tax_id_masked;size:40;not null"`
	Status      string `gorm:"size:16;not null"`
	// Reason explains a rejection.
	Reason string `gorm:"size:1000;not null;default:''"`
	// The signed form, when one was uploaded: its key in the blob store and what it is.
	FormBlobKey     string `gorm:"size:200;not null;default:''"`
	FormFileName    string `gorm:"size:200;not null;default:''"`
	FormContentType string `gorm:"size:100;not null;default:''"`
	FormSize        int64  `gorm:"not null;default:0"`
	FormSHA256      string `gorm:"column:form_sha256;size:64;not null;default:''"`
	FormUploadedAt  *time.Time
	SubmittedBy     string `gorm:"size:64;not null"`
	SubmittedAt     time.Time
	ReviewedBy      string `gorm:"size:64;not null;default:''"`
	ReviewedAt      *time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// HasForm reports whether a signed form was uploaded.
func (r *TaxRecord) HasForm() bool { return r.FormBlobKey != "" }

// Valid reports whether the record lets money move: finance approved it.
func (r *TaxRecord) Valid() bool { return r != nil && r.Status == TaxRecordApproved }

// TaxFormFile is an uploaded signed form as the blob store kept it.
type TaxFormFile struct {
	BlobKey, FileName, ContentType, SHA256 string
	Size                                   int64
}

// TaxRecordRequired is the refusal of a withdrawal for a partner without an approved tax record
// while the tenant blocks them.
func TaxRecordRequired() *Error {
	return Errorf(KindForbidden, "TAX_RECORD_REQUIRED", "the partner needs an approved tax record before money is paid out")
}

// TaxWarningMissing is the warning a withdrawal carries while the tenant only warns.
const TaxWarningMissing = "the partner has no approved tax record; finance may hold the payout until one is approved"

// TaxDetails are the details a partner submits.
type TaxDetails struct {
	LegalName string
	Country   string
	FormKind  string
	TaxID     string
}

// TaxRecordFilter selects tax records.
type TaxRecordFilter struct {
	PartnerID, Status string
}

// TaxSettings are a tenant's rules on tax records.
type TaxSettings struct {
	TenantID string `gorm:"primaryKey;size:36"`
	// Requirement is off, warn (withdrawals of partners without an approved record carry a
	// warning) or block (they are refused with TAX_RECORD_REQUIRED).
	Requirement string `gorm:"size:8;not null"`
	UpdatedAt   time.Time
}

// TableName is the settings table: one row per tenant.
func (TaxSettings) TableName() string { return "tax_settings" }

// TaxRecordEventPayload is the payload of tax.* events; it never carries the tax id.
type TaxRecordEventPayload struct {
	PartnerID string `json:"partnerId"`
	FormKind  string `json:"formKind"`
	Country   string `json:"country"`
	Status    string `json:"status"`
	Reason    string `json:"reason,omitempty"`
}

// PayoutTotal is what one partner was paid in one currency over a year: the basis of a 1099.
type PayoutTotal struct {
	PartnerID   string
	PartnerName string
	Currency    string
	Amount      int64
	Payouts     int64
	// Record is the partner's tax record, if it has one.
	Record *TaxRecord
}

// euVAT are the VAT id formats of the EU member states by ISO 3166 country, as VIES checks them
// (Greece's prefix is EL).
var euVAT = map[string]*regexp.Regexp{
	"AT": regexp.MustCompile(`^ATU\d{8}$`),
	"BE": regexp.MustCompile(`^BE[01]\d{9}$`),
	"BG": regexp.MustCompile(`^BG\d{9,10}$`),
	"CY": regexp.MustCompile(`^CY\d{8}[A-Z]$`),
	"CZ": regexp.MustCompile(`^CZ\d{8,10}$`),
	"DE": regexp.MustCompile(`^DE\d{9}$`),
	"DK": regexp.MustCompile(`^DK\d{8}$`),
	"EE": regexp.MustCompile(`^EE\d{9}$`),
	"GR": regexp.MustCompile(`^EL\d{9}$`),
	"ES": regexp.MustCompile(`^ES[A-Z0-9]\d{7}[A-Z0-9]$`),
	"FI": regexp.MustCompile(`^FI\d{8}$`),
	"FR": regexp.MustCompile(`^FR[A-HJ-NP-Z0-9]{2}\d{9}$`),
	"HR": regexp.MustCompile(`^HR\d{11}$`),
	"HU": regexp.MustCompile(`^HU\d{8}$`),
	"IE": regexp.MustCompile(`^IE(\d{7}[A-W][A-IW]?|\d[A-Z+*]\d{5}[A-W])$`),
	"IT": regexp.MustCompile(`^IT\d{11}$`),
	"LT": regexp.MustCompile(`^LT(\d{9}|\d{12})$`),
	"LU": regexp.MustCompile(`^LU\d{8}$`),
	"LV": regexp.MustCompile(`^LV\d{11}$`),
	"MT": regexp.MustCompile(`^MT\d{8}$`),
	"NL": regexp.MustCompile(`^NL\d{9}B\d{2}$`),
	"PL": regexp.MustCompile(`^PL\d{10}$`),
	"PT": regexp.MustCompile(`^PT\d{9}$`),
	"RO": regexp.MustCompile(`^RO\d{2,10}$`),
	"SE": regexp.MustCompile(`^SE\d{12}$`),
	"SI": regexp.MustCompile(`^SI\d{8}$`),
	"SK": regexp.MustCompile(`^SK\d{10}$`),
}

var (
	countryCode = regexp.MustCompile(`^[A-Z]{2}$`)
	foreignTIN  = regexp.MustCompile(`^[A-Z0-9][A-Z0-9 ./-]{0,48}[A-Z0-9]$|^[A-Z0-9]$`)
)

// EUVATCountry reports whether country is an EU member state whose VAT ids are checked.
func EUVATCountry(country string) bool { _, ok := euVAT[country]; return ok }

// CheckTaxDetails normalises d (trimmed, upper-case country and tax id; a W-9 TIN as its nine
// digits; a VAT id without spaces or dots) and refuses what is not valid, with 422
// INVALID_TAX_DETAILS. A W-9 is for US persons (a nine-digit SSN or EIN); W-8BEN and W-8BEN-E
// are for anyone else; an EU VAT id must have its member state's format. Problems never
// carry the tax id.
func CheckTaxDetails(d TaxDetails) (TaxDetails, *Error) {
	d.LegalName = strings.TrimSpace(d.LegalName)
	d.Country = strings.ToUpper(strings.TrimSpace(d.Country))
	d.TaxID = strings.ToUpper(strings.TrimSpace(d.TaxID))
	var fs []FieldError
	if d.LegalName == "" || utf8.RuneCountInString(d.LegalName) > 200 {
		fs = append(fs, FieldError{Location: "body.legalName", Message: "1 to 200 characters"})
	}
	if !countryCode.MatchString(d.Country) {
		fs = append(fs, FieldError{Location: "body.country", Message: "an ISO 3166 alpha-2 code such as US or DE", Value: d.Country})
	}
	if !slices.Contains(TaxFormKinds, d.FormKind) {
		fs = append(fs, FieldError{Location: "body.formKind", Message: "w9, w8ben, w8bene or eu_vat", Value: d.FormKind})
	}
	taxID := func(msg string) { fs = append(fs, FieldError{Location: "body.taxId", Message: msg}) }
	switch d.FormKind {
	case TaxFormW9:
		if d.Country != "US" {
			fs = append(fs, FieldError{Location: "body.country", Message: "a W-9 is for US persons: country US", Value: d.Country})
		}
		digits := strings.NewReplacer("-", "", " ", "").Replace(d.TaxID)
		if len(digits) != 9 || strings.Trim(digits, "0123456789") != "" {
			taxID("a W-9 needs the nine digits of an SSN or EIN")
		}
		d.TaxID = digits
	case TaxFormW8BEN, TaxFormW8BENE:
		if d.Country == "US" {
			fs = append(fs, FieldError{Location: "body.country", Message: "W-8 forms are for foreign persons; US persons file a W-9", Value: d.Country})
		}
		if !foreignTIN.MatchString(d.TaxID) {
			taxID("the foreign tax identifying number: 1 to 50 letters, digits, spaces, dots, slashes or hyphens")
		}
	case TaxFormEUVAT:
		d.TaxID = strings.NewReplacer(" ", "", ".", "", "-", "").Replace(d.TaxID)
		format, ok := euVAT[d.Country]
		switch {
		case !ok:
			fs = append(fs, FieldError{Location: "body.country", Message: "an EU VAT id needs an EU member state", Value: d.Country})
		case !format.MatchString(d.TaxID):
			taxID("not a VAT id of " + d.Country + " (its country prefix and digits, as VIES checks them)")
		}
	}
	if len(fs) > 0 {
		return d, Invalid("INVALID_TAX_DETAILS", "the tax details are not valid", fs...)
	}
	return d, nil
}

// CheckTaxRequirement refuses a requirement that is not off, warn or block.
func CheckTaxRequirement(r string) *Error {
	if slices.Contains(TaxRequirements, r) {
		return nil
	}
	return Invalid("INVALID_TAX_SETTINGS", "requirement is off, warn or block", FieldError{Location: "body.requirement", Message: "off, warn or block", Value: r})
}
