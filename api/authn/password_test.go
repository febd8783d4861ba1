package authn

import (
	"strings"
	"testing"
)

func TestPasswordHashRoundTrip(t *testing.T) {
	hash, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q is not an argon2id PHC string with the baseline parameters", hash)
	}
	if strings.Contains(hash, "correct horse") {
		t.Fatal("the hash contains the password")
	}
	if ok, err := VerifyPassword(hash, "correct horse battery"); err != nil || !ok {
		t.Fatalf("the right password failed: %v %v", ok, err)
	}
	if ok, _ := VerifyPassword(hash, "correct horse batterY"); ok {
		t.Fatal("a wrong password verified")
	}
	other, _ := HashPassword("correct horse battery")
	if other == hash {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
}

func TestVerifyRejectsMalformedHashes(t *testing.T) {
	for _, h := range []string{"", "plain", "$argon2i$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA", "$argon2id$v=19$m=0,t=1,p=1$c2FsdA$aGFzaA", "$argon2id$v=19$m=8,t=1,p=1$!!$aGFzaA"} {
		if _, err := VerifyPassword(h, "x"); err == nil {
			t.Errorf("hash %q accepted", h)
		}
	}
}

func TestRandomPasswordsDiffer(t *testing.T) {
	a, _ := RandomPassword(20)
	b, _ := RandomPassword(20)
	if len(a) != 20 || a == b {
		t.Fatalf("random passwords %q and %q", a, b)
	}
}
