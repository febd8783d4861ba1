// Package autotls serves TLS for tenants' verified custom domains with certificates obtained on
// demand from an ACME certificate authority (Let's Encrypt by default), through certmagic. It
// is off unless configured: nothing of it runs, and nothing is stored, on the default path.
package autotls

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"
)

// LetsEncrypt is the ACME directory of Let's Encrypt's production CA, the default.
const LetsEncrypt = certmagic.LetsEncryptProductionCA

// Config is on-demand TLS's configuration; an empty Addr turns it off.
type Config struct {
	// Addr is host:port of the TLS listener, e.g. ":443".
	Addr string
	// CA is the ACME directory URL.
	CA string
	// Email is the ACME account's contact, optional.
	Email string
	// StorageDir keeps the ACME account, the certificates and their locks; processes serving
	// TLS for the same installation share it.
	StorageDir string
	// CARoots is a PEM file of the roots trusted for the ACME server itself (a private CA);
	// empty trusts the system's.
	CARoots string
}

// On reports whether on-demand TLS is configured.
func (c Config) On() bool { return c.Addr != "" }

// Decision answers whether a certificate may be obtained or served for a host name: nil only
// for a verified custom domain.
type Decision func(ctx context.Context, name string) error

// Manager obtains, keeps and renews the certificates of verified custom domains.
type Manager struct {
	cfg   Config
	magic *certmagic.Config
	cache *certmagic.Cache
}

// New is a Manager that asks allow before it obtains (or serves from storage) a certificate
// for any host name; log receives certificate events.
func New(cfg Config, allow Decision, log *slog.Logger) (*Manager, error) {
	if allow == nil {
		return nil, errors.New("autotls: no decision function")
	}
	if cfg.StorageDir == "" {
		return nil, errors.New("autotls: no storage directory")
	}
	var roots *x509.CertPool
	if cfg.CARoots != "" {
		pem, err := os.ReadFile(cfg.CARoots)
		if err != nil {
			return nil, fmt.Errorf("autotls: ACME CA roots: %w", err)
		}
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("autotls: no PEM certificate in %s", cfg.CARoots)
		}
	}
	ca := cfg.CA
	if ca == "" {
		ca = LetsEncrypt
	}
	// certmagic logs through zap; its events below go to our log.
	zl := zap.NewNop()
	m := &Manager{cfg: cfg}
	m.cache = certmagic.NewCache(certmagic.CacheOptions{
		GetConfigForCert: func(certmagic.Certificate) (*certmagic.Config, error) { return m.magic, nil },
		Logger:           zl,
	})
	m.magic = certmagic.New(m.cache, certmagic.Config{
		Storage: &certmagic.FileStorage{Path: cfg.StorageDir},
		Logger:  zl,
		OnDemand: &certmagic.OnDemandConfig{DecisionFunc: func(ctx context.Context, name string) error {
			if err := allow(ctx, name); err != nil {
				log.DebugContext(ctx, "TLS certificate refused", "host", name, "reason", err.Error())
				return err
			}
			return nil
		}},
		OnEvent: func(ctx context.Context, event string, data map[string]any) error {
			switch event {
			case "cert_obtained", "cert_failed", "cert_ocsp_revoked":
				log.InfoContext(ctx, "TLS certificate "+event, "identifier", data["identifier"], "issuer", data["issuer"], "renewal", data["renewal"], "error", data["error"])
			}
			return nil
		},
	})
	issuer := certmagic.NewACMEIssuer(m.magic, certmagic.ACMEIssuer{
		CA:     ca,
		Email:  cfg.Email,
		Agreed: true,
		// The TLS listener answers the tls-alpn-01 challenge itself; the HTTP listener may
		// sit behind a proxy that does not pass /.well-known/acme-challenge/ on.
		DisableHTTPChallenge: true,
		TrustedRoots:         roots,
		Logger:               zl,
	})
	m.magic.Issuers = []certmagic.Issuer{issuer}
	return m, nil
}

// TLSConfig is the listener's TLS configuration: a handshake for a host the decision allows
// gets its certificate (obtained on the first handshake, then kept and renewed); any other
// handshake fails.
func (m *Manager) TLSConfig() *tls.Config {
	c := m.magic.TLSConfig()
	c.NextProtos = append([]string{"h2", "http/1.1"}, c.NextProtos...)
	c.MinVersion = tls.VersionTLS12
	return c
}

// Listen opens the TCP listener of the configured address, for http.Server.ServeTLS with
// TLSConfig.
func (m *Manager) Listen(ctx context.Context) (net.Listener, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", m.cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", m.cfg.Addr, err)
	}
	return ln, nil
}

// Stop stops the renewal of the kept certificates.
func (m *Manager) Stop() { m.cache.Stop() }
