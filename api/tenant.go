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
		IngestCreatesCustomers bool      `json:"ingestCreatesCustomers" doc:"Whether ingesting an event for an unknown email creates an unattributed customer"`
		DealProtectionDays     int       `json:"dealProtectionDays" doc:"How many days an approved deal is protected before it expires without progress"`
		LevelChanges           string    `json:"levelChanges" enum:"propose,apply" doc:"Whether the daily level review proposes level changes to operators or applies them"`
		SurveyOnResolve        bool      `json:"surveyOnResolve" doc:"Whether a ticket's requester is sent a CSAT survey when the ticket is resolved"`
		CreatedAt              time.Time `json:"createdAt"`
	}
}

// UpdateTenantInput changes the tenant's profile; absent fields stay.
type UpdateTenantInput struct {
	Body struct {
		Name                   *string `json:"name,omitempty" minLength:"1" maxLength:"200"`
		IngestCreatesCustomers *bool   `json:"ingestCreatesCustomers,omitempty" doc:"Whether ingesting an event for an unknown email creates an unattributed customer (default true)"`
		DealProtectionDays     *int    `json:"dealProtectionDays,omitempty" minimum:"1" maximum:"730" doc:"How many days an approved deal is protected (default 90); applies to approvals and extensions from now on"`
		LevelChanges           *string `json:"levelChanges,omitempty" enum:"propose,apply" doc:"Whether the daily level review proposes level changes (default) or applies them"`
		SurveyOnResolve        *bool   `json:"surveyOnResolve,omitempty" doc:"Whether a ticket's requester is sent a CSAT survey when the ticket is resolved (default false)"`
	}
}

// TenantStore is what the tenant operations need of storage, as the caller sees it.
type TenantStore interface {
	UpdateTenant(ctx context.Context, c models.TenantChanges) (*models.Tenant, error)
}

// tenant is the caller's tenant as the caller sees it.
func (s *Server) tenant(ctx context.Context) TenantStore {
	return s.deps.Modules.Tenant(models.PrincipalFrom(ctx))
}

func registerTenantRoutes(s *Server) {
	tags := []string{"Tenant"}
	register(s, huma.Operation{OperationID: "get-tenant", Method: http.MethodGet, Path: "/api/tenant", Tags: tags,
		Summary: "The caller's tenant", Security: UsersOrKeys}, Requires(authz.TenantRead), s.getTenant)
	register(s, huma.Operation{OperationID: "update-tenant", Method: http.MethodPatch, Path: "/api/tenant", Tags: tags,
		RequestBody: requestExample(`{"dealProtectionDays": 120, "levelChanges": "propose"}`),
		Summary:     "Change the tenant's profile", Security: UsersOnly}, Requires(authz.TenantWrite), s.updateTenant)
}

// tenantOutput is the response holding the tenant t.
func tenantOutput(t *models.Tenant) *TenantOutput {
	o := &TenantOutput{}
	o.Body.TenantRef = TenantRef{ID: t.ID, Slug: t.Slug, Name: t.Name}
	o.Body.CreatedAt = t.CreatedAt
	o.Body.IngestCreatesCustomers = t.IngestCreatesCustomers
	o.Body.DealProtectionDays = t.DealProtectionDays
	o.Body.LevelChanges = t.LevelChanges
	o.Body.SurveyOnResolve = t.SurveyOnResolve
	return o
}

// getTenant answers the caller's tenant.
func (s *Server) getTenant(ctx context.Context, _ *struct{}) (*TenantOutput, error) {
	t, err := s.deps.Identity.TenantByID(ctx, models.PrincipalFrom(ctx).TenantID)
	if err != nil {
		return nil, err
	}
	return tenantOutput(t), nil
}

// updateTenant changes the tenant's profile.
func (s *Server) updateTenant(ctx context.Context, in *UpdateTenantInput) (*TenantOutput, error) {
	t, err := s.tenant(ctx).UpdateTenant(ctx, models.TenantChanges{Name: in.Body.Name, IngestCreatesCustomers: in.Body.IngestCreatesCustomers, DealProtectionDays: in.Body.DealProtectionDays, LevelChanges: in.Body.LevelChanges,
		SurveyOnResolve: in.Body.SurveyOnResolve})
	if err != nil {
		return nil, err
	}
	return tenantOutput(t), nil
}
