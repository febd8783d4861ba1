package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// ApplicationIntake takes applications on a tenant's public recruitment page.
type ApplicationIntake interface {
	ApplicationFormOf(ctx context.Context, slug string) (models.ApplicationForm, error)
	SubmitApplication(ctx context.Context, slug string, a *models.Application, answers map[string]string) (bool, error)
}

// ApplicationStore is what the operators' application operations need of storage, as the caller sees it.
type ApplicationStore interface {
	ApplicationForm(ctx context.Context) (models.ApplicationForm, error)
	SetApplicationForm(ctx context.Context, f models.ApplicationForm) (models.ApplicationForm, error)
	ListApplications(ctx context.Context, f models.ApplicationFilter, pg models.Page) ([]models.Application, string, error)
	Application(ctx context.Context, id string) (*models.Application, error)
	ApproveApplication(ctx context.Context, id string, auto bool) (*models.Application, *models.User, error)
	RejectApplication(ctx context.Context, id, reason string) (*models.Application, error)
}

// applications is the application store as the caller sees it.
func (s *Server) applications(ctx context.Context) ApplicationStore {
	return s.deps.Modules.Applications(models.PrincipalFrom(ctx))
}

// maxApplicationBytes caps a public application body.
const maxApplicationBytes = 16 << 10

// ApplicationQuestion is a question of the application form.
type ApplicationQuestion struct {
	Key      string   `json:"key" maxLength:"64" pattern:"^[a-z0-9_]{1,64}$"`
	Label    string   `json:"label" minLength:"1" maxLength:"500"`
	Required bool     `json:"required,omitempty"`
	Options  []string `json:"options,omitempty" maxItems:"50" maxLength:"200" doc:"When set, the answer must be one of these"`
}

// ApplicationFormBody is a tenant's recruitment form.
type ApplicationFormBody struct {
	Questions          []ApplicationQuestion `json:"questions" maxItems:"50" nullable:"false"`
	ReapplyAfterDays   int                   `json:"reapplyAfterDays" minimum:"0" maximum:"3650" doc:"How long a rejected applicant waits before applying again"`
	AutoApproveDomains []string              `json:"autoApproveDomains" maxItems:"100" maxLength:"253" nullable:"false" doc:"Applications from these email domains are approved at once"`
}

func formOf(f models.ApplicationForm) ApplicationFormBody {
	out := ApplicationFormBody{ReapplyAfterDays: f.ReapplyAfterDays, AutoApproveDomains: f.AutoApproveDomains, Questions: make([]ApplicationQuestion, 0, len(f.Questions))}
	for _, q := range f.Questions {
		out.Questions = append(out.Questions, ApplicationQuestion(q))
	}
	return out
}

// PublicApplicationForm is what an applicant sees: the questions only.
type PublicApplicationForm struct {
	Questions    []ApplicationQuestion `json:"questions" nullable:"false"`
	PartnerTypes []string              `json:"partnerTypes" nullable:"false"`
}

// SubmitApplicationInput is an application on the public page.
type SubmitApplicationInput struct {
	Slug string `path:"slug" maxLength:"63"`
	Body struct {
		Organisation string    `json:"organisation" minLength:"1" maxLength:"200"`
		ContactName  string    `json:"contactName" minLength:"1" maxLength:"200"`
		ContactEmail string    `json:"contactEmail" format:"email" maxLength:"320"`
		PartnerType  string    `json:"partnerType" enum:"reseller,franchise,campus,broker,agency,distributor,other"`
		Answers      AnswerMap `json:"answers,omitempty" maxProperties:"50" doc:"Answers by question key, at most 4000 characters each"`
		// Website is a honeypot: people leave the hidden field empty, bots fill it.
		Website string `json:"website,omitempty" maxLength:"500" doc:"Leave empty"`
	}
}

// Application is an application as operators see it.
type Application struct {
	ID           string            `json:"id"`
	Organisation string            `json:"organisation"`
	ContactName  string            `json:"contactName"`
	ContactEmail string            `json:"contactEmail"`
	PartnerType  string            `json:"partnerType"`
	Answers      map[string]string `json:"answers"`
	Status       string            `json:"status" enum:"pending,approved,rejected"`
	Reason       string            `json:"reason,omitempty"`
	PartnerID    string            `json:"partnerId,omitempty" doc:"The partner organisation the approval created"`
	AutoApproved bool              `json:"autoApproved"`
	CreatedAt    time.Time         `json:"createdAt"`
	DecidedAt    *time.Time        `json:"decidedAt,omitempty"`
}

func applicationOf(a *models.Application) Application {
	out := Application{ID: a.ID, Organisation: a.Organisation, ContactName: a.ContactName, ContactEmail: a.ContactEmail, PartnerType: a.PartnerType,
		Status: a.Status, Reason: a.Reason, PartnerID: str(a.PartnerID), AutoApproved: a.AutoApproved, CreatedAt: a.CreatedAt, DecidedAt: a.DecidedAt}
	_ = json.Unmarshal([]byte(a.Answers), &out.Answers)
	if out.Answers == nil {
		out.Answers = map[string]string{}
	}
	return out
}

// ListApplicationsInput filters applications.
type ListApplicationsInput struct {
	ListParams
	Status string `query:"status" enum:"pending,approved,rejected"`
}

// ApplicationReceivedOutput acknowledges an application.
type ApplicationReceivedOutput struct {
	Body struct {
		Status string `json:"status" enum:"received" doc:"The application is in; the program will be in touch by email"`
	}
}

// ApplicationOutput is one application.
type ApplicationOutput struct{ Body Application }

// ApplicationListOutput is a page of applications.
type ApplicationListOutput struct{ Body ListBody[Application] }

// ApprovedApplicationOutput is an approval with the new partner admin's invitation.
type ApprovedApplicationOutput struct {
	CacheControl string `header:"Cache-Control"`
	Body         struct {
		Application
		Invitation OneTimeToken `json:"invitation" doc:"For POST /api/auth/accept-invitation by the applicant; shown only here"`
	}
}

// ApplicationFormOutput is the tenant's form.
type ApplicationFormOutput struct{ Body ApplicationFormBody }

// SetApplicationFormInput replaces the form.
type SetApplicationFormInput struct{ Body ApplicationFormBody }

func registerApplicationRoutes(s *Server) {
	tags := []string{"Recruitment"}
	register(s, huma.Operation{OperationID: "get-public-application-form", Method: http.MethodGet, Path: "/api/public/{slug}/application-form", Tags: tags,
		Summary: "A program's application form", Description: "Public: no credentials.", Errors: []int{http.StatusNotFound}}, Public(), s.getPublicApplicationForm)
	register(s, huma.Operation{OperationID: "submit-application", Method: http.MethodPost, Path: "/api/public/{slug}/applications", Tags: tags,
		RequestBody: requestExample(`{"organisation": "Globex Consulting", "contactName": "Hank Scorpio", "contactEmail": "hank@globex.example", "partnerType": "agency", "answers": {"annual_revenue": "1M - 10M", "focus": "Manufacturing and logistics"}}`),
		Summary:     "Apply to join a partner program", Description: "Public: no credentials, limited per client address, 16 KiB. An applicant with an application under review, or rejected recently, gets 409.",
		DefaultStatus: http.StatusAccepted, MaxBodyBytes: maxApplicationBytes,
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity, http.StatusTooManyRequests}}, Public(), s.submitApplication)

	register(s, huma.Operation{OperationID: "get-application-form", Method: http.MethodGet, Path: "/api/application-form", Tags: tags,
		Summary: "The recruitment form with its settings", Security: UsersOrKeys}, Requires(authz.ApplicationsRead), s.getApplicationForm)
	register(s, huma.Operation{OperationID: "set-application-form", Method: http.MethodPut, Path: "/api/application-form", Tags: tags,
		RequestBody: requestExample(`{"questions": [{"key": "annual_revenue", "label": "Annual revenue", "required": true, "options": ["< 1M", "1M - 10M", "> 10M"]}, {"key": "focus", "label": "Which industries do you serve?"}], "autoApproveDomains": ["northwind.example"], "reapplyAfterDays": 90}`),
		Summary:     "Replace the recruitment form", Security: UsersOrKeys, Errors: []int{http.StatusUnprocessableEntity}}, Requires(authz.ApplicationsWrite), s.setApplicationForm)
	register(s, huma.Operation{OperationID: "list-applications", Method: http.MethodGet, Path: "/api/applications", Tags: tags,
		Summary: "List applications", Security: UsersOrKeys}, Requires(authz.ApplicationsRead), s.listApplications)
	register(s, huma.Operation{OperationID: "get-application", Method: http.MethodGet, Path: "/api/applications/{id}", Tags: tags,
		Summary: "Get an application", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.ApplicationsRead), s.getApplication)
	register(s, huma.Operation{OperationID: "approve-application", Method: http.MethodPost, Path: "/api/applications/{id}/approve", Tags: tags,
		Summary: "Approve an application", Description: "Creates the partner organisation at the default level (status onboarding), invites the applicant as its partner admin, starts the onboarding checklist and emits partner.approved.",
		Security: UsersOnly, Errors: []int{http.StatusNotFound, http.StatusConflict}}, Requires(authz.ApplicationsWrite), s.approveApplication)
	register(s, huma.Operation{OperationID: "reject-application", Method: http.MethodPost, Path: "/api/applications/{id}/reject", Tags: tags,
		RequestBody: requestExample(`{"reason": "We only work with partners in the EU for now."}`),
		Summary:     "Reject an application with a reason", Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.ApplicationsWrite), s.rejectApplication)
}

// getPublicApplicationForm answers a partner program's public application form.
func (s *Server) getPublicApplicationForm(ctx context.Context, in *struct {
	Slug string `path:"slug" maxLength:"63"`
}) (*struct{ Body PublicApplicationForm }, error) {
	if s.deps.Applications == nil {
		return nil, models.NotFound("TENANT_NOT_FOUND", "tenant")
	}
	f, err := s.deps.Applications.ApplicationFormOf(ctx, in.Slug)
	if err != nil {
		return nil, err
	}
	out := &struct{ Body PublicApplicationForm }{}
	out.Body.Questions, out.Body.PartnerTypes = formOf(f).Questions, models.PartnerTypes
	return out, nil
}

// getApplicationForm answers the tenant's recruitment form with its settings.
func (s *Server) getApplicationForm(ctx context.Context, _ *struct{}) (*ApplicationFormOutput, error) {
	f, err := s.applications(ctx).ApplicationForm(ctx)
	return &ApplicationFormOutput{Body: formOf(f)}, err
}

// setApplicationForm replaces the tenant's recruitment form.
func (s *Server) setApplicationForm(ctx context.Context, in *SetApplicationFormInput) (*ApplicationFormOutput, error) {
	f := models.ApplicationForm{ReapplyAfterDays: in.Body.ReapplyAfterDays, AutoApproveDomains: in.Body.AutoApproveDomains}
	for _, q := range in.Body.Questions {
		f.Questions = append(f.Questions, models.ApplicationQuestion(q))
	}
	f, err := s.applications(ctx).SetApplicationForm(ctx, f)
	return &ApplicationFormOutput{Body: formOf(f)}, err
}

// listApplications lists the applications to the tenant's partner program.
func (s *Server) listApplications(ctx context.Context, in *ListApplicationsInput) (*ApplicationListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Application, string, error) {
		return s.applications(ctx).ListApplications(ctx, models.ApplicationFilter{Status: in.Status}, pg)
	}, applicationOf)
	return &ApplicationListOutput{Body: body}, err
}

// getApplication answers one application.
func (s *Server) getApplication(ctx context.Context, in *IDPath) (*ApplicationOutput, error) {
	a, err := s.applications(ctx).Application(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &ApplicationOutput{Body: applicationOf(a)}, nil
}

// approveApplication approves an application and invites the applicant as its partner organisation's admin.
func (s *Server) approveApplication(ctx context.Context, in *IDPath) (*ApprovedApplicationOutput, error) {
	a, admin, err := s.applications(ctx).ApproveApplication(ctx, in.ID, false)
	if err != nil {
		return nil, err
	}
	s.deps.Authorizer.Invalidate(a.TenantID)
	inv, err := s.issueUserToken(ctx, true, admin.ID, models.TokenInvitation, invitationTTL)
	if err != nil {
		return nil, err
	}
	out := &ApprovedApplicationOutput{CacheControl: "no-store"}
	out.Body.Application, out.Body.Invitation = applicationOf(a), inv
	return out, nil
}

// rejectApplication rejects an application with a reason.
func (s *Server) rejectApplication(ctx context.Context, in *ReasonInput) (*ApplicationOutput, error) {
	a, err := s.applications(ctx).RejectApplication(ctx, in.ID, in.Body.Reason)
	if err != nil {
		return nil, err
	}
	return &ApplicationOutput{Body: applicationOf(a)}, nil
}

// submitApplication takes an application to join a partner program from its public page.
func (s *Server) submitApplication(ctx context.Context, in *SubmitApplicationInput) (*ApplicationReceivedOutput, error) {
	out := &ApplicationReceivedOutput{}
	out.Body.Status = "received"
	// Every attempt counts.
	attempts := []models.RateLimit{{Policy: policyApplication, Key: models.RequestMetaFrom(ctx).ClientAddress, Quota: s.limits.Application}}
	if err := s.takeLimits(ctx, attempts, "too many applications from this address; try again later"); err != nil {
		return nil, err
	}
	if in.Body.Website != "" {
		return out, nil // a bot filled the honeypot: it learns nothing, nothing is stored
	}
	if s.deps.Applications == nil {
		return nil, models.NotFound("TENANT_NOT_FOUND", "tenant")
	}
	b := in.Body
	a := &models.Application{Organisation: b.Organisation, ContactName: b.ContactName, ContactEmail: b.ContactEmail, PartnerType: b.PartnerType,
		ClientAddress: models.RequestMetaFrom(ctx).ClientAddress}
	auto, err := s.deps.Applications.SubmitApplication(ctx, in.Slug, a, b.Answers)
	if err != nil {
		return nil, err
	}
	if auto {
		system := s.deps.Modules.Applications(&models.Principal{Kind: models.PrincipalOperator, TenantID: a.TenantID})
		if _, _, err := system.ApproveApplication(ctx, a.ID, true); err != nil {
			s.log.Warn("auto-approval failed; the application waits for review", "application", a.ID, "error", err)
		} else {
			s.deps.Authorizer.Invalidate(a.TenantID)
		}
	}
	return out, nil
}
