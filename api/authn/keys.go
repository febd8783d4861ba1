package authn

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"math/big"
	"strings"
)

// Machine key format (GitHub token style): "pd_live_", 30 base62 random characters, then the
// 6-character base62 CRC32 of the random part, so that typos and truncations are rejected
// without a database read.
const (
	MachineKeyPrefix = "pd_live_"
	keyRandomLen     = 30
	keyChecksumLen   = 6
	keyLookupLen     = 8
	machineKeyLen    = len(MachineKeyPrefix) + keyRandomLen + keyChecksumLen
	base62           = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// ErrMalformedKey reports a string that is not a well-formed machine key.
var ErrMalformedKey = errors.New("authn: malformed machine key")

// MachineKey is a freshly minted key: the plaintext to show once and what to store.
type MachineKey struct {
	Plaintext string
	// LookupID is the indexed, non-secret part the store finds the key by.
	LookupID string
	// Hash is the hex SHA-256 of the whole key.
	Hash string
}

// NewMachineKey mints a key from 178 random bits.
func NewMachineKey() (MachineKey, error) {
	random := make([]byte, keyRandomLen)
	buf := make([]byte, keyRandomLen)
	if _, err := rand.Read(buf); err != nil {
		return MachineKey{}, err
	}
	for i := range random {
		// 248 is the largest multiple of 62 below 256: reject above it to stay uniform.
		for buf[i] >= 248 {
			var one [1]byte
			if _, err := rand.Read(one[:]); err != nil {
				return MachineKey{}, err
			}
			buf[i] = one[0]
		}
		random[i] = base62[buf[i]%62]
	}
	plain := MachineKeyPrefix + string(random) + keyChecksum(string(random))
	return MachineKey{Plaintext: plain, LookupID: lookupID(plain), Hash: HashKey(plain)}, nil
}

// ParseMachineKey checks the format and checksum of key and returns its lookup id.
func ParseMachineKey(key string) (string, error) {
	if len(key) != machineKeyLen || !strings.HasPrefix(key, MachineKeyPrefix) {
		return "", ErrMalformedKey
	}
	body := key[len(MachineKeyPrefix):]
	for i := range len(body) {
		if strings.IndexByte(base62, body[i]) < 0 {
			return "", ErrMalformedKey
		}
	}
	random, sum := body[:keyRandomLen], body[keyRandomLen:]
	if subtle.ConstantTimeCompare([]byte(keyChecksum(random)), []byte(sum)) != 1 {
		return "", ErrMalformedKey
	}
	return lookupID(key), nil
}

// LooksLikeMachineKey tells a machine key from a JWT by its prefix alone.
func LooksLikeMachineKey(token string) bool { return strings.HasPrefix(token, "pd_") }

// HashKey is the stored digest of a key.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// KeyHashEqual compares a key against a stored digest in constant time.
func KeyHashEqual(key, storedHash string) bool {
	return subtle.ConstantTimeCompare([]byte(HashKey(key)), []byte(storedHash)) == 1
}

// KeyDisplayPrefix is the part of a key safe to show in lists: prefix and lookup characters.
func KeyDisplayPrefix(lookup string) string { return MachineKeyPrefix + lookup }

func lookupID(key string) string {
	return key[len(MachineKeyPrefix) : len(MachineKeyPrefix)+keyLookupLen]
}

func keyChecksum(random string) string {
	n := new(big.Int).SetUint64(uint64(crc32.ChecksumIEEE([]byte(random))))
	digits := n.Text(62) // math/big uses 0-9a-zA-Z; map onto our alphabet
	out := []byte(strings.Repeat("0", keyChecksumLen-len(digits)) + digits)
	for i, c := range out {
		switch {
		case c >= 'a' && c <= 'z':
			out[i] = base62[10+c-'a']
		case c >= 'A' && c <= 'Z':
			out[i] = base62[36+c-'A']
		}
	}
	return string(out)
}
