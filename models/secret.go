package models

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
)

// redacted is what a secret shows wherever it could be printed.
const redacted = "[redacted]"

// Secret is a plaintext secret held in memory (a webhook secret, a partner's API credential).
// It redacts itself in fmt, JSON and slog; Reveal is the only way to the plaintext.
type Secret string

// Reveal returns the plaintext, for the one place that must use it.
func (s Secret) Reveal() string { return string(s) }

// String implements fmt.Stringer without the plaintext.
func (Secret) String() string { return redacted }

// GoString keeps %#v from printing the plaintext.
func (Secret) GoString() string { return redacted }

// MarshalJSON implements json.Marshaler without the plaintext.
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// LogValue implements slog.LogValuer without the plaintext.
func (Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// Masked shows the last four characters only, e.g. ••••1234, for API responses.
func (s Secret) Masked() string {
	r := []rune(string(s))
	if len(r) <= 8 {
		return "••••"
	}
	return "••••" + string(r[len(r)-4:])
}

// SealContext binds a sealed value to where it is stored: the same ciphertext moved to another
// tenant, table, row or field no longer opens.
type SealContext struct {
	TenantID string
	Table    string
	RowID    string
	Field    string
}

func (c SealContext) additionalData() []byte {
	return []byte(c.TenantID + "|" + c.Table + "|" + c.RowID + "|" + c.Field)
}

// Sealed is the stored form of a secret: "v<key version>:" followed by the base64 of the
// nonce and the AES-256-GCM ciphertext.
type Sealed string

// String implements fmt.Stringer; ciphertext is not shown either.
func (Sealed) String() string { return "[sealed]" }

// LogValue implements slog.LogValuer.
func (Sealed) LogValue() slog.Value { return slog.StringValue("[sealed]") }

// KeyVersion is the version of the master key that sealed s, or 0 if s is malformed.
func (s Sealed) KeyVersion() int {
	v, _, ok := strings.Cut(string(s), ":")
	if !ok || !strings.HasPrefix(v, "v") {
		return 0
	}
	n, err := strconv.Atoi(v[1:])
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// ErrUnseal reports a sealed value that does not open: wrong key, wrong context or tampering.
var ErrUnseal = errors.New("sealed value does not open")

// Keyring holds the master keys by version. The current version seals; every version opens,
// so keys rotate without re-sealing at once.
type Keyring struct {
	current int
	aeads   map[int]cipher.AEAD
	masters map[int][]byte
}

// NewKeyring builds a keyring from 32-byte master keys by version; current must be among them.
func NewKeyring(masters map[int][]byte, current int) (*Keyring, error) {
	k := &Keyring{current: current, aeads: map[int]cipher.AEAD{}, masters: map[int][]byte{}}
	for v, m := range masters {
		if v < 1 {
			return nil, fmt.Errorf("key version %d: versions start at 1", v)
		}
		if len(m) != 32 {
			return nil, fmt.Errorf("key version %d: %d bytes, want 32", v, len(m))
		}
		sealKey, err := hkdf.Key(sha256.New, m, nil, "partnerd sealed secrets", 32)
		if err != nil {
			return nil, err
		}
		block, err := aes.NewCipher(sealKey)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		k.aeads[v] = aead
		k.masters[v] = m
	}
	if _, ok := k.aeads[current]; !ok {
		return nil, fmt.Errorf("current key version %d is not in the keyring", current)
	}
	return k, nil
}

// Current is the version that seals.
func (k *Keyring) Current() int { return k.current }

// Versions lists the versions the keyring opens, newest first.
func (k *Keyring) Versions() []int {
	out := make([]int, 0, len(k.aeads))
	for v := range k.aeads {
		out = append(out, v)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(out)))
	return out
}

// DeriveKey derives a purpose-specific 32-byte key (e.g. token signing) from master version v.
func (k *Keyring) DeriveKey(v int, purpose string) ([]byte, error) {
	m, ok := k.masters[v]
	if !ok {
		return nil, fmt.Errorf("no key version %d", v)
	}
	return hkdf.Key(sha256.New, m, nil, "partnerd "+purpose, 32)
}

// Seal encrypts plaintext for the place c names, with a fresh random 96-bit nonce.
func (k *Keyring) Seal(plaintext Secret, c SealContext) (Sealed, error) {
	aead := k.aeads[k.current]
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := aead.Seal(nonce, nonce, []byte(plaintext), c.additionalData())
	return Sealed("v" + strconv.Itoa(k.current) + ":" + base64.RawStdEncoding.EncodeToString(out)), nil
}

// Open decrypts s, which must have been sealed for the same place c.
func (k *Keyring) Open(s Sealed, c SealContext) (Secret, error) {
	v := s.KeyVersion()
	aead, ok := k.aeads[v]
	if !ok {
		return "", ErrUnseal
	}
	_, body, _ := strings.Cut(string(s), ":")
	raw, err := base64.RawStdEncoding.DecodeString(body)
	if err != nil || len(raw) < aead.NonceSize()+aead.Overhead() {
		return "", ErrUnseal
	}
	plain, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], c.additionalData())
	if err != nil {
		return "", ErrUnseal
	}
	return Secret(plain), nil
}
