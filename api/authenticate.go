package api

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/models"
)

// keyTouchInterval is how often a machine key's lastUsedAt is written at most.
const keyTouchInterval = time.Minute

// keyCacheTTL is how long a verified machine key's record is reused without a database read:
// a revocation through another process takes effect there within this time (at once in the
// process that revoked it).
const keyCacheTTL = 2 * time.Second

// keyCacheMax bounds the cached records; a full cache starts over.
const keyCacheMax = 10_000

type cachedKey struct {
	rec *models.APIKey
	at  time.Time
}

// credentialAuthenticator accepts user access tokens and machine keys.
type credentialAuthenticator struct {
	tokens *authn.Tokens
	store  IdentityStore
	now    func() time.Time

	mu      sync.Mutex
	touched map[string]time.Time // key id → last recorded use, to skip writes
	keys    map[string]cachedKey // lookup id → record read at most keyCacheTTL ago
}

func newCredentialAuthenticator(tokens *authn.Tokens, store IdentityStore) *credentialAuthenticator {
	return &credentialAuthenticator{tokens: tokens, store: store, now: time.Now, touched: map[string]time.Time{}, keys: map[string]cachedKey{}}
}

// keyRecord is the stored record of a machine key, from the cache when it was read less than
// keyCacheTTL ago. Unknown keys are never cached.
func (a *credentialAuthenticator) keyRecord(ctx context.Context, lookup string) (*models.APIKey, error) {
	now := a.now()
	a.mu.Lock()
	c, ok := a.keys[lookup]
	a.mu.Unlock()
	if ok && now.Sub(c.at) < keyCacheTTL {
		return c.rec, nil
	}
	rec, err := a.store.APIKeyByLookup(ctx, lookup)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	if len(a.keys) >= keyCacheMax {
		a.keys = map[string]cachedKey{}
	}
	a.keys[lookup] = cachedKey{rec: rec, at: now}
	a.mu.Unlock()
	return rec, nil
}

// ForgetMachineKey drops a key's cached record, so that its revocation applies at once.
func (a *credentialAuthenticator) ForgetMachineKey(keyID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for lookup, c := range a.keys {
		if c.rec.ID == keyID {
			delete(a.keys, lookup)
		}
	}
}

func invalidCredentials(msg string) *models.Error {
	return models.Errorf(models.KindUnauthenticated, "INVALID_CREDENTIALS", "%s", msg)
}

// Authenticate implements Authenticator.
func (a *credentialAuthenticator) Authenticate(ctx context.Context, header string, schemes []string) (*models.Principal, error) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return nil, models.Errorf(models.KindUnauthenticated, "UNAUTHENTICATED", "send Authorization: Bearer <access token or machine key>")
	}
	if authn.LooksLikeMachineKey(token) {
		if !slices.Contains(schemes, SchemeMachineKey) {
			return nil, invalidCredentials("this operation does not accept machine keys")
		}
		return a.machineKey(ctx, token)
	}
	if !slices.Contains(schemes, SchemeBearer) {
		return nil, invalidCredentials("this operation accepts machine keys only")
	}
	return a.accessToken(ctx, token)
}

func (a *credentialAuthenticator) machineKey(ctx context.Context, key string) (*models.Principal, error) {
	lookup, err := authn.ParseMachineKey(key)
	if err != nil {
		return nil, invalidCredentials("malformed machine key") // no database read
	}
	rec, err := a.keyRecord(ctx, lookup)
	if models.ErrorKind(err) == models.KindNotFound || (err == nil && !authn.KeyHashEqual(key, rec.Hash)) {
		return nil, invalidCredentials("unknown machine key")
	}
	if err != nil {
		return nil, err
	}
	now := a.now()
	if rec.RevokedAt != nil {
		return nil, invalidCredentials("the machine key was revoked")
	}
	if rec.ExpiresAt != nil && !now.Before(*rec.ExpiresAt) {
		return nil, invalidCredentials("the machine key has expired")
	}
	a.touch(ctx, rec.ID, now)
	var scopes []string
	if err := jsonUnmarshalString(rec.Scopes, &scopes); err != nil {
		return nil, err
	}
	p := &models.Principal{Kind: models.PrincipalMachineKey, TenantID: rec.TenantID, KeyID: rec.ID, Scopes: scopes}
	if rec.PartnerID != nil {
		p.PartnerID = *rec.PartnerID
	}
	return p, nil
}

// touch records a key's use at most once per interval per process, and the store's conditional
// update keeps it at most once per interval across processes.
func (a *credentialAuthenticator) touch(ctx context.Context, keyID string, now time.Time) {
	a.mu.Lock()
	last, ok := a.touched[keyID]
	if ok && now.Sub(last) < keyTouchInterval {
		a.mu.Unlock()
		return
	}
	a.touched[keyID] = now
	a.mu.Unlock()
	_ = a.store.TouchAPIKey(context.WithoutCancel(ctx), keyID, now.UTC(), keyTouchInterval)
}

func (a *credentialAuthenticator) accessToken(ctx context.Context, token string) (*models.Principal, error) {
	claims, err := a.tokens.Verify(token)
	if err != nil {
		return nil, invalidCredentials("invalid or expired access token")
	}
	u, err := a.store.UserByID(ctx, models.System(claims.TenantID), claims.Subject)
	if models.ErrorKind(err) == models.KindNotFound {
		return nil, invalidCredentials("invalid or expired access token")
	}
	if err != nil {
		return nil, err
	}
	if u.Status != models.UserStatusActive {
		return nil, invalidCredentials("the account is not active")
	}
	// Roles are not loaded here: the authorizer holds each tenant's assignments, so a request
	// costs one user read; GET /api/me reads the roles it shows.
	p := &models.Principal{Kind: models.PrincipalOperator, TenantID: u.TenantID, UserID: u.ID}
	if u.PartnerID != nil && *u.PartnerID != "" {
		p.Kind, p.PartnerID = models.PrincipalPartner, *u.PartnerID
	}
	return p, nil
}

func jsonUnmarshalString(s string, v any) error { return json.Unmarshal([]byte(s), v) }
