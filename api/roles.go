package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// RoleStore is what the role operations need of storage, as the caller sees it.
type RoleStore interface {
	CreateCustomRole(ctx context.Context, r *models.CustomRole) error
	ListCustomRoles(ctx context.Context, pg models.Page) ([]models.CustomRole, string, error)
	CustomRole(ctx context.Context, key string, byName bool) (*models.CustomRole, error)
	UpdateCustomRole(ctx context.Context, id string, description, permissions *string) (*models.CustomRole, error)
	DeleteCustomRole(ctx context.Context, id string) error
}

// roles is the custom role store as the caller sees it.
func (s *Server) roles(ctx context.Context) RoleStore {
	return s.deps.Modules.Roles(models.PrincipalFrom(ctx))
}

// TenantRole is a built-in or custom role as the API shows it.
type TenantRole struct {
	ID string `json:"id,omitempty" doc:"Set for custom roles"`
	authz.Role
}

func roleOf(r *models.CustomRole) TenantRole {
	out := TenantRole{ID: r.ID, Role: authz.Role{Name: r.Name, Description: r.Description, Audience: authz.Audience(r.Audience)}}
	var perms []string
	_ = json.Unmarshal([]byte(r.Permissions), &perms)
	for _, p := range perms {
		out.Permissions = append(out.Permissions, authz.Permission(p))
	}
	return out
}

// RoleInput creates a custom role. Only these fields can be set.
type RoleInput struct {
	Body struct {
		Name        string   `json:"name" maxLength:"64" pattern:"^[a-z][a-z0-9_]{1,63}$" doc:"Lower-case letters, digits and underscores"`
		Description string   `json:"description,omitempty" maxLength:"500"`
		Audience    string   `json:"audience" enum:"operator,partner"`
		Permissions []string `json:"permissions" minItems:"1" maxItems:"100" uniqueItems:"true" maxLength:"64"`
	}
}

// UpdateRoleInput changes a custom role; absent fields stay.
type UpdateRoleInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Description *string  `json:"description,omitempty" maxLength:"500"`
		Permissions []string `json:"permissions,omitempty" minItems:"1" maxItems:"100" uniqueItems:"true" maxLength:"64"`
	}
}

// RoleOutput is one role.
type RoleOutput struct{ Body TenantRole }

// RoleListOutput lists the built-in roles (on the first page) and the tenant's custom roles.
type RoleListOutput struct{ Body ListBody[TenantRole] }

func registerRoleRoutes(s *Server) {
	tags := []string{"Roles"}
	register(s, huma.Operation{OperationID: "list-roles", Method: http.MethodGet, Path: "/api/roles", Tags: tags,
		Summary: "List roles: the built-in ones, then the tenant's own", Security: UsersOrKeys}, Requires(authz.RolesRead), s.listRoles)
	register(s, huma.Operation{OperationID: "create-role", Method: http.MethodPost, Path: "/api/roles", Tags: tags,
		RequestBody: requestExample(`{"name": "deal_desk", "audience": "operator", "description": "Reviews and approves registered deals.", "permissions": ["deals:read", "deals:approve", "partners:read"]}`),
		Summary:     "Create a custom role", DefaultStatus: http.StatusCreated, Security: UsersOnly,
		Errors: []int{http.StatusConflict, http.StatusUnprocessableEntity}}, Requires(authz.RolesWrite), s.createRole)
	register(s, huma.Operation{OperationID: "get-role", Method: http.MethodGet, Path: "/api/roles/{id}", Tags: tags,
		Summary: "Get a custom role", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.RolesRead), s.getRole)
	register(s, huma.Operation{OperationID: "update-role", Method: http.MethodPatch, Path: "/api/roles/{id}", Tags: tags,
		RequestBody: requestExample(`{"permissions": ["deals:read", "deals:write", "deals:approve", "partners:read"]}`),
		Summary:     "Change a custom role; holders gain or lose permissions at once", Security: UsersOnly,
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity}}, Requires(authz.RolesWrite), s.updateRole)
	register(s, huma.Operation{OperationID: "delete-role", Method: http.MethodDelete, Path: "/api/roles/{id}", Tags: tags,
		Summary: "Delete a custom role and its assignments", DefaultStatus: http.StatusNoContent, Security: UsersOnly,
		Errors: []int{http.StatusNotFound}}, Requires(authz.RolesWrite), s.deleteRole)
}

// listRoles lists roles: the built-in ones, then the tenant's own.
func (s *Server) listRoles(ctx context.Context, in *struct{ ListParams }) (*RoleListOutput, error) {
	pg, err := s.cursors.page(ctx, in.ListParams)
	if err != nil {
		return nil, err
	}
	out := &RoleListOutput{}
	out.Body.Data = []TenantRole{}
	if pg.After == "" {
		for _, r := range authz.BuiltinRoles() {
			out.Body.Data = append(out.Body.Data, TenantRole{Role: r})
		}
	}
	custom, next, err := s.roles(ctx).ListCustomRoles(ctx, pg)
	if err != nil {
		return nil, err
	}
	for i := range custom {
		out.Body.Data = append(out.Body.Data, roleOf(&custom[i]))
	}
	out.Body.NextCursor = s.cursors.encode(next)
	return out, nil
}

// createRole creates a custom role.
func (s *Server) createRole(ctx context.Context, in *RoleInput) (*RoleOutput, error) {
	if _, builtin := authz.BuiltinRole(in.Body.Name); builtin {
		return nil, models.Conflict("ROLE_NAME_TAKEN", "a built-in role has this name")
	}
	perms, err := s.checkPermissions(ctx, in.Body.Permissions, authz.Audience(in.Body.Audience))
	if err != nil {
		return nil, err
	}
	r := &models.CustomRole{Name: in.Body.Name, Description: in.Body.Description, Audience: in.Body.Audience, Permissions: perms}
	if err := s.roles(ctx).CreateCustomRole(ctx, r); err != nil {
		return nil, err
	}
	s.deps.Authorizer.Invalidate(r.TenantID)
	return &RoleOutput{Body: roleOf(r)}, nil
}

// getRole answers one custom role.
func (s *Server) getRole(ctx context.Context, in *IDPath) (*RoleOutput, error) {
	r, err := s.roles(ctx).CustomRole(ctx, in.ID, false)
	if err != nil {
		return nil, err
	}
	return &RoleOutput{Body: roleOf(r)}, nil
}

// updateRole changes a custom role; its holders gain or lose permissions at once.
func (s *Server) updateRole(ctx context.Context, in *UpdateRoleInput) (*RoleOutput, error) {
	current, err := s.roles(ctx).CustomRole(ctx, in.ID, false)
	if err != nil {
		return nil, err
	}
	var perms *string
	if in.Body.Permissions != nil {
		p, err := s.checkPermissions(ctx, in.Body.Permissions, authz.Audience(current.Audience))
		if err != nil {
			return nil, err
		}
		perms = &p
	}
	r, err := s.roles(ctx).UpdateCustomRole(ctx, in.ID, in.Body.Description, perms)
	if err != nil {
		return nil, err
	}
	s.deps.Authorizer.Invalidate(r.TenantID)
	return &RoleOutput{Body: roleOf(r)}, nil
}

// deleteRole deletes a custom role and its assignments.
func (s *Server) deleteRole(ctx context.Context, in *IDPath) (*struct{}, error) {
	if err := s.roles(ctx).DeleteCustomRole(ctx, in.ID); err != nil {
		return nil, err
	}
	s.deps.Authorizer.Invalidate(models.PrincipalFrom(ctx).TenantID)
	return nil, nil
}

// checkPermissions validates a custom role's permissions: catalogued, fit for the audience and
// held by the caller. It returns them as the stored JSON array.
func (s *Server) checkPermissions(ctx context.Context, perms []string, audience authz.Audience) (string, error) {
	p := models.PrincipalFrom(ctx)
	var problems []models.FieldError
	for i, name := range perms {
		loc := "body.permissions[" + strconv.Itoa(i) + "]"
		perm := authz.Permission(name)
		switch held, err := s.deps.Authorizer.Allowed(ctx, p, perm); {
		case err != nil:
			return "", err
		case !authz.Known(perm):
			problems = append(problems, models.FieldError{Location: loc, Message: "not a permission of the catalogue", Value: name})
		case audience == authz.ForPartners && authz.ForOperatorsOnly(perm):
			problems = append(problems, models.FieldError{Location: loc, Message: "partner roles cannot hold it", Value: name})
		case !held:
			problems = append(problems, models.FieldError{Location: loc, Message: "you do not hold this permission", Value: name})
		}
	}
	if len(problems) > 0 {
		return "", models.Invalid("INVALID_PERMISSIONS", "the role cannot be saved", problems...)
	}
	b, _ := json.Marshal(slices.Sorted(slices.Values(perms)))
	return string(b), nil
}
