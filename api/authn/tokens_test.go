package authn

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/partnerd/partnerd/models"
)

func keyring(t *testing.T, current int, versions ...int) *models.Keyring {
	t.Helper()
	m := map[int][]byte{}
	for _, v := range versions {
		m[v] = bytes.Repeat([]byte{byte(v + 40)}, 32)
	}
	k, err := models.NewKeyring(m, current)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

var alice = models.Principal{Kind: models.PrincipalOperator, TenantID: "t1", UserID: "u1"}

func TestAccessTokensRoundTrip(t *testing.T) {
	tokens := NewTokens(keyring(t, 1, 1), "partnerd", "partnerd-api")
	tok, exp, err := tokens.Issue(alice)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Until(exp); d < 14*time.Minute || d > 15*time.Minute {
		t.Fatalf("expiry in %v, want 15 minutes", d)
	}
	c, err := tokens.Verify(tok)
	if err != nil {
		t.Fatal(err)
	}
	if c.Subject != "u1" || c.TenantID != "t1" || c.Kind != "operator" || c.ID == "" {
		t.Fatalf("claims = %+v", c)
	}
	header := decodeSegment(t, tok, 0)
	if header["typ"] != "at+jwt" || header["alg"] != "HS256" || header["kid"] != "v1" {
		t.Fatalf("header = %v", header)
	}
}

func TestAccessTokenVerificationRejects(t *testing.T) {
	k := keyring(t, 1, 1)
	tokens := NewTokens(k, "partnerd", "partnerd-api")
	good, _, _ := tokens.Issue(alice)
	key, _ := k.DeriveKey(1, "access tokens")

	sign := func(method jwt.SigningMethod, key any, header map[string]any, claims jwt.MapClaims) string {
		tok := jwt.NewWithClaims(method, claims)
		for k, v := range header {
			tok.Header[k] = v
		}
		s, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	now := time.Now()
	valid := func() jwt.MapClaims {
		return jwt.MapClaims{"iss": "partnerd", "aud": "partnerd-api", "sub": "u1", "tid": "t1", "knd": "operator",
			"exp": now.Add(time.Minute).Unix(), "iat": now.Unix()}
	}
	with := func(k string, v any) jwt.MapClaims { c := valid(); c[k] = v; return c }
	without := func(k string) jwt.MapClaims { c := valid(); delete(c, k); return c }
	std := map[string]any{"typ": "at+jwt", "kid": "v1"}

	// alg none: header {"alg":"none"} with an empty signature.
	parts := strings.Split(good, ".")
	noneHeader := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"at+jwt","kid":"v1"}`))
	algNone := noneHeader + "." + parts[1] + "."

	cases := map[string]string{
		"alg none":                algNone,
		"a wrong algorithm HS512": sign(jwt.SigningMethodHS512, key, std, valid()),
		"a wrong issuer":          sign(jwt.SigningMethodHS256, key, std, with("iss", "evil")),
		"a wrong audience":        sign(jwt.SigningMethodHS256, key, std, with("aud", "other-api")),
		"an expired token":        sign(jwt.SigningMethodHS256, key, std, with("exp", now.Add(-time.Minute).Unix())),
		"no expiry":               sign(jwt.SigningMethodHS256, key, std, without("exp")),
		"a wrong typ":             sign(jwt.SigningMethodHS256, key, map[string]any{"typ": "JWT", "kid": "v1"}, valid()),
		"no typ":                  sign(jwt.SigningMethodHS256, key, map[string]any{"kid": "v1"}, valid()),
		"an unknown kid":          sign(jwt.SigningMethodHS256, key, map[string]any{"typ": "at+jwt", "kid": "v9"}, valid()),
		"another key":             sign(jwt.SigningMethodHS256, bytes.Repeat([]byte{1}, 32), std, valid()),
		"no tenant":               sign(jwt.SigningMethodHS256, key, std, without("tid")),
		"a tampered payload":      parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"u2"}`)) + "." + parts[2],
		"garbage":                 "not.a.jwt",
	}
	for name, tok := range cases {
		if _, err := tokens.Verify(tok); err == nil {
			t.Errorf("%s was accepted", name)
		}
	}
	if _, err := tokens.Verify(sign(jwt.SigningMethodHS256, key, std, valid())); err != nil {
		t.Fatalf("the control token was rejected: %v", err)
	}
}

func TestTokensSurviveKeyRotation(t *testing.T) {
	before := NewTokens(keyring(t, 1, 1), "partnerd", "partnerd-api")
	tok, _, _ := before.Issue(alice)
	after := NewTokens(keyring(t, 2, 1, 2), "partnerd", "partnerd-api")
	if _, err := after.Verify(tok); err != nil {
		t.Fatalf("a token signed before rotation was rejected: %v", err)
	}
	fresh, _, _ := after.Issue(alice)
	if decodeSegment(t, fresh, 0)["kid"] != "v2" {
		t.Fatal("new tokens are not signed with the new key")
	}
}

func decodeSegment(t *testing.T, tok string, i int) map[string]any {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[i])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
