package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

const tagAPIKeys = "Machine keys"

// MachineKey is a machine key as the API shows it: never its secret.
type MachineKey struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix" doc:"The first characters of the key, to recognise it"`
	Scopes     []string   `json:"scopes"`
	PartnerID  string     `json:"partnerId,omitempty"`
	CreatedBy  string     `json:"createdBy"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty" doc:"Updated at most once a minute"`
	ExpiresAt  *time.Time `json:"expiresAt,omitempty"`
	RevokedAt  *time.Time `json:"revokedAt,omitempty"`
}

func apiKeyOf(k *models.APIKey) MachineKey {
	out := MachineKey{ID: k.ID, Name: k.Name, Prefix: authn.KeyDisplayPrefix(k.LookupID), CreatedBy: k.CreatedBy,
		CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt, ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt}
	_ = json.Unmarshal([]byte(k.Scopes), &out.Scopes)
	if k.PartnerID != nil {
		out.PartnerID = *k.PartnerID
	}
	return out
}

// CreateMachineKeyInput creates a machine key. Only these fields can be set.
type CreateMachineKeyInput struct {
	Body struct {
		Name      string     `json:"name" minLength:"1" maxLength:"200"`
		Scopes    []string   `json:"scopes" minItems:"1" maxItems:"64" uniqueItems:"true" maxLength:"64" doc:"Permissions of the key; each must be one the creator holds"`
		PartnerID string     `json:"partnerId,omitempty" maxLength:"36" doc:"Bind the key to one partner organisation"`
		ExpiresAt *time.Time `json:"expiresAt,omitempty" doc:"When the key stops working"`
	}
}

// CreatedMachineKeyOutput shows the key's plaintext, this once.
type CreatedMachineKeyOutput struct {
	CacheControl string `header:"Cache-Control"`
	Body         struct {
		MachineKey
		Key string `json:"key" doc:"The machine key; shown only in this response"`
	}
}

// MachineKeyOutput is one machine key.
type MachineKeyOutput struct {
	Body MachineKey
}

// MachineKeyListOutput is a page of machine keys.
type MachineKeyListOutput struct {
	Body ListBody[MachineKey]
}

// IDPath names a record by id.
type IDPath struct {
	ID string `path:"id" maxLength:"36"`
}

// KeyStore is what the machine key operations need of storage, as the caller sees it.
type KeyStore interface {
	CreateAPIKey(ctx context.Context, k *models.APIKey) error
	ListAPIKeys(ctx context.Context, pg models.Page) ([]models.APIKey, string, error)
	APIKey(ctx context.Context, id string) (*models.APIKey, error)
	RevokeAPIKey(ctx context.Context, id string) (*models.APIKey, error)
}

// apiKeys is the machine key store as the caller sees it.
func (s *Server) apiKeys(ctx context.Context) KeyStore {
	return s.deps.Modules.APIKeys(models.PrincipalFrom(ctx))
}

func registerAPIKeyRoutes(s *Server) {
	tags := []string{tagAPIKeys}
	register(s, huma.Operation{
		OperationID: "create-apikey", Method: http.MethodPost, Path: "/api/apikeys", Tags: tags,
		RequestBody: requestExample(`{"name": "CRM sync", "scopes": ["events:write", "customers:read"], "expiresAt": "2027-01-01T00:00:00Z"}`),
		Summary:     "Create a machine key; the key is returned only here", DefaultStatus: http.StatusCreated,
		Security: UsersOnly, Errors: []int{http.StatusUnprocessableEntity},
	}, Requires(authz.APIKeysWrite), s.createAPIKey)

	register(s, huma.Operation{
		OperationID: "list-apikeys", Method: http.MethodGet, Path: "/api/apikeys", Tags: tags,
		Summary: "List machine keys", Security: UsersOrKeys,
	}, Requires(authz.APIKeysRead), s.listAPIKeys)

	register(s, huma.Operation{
		OperationID: "get-apikey", Method: http.MethodGet, Path: "/api/apikeys/{id}", Tags: tags,
		Summary: "Get a machine key", Security: UsersOrKeys, Errors: []int{http.StatusNotFound},
	}, Requires(authz.APIKeysRead), s.getAPIKey)

	register(s, huma.Operation{
		OperationID: "revoke-apikey", Method: http.MethodDelete, Path: "/api/apikeys/{id}", Tags: tags,
		Summary: "Revoke a machine key", Description: "It stops working at once on the server that revoked it and within 2 seconds on every other.",
		Security: UsersOnly, Errors: []int{http.StatusNotFound},
	}, Requires(authz.APIKeysWrite), s.revokeAPIKey)
}

// listAPIKeys lists the tenant's machine keys.
func (s *Server) listAPIKeys(ctx context.Context, in *struct{ ListParams }) (*MachineKeyListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.APIKey, string, error) {
		return s.apiKeys(ctx).ListAPIKeys(ctx, pg)
	}, apiKeyOf)
	return &MachineKeyListOutput{Body: body}, err
}

// getAPIKey answers one machine key.
func (s *Server) getAPIKey(ctx context.Context, in *IDPath) (*MachineKeyOutput, error) {
	k, err := s.apiKeys(ctx).APIKey(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &MachineKeyOutput{Body: apiKeyOf(k)}, nil
}

// revokeAPIKey revokes a machine key, which stops working at once.
func (s *Server) revokeAPIKey(ctx context.Context, in *IDPath) (*MachineKeyOutput, error) {
	k, err := s.apiKeys(ctx).RevokeAPIKey(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	if f, ok := s.deps.Authenticator.(interface{ ForgetMachineKey(keyID string) }); ok {
		f.ForgetMachineKey(k.ID)
	}
	return &MachineKeyOutput{Body: apiKeyOf(k)}, nil
}

// createAPIKey creates a machine key holding scopes its creator holds and shows the key this once.
func (s *Server) createAPIKey(ctx context.Context, in *CreateMachineKeyInput) (*CreatedMachineKeyOutput, error) {
	p := models.PrincipalFrom(ctx)
	var problems []models.FieldError
	for i, scope := range in.Body.Scopes {
		perm := authz.Permission(scope)
		loc := "body.scopes[" + strconv.Itoa(i) + "]"
		if !authz.Known(perm) {
			problems = append(problems, models.FieldError{Location: loc, Message: "not a permission of the catalogue", Value: scope})
			continue
		}
		held, err := s.deps.Authorizer.Allowed(ctx, p, perm)
		if err != nil {
			return nil, err
		}
		if !held {
			problems = append(problems, models.FieldError{Location: loc, Message: "you do not hold this permission", Value: scope})
		}
	}
	if in.Body.PartnerID != "" {
		if _, err := s.partners(ctx).Partner(ctx, in.Body.PartnerID); models.ErrorKind(err) == models.KindNotFound {
			problems = append(problems, models.FieldError{Location: "body.partnerId", Message: "no such partner", Value: in.Body.PartnerID})
		} else if err != nil {
			return nil, err
		}
	}
	if in.Body.ExpiresAt != nil && !in.Body.ExpiresAt.After(time.Now()) {
		problems = append(problems, models.FieldError{Location: "body.expiresAt", Message: "must be in the future"})
	}
	if len(problems) > 0 {
		return nil, models.Invalid("INVALID_API_KEY", "the key cannot be created", problems...)
	}
	minted, err := authn.NewMachineKey()
	if err != nil {
		return nil, err
	}
	scopes, _ := json.Marshal(slices.Sorted(slices.Values(in.Body.Scopes)))
	rec := &models.APIKey{Name: in.Body.Name, LookupID: minted.LookupID, Hash: minted.Hash, Scopes: string(scopes), ExpiresAt: in.Body.ExpiresAt}
	if in.Body.PartnerID != "" {
		rec.PartnerID = &in.Body.PartnerID
	}
	if err := s.apiKeys(ctx).CreateAPIKey(ctx, rec); err != nil {
		return nil, err
	}
	out := &CreatedMachineKeyOutput{CacheControl: "no-store"}
	out.Body.MachineKey = apiKeyOf(rec)
	out.Body.Key = minted.Plaintext
	return out, nil
}
