package models

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Application statuses.
const (
	ApplicationPending  = "pending"
	ApplicationApproved = "approved"
	ApplicationRejected = "rejected"
)

// Application is an organisation's request to join a tenant's partner program.
type Application struct {
	ID           string `gorm:"primaryKey;size:36"`
	TenantID     string `gorm:"size:36;not null"`
	Organisation string `gorm:"size:200;not null"`
	ContactName  string `gorm:"size:200;not null"`
	ContactEmail string `gorm:"size:320;not null"`
	PartnerType  string `gorm:"size:32;not null"`
	// Answers is a JSON object of the answers to the tenant's questions, by question key.
	Answers string `gorm:"type:text;not null"`
	Status  string `gorm:"size:16;not null"`
	Reason  string `gorm:"size:1000"`
	// PartnerID is the partner organisation an approval created.
	PartnerID     *string `gorm:"size:36"`
	AutoApproved  bool    `gorm:"not null"`
	ClientAddress string  `gorm:"size:64"`
	CreatedAt     time.Time
	DecidedAt     *time.Time
	DecidedBy     *string `gorm:"size:36"`
}

// ApplicationQuestion is one question of a tenant's application form.
type ApplicationQuestion struct {
	Key      string   `json:"key"`
	Label    string   `json:"label"`
	Required bool     `json:"required,omitempty"`
	Options  []string `json:"options,omitempty"`
}

// ApplicationForm is how a tenant recruits: its questions, how long a rejected applicant waits
// before applying again, and the email domains whose applications are approved at once.
type ApplicationForm struct {
	Questions          []ApplicationQuestion `json:"questions"`
	ReapplyAfterDays   int                   `json:"reapplyAfterDays"`
	AutoApproveDomains []string              `json:"autoApproveDomains"`
}

// DefaultReapplyAfterDays is how long a rejected applicant waits unless the tenant says otherwise.
const DefaultReapplyAfterDays = 90

// ParseApplicationForm reads a tenant's stored form; an empty one asks nothing.
func ParseApplicationForm(raw string) ApplicationForm {
	f := ApplicationForm{ReapplyAfterDays: DefaultReapplyAfterDays}
	if raw != "" {
		_ = json.Unmarshal([]byte(raw), &f)
	}
	if f.Questions == nil {
		f.Questions = []ApplicationQuestion{}
	}
	if f.AutoApproveDomains == nil {
		f.AutoApproveDomains = []string{}
	}
	return f
}

// Validate checks a form's questions: unique keys of lower-case words, labels, options.
func (f ApplicationForm) Validate() *Error {
	var fields []FieldError
	keys := map[string]bool{}
	for i, q := range f.Questions {
		loc := "body.questions[" + strconv.Itoa(i) + "]"
		if !questionKey(q.Key) || keys[q.Key] {
			fields = append(fields, FieldError{Location: loc + ".key", Message: "a unique key of lower-case letters, digits and underscores", Value: q.Key})
		}
		keys[q.Key] = true
		if strings.TrimSpace(q.Label) == "" {
			fields = append(fields, FieldError{Location: loc + ".label", Message: "a label is required"})
		}
	}
	if f.ReapplyAfterDays < 0 {
		fields = append(fields, FieldError{Location: "body.reapplyAfterDays", Message: "not negative", Value: f.ReapplyAfterDays})
	}
	if len(fields) > 0 {
		return Invalid("INVALID_APPLICATION_FORM", "the application form is not valid", fields...)
	}
	return nil
}

func questionKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for _, r := range k {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}

// CheckAnswers verifies answers against the form: every required question answered, no
// unknown key, choices among the options.
func (f ApplicationForm) CheckAnswers(answers map[string]string) *Error {
	var fields []FieldError
	for _, q := range f.Questions {
		a := strings.TrimSpace(answers[q.Key])
		switch {
		case q.Required && a == "":
			fields = append(fields, FieldError{Location: "body.answers." + q.Key, Message: "required: " + q.Label})
		case a != "" && len(q.Options) > 0 && !slices.Contains(q.Options, a):
			fields = append(fields, FieldError{Location: "body.answers." + q.Key, Message: "one of " + strings.Join(q.Options, ", "), Value: a})
		}
	}
	for k := range answers {
		if !slices.ContainsFunc(f.Questions, func(q ApplicationQuestion) bool { return q.Key == k }) {
			fields = append(fields, FieldError{Location: "body.answers." + k, Message: "not a question of this form"})
		}
	}
	if len(fields) > 0 {
		return Invalid("INVALID_ANSWERS", "the answers do not fit the application form", fields...)
	}
	return nil
}

// AutoApproves reports whether an application from email is approved at once.
func (f ApplicationForm) AutoApproves(email string) bool {
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return false
	}
	domain := strings.ToLower(email[at+1:])
	return slices.ContainsFunc(f.AutoApproveDomains, func(d string) bool { return strings.EqualFold(d, domain) })
}

// ApplicationFilter selects applications.
type ApplicationFilter struct {
	Status string
}
