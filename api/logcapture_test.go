package api

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/stores"
)

// TestNoCredentialReachesTheLogs runs every credential flow with the HTTP layer and the store
// logging at debug level into one buffer, and looks for each secret in it.
func TestNoCredentialReachesTheLogs(t *testing.T) {
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx := context.Background()
	st, err := stores.Open(ctx, store.Config{SQLitePath: filepath.Join(t.TempDir(), "p.db"), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	master := make([]byte, 32)
	_, _ = rand.Read(master)
	keys, _ := models.NewKeyring(map[int][]byte{1: master}, 1)
	s := New(Config{Version: "test", SignupEnabled: true}, Deps{
		Logger: logger, Tenants: st, Identity: st, Modules: modulesOf(st),
		Tokens: authn.NewTokens(keys, "partnerd", "partnerd-api"), Authorizer: authz.NewAuthorizer(st), RateLimiter: st,
	})
	h := s.Handler()

	signupPassword := "signup-secret-password-1"
	res := do(t, h, http.MethodPost, "/api/signup", jsonBody(t, map[string]string{"organisationName": "Logs", "slug": "logs", "email": "o@logs.test", "password": signupPassword}))
	owner := decode[tokens](t, res)
	do(t, h, http.MethodPost, "/api/auth/login", jsonBody(t, map[string]string{"email": "o@logs.test", "password": "wrong-secret-guess-9"}))
	key := decode[keyOut](t, do(t, h, http.MethodPost, "/api/apikeys", jsonBody(t, map[string]any{"name": "k", "scopes": []string{"apikeys:read"}}), bearer(owner.AccessToken)...))
	do(t, h, http.MethodGet, "/api/apikeys", nil, bearer(key.Key)...)
	inv := decode[struct {
		ID         string                 `json:"id"`
		Invitation struct{ Token string } `json:"invitation"`
	}](t, do(t, h, http.MethodPost, "/api/users", jsonBody(t, map[string]any{"email": "u@logs.test", "name": "U", "roles": []string{"analyst"}}), bearer(owner.AccessToken)...))
	invitedPassword := "invited-secret-password-2"
	invited := decode[tokens](t, do(t, h, http.MethodPost, "/api/auth/accept-invitation", jsonBody(t, map[string]string{"token": inv.Invitation.Token, "password": invitedPassword})))
	// A constraint violation makes the store log the failed statement.
	do(t, h, http.MethodPost, "/api/users", jsonBody(t, map[string]any{"email": "u@logs.test", "name": "U", "roles": []string{"analyst"}}), bearer(owner.AccessToken)...)
	// A survey link's token is a credential in the path.
	surveyToken := "survey-link-secret-token-3"
	do(t, h, http.MethodGet, "/api/survey-links/"+surveyToken, nil)
	do(t, h, http.MethodPost, "/api/survey-links/"+surveyToken, jsonBody(t, map[string]any{"score": 5}))
	refreshed := decode[tokens](t, do(t, h, http.MethodPost, "/api/auth/refresh", jsonBody(t, map[string]string{"refreshToken": owner.RefreshToken})))
	sealedPlain := models.Secret("whsec_partner-supplied-secret")
	sealed, _ := keys.Seal(sealedPlain, models.SealContext{TenantID: "t", Table: "webhooks", RowID: "1", Field: "secret"})
	logger.Info("a record holding secrets", "secret", sealedPlain, "sealed", sealed, "record", struct{ Secret models.Secret }{sealedPlain})

	out := logs.String()
	if !strings.Contains(out, "statement failed") || !strings.Contains(out, `"msg":"request"`) || !strings.Contains(out, "/api/survey-links/[redacted]") {
		t.Fatalf("the flows did not log as expected; the test would prove nothing:\n%s", out)
	}
	for name, secret := range map[string]string{
		"sign-up password": signupPassword, "wrong password": "wrong-secret-guess-9", "invited password": invitedPassword,
		"access token": owner.AccessToken, "refresh token": owner.RefreshToken, "rotated refresh token": refreshed.RefreshToken,
		"invited access token": invited.AccessToken, "machine key": key.Key, "invitation token": inv.Invitation.Token, "survey link token": surveyToken,
		"sealed secret plaintext": sealedPlain.Reveal(), "sealed ciphertext": string(sealed),
	} {
		if secret == "" {
			t.Fatalf("%s is empty; the flow failed", name)
		}
		if strings.Contains(out, secret) {
			t.Errorf("the %s reached the logs", name)
		}
	}
}
