package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/models"
)

// TenantCreator creates a tenant with its owner.
type TenantCreator interface {
	CreateTenant(ctx context.Context, tenant *models.Tenant, owner *models.User) error
}

// SignupInput opens a new partner program. Only these fields can be set.
type SignupInput struct {
	Body struct {
		OrganisationName string `json:"organisationName" minLength:"1" maxLength:"200"`
		Slug             string `json:"slug" maxLength:"63" pattern:"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$" doc:"Lower-case letters, digits and inner hyphens; names the tenant in URLs"`
		Email            string `json:"email" format:"email" maxLength:"320"`
		Name             string `json:"name,omitempty" maxLength:"200" doc:"The owner's name"`
		Password         string `json:"password" minLength:"12" maxLength:"1024"`
	}
}

// InstallationOutput is what the installation offers people who are not signed in.
type InstallationOutput struct {
	Body struct {
		Signup bool `json:"signup" doc:"Whether anyone may open a partner program with POST /api/signup"`
	}
}

func registerSignupRoutes(s *Server) {
	register(s, huma.Operation{
		OperationID: "get-installation", Method: http.MethodGet, Path: "/api/installation", Tags: []string{tagAuth},
		Summary:     "What the installation offers before sign-in",
		Description: "Whether sign-up is open, so that a sign-in page offers it only when it is.",
	}, Public(), s.getInstallation)
	register(s, huma.Operation{
		OperationID: "signup", Method: http.MethodPost, Path: "/api/signup", Tags: []string{tagAuth},
		RequestBody: requestExample(`{"organisationName": "Acme Software", "slug": "acme", "name": "Ada Lovelace", "email": "ada@acme.example", "password": "violet-harbour-lantern-42"}`),
		Summary:     "Open a partner program: a new tenant with its owner",
		Description: "Signs the owner in. Limited per client address; the installation may turn sign-up off (403 SIGNUP_DISABLED).",
		Errors:      []int{http.StatusForbidden, http.StatusConflict, http.StatusTooManyRequests}, DefaultStatus: http.StatusCreated,
	}, Public(), s.signup)
}

// getInstallation says what the installation offers people who are not signed in.
func (s *Server) getInstallation(context.Context, *struct{}) (*InstallationOutput, error) {
	out := &InstallationOutput{}
	out.Body.Signup = s.cfg.SignupEnabled
	return out, nil
}

// signup opens a partner program: a new tenant with its owner, who is signed in.
func (s *Server) signup(ctx context.Context, in *SignupInput) (*TokenOutput, error) {
	if !s.cfg.SignupEnabled {
		return nil, models.Errorf(models.KindForbidden, "SIGNUP_DISABLED", "sign-up is turned off on this installation")
	}
	// Every attempt counts.
	signups := []models.RateLimit{{Policy: policySignup, Key: models.RequestMetaFrom(ctx).ClientAddress, Quota: s.limits.Signup}}
	if err := s.takeLimits(ctx, signups, "too many sign-ups from this address; try again later"); err != nil {
		return nil, err
	}
	hash, err := authn.HashPassword(in.Body.Password)
	if err != nil {
		return nil, err
	}
	tenant := &models.Tenant{Slug: in.Body.Slug, Name: in.Body.OrganisationName}
	owner := &models.User{Email: in.Body.Email, Name: in.Body.Name, PasswordHash: hash, CreatedAt: time.Now().UTC()}
	if err := s.deps.Tenants.CreateTenant(ctx, tenant, owner); err != nil {
		return nil, err
	}
	return s.issueTokens(ctx, owner, nil)
}
