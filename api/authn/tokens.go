package authn

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/partnerd/partnerd/models"
)

// AccessTokenTTL is the lifetime of an access token.
const AccessTokenTTL = 15 * time.Minute

// accessTokenType is the JWT typ header of access tokens (RFC 9068).
const accessTokenType = "at+jwt"

// ErrInvalidToken reports an access token that must not be accepted, for whatever reason; the
// reason is not told to the caller.
var ErrInvalidToken = errors.New("authn: invalid access token")

// AccessClaims are the claims of a partnerd access token.
type AccessClaims struct {
	jwt.RegisteredClaims
	TenantID  string `json:"tid"`
	PartnerID string `json:"pid,omitempty"`
	Kind      string `json:"knd"`
}

// Tokens issues and verifies access tokens: HS256 only (pinned), with iss, aud, exp, iat and
// the at+jwt type required (RFC 8725). Signing keys derive from the master keyring; the kid
// names the key version, so the master key rotates like sealed secrets do.
type Tokens struct {
	keys     *models.Keyring
	issuer   string
	audience string
	ttl      time.Duration
	now      func() time.Time
}

// NewTokens returns an issuer/verifier for tokens of issuer meant for audience.
func NewTokens(keys *models.Keyring, issuer, audience string) *Tokens {
	return &Tokens{keys: keys, issuer: issuer, audience: audience, ttl: AccessTokenTTL, now: time.Now}
}

// Issue signs an access token for a user principal and returns it with its expiry.
func (t *Tokens) Issue(p models.Principal) (string, time.Time, error) {
	now := t.now()
	exp := now.Add(t.ttl)
	claims := AccessClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    t.issuer,
			Subject:   p.UserID,
			Audience:  jwt.ClaimStrings{t.audience},
			ExpiresAt: jwt.NewNumericDate(exp),
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
			ID:        models.NewID(),
		},
		TenantID:  p.TenantID,
		PartnerID: p.PartnerID,
		Kind:      string(p.Kind),
	}
	v := t.keys.Current()
	key, err := t.keys.DeriveKey(v, "access tokens")
	if err != nil {
		return "", time.Time{}, err
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	tok.Header["typ"] = accessTokenType
	tok.Header["kid"] = "v" + strconv.Itoa(v)
	signed, err := tok.SignedString(key)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("authn: sign: %w", err)
	}
	return signed, exp, nil
}

// Verify checks an access token's algorithm, type, key, signature, issuer, audience and times,
// and returns its claims.
func (t *Tokens) Verify(token string) (*AccessClaims, error) {
	var claims AccessClaims
	parsed, err := jwt.ParseWithClaims(token, &claims, func(tok *jwt.Token) (any, error) {
		if typ, _ := tok.Header["typ"].(string); !strings.EqualFold(typ, accessTokenType) {
			return nil, ErrInvalidToken
		}
		kid, _ := tok.Header["kid"].(string)
		v, err := strconv.Atoi(strings.TrimPrefix(kid, "v"))
		if err != nil || !strings.HasPrefix(kid, "v") {
			return nil, ErrInvalidToken
		}
		return t.keys.DeriveKey(v, "access tokens")
	},
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(t.issuer),
		jwt.WithAudience(t.audience),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(t.now),
		jwt.WithLeeway(5*time.Second),
	)
	if err != nil || !parsed.Valid || claims.Subject == "" || claims.TenantID == "" {
		return nil, ErrInvalidToken
	}
	return &claims, nil
}
