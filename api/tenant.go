package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// TenantOutput is the caller's tenant.
type TenantOutput struct {
	Body struct {
		TenantRef
		CreatedAt time.Time `json:"createdAt"`
	}
}

// UpdateTenantInput changes the tenant's profile; absent fields stay.
type UpdateTenantInput struct {
	Body struct {
		Name *string `json:"name,omitempty" minLength:"1" maxLength:"200"`
	}
}

// TenantStore is what the tenant operations need of the scoped store.
type TenantStore interface {
	RenameTenant(ctx context.Context, name string) (*models.Tenant, error)
}

func registerTenantRoutes(s *Server) {
	tags := []string{"Tenant"}
	out := func(t *models.Tenant) *TenantOutput {
		o := &TenantOutput{}
		o.Body.TenantRef = TenantRef{ID: t.ID, Slug: t.Slug, Name: t.Name}
		o.Body.CreatedAt = t.CreatedAt
		return o
	}
	register(s, huma.Operation{OperationID: "get-tenant", Method: http.MethodGet, Path: "/api/tenant", Tags: tags,
		Summary: "The caller's tenant", Security: UsersOrKeys}, Requires(authz.TenantRead),
		func(ctx context.Context, _ *struct{}) (*TenantOutput, error) {
			t, err := s.deps.Identity.TenantByID(ctx, models.PrincipalFrom(ctx).TenantID)
			if err != nil {
				return nil, err
			}
			return out(t), nil
		})
	register(s, huma.Operation{OperationID: "update-tenant", Method: http.MethodPatch, Path: "/api/tenant", Tags: tags,
		Summary: "Change the tenant's profile", Security: UsersOnly}, Requires(authz.TenantWrite),
		func(ctx context.Context, in *UpdateTenantInput) (*TenantOutput, error) {
			if in.Body.Name == nil {
				t, err := s.deps.Identity.TenantByID(ctx, models.PrincipalFrom(ctx).TenantID)
				if err != nil {
					return nil, err
				}
				return out(t), nil
			}
			t, err := s.scoped(ctx).RenameTenant(ctx, *in.Body.Name)
			if err != nil {
				return nil, err
			}
			return out(t), nil
		})
}
