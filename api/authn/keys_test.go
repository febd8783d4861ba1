package authn

import (
	"strings"
	"testing"
)

func TestMachineKeysRoundTrip(t *testing.T) {
	k, err := NewMachineKey()
	if err != nil {
		t.Fatal(err)
	}
	if len(k.Plaintext) != 44 || !strings.HasPrefix(k.Plaintext, "pd_live_") {
		t.Fatalf("key %q has the wrong shape", k.Plaintext)
	}
	lookup, err := ParseMachineKey(k.Plaintext)
	if err != nil || lookup != k.LookupID || len(lookup) != 8 {
		t.Fatalf("parse = %q %v, want lookup %q", lookup, err, k.LookupID)
	}
	if strings.Contains(k.Hash, k.Plaintext[8:]) || !KeyHashEqual(k.Plaintext, k.Hash) {
		t.Fatal("the stored hash does not verify the key")
	}
	other, _ := NewMachineKey()
	if other.Plaintext == k.Plaintext || KeyHashEqual(other.Plaintext, k.Hash) {
		t.Fatal("two keys collide")
	}
}

func TestMalformedKeysAreRejectedWithoutLookup(t *testing.T) {
	k, _ := NewMachineKey()
	flip := func(i int) string {
		b := []byte(k.Plaintext)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		return string(b)
	}
	for name, key := range map[string]string{
		"empty":              "",
		"truncated":          k.Plaintext[:40],
		"too long":           k.Plaintext + "x",
		"wrong prefix":       "pd_test_" + k.Plaintext[8:],
		"a typo in the body": flip(20),
		"a bad checksum":     flip(43),
		"a non-base62 char":  k.Plaintext[:20] + "-" + k.Plaintext[21:],
		"a JWT":              "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
	} {
		if _, err := ParseMachineKey(key); err == nil {
			t.Errorf("%s accepted: %q", name, key)
		}
	}
}

func FuzzParseMachineKey(f *testing.F) {
	k, _ := NewMachineKey()
	f.Add(k.Plaintext)
	f.Add("pd_live_")
	f.Fuzz(func(t *testing.T, s string) {
		lookup, err := ParseMachineKey(s)
		if err == nil && (len(lookup) != keyLookupLen || !strings.HasPrefix(s, MachineKeyPrefix+lookup)) {
			t.Fatalf("accepted %q with lookup %q", s, lookup)
		}
	})
}
