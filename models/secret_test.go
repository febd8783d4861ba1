package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func testKeyring(t *testing.T, current int, versions ...int) *Keyring {
	t.Helper()
	masters := map[int][]byte{}
	for _, v := range versions {
		masters[v] = bytes.Repeat([]byte{byte(v)}, 32)
	}
	k, err := NewKeyring(masters, current)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealedSecretsOpenOnlyWhereTheyWereSealed(t *testing.T) {
	k := testKeyring(t, 1, 1)
	where := SealContext{TenantID: "t1", Table: "webhooks", RowID: "w1", Field: "secret"}
	sealed, err := k.Seal("whsec_plaintext", where)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sealed), "plaintext") || !strings.HasPrefix(string(sealed), "v1:") {
		t.Fatalf("sealed form %q", sealed)
	}
	again, _ := k.Seal("whsec_plaintext", where)
	if again == sealed {
		t.Fatal("two seals of one value are equal: the nonce is not random")
	}
	got, err := k.Open(sealed, where)
	if err != nil || got.Reveal() != "whsec_plaintext" {
		t.Fatalf("open = %q, %v", got.Reveal(), err)
	}
	for name, other := range map[string]SealContext{
		"another tenant": {TenantID: "t2", Table: "webhooks", RowID: "w1", Field: "secret"},
		"another table":  {TenantID: "t1", Table: "apikeys", RowID: "w1", Field: "secret"},
		"another row":    {TenantID: "t1", Table: "webhooks", RowID: "w2", Field: "secret"},
		"another field":  {TenantID: "t1", Table: "webhooks", RowID: "w1", Field: "token"},
	} {
		if _, err := k.Open(sealed, other); err == nil {
			t.Errorf("the secret opened for %s", name)
		}
	}
	tampered := []byte(sealed)
	tampered[len(tampered)-2] ^= 1
	if _, err := k.Open(Sealed(tampered), where); err == nil {
		t.Error("a tampered ciphertext opened")
	}
}

func TestKeyRotationKeepsOldSecretsReadable(t *testing.T) {
	where := SealContext{TenantID: "t", Table: "x", RowID: "1", Field: "f"}
	old := testKeyring(t, 1, 1)
	sealedV1, _ := old.Seal("s3cret-value", where)

	rotated := testKeyring(t, 2, 1, 2)
	got, err := rotated.Open(sealedV1, where)
	if err != nil || got.Reveal() != "s3cret-value" {
		t.Fatalf("a v1 secret did not open after rotation: %v", err)
	}
	sealedV2, _ := rotated.Seal("s3cret-value", where)
	if sealedV2.KeyVersion() != 2 {
		t.Fatalf("new seals use version %d, want 2", sealedV2.KeyVersion())
	}
	if _, err := old.Open(sealedV2, where); err == nil {
		t.Fatal("a keyring without v2 opened a v2 secret")
	}
	if _, err := NewKeyring(map[int][]byte{1: make([]byte, 16)}, 1); err == nil {
		t.Fatal("a 16-byte master key was accepted")
	}
}

func TestSecretsRedactThemselves(t *testing.T) {
	s := Secret("hunter2-hunter2")
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("x", "secret", s, "sealed", Sealed("v1:abc"))
	b, _ := json.Marshal(struct{ S Secret }{s})
	for name, out := range map[string]string{
		"fmt %v": fmt.Sprintf("%v", s), "fmt %q": fmt.Sprintf("%q", s), "fmt %+v": fmt.Sprintf("%+v", struct{ S Secret }{s}),
		"fmt %#v": fmt.Sprintf("%#v", s), "json": string(b), "slog": logs.String(),
	} {
		if strings.Contains(out, "hunter2") {
			t.Errorf("%s shows the plaintext: %s", name, out)
		}
	}
	if m := s.Masked(); m != "••••ter2" {
		t.Fatalf("masked = %q", m)
	}
}
