package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// DomainStore is what the custom-domain operations need of storage, as the caller sees it.
type DomainStore interface {
	AddDomain(ctx context.Context, host, partnerID string) (*models.Domain, error)
	Domain(ctx context.Context, id string) (*models.Domain, error)
	ListDomains(ctx context.Context, pg models.Page) ([]models.Domain, string, error)
	RemoveDomain(ctx context.Context, id string) (*models.Domain, error)
	RestartVerification(ctx context.Context, id string) (*models.Domain, error)
	CORSOrigins(ctx context.Context) ([]string, error)
	SetCORSOrigins(ctx context.Context, origins []string) (list, changed []string, err error)
}

// DomainVerifier starts a custom domain's verification (a Temporal workflow).
type DomainVerifier interface {
	VerifyDomain(ctx context.Context, tenantID, domainID string) error
}

// domains is the custom-domain store as the caller sees it.
func (s *Server) domains(ctx context.Context) DomainStore {
	return s.deps.Modules.Domains(models.PrincipalFrom(ctx))
}

// TXTRecord is the DNS record that proves control of a host.
type TXTRecord struct {
	Name  string `json:"name" example:"_partnerd-challenge.partners.acme.com"`
	Type  string `json:"type" enum:"TXT"`
	Value string `json:"value" example:"partnerd-verify=mfrggzdfmztwq2lknnwg23tpobyxe43u"`
}

// Domain is a custom domain with the record to create and its verification status.
type Domain struct {
	ID           string     `json:"id"`
	Host         string     `json:"host"`
	PartnerID    string     `json:"partnerId,omitempty" doc:"The partner whose co-branded portal the host serves; absent for the tenant's portal"`
	Status       string     `json:"status" enum:"pending,verified,failed,unverified" doc:"pending: looking for the record (up to 72 h, with backoff); verified: the host serves the portal, checked daily; failed: the record was not found in time; unverified: the record was missing through the grace period"`
	Record       TXTRecord  `json:"record"`
	LastError    string     `json:"lastError,omitempty" doc:"Why the last lookup failed, when it did"`
	CheckedAt    *time.Time `json:"checkedAt,omitempty"`
	VerifiedAt   *time.Time `json:"verifiedAt,omitempty"`
	MissingSince *time.Time `json:"missingSince,omitempty" doc:"Since when a verified domain's record is missing"`
	CreatedAt    time.Time  `json:"createdAt"`
}

func domainOf(d *models.Domain) Domain {
	return Domain{ID: d.ID, Host: d.Host, PartnerID: d.PartnerID, Status: d.Status,
		Record:    TXTRecord{Name: d.ChallengeName(), Type: "TXT", Value: d.Token},
		LastError: d.LastError, CheckedAt: d.CheckedAt, VerifiedAt: d.VerifiedAt, MissingSince: d.MissingSince, CreatedAt: d.CreatedAt}
}

// DomainOutput is one custom domain.
type DomainOutput struct{ Body Domain }

// DomainListOutput is a page of custom domains.
type DomainListOutput struct{ Body ListBody[Domain] }

// AddDomainInput adds a custom domain.
type AddDomainInput struct {
	Body struct {
		Host      string `json:"host" minLength:"3" maxLength:"253" example:"partners.acme.com"`
		PartnerID string `json:"partnerId,omitempty" maxLength:"36" doc:"For one partner's co-branded portal"`
	}
}

func registerDomainRoutes(s *Server) {
	tags := []string{"Domains"}
	register(s, huma.Operation{OperationID: "list-domains", Method: http.MethodGet, Path: "/api/domains", Tags: tags,
		Summary: "List the tenant's custom domains", Security: UsersOrKeys}, Requires(authz.DomainsRead), s.listDomains)
	register(s, huma.Operation{OperationID: "add-domain", Method: http.MethodPost, Path: "/api/domains", Tags: tags,
		RequestBody: requestExample(`{"host": "partners.acme.com"}`),
		Summary:     "Add a custom domain", Description: "Answers the TXT record to create and starts its verification, which looks for the record for up to 72 h with backoff, then re-checks a verified domain daily. Emits domain.added. Without a running worker the domain stays pending (503); verify-domain starts it again.",
		DefaultStatus: http.StatusCreated, Security: UsersOrKeys,
		Errors: []int{http.StatusConflict, http.StatusUnprocessableEntity, http.StatusServiceUnavailable}}, Requires(authz.DomainsWrite), s.addDomain)
	register(s, huma.Operation{OperationID: "get-domain", Method: http.MethodGet, Path: "/api/domains/{id}", Tags: tags,
		Summary: "Get a custom domain", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.DomainsRead), s.getDomain)
	register(s, huma.Operation{OperationID: "verify-domain", Method: http.MethodPost, Path: "/api/domains/{id}/verify", Tags: tags,
		Summary: "Start a custom domain's verification again", Description: "A failed or unverified domain becomes pending and a new 72 h window begins; a pending or verified one is checked again now.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusServiceUnavailable}}, Requires(authz.DomainsWrite), s.verifyDomain)
	register(s, huma.Operation{OperationID: "remove-domain", Method: http.MethodDelete, Path: "/api/domains/{id}", Tags: tags,
		Summary: "Remove a custom domain", Description: "The host stops serving the portal at once (within the host cache's lifetime in other processes). Emits domain.removed.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.DomainsWrite), s.removeDomain)
	register(s, huma.Operation{OperationID: "get-cors-origins", Method: http.MethodGet, Path: "/api/settings/cors-origins", Tags: tags,
		Summary:     "The origins allowed to call the API from a browser",
		Description: "Besides the tenant's verified custom domains, which are always allowed.", Security: UsersOrKeys},
		Requires(authz.DomainsRead), s.getCORSOrigins)
	register(s, huma.Operation{OperationID: "set-cors-origins", Method: http.MethodPut, Path: "/api/settings/cors-origins", Tags: tags,
		RequestBody: requestExample(`{"origins": ["https://www.acme.com", "http://localhost:3000"]}`),
		Summary:     "Replace the origins allowed to call the API from a browser",
		Description: "At most 20 origins, each scheme, host and port only (`https://www.acme.com`, `https://app.acme.com:8443`): https, or http for localhost, 127.0.0.1 and [::1] only; no path, wildcard or `null`. A browser on a listed origin may call the API with credentials; a removed origin is refused at once in this process and within a minute in the others. Audited.",
		Security:    UsersOrKeys, Errors: []int{http.StatusUnprocessableEntity}}, Requires(authz.DomainsWrite), s.setCORSOrigins)
}

// CORSOrigins are the origins a tenant allows to call the API from a browser, besides its
// verified custom domains.
type CORSOrigins struct {
	Origins []string `json:"origins" nullable:"false" doc:"Each scheme://host[:port], sorted"`
}

// CORSOriginsOutput is the tenant's allowed origins.
type CORSOriginsOutput struct{ Body CORSOrigins }

// SetCORSOriginsInput replaces the tenant's allowed origins.
type SetCORSOriginsInput struct {
	Body struct {
		Origins []string `json:"origins" maxItems:"20" nullable:"false" maxLength:"300" doc:"The whole list; an empty list removes every origin" example:"[\"https://www.acme.com\"]"`
	}
}

func (s *Server) getCORSOrigins(ctx context.Context, _ *struct{}) (*CORSOriginsOutput, error) {
	list, err := s.domains(ctx).CORSOrigins(ctx)
	if err != nil {
		return nil, err
	}
	return &CORSOriginsOutput{Body: CORSOrigins{Origins: list}}, nil
}

func (s *Server) setCORSOrigins(ctx context.Context, in *SetCORSOriginsInput) (*CORSOriginsOutput, error) {
	list, changed, err := s.domains(ctx).SetCORSOrigins(ctx, in.Body.Origins)
	if err != nil {
		return nil, err
	}
	s.forgetOrigins(changed)
	return &CORSOriginsOutput{Body: CORSOrigins{Origins: list}}, nil
}

func (s *Server) listDomains(ctx context.Context, in *ListParams) (*DomainListOutput, error) {
	body, err := listPage(ctx, s, *in, func(pg models.Page) ([]models.Domain, string, error) {
		return s.domains(ctx).ListDomains(ctx, pg)
	}, domainOf)
	return &DomainListOutput{Body: body}, err
}

// startVerification starts d's verification workflow.
func (s *Server) startVerification(ctx context.Context, d *models.Domain) error {
	if s.deps.Domains == nil {
		return models.Errorf(models.KindUnavailable, "VERIFICATION_UNAVAILABLE", "domain verification is not running; try verify-domain later")
	}
	if err := s.deps.Domains.VerifyDomain(ctx, d.TenantID, d.ID); err != nil {
		s.log.ErrorContext(ctx, "starting a domain verification failed", "request_id", RequestID(ctx), "error", err.Error())
		return models.Errorf(models.KindUnavailable, "VERIFICATION_UNAVAILABLE", "domain verification could not start; try verify-domain later")
	}
	return nil
}

func (s *Server) addDomain(ctx context.Context, in *AddDomainInput) (*DomainOutput, error) {
	d, err := s.domains(ctx).AddDomain(ctx, in.Body.Host, in.Body.PartnerID)
	if err != nil {
		return nil, err
	}
	if err := s.startVerification(ctx, d); err != nil {
		return nil, err
	}
	return &DomainOutput{Body: domainOf(d)}, nil
}

func (s *Server) getDomain(ctx context.Context, in *IDPath) (*DomainOutput, error) {
	d, err := s.domains(ctx).Domain(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &DomainOutput{Body: domainOf(d)}, nil
}

func (s *Server) verifyDomain(ctx context.Context, in *IDPath) (*DomainOutput, error) {
	d, err := s.domains(ctx).RestartVerification(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	if err := s.startVerification(ctx, d); err != nil {
		return nil, err
	}
	return &DomainOutput{Body: domainOf(d)}, nil
}

func (s *Server) removeDomain(ctx context.Context, in *IDPath) (*DomainOutput, error) {
	d, err := s.domains(ctx).RemoveDomain(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	s.forgetHost(d.Host)
	return &DomainOutput{Body: domainOf(d)}, nil
}
