package authn

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/partnerd/partnerd/models"
)

// CertificateType is the typ header of agreement-acceptance certificates.
const CertificateType = "partnerd-agreement-certificate+jws"

// ErrInvalidCertificate reports a certificate whose signature does not verify.
var ErrInvalidCertificate = errors.New("authn: certificate signature does not verify")

// Certificates signs agreement-acceptance certificates as compact JWS (RFC 7515) with EdDSA
// over Ed25519 (RFC 8037). The signing key of each master-key version derives from it, so a
// certificate names its key as kid "v<N>" and stays verifiable after the master key rotates,
// with the public keys the API publishes.
type Certificates struct {
	keys *models.Keyring
}

// NewCertificates returns the certificate signer of keys.
func NewCertificates(keys *models.Keyring) *Certificates { return &Certificates{keys: keys} }

// CertificateKey is one public key that verifies certificates.
type CertificateKey struct {
	KeyID     string
	PublicKey ed25519.PublicKey
}

func (c *Certificates) private(v int) (ed25519.PrivateKey, error) {
	seed, err := c.keys.DeriveKey(v, "agreement certificates")
	if err != nil {
		return nil, err
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// Sign returns payload signed as a compact JWS with the current key.
func (c *Certificates) Sign(payload []byte) (string, error) {
	v := c.keys.Current()
	key, err := c.private(v)
	if err != nil {
		return "", err
	}
	header, _ := json.Marshal(map[string]string{"alg": "EdDSA", "kid": "v" + strconv.Itoa(v), "typ": CertificateType})
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(header) + "." + enc.EncodeToString(payload)
	return input + "." + enc.EncodeToString(ed25519.Sign(key, []byte(input))), nil
}

// PublicKeys lists the keys that verify certificates, newest first.
func (c *Certificates) PublicKeys() ([]CertificateKey, error) {
	var out []CertificateKey
	for _, v := range c.keys.Versions() {
		key, err := c.private(v)
		if err != nil {
			return nil, err
		}
		out = append(out, CertificateKey{KeyID: "v" + strconv.Itoa(v), PublicKey: key.Public().(ed25519.PublicKey)})
	}
	return out, nil
}

// VerifyCertificate checks a compact JWS certificate against the public keys and returns its
// payload, the certificate's JSON.
func VerifyCertificate(jws string, keys []CertificateKey) ([]byte, error) {
	parts := strings.Split(jws, ".")
	if len(parts) != 3 {
		return nil, ErrInvalidCertificate
	}
	enc := base64.RawURLEncoding
	rawHeader, err1 := enc.DecodeString(parts[0])
	payload, err2 := enc.DecodeString(parts[1])
	sig, err3 := enc.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, ErrInvalidCertificate
	}
	var header struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	if json.Unmarshal(rawHeader, &header) != nil || header.Alg != "EdDSA" {
		return nil, ErrInvalidCertificate
	}
	for _, k := range keys {
		if k.KeyID == header.Kid && ed25519.Verify(k.PublicKey, []byte(parts[0]+"."+parts[1]), sig) {
			return payload, nil
		}
	}
	return nil, ErrInvalidCertificate
}
