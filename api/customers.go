package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// CustomerStore is what the customer operations need of storage, as the caller sees it.
type CustomerStore interface {
	CreateCustomer(ctx context.Context, c *models.Customer) error
	ListCustomers(ctx context.Context, f models.CustomerFilter, pg models.Page) ([]models.Customer, string, error)
	Customer(ctx context.Context, id string) (*models.Customer, error)
	UpdateCustomer(ctx context.Context, id string, ch models.CustomerChanges) (*models.Customer, error)
	DeleteCustomer(ctx context.Context, id string) error
}

// customers is the customer store as the caller sees it.
func (s *Server) customers(ctx context.Context) CustomerStore {
	return s.deps.Modules.Customers(models.PrincipalFrom(ctx))
}

// Customer is an end customer as the API shows it.
type Customer struct {
	ID         string    `json:"id"`
	Email      string    `json:"email,omitempty"`
	ExternalID string    `json:"externalId,omitempty"`
	Name       string    `json:"name,omitempty"`
	PartnerID  string    `json:"partnerId,omitempty" doc:"The partner the customer is attributed to; absent while unattributed"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
}

func customerOf(c *models.Customer) Customer {
	return Customer{ID: c.ID, Email: str(c.Email), ExternalID: str(c.ExternalID), Name: c.Name, PartnerID: str(c.PartnerID),
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// CreateCustomerInput adds a customer. Only these fields can be set.
type CreateCustomerInput struct {
	Body struct {
		Email      string `json:"email,omitempty" format:"email" maxLength:"320"`
		ExternalID string `json:"externalId,omitempty" minLength:"1" maxLength:"200" doc:"Your own id of the customer, unique per tenant"`
		Name       string `json:"name,omitempty" maxLength:"200"`
		PartnerID  string `json:"partnerId,omitempty" maxLength:"36" doc:"Attribute the customer to this partner (operators); partners always create their own"`
	}
}

// UpdateCustomerInput changes a customer; absent fields stay, "" clears email, externalId
// and partnerId.
type UpdateCustomerInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Email      *string `json:"email,omitempty" maxLength:"320"`
		ExternalID *string `json:"externalId,omitempty" maxLength:"200"`
		Name       *string `json:"name,omitempty" maxLength:"200"`
		PartnerID  *string `json:"partnerId,omitempty" maxLength:"36" doc:"Operators only: attribute to this partner, or \"\" to remove the attribution"`
	}
}

// ListCustomersInput filters the customer list.
type ListCustomersInput struct {
	ListParams
	PartnerID    string `query:"partnerId" maxLength:"36"`
	Email        string `query:"email" maxLength:"320"`
	Unattributed bool   `query:"unattributed" doc:"Only customers attributed to no partner"`
	Q            string `query:"q" maxLength:"200" doc:"Text in the name, email or external id, case-insensitively" example:"acme"`
}

// CustomerOutput is one customer.
type CustomerOutput struct {
	Body Customer
}

// CustomerListOutput is a page of customers.
type CustomerListOutput struct {
	Body ListBody[Customer]
}

func registerCustomerRoutes(s *Server) {
	tags := []string{"Customers"}
	register(s, huma.Operation{
		OperationID: "create-customer", Method: http.MethodPost, Path: "/api/customers", Tags: tags,
		RequestBody: requestExample(`{"email": "billing@initech.example", "name": "Initech", "externalId": "crm-48213", "partnerId": "01936f3a-5b2c-7e41-8d9a-4c2b7e1f6a30"}`),
		Summary:     "Create a customer", DefaultStatus: http.StatusCreated, Security: UsersOrKeys,
		Errors: []int{http.StatusConflict, http.StatusUnprocessableEntity},
	}, Requires(authz.CustomersWrite), s.createCustomer)

	register(s, huma.Operation{
		OperationID: "list-customers", Method: http.MethodGet, Path: "/api/customers", Tags: tags,
		Summary: "List customers", Description: "Partners see only customers attributed to them.", Security: UsersOrKeys,
	}, Requires(authz.CustomersRead), s.listCustomers)

	register(s, huma.Operation{
		OperationID: "get-customer", Method: http.MethodGet, Path: "/api/customers/{id}", Tags: tags,
		Summary: "Get a customer", Security: UsersOrKeys, Errors: []int{http.StatusNotFound},
	}, Requires(authz.CustomersRead), s.getCustomer)

	register(s, huma.Operation{
		OperationID: "update-customer", Method: http.MethodPatch, Path: "/api/customers/{id}", Tags: tags,
		RequestBody: requestExample(`{"name": "Initech GmbH", "externalId": "crm-48213"}`),
		Summary:     "Change a customer", Security: UsersOrKeys,
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, Requires(authz.CustomersWrite), s.updateCustomer)

	register(s, huma.Operation{
		OperationID: "delete-customer", Method: http.MethodDelete, Path: "/api/customers/{id}", Tags: tags,
		Summary: "Delete a customer", Description: "Its events stay, attributed as they were.",
		Security: UsersOrKeys, DefaultStatus: http.StatusNoContent, Errors: []int{http.StatusNotFound},
	}, Requires(authz.CustomersWrite), s.deleteCustomer)
}

// createCustomer creates a customer.
func (s *Server) createCustomer(ctx context.Context, in *CreateCustomerInput) (*CustomerOutput, error) {
	b := in.Body
	if b.Email == "" && b.ExternalID == "" {
		return nil, models.Invalid("CUSTOMER_IDENTITY_REQUIRED", "a customer needs an email or an external id",
			models.FieldError{Location: "body.email", Message: "email or externalId is required"})
	}
	c := &models.Customer{Email: nonEmpty(b.Email), ExternalID: nonEmpty(b.ExternalID), Name: b.Name, PartnerID: nonEmpty(b.PartnerID)}
	if err := s.customers(ctx).CreateCustomer(ctx, c); err != nil {
		return nil, err
	}
	return &CustomerOutput{Body: customerOf(c)}, nil
}

// listCustomers lists customers.
func (s *Server) listCustomers(ctx context.Context, in *ListCustomersInput) (*CustomerListOutput, error) {
	f := models.CustomerFilter{PartnerID: in.PartnerID, Email: in.Email, Unattributed: in.Unattributed, Q: in.Q}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Customer, string, error) {
		return s.customers(ctx).ListCustomers(ctx, f, pg)
	}, customerOf)
	return &CustomerListOutput{Body: body}, err
}

// getCustomer answers one customer.
func (s *Server) getCustomer(ctx context.Context, in *IDPath) (*CustomerOutput, error) {
	c, err := s.customers(ctx).Customer(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &CustomerOutput{Body: customerOf(c)}, nil
}

// updateCustomer changes a customer.
func (s *Server) updateCustomer(ctx context.Context, in *UpdateCustomerInput) (*CustomerOutput, error) {
	b := in.Body
	c, err := s.customers(ctx).UpdateCustomer(ctx, in.ID, models.CustomerChanges{Email: b.Email, ExternalID: b.ExternalID, Name: b.Name, PartnerID: b.PartnerID})
	if err != nil {
		return nil, err
	}
	return &CustomerOutput{Body: customerOf(c)}, nil
}

// deleteCustomer deletes a customer.
func (s *Server) deleteCustomer(ctx context.Context, in *IDPath) (*struct{}, error) {
	return nil, s.customers(ctx).DeleteCustomer(ctx, in.ID)
}

func nonEmpty(v string) *string {
	if v == "" {
		return nil
	}
	return &v
}
