package api

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

const tagAuth = "Authentication"

// refreshTokenTTL is how long an unused refresh token stays valid.
const refreshTokenTTL = 30 * 24 * time.Hour

// LoginInput signs a user in.
type LoginInput struct {
	Body struct {
		Email    string `json:"email" format:"email" maxLength:"320" doc:"The user's email"`
		Password string `json:"password" minLength:"1" maxLength:"1024" doc:"The user's password"`
		Tenant   string `json:"tenant,omitempty" maxLength:"63" doc:"Tenant slug, needed when the email belongs to several tenants"`
	}
}

// TenantRef names a tenant.
type TenantRef struct {
	ID   string `json:"id"`
	Slug string `json:"slug"`
	Name string `json:"name"`
}

// TokenOutput carries a new access token and refresh token.
type TokenOutput struct {
	CacheControl string `header:"Cache-Control"`
	Body         struct {
		AccessToken  string    `json:"accessToken" doc:"JWT for Authorization: Bearer, valid 15 minutes"`
		TokenType    string    `json:"tokenType" enum:"Bearer"`
		ExpiresIn    int       `json:"expiresIn" doc:"Seconds until the access token expires"`
		RefreshToken string    `json:"refreshToken" doc:"Single-use token for POST /api/auth/refresh"`
		Tenant       TenantRef `json:"tenant"`
	}
}

// RefreshInput exchanges a refresh token for new tokens.
type RefreshInput struct {
	Body struct {
		RefreshToken string `json:"refreshToken" minLength:"1" maxLength:"200"`
	}
}

// SetPasswordInput redeems a one-time token with a new password.
type SetPasswordInput struct {
	Body struct {
		Token    string `json:"token" minLength:"1" maxLength:"200"`
		Password string `json:"password" minLength:"12" maxLength:"1024" doc:"At least 12 characters"`
	}
}

func (s *Server) redeem(ctx context.Context, purpose string, in *SetPasswordInput) (*models.User, error) {
	hash, err := authn.HashPassword(in.Body.Password)
	if err != nil {
		return nil, err
	}
	u, err := s.deps.Identity.RedeemUserToken(ctx, purpose, authn.HashKey(in.Body.Token), hash, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	s.deps.Authorizer.Invalidate(u.TenantID)
	return u, nil
}

// PasswordChangeInput changes the caller's password.
type PasswordChangeInput struct {
	Body struct {
		CurrentPassword string `json:"currentPassword" minLength:"1" maxLength:"1024"`
		NewPassword     string `json:"newPassword" minLength:"12" maxLength:"1024" doc:"At least 12 characters"`
	}
}

// MeOutput describes the caller.
type MeOutput struct {
	Body struct {
		Kind        string             `json:"kind" enum:"operator,partner_user,machine_key"`
		UserID      string             `json:"userId,omitempty"`
		KeyID       string             `json:"keyId,omitempty"`
		PartnerID   string             `json:"partnerId,omitempty"`
		Email       string             `json:"email,omitempty"`
		Name        string             `json:"name,omitempty"`
		Roles       []string           `json:"roles" nullable:"false"`
		Scopes      []string           `json:"scopes,omitempty"`
		Tenant      TenantRef          `json:"tenant"`
		Permissions []authz.Permission `json:"permissions" nullable:"false" doc:"What the caller may do; the UI shows or hides actions by it"`
	}
}

// PermissionsOutput is the permission catalogue and the built-in roles.
type PermissionsOutput struct {
	Body struct {
		Data  []authz.Entry `json:"data"`
		Roles []authz.Role  `json:"roles"`
	}
}

func registerAuthRoutes(s *Server) {
	register(s, huma.Operation{
		OperationID: "login", Method: http.MethodPost, Path: "/api/auth/login", Tags: []string{tagAuth},
		RequestBody: requestExample(`{"email": "ada@acme.example", "password": "violet-harbour-lantern-42", "tenant": "acme"}`),
		Summary:     "Sign in with email and password",
		Description: "Returns a 15-minute access token and a single-use refresh token. Failed attempts are limited per account and client address together, per client address, and more loosely per account (429 with Retry-After), so failures from one client never lock the account's owner out elsewhere.",
		Errors:      []int{http.StatusUnauthorized, http.StatusConflict, http.StatusTooManyRequests},
	}, Public(), s.login)

	register(s, huma.Operation{
		OperationID: "refresh-token", Method: http.MethodPost, Path: "/api/auth/refresh", Tags: []string{tagAuth},
		RequestBody: requestExample(`{"refreshToken": "pdr_4f9Kq2ZxV8mN3bR7tL1wY6cH0sJ5dP"}`),
		Summary:     "Exchange a refresh token for new tokens",
		Description: "Refresh tokens rotate: each works once. Presenting a used one revokes its whole family.",
		Errors:      []int{http.StatusUnauthorized},
	}, Public(), s.refresh)

	register(s, huma.Operation{
		OperationID: "logout", Method: http.MethodPost, Path: "/api/auth/logout", Tags: []string{tagAuth},
		RequestBody: requestExample(`{"refreshToken": "pdr_4f9Kq2ZxV8mN3bR7tL1wY6cH0sJ5dP"}`),
		Summary:     "Sign out: revoke a refresh token and its family", DefaultStatus: http.StatusNoContent,
	}, Public(), s.logout)

	register(s, huma.Operation{
		OperationID: "accept-invitation", Method: http.MethodPost, Path: "/api/auth/accept-invitation", Tags: []string{tagAuth},
		RequestBody: requestExample(`{"token": "inv_3kTz8qWm2LxR9bVc4NpY7dHs", "password": "violet-harbour-lantern-42"}`),
		Summary:     "Accept an invitation: set a password and sign in", Errors: []int{http.StatusUnauthorized},
	}, Public(), s.acceptInvitation)

	register(s, huma.Operation{
		OperationID: "reset-password", Method: http.MethodPost, Path: "/api/auth/reset-password", Tags: []string{tagAuth},
		RequestBody: requestExample(`{"token": "rst_9aB3cD7eF1gH5iJ2kL6mN0p", "password": "violet-harbour-lantern-42"}`),
		Summary:     "Set a new password with a one-time reset token; ends every session", DefaultStatus: http.StatusNoContent,
		Errors: []int{http.StatusUnauthorized},
	}, Public(), s.resetPassword)

	register(s, huma.Operation{
		OperationID: "change-password", Method: http.MethodPost, Path: "/api/me/password", Tags: []string{tagAuth},
		RequestBody: requestExample(`{"currentPassword": "violet-harbour-lantern-42", "newPassword": "copper-meadow-kettle-17"}`),
		Summary:     "Change the caller's password; signs out every session", DefaultStatus: http.StatusNoContent,
		Security: UsersOnly, Errors: []int{http.StatusUnprocessableEntity},
	}, Requires(authz.ProfileWrite), s.changePassword)

	register(s, huma.Operation{
		OperationID: "get-me", Method: http.MethodGet, Path: "/api/me", Tags: []string{tagAuth},
		Summary: "The caller: principal, organisation and permissions", Security: UsersOrKeys,
	}, Requires(authz.ProfileRead), s.me)

	register(s, huma.Operation{
		OperationID: "list-permissions", Method: http.MethodGet, Path: "/api/permissions", Tags: []string{tagAuth},
		Summary: "The permission catalogue and the built-in roles", Security: UsersOrKeys,
	}, Requires(authz.ProfileRead), s.listPermissions)
}

// logout signs out: revokes a refresh token and its family.
func (s *Server) logout(ctx context.Context, in *RefreshInput) (*struct{}, error) {
	return nil, s.deps.Identity.RevokeRefreshFamily(ctx, authn.HashKey(in.Body.RefreshToken), time.Now().UTC())
}

// acceptInvitation sets the invited user's password and signs them in.
func (s *Server) acceptInvitation(ctx context.Context, in *SetPasswordInput) (*TokenOutput, error) {
	u, err := s.redeem(ctx, models.TokenInvitation, in)
	if err != nil {
		return nil, err
	}
	return s.issueTokens(ctx, u, nil)
}

// resetPassword sets a new password with a one-time reset token and ends every session.
func (s *Server) resetPassword(ctx context.Context, in *SetPasswordInput) (*struct{}, error) {
	_, err := s.redeem(ctx, models.TokenPasswordReset, in)
	return nil, err
}

// listPermissions answers the permission catalogue and the built-in roles.
func (s *Server) listPermissions(context.Context, *struct{}) (*PermissionsOutput, error) {
	out := &PermissionsOutput{}
	out.Body.Data = authz.Catalogue()
	out.Body.Roles = authz.BuiltinRoles()
	return out, nil
}

// loginLimits are the quotas of failed sign-ins for email from client, the tightest first: the
// account from this client, the client across accounts, and a looser ceiling for the account
// from everywhere. Failures from one client stop at the first two long before they reach the
// third, so a guesser slows itself without locking the account's owner out elsewhere (OWASP
// authentication guidance).
func (s *Server) loginLimits(email, client string) []models.RateLimit {
	return []models.RateLimit{
		{Policy: policyLoginAccountClient, Key: email + "\x00" + client, Quota: s.limits.LoginAccountClient},
		{Policy: policyLoginClient, Key: client, Quota: s.limits.LoginClient},
		{Policy: policyLoginAccount, Key: email, Quota: s.limits.LoginAccount},
	}
}

// login signs a user in with email and password.
func (s *Server) login(ctx context.Context, in *LoginInput) (*TokenOutput, error) {
	email := strings.ToLower(strings.TrimSpace(in.Body.Email))
	client := models.RequestMetaFrom(ctx).ClientAddress
	limits := s.loginLimits(email, client)
	if err := s.checkLimits(ctx, limits, "too many failed sign-ins; try again later"); err != nil {
		return nil, err
	}
	users, err := s.deps.Identity.UsersByEmail(ctx, email, in.Body.Tenant)
	if err != nil {
		return nil, err
	}
	if site, ok := portalFrom(ctx); ok {
		// A custom domain's sign-in knows its tenant: no slug needed, no other tenant's account.
		users = slices.DeleteFunc(users, func(u models.User) bool { return u.TenantID != site.TenantID })
	}
	var matches []models.User
	for _, u := range users {
		if u.Status != models.UserStatusActive || u.PasswordHash == "" {
			continue
		}
		if ok, _ := authn.VerifyPassword(u.PasswordHash, in.Body.Password); ok {
			matches = append(matches, u)
		}
	}
	if len(users) == 0 {
		_, _ = authn.VerifyPassword(s.dummyHash(), in.Body.Password)
	}
	switch len(matches) {
	case 0:
		if s.deps.RateLimiter != nil {
			if _, err := s.deps.RateLimiter.TakeRate(ctx, limits); err != nil {
				s.limiterFailed(ctx, err)
			}
		}
		return nil, invalidCredentials("wrong email or password")
	case 1:
	default:
		return nil, models.Conflict("TENANT_REQUIRED", "this email signs in to several tenants; name one in tenant")
	}
	if s.deps.RateLimiter != nil {
		if err := s.deps.RateLimiter.ForgetRate(ctx, limits[0]); err != nil {
			s.limiterFailed(ctx, err)
		}
	}
	u := matches[0]
	return s.issueTokens(ctx, &u, nil)
}

// issueTokens signs an access token for u and stores a refresh token, as the first of a new
// family or, when refresh is given, with that already-stored successor of a rotated token.
func (s *Server) issueTokens(ctx context.Context, u *models.User, refresh *string) (*TokenOutput, error) {
	tenant, err := s.deps.Identity.TenantByID(ctx, u.TenantID)
	if err != nil {
		return nil, err
	}
	p := models.Principal{Kind: models.PrincipalOperator, TenantID: u.TenantID, UserID: u.ID}
	if u.PartnerID != nil {
		p.Kind, p.PartnerID = models.PrincipalPartner, *u.PartnerID
	}
	access, exp, err := s.deps.Tokens.Issue(p)
	if err != nil {
		return nil, err
	}
	plain := ""
	if refresh != nil {
		plain = *refresh
	} else {
		plain, err = newRefreshToken()
		if err != nil {
			return nil, err
		}
		if err := s.deps.Identity.CreateRefreshToken(ctx, &models.RefreshToken{
			TenantID: u.TenantID, UserID: u.ID, Hash: authn.HashKey(plain), ExpiresAt: time.Now().UTC().Add(refreshTokenTTL),
		}); err != nil {
			return nil, err
		}
	}
	out := &TokenOutput{CacheControl: "no-store"}
	out.Body.AccessToken = access
	out.Body.TokenType = "Bearer"
	out.Body.ExpiresIn = int(time.Until(exp).Round(time.Second) / time.Second)
	out.Body.RefreshToken = plain
	out.Body.Tenant = TenantRef{ID: tenant.ID, Slug: tenant.Slug, Name: tenant.Name}
	return out, nil
}

func newRefreshToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "pdr_" + base64.RawURLEncoding.EncodeToString(b), nil
}

// refresh trades a refresh token for new tokens.
func (s *Server) refresh(ctx context.Context, in *RefreshInput) (*TokenOutput, error) {
	next, err := newRefreshToken()
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	old, err := s.deps.Identity.RotateRefreshToken(ctx, authn.HashKey(in.Body.RefreshToken),
		&models.RefreshToken{Hash: authn.HashKey(next), ExpiresAt: now.Add(refreshTokenTTL)}, now)
	if err != nil {
		return nil, err
	}
	u, err := s.deps.Identity.UserByID(ctx, models.System(old.TenantID), old.UserID)
	if err != nil || u.Status != models.UserStatusActive {
		_ = s.deps.Identity.RevokeRefreshFamily(ctx, authn.HashKey(next), now)
		return nil, invalidCredentials("the account is not active")
	}
	return s.issueTokens(ctx, u, &next)
}

// changePassword changes the caller's own password and signs out every session.
func (s *Server) changePassword(ctx context.Context, in *PasswordChangeInput) (*struct{}, error) {
	p := models.PrincipalFrom(ctx)
	u, err := s.deps.Identity.UserByID(ctx, models.System(p.TenantID), p.UserID)
	if err != nil {
		return nil, err
	}
	if ok, _ := authn.VerifyPassword(u.PasswordHash, in.Body.CurrentPassword); !ok {
		return nil, models.Invalid("WRONG_PASSWORD", "the current password is wrong",
			models.FieldError{Location: "body.currentPassword", Message: "does not match"})
	}
	hash, err := authn.HashPassword(in.Body.NewPassword)
	if err != nil {
		return nil, err
	}
	return nil, s.deps.Identity.SetPassword(ctx, models.System(p.TenantID), p.UserID, hash)
}

// me answers the caller: the user or machine key, its tenant and its permissions.
func (s *Server) me(ctx context.Context, _ *struct{}) (*MeOutput, error) {
	p := models.PrincipalFrom(ctx)
	out := &MeOutput{}
	b := &out.Body
	b.Kind, b.UserID, b.KeyID, b.PartnerID, b.Scopes = string(p.Kind), p.UserID, p.KeyID, p.PartnerID, p.Scopes
	b.Roles = []string{}
	if p.UserID != "" {
		roles, err := s.deps.Identity.RolesOf(ctx, models.System(p.TenantID), p.UserID)
		if err != nil {
			return nil, err
		}
		b.Roles = append(b.Roles, roles...)
	}
	tenant, err := s.deps.Identity.TenantByID(ctx, p.TenantID)
	if err != nil {
		return nil, err
	}
	b.Tenant = TenantRef{ID: tenant.ID, Slug: tenant.Slug, Name: tenant.Name}
	if p.UserID != "" {
		u, err := s.deps.Identity.UserByID(ctx, models.System(p.TenantID), p.UserID)
		if err != nil {
			return nil, err
		}
		b.Email, b.Name = u.Email, u.Name
	}
	perms, err := s.deps.Authorizer.Permissions(ctx, p)
	if err != nil {
		return nil, err
	}
	b.Permissions = append([]authz.Permission{}, perms...)
	return out, nil
}
