package api

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// User is a person as the API shows them.
type User struct {
	ID            string     `json:"id"`
	Email         string     `json:"email"`
	Name          string     `json:"name"`
	PartnerID     string     `json:"partnerId,omitempty"`
	Roles         []string   `json:"roles" nullable:"false"`
	Status        string     `json:"status" enum:"invited,active,deactivated"`
	CreatedAt     time.Time  `json:"createdAt"`
	DeactivatedAt *time.Time `json:"deactivatedAt,omitempty"`
}

// Partner is a partner organisation as the API shows it.
type Partner struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Type      string    `json:"type"`
	Level     string    `json:"level"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func partnerOf(p *models.Partner) Partner {
	return Partner{ID: p.ID, Name: p.Name, Type: p.Type, Level: p.Level, Status: p.Status, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

// PeopleStore is what the user operations need of storage, as the caller sees it.
type PeopleStore interface {
	CreateUser(ctx context.Context, u *models.User, roles []string) error
	ListUsers(ctx context.Context, partnerUsers bool, partnerID string, pg models.Page) ([]models.User, string, error)
	User(ctx context.Context, partnerUser bool, id string) (*models.User, error)
	UpdateUser(ctx context.Context, partnerUser bool, id string, name *string, roles []string) (*models.User, error)
	DeactivateUser(ctx context.Context, partnerUser bool, id string) (*models.User, error)
	IssueUserToken(ctx context.Context, partnerUser bool, userID, purpose, hash string, expiresAt time.Time) error
}

// people is the store of users as the caller sees it.
func (s *Server) people(ctx context.Context) PeopleStore {
	return s.deps.Modules.People(models.PrincipalFrom(ctx))
}

// PartnerStore is what the partner operations need of storage, as the caller sees it.
type PartnerStore interface {
	CreatePartner(ctx context.Context, p *models.Partner) error
	ListPartners(ctx context.Context, f models.PartnerFilter, pg models.Page) ([]models.Partner, string, error)
	Partner(ctx context.Context, id string) (*models.Partner, error)
	UpdatePartner(ctx context.Context, id string, c models.PartnerChanges) (*models.Partner, error)
}

// partners is the store of partner organisations as the caller sees it.
func (s *Server) partners(ctx context.Context) PartnerStore {
	return s.deps.Modules.Partners(models.PrincipalFrom(ctx))
}

// One-time links: an invitation lasts a week, a password reset a day.
const (
	invitationTTL    = 7 * 24 * time.Hour
	passwordResetTTL = 24 * time.Hour
)

// OneTimeToken lets a person set a password; it is shown only in the response that issues it.
type OneTimeToken struct {
	Token     string    `json:"token" doc:"Give it to the person; it works once"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// OneTimeTokenOutput is a freshly issued one-time token.
type OneTimeTokenOutput struct {
	CacheControl string `header:"Cache-Control"`
	Body         OneTimeToken
}

// CreatedUserOutput is a new person with the invitation that lets them set a password.
type CreatedUserOutput struct {
	CacheControl string `header:"Cache-Control"`
	Body         struct {
		User
		Invitation OneTimeToken `json:"invitation" doc:"For POST /api/auth/accept-invitation; shown only here"`
	}
}

func (s *Server) issueUserToken(ctx context.Context, partnerUser bool, userID, purpose string, ttl time.Duration) (OneTimeToken, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return OneTimeToken{}, err
	}
	token := "pdt_" + base64.RawURLEncoding.EncodeToString(b)
	exp := time.Now().UTC().Add(ttl).Truncate(time.Second)
	if err := s.people(ctx).IssueUserToken(ctx, partnerUser, userID, purpose, authn.HashKey(token), exp); err != nil {
		return OneTimeToken{}, err
	}
	return OneTimeToken{Token: token, ExpiresAt: exp}, nil
}

// CreateUserInput adds a person. Only these fields can be set.
type CreateUserInput struct {
	Body struct {
		Email string   `json:"email" format:"email" maxLength:"320"`
		Name  string   `json:"name" minLength:"1" maxLength:"200"`
		Roles []string `json:"roles" minItems:"1" maxItems:"16" uniqueItems:"true" maxLength:"64" doc:"Role names; you must hold every permission of each"`
	}
}

// CreatePartnerUserInput adds a person to a partner organisation.
type CreatePartnerUserInput struct {
	PartnerID string `path:"id" maxLength:"36"`
	CreateUserInput
}

// UpdateUserInput changes a person; absent fields stay.
type UpdateUserInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Name  *string  `json:"name,omitempty" minLength:"1" maxLength:"200"`
		Roles []string `json:"roles,omitempty" minItems:"1" maxItems:"16" uniqueItems:"true" maxLength:"64"`
	}
}

// UserOutput is one person.
type UserOutput struct{ Body User }

// UserListOutput is a page of people.
type UserListOutput struct{ Body ListBody[User] }

// PartnerInput creates a partner organisation.
type PartnerInput struct {
	Body struct {
		Name  string `json:"name" minLength:"1" maxLength:"200"`
		Type  string `json:"type" enum:"reseller,franchise,campus,broker,agency,distributor,other"`
		Level string `json:"level,omitempty" maxLength:"64"`
	}
}

// UpdatePartnerInput changes a partner organisation; absent fields stay.
type UpdatePartnerInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Name   *string `json:"name,omitempty" minLength:"1" maxLength:"200"`
		Type   *string `json:"type,omitempty" enum:"reseller,franchise,campus,broker,agency,distributor,other"`
		Level  *string `json:"level,omitempty" maxLength:"64"`
		Status *string `json:"status,omitempty" enum:"onboarding,active,suspended,offboarded"`
	}
}

// ListPartnersInput searches and filters partner organisations (a partner sees its own whatever
// it passes).
type ListPartnersInput struct {
	ListParams
	Q      string `query:"q" maxLength:"200" doc:"Only partners whose name contains this, case-insensitively"`
	Status string `query:"status" enum:"onboarding,active,suspended,offboarded"`
	Level  string `query:"level" maxLength:"64" doc:"Only partners at this level"`
}

// PartnerOutput is one partner organisation.
type PartnerOutput struct{ Body Partner }

// PartnerListOutput is a page of partner organisations.
type PartnerListOutput struct{ Body ListBody[Partner] }

// PartnerUsersInput lists the people of one partner organisation.
type PartnerUsersInput struct {
	PartnerID string `path:"id" maxLength:"36"`
	ListParams
}

func registerPeopleRoutes(s *Server) {
	ops := []string{"Operator users"}
	register(s, huma.Operation{OperationID: "list-users", Method: http.MethodGet, Path: "/api/users", Tags: ops,
		Summary: "List operator users", Security: UsersOrKeys}, Requires(authz.UsersRead), s.listOperatorUsers)
	register(s, huma.Operation{OperationID: "create-user", Method: http.MethodPost, Path: "/api/users", Tags: ops,
		RequestBody: requestExample(`{"email": "grace@acme.example", "name": "Grace Hopper", "roles": ["finance"]}`),
		Summary:     "Add an operator user with roles", DefaultStatus: http.StatusCreated, Security: UsersOnly,
		Errors: []int{http.StatusConflict, http.StatusUnprocessableEntity}}, Requires(authz.UsersWrite), s.createOperatorUser)
	register(s, huma.Operation{OperationID: "reset-user-password", Method: http.MethodPost, Path: "/api/users/{id}/password-reset", Tags: ops,
		Summary: "Issue a one-time password-reset token for an operator user", Security: UsersOnly, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.UsersWrite), s.resetOperatorUserPassword)
	register(s, huma.Operation{OperationID: "get-user", Method: http.MethodGet, Path: "/api/users/{id}", Tags: ops,
		Summary: "Get an operator user", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.UsersRead), s.getOperatorUser)
	register(s, huma.Operation{OperationID: "update-user", Method: http.MethodPatch, Path: "/api/users/{id}", Tags: ops,
		RequestBody: requestExample(`{"roles": ["finance", "analyst"]}`),
		Summary:     "Change an operator user's name or roles", Security: UsersOnly, Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity}},
		Requires(authz.UsersWrite), s.updateOperatorUser)
	register(s, huma.Operation{OperationID: "deactivate-user", Method: http.MethodPost, Path: "/api/users/{id}/deactivate", Tags: ops,
		Summary: "Deactivate an operator user and end their sessions", Security: UsersOnly, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.UsersWrite), s.deactivateOperatorUser)

	ps := []string{"Partners"}
	register(s, huma.Operation{OperationID: "list-partners", Method: http.MethodGet, Path: "/api/partners", Tags: ps,
		Summary: "List partner organisations (a partner sees its own)", Security: UsersOrKeys}, Requires(authz.PartnersRead), s.listPartners)
	register(s, huma.Operation{OperationID: "create-partner", Method: http.MethodPost, Path: "/api/partners", Tags: ps,
		RequestBody: requestExample(`{"name": "Northwind Traders", "type": "reseller", "level": "Gold"}`),
		Summary:     "Add a partner organisation", DefaultStatus: http.StatusCreated, Security: UsersOrKeys}, Requires(authz.PartnersWrite), s.createPartner)
	register(s, huma.Operation{OperationID: "get-partner", Method: http.MethodGet, Path: "/api/partners/{id}", Tags: ps,
		Summary: "Get a partner organisation", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.PartnersRead), s.getPartner)
	register(s, huma.Operation{OperationID: "update-partner", Method: http.MethodPatch, Path: "/api/partners/{id}", Tags: ps,
		RequestBody: requestExample(`{"status": "active", "level": "Platinum"}`),
		Summary:     "Change a partner organisation", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.PartnersWrite), s.updatePartner)

	pu := []string{"Partner users"}
	register(s, huma.Operation{OperationID: "list-partner-users", Method: http.MethodGet, Path: "/api/partners/{id}/users", Tags: pu,
		Summary: "List the people of a partner organisation", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.PartnerUsersRead), s.listPartnerUsers)
	register(s, huma.Operation{OperationID: "create-partner-user", Method: http.MethodPost, Path: "/api/partners/{id}/users", Tags: pu,
		RequestBody: requestExample(`{"email": "maria@northwind.example", "name": "Maria Anders", "roles": ["partner_user"]}`),
		Summary:     "Add a person to a partner organisation", DefaultStatus: http.StatusCreated, Security: UsersOnly,
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}}, Requires(authz.PartnerUsersWrite), s.createPartnerUser)
	register(s, huma.Operation{OperationID: "get-partner-user", Method: http.MethodGet, Path: "/api/partner-users/{id}", Tags: pu,
		Summary: "Get a partner user", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.PartnerUsersRead), s.getPartnerUser)
	register(s, huma.Operation{OperationID: "update-partner-user", Method: http.MethodPatch, Path: "/api/partner-users/{id}", Tags: pu,
		RequestBody: requestExample(`{"roles": ["partner_admin"]}`),
		Summary:     "Change a partner user's name or roles", Security: UsersOnly, Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity}},
		Requires(authz.PartnerUsersWrite), s.updatePartnerUser)
	register(s, huma.Operation{OperationID: "deactivate-partner-user", Method: http.MethodPost, Path: "/api/partner-users/{id}/deactivate", Tags: pu,
		Summary: "Deactivate a partner user and end their sessions", Security: UsersOnly, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.PartnerUsersWrite), s.deactivatePartnerUser)
	register(s, huma.Operation{OperationID: "reset-partner-user-password", Method: http.MethodPost, Path: "/api/partner-users/{id}/password-reset", Tags: pu,
		Summary: "Issue a one-time password-reset token for a partner user", Security: UsersOnly, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.PartnerUsersWrite), s.resetPartnerUserPassword)
}

// listOperatorUsers lists operator users.
func (s *Server) listOperatorUsers(ctx context.Context, in *struct{ ListParams }) (*UserListOutput, error) {
	return s.listUsers(ctx, false, "", in.ListParams)
}

// createOperatorUser adds an operator user with roles and invites them.
func (s *Server) createOperatorUser(ctx context.Context, in *CreateUserInput) (*CreatedUserOutput, error) {
	return s.createUser(ctx, in, "")
}

// resetOperatorUserPassword issues a one-time password-reset token for an operator user.
func (s *Server) resetOperatorUserPassword(ctx context.Context, in *IDPath) (*OneTimeTokenOutput, error) {
	t, err := s.issueUserToken(ctx, false, in.ID, models.TokenPasswordReset, passwordResetTTL)
	return &OneTimeTokenOutput{CacheControl: "no-store", Body: t}, err
}

// getOperatorUser answers one operator user.
func (s *Server) getOperatorUser(ctx context.Context, in *IDPath) (*UserOutput, error) {
	return s.getUser(ctx, false, in.ID)
}

// updateOperatorUser changes an operator user's name or roles.
func (s *Server) updateOperatorUser(ctx context.Context, in *UpdateUserInput) (*UserOutput, error) {
	return s.updateUser(ctx, false, in)
}

// deactivateOperatorUser deactivates an operator user and ends their sessions.
func (s *Server) deactivateOperatorUser(ctx context.Context, in *IDPath) (*UserOutput, error) {
	return s.deactivateUser(ctx, false, in.ID)
}

// listPartners lists partner organisations, searched and filtered; a partner sees its own.
func (s *Server) listPartners(ctx context.Context, in *ListPartnersInput) (*PartnerListOutput, error) {
	f := models.PartnerFilter{Q: in.Q, Status: in.Status, Level: in.Level}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Partner, string, error) {
		return s.partners(ctx).ListPartners(ctx, f, pg)
	}, partnerOf)
	return &PartnerListOutput{Body: body}, err
}

// createPartner adds a partner organisation.
func (s *Server) createPartner(ctx context.Context, in *PartnerInput) (*PartnerOutput, error) {
	p := &models.Partner{Name: in.Body.Name, Type: in.Body.Type, Level: in.Body.Level, Status: models.PartnerActive}
	if err := s.partners(ctx).CreatePartner(ctx, p); err != nil {
		return nil, err
	}
	return &PartnerOutput{Body: partnerOf(p)}, nil
}

// getPartner answers one partner organisation.
func (s *Server) getPartner(ctx context.Context, in *IDPath) (*PartnerOutput, error) {
	p, err := s.partners(ctx).Partner(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &PartnerOutput{Body: partnerOf(p)}, nil
}

// updatePartner changes a partner organisation.
func (s *Server) updatePartner(ctx context.Context, in *UpdatePartnerInput) (*PartnerOutput, error) {
	p, err := s.partners(ctx).UpdatePartner(ctx, in.ID, models.PartnerChanges{Name: in.Body.Name, Type: in.Body.Type, Level: in.Body.Level, Status: in.Body.Status})
	if err != nil {
		return nil, err
	}
	return &PartnerOutput{Body: partnerOf(p)}, nil
}

// listPartnerUsers lists the people of a partner organisation.
func (s *Server) listPartnerUsers(ctx context.Context, in *PartnerUsersInput) (*UserListOutput, error) {
	if _, err := s.partners(ctx).Partner(ctx, in.PartnerID); err != nil {
		return nil, err
	}
	return s.listUsers(ctx, true, in.PartnerID, in.ListParams)
}

// createPartnerUser adds a person to a partner organisation and invites them.
func (s *Server) createPartnerUser(ctx context.Context, in *CreatePartnerUserInput) (*CreatedUserOutput, error) {
	if p := models.PrincipalFrom(ctx); p.IsPartner() && p.PartnerID != in.PartnerID {
		return nil, models.Errorf(models.KindForbidden, "OTHER_PARTNER", "you act for your own partner organisation only")
	}
	if _, err := s.partners(ctx).Partner(ctx, in.PartnerID); err != nil {
		return nil, err
	}
	return s.createUser(ctx, &in.CreateUserInput, in.PartnerID)
}

// getPartnerUser answers one partner user.
func (s *Server) getPartnerUser(ctx context.Context, in *IDPath) (*UserOutput, error) {
	return s.getUser(ctx, true, in.ID)
}

// updatePartnerUser changes a partner user's name or roles.
func (s *Server) updatePartnerUser(ctx context.Context, in *UpdateUserInput) (*UserOutput, error) {
	return s.updateUser(ctx, true, in)
}

// deactivatePartnerUser deactivates a partner user and ends their sessions.
func (s *Server) deactivatePartnerUser(ctx context.Context, in *IDPath) (*UserOutput, error) {
	return s.deactivateUser(ctx, true, in.ID)
}

// resetPartnerUserPassword issues a one-time password-reset token for a partner user.
func (s *Server) resetPartnerUserPassword(ctx context.Context, in *IDPath) (*OneTimeTokenOutput, error) {
	t, err := s.issueUserToken(ctx, true, in.ID, models.TokenPasswordReset, passwordResetTTL)
	return &OneTimeTokenOutput{CacheControl: "no-store", Body: t}, err
}

func (s *Server) userOf(ctx context.Context, u *models.User) (User, error) {
	roles, err := s.deps.Identity.RolesOf(ctx, models.System(u.TenantID), u.ID)
	if err != nil {
		return User{}, err
	}
	out := User{ID: u.ID, Email: u.Email, Name: u.Name, Roles: append([]string{}, roles...), Status: u.Status, CreatedAt: u.CreatedAt, DeactivatedAt: u.DeactivatedAt}
	if u.PartnerID != nil {
		out.PartnerID = *u.PartnerID
	}
	return out, nil
}

func (s *Server) listUsers(ctx context.Context, partnerUsers bool, partnerID string, l ListParams) (*UserListOutput, error) {
	pg, err := s.cursors.page(ctx, l)
	if err != nil {
		return nil, err
	}
	rows, next, err := s.people(ctx).ListUsers(ctx, partnerUsers, partnerID, pg)
	if err != nil {
		return nil, err
	}
	out := &UserListOutput{}
	out.Body.Data = make([]User, 0, len(rows))
	for i := range rows {
		u, err := s.userOf(ctx, &rows[i])
		if err != nil {
			return nil, err
		}
		out.Body.Data = append(out.Body.Data, u)
	}
	out.Body.NextCursor = s.cursors.encode(next)
	return out, nil
}

// checkRoles refuses unknown roles, roles for the other audience, and roles holding a
// permission the caller lacks (no one grants more than they hold).
func (s *Server) checkRoles(ctx context.Context, roles []string, audience authz.Audience, field string) error {
	p := models.PrincipalFrom(ctx)
	var problems []models.FieldError
	for i, name := range roles {
		loc := field + "[" + strconv.Itoa(i) + "]"
		role, ok := authz.BuiltinRole(name)
		if !ok {
			custom, err := s.roles(ctx).CustomRole(ctx, name, true)
			if models.ErrorKind(err) == models.KindNotFound {
				problems = append(problems, models.FieldError{Location: loc, Message: "unknown role", Value: name})
				continue
			}
			if err != nil {
				return err
			}
			role = roleOf(custom).Role
		}
		if role.Audience != audience {
			problems = append(problems, models.FieldError{Location: loc, Message: "a role for " + string(role.Audience) + " users", Value: name})
			continue
		}
		for _, perm := range role.Permissions {
			held, err := s.deps.Authorizer.Allowed(ctx, p, perm)
			if err != nil {
				return err
			}
			if !held {
				problems = append(problems, models.FieldError{Location: loc, Message: "grants " + string(perm) + ", which you do not hold", Value: name})
				break
			}
		}
	}
	if len(problems) > 0 {
		return models.Invalid("INVALID_ROLES", "the roles cannot be granted", problems...)
	}
	return nil
}

func (s *Server) createUser(ctx context.Context, in *CreateUserInput, partnerID string) (*CreatedUserOutput, error) {
	audience := authz.ForOperators
	if partnerID != "" {
		audience = authz.ForPartners
	}
	if err := s.checkRoles(ctx, in.Body.Roles, audience, "body.roles"); err != nil {
		return nil, err
	}
	u := &models.User{Email: in.Body.Email, Name: in.Body.Name, Status: models.UserStatusInvited}
	if partnerID != "" {
		u.PartnerID = &partnerID
	}
	if err := s.people(ctx).CreateUser(ctx, u, in.Body.Roles); err != nil {
		return nil, err
	}
	s.deps.Authorizer.Invalidate(u.TenantID)
	inv, err := s.issueUserToken(ctx, partnerID != "", u.ID, models.TokenInvitation, invitationTTL)
	if err != nil {
		return nil, err
	}
	view, err := s.userOf(ctx, u)
	if err != nil {
		return nil, err
	}
	out := &CreatedUserOutput{CacheControl: "no-store"}
	out.Body.User, out.Body.Invitation = view, inv
	return out, nil
}

func (s *Server) getUser(ctx context.Context, partnerUser bool, id string) (*UserOutput, error) {
	u, err := s.people(ctx).User(ctx, partnerUser, id)
	if err != nil {
		return nil, err
	}
	out, err := s.userOf(ctx, u)
	return &UserOutput{Body: out}, err
}

func (s *Server) updateUser(ctx context.Context, partnerUser bool, in *UpdateUserInput) (*UserOutput, error) {
	if in.Body.Roles != nil {
		audience := authz.ForOperators
		if partnerUser {
			audience = authz.ForPartners
		}
		if err := s.checkRoles(ctx, in.Body.Roles, audience, "body.roles"); err != nil {
			return nil, err
		}
	}
	u, err := s.people(ctx).UpdateUser(ctx, partnerUser, in.ID, in.Body.Name, in.Body.Roles)
	if err != nil {
		return nil, err
	}
	s.deps.Authorizer.Invalidate(u.TenantID)
	out, err := s.userOf(ctx, u)
	return &UserOutput{Body: out}, err
}

func (s *Server) deactivateUser(ctx context.Context, partnerUser bool, id string) (*UserOutput, error) {
	if p := models.PrincipalFrom(ctx); p.UserID == id {
		return nil, models.Conflict("CANNOT_DEACTIVATE_SELF", "you cannot deactivate yourself")
	}
	u, err := s.people(ctx).DeactivateUser(ctx, partnerUser, id)
	if err != nil {
		return nil, err
	}
	s.deps.Authorizer.Invalidate(u.TenantID)
	out, err := s.userOf(ctx, u)
	return &UserOutput{Body: out}, err
}
