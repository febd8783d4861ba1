package authn

import (
	"crypto/rand"
	"testing"

	"github.com/partnerd/partnerd/models"
)

func certKeyring(t *testing.T, versions ...int) (*models.Keyring, map[int][]byte) {
	t.Helper()
	masters := map[int][]byte{}
	for _, v := range versions {
		m := make([]byte, 32)
		_, _ = rand.Read(m)
		masters[v] = m
	}
	k, err := models.NewKeyring(masters, versions[len(versions)-1])
	if err != nil {
		t.Fatal(err)
	}
	return k, masters
}

func TestCertificatesStayVerifiableAfterTheMasterKeyRotates(t *testing.T) {
	old, masters := certKeyring(t, 1)
	jws, err := NewCertificates(old).Sign([]byte(`{"acceptanceId":"a1"}`))
	if err != nil {
		t.Fatal(err)
	}
	fresh := make([]byte, 32)
	_, _ = rand.Read(fresh)
	rotated, err := models.NewKeyring(map[int][]byte{1: masters[1], 2: fresh}, 2)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := NewCertificates(rotated).PublicKeys()
	if err != nil || len(keys) != 2 || keys[0].KeyID != "v2" || keys[1].KeyID != "v1" {
		t.Fatalf("keys %+v, %v", keys, err)
	}
	if payload, err := VerifyCertificate(jws, keys); err != nil || string(payload) != `{"acceptanceId":"a1"}` {
		t.Fatalf("a certificate of the retired key: %q, %v", payload, err)
	}
	// Another installation's keys do not verify it.
	other, _ := certKeyring(t, 1)
	otherKeys, _ := NewCertificates(other).PublicKeys()
	if _, err := VerifyCertificate(jws, otherKeys); err == nil {
		t.Fatal("another installation's key verified the certificate")
	}
}
