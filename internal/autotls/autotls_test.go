package autotls_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/partnerd/partnerd/api"
	"github.com/partnerd/partnerd/internal/autotls"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// pebble is the path of Let's Encrypt's ACME test server (PEBBLE, else pebble on PATH or in
// GOPATH/bin); empty when it is not installed.
func pebble() string {
	if p := os.Getenv("PEBBLE"); p != "" {
		return p
	}
	if p, err := exec.LookPath("pebble"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "pebble")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port
}

// writeServerCert writes a CA and, signed by it, a certificate for 127.0.0.1 (pebble's own
// HTTPS listener); it returns the files of the CA, the certificate and its key.
func writeServerCert(t *testing.T, dir string) (caFile, certFile, keyFile string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "partnerd test ACME CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames: []string{"localhost"}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	write := func(name, typ string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("ca.pem", "CERTIFICATE", caDER), write("cert.pem", "CERTIFICATE", der), write("key.pem", "EC PRIVATE KEY", keyDER)
}

// startDNS answers every A question with 127.0.0.1, over UDP and TCP (pebble asks over TCP):
// pebble finds the custom domains here.
func startDNS(t *testing.T) string {
	t.Helper()
	handler := dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(r)
		for _, q := range r.Question {
			if q.Qtype == dns.TypeA {
				m.Answer = append(m.Answer, &dns.A{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: net.IPv4(127, 0, 0, 1)})
			}
		}
		_ = w.WriteMsg(m)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	udp, tcp := &dns.Server{PacketConn: pc, Handler: handler}, &dns.Server{Listener: ln, Handler: handler}
	go func() { _ = udp.ActivateAndServe() }()
	go func() { _ = tcp.ActivateAndServe() }()
	t.Cleanup(func() { _ = udp.Shutdown(); _ = tcp.Shutdown() })
	return ln.Addr().String()
}

// TestOnDemandCertificatesFromPebbleForVerifiedHostsOnly runs pebble, Let's Encrypt's ACME test
// server, which validates tls-alpn-01 challenges for real against our TLS listener (finding
// the hosts through a DNS server in this process): a verified custom domain gets a
// certificate on its first handshake; a pending or unknown host gets none, and no order.
func TestOnDemandCertificatesFromPebbleForVerifiedHostsOnly(t *testing.T) {
	bin := pebble()
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("pebble is not installed: .ci/run installs it (go install github.com/letsencrypt/pebble/v2/cmd/pebble@v2.10.3)")
		}
		t.Skip("pebble is not installed (go install github.com/letsencrypt/pebble/v2/cmd/pebble@v2.10.3)")
	}
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		ctx := context.Background()
		owner := storetest.Tenant(t, st.Core(), "acme")
		sc := st.For(owner)
		verified, err := sc.AddDomain(ctx, "partners.acme.example", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.RecordDomainCheck(ctx, models.System(owner.TenantID), verified.ID, models.DomainCheck{Found: true}, verified.CreatedAt, false, models.DomainGrace); err != nil {
			t.Fatal(err)
		}
		if _, err := sc.AddDomain(ctx, "pending.acme.example", ""); err != nil {
			t.Fatal(err)
		}
		srv := api.New(api.Config{Version: "test", OwnHosts: []string{"app.partnerd.example"}}, api.Deps{Hosts: st})

		dir := t.TempDir()
		caFile, certFile, keyFile := writeServerCert(t, dir)
		acmePort, mgmtPort, tlsPort := freePort(t), freePort(t), freePort(t)
		cfg := map[string]any{"pebble": map[string]any{
			"listenAddress": fmt.Sprintf("127.0.0.1:%d", acmePort), "managementListenAddress": fmt.Sprintf("127.0.0.1:%d", mgmtPort),
			"certificate": certFile, "privateKey": keyFile, "httpPort": freePort(t), "tlsPort": tlsPort,
			"ocspResponderURL": "", "externalAccountBindingRequired": false,
		}}
		raw, _ := json.Marshal(cfg)
		cfgFile := filepath.Join(dir, "pebble.json")
		if err := os.WriteFile(cfgFile, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-config", cfgFile, "-dnsserver", startDNS(t))
		cmd.Env = append(os.Environ(), "PEBBLE_VA_NOSLEEP=1", "PEBBLE_WFE_NONCEREJECT=0")
		pebbleLog := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = pebbleLog, pebbleLog
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			if t.Failed() {
				t.Logf("pebble:\n%s", pebbleLog.String())
			}
		})
		caPEM, _ := os.ReadFile(caFile)
		trustCA := x509.NewCertPool()
		trustCA.AppendCertsFromPEM(caPEM)
		mgmt := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: trustCA}}}
		var rootPEM []byte
		for i := 0; ; i++ {
			res, err := mgmt.Get(fmt.Sprintf("https://127.0.0.1:%d/roots/0", mgmtPort))
			if err == nil {
				rootPEM, _ = io.ReadAll(res.Body)
				_ = res.Body.Close()
				if res.StatusCode == http.StatusOK {
					break
				}
			}
			if i > 100 {
				t.Fatalf("pebble did not start: %v", err)
			}
			time.Sleep(100 * time.Millisecond)
		}

		log := slog.New(slog.NewTextHandler(testLog{t}, nil))
		storage := filepath.Join(dir, "acme")
		m, err := autotls.New(autotls.Config{Addr: fmt.Sprintf("127.0.0.1:%d", tlsPort), CA: fmt.Sprintf("https://127.0.0.1:%d/dir", acmePort),
			StorageDir: storage, CARoots: caFile}, srv.AllowCertificate, log)
		if err != nil {
			t.Fatal(err)
		}
		ln, err := m.Listen(ctx)
		if err != nil {
			t.Fatal(err)
		}
		hs := &http.Server{Handler: srv.Handler(), TLSConfig: m.TLSConfig(), ReadHeaderTimeout: 10 * time.Second}
		hs.RegisterOnShutdown(m.Stop)
		go func() { _ = hs.ServeTLS(ln, "", "") }()
		t.Cleanup(func() { _ = hs.Close(); m.Stop() })

		issued := x509.NewCertPool()
		if !issued.AppendCertsFromPEM(rootPEM) {
			t.Fatalf("pebble's root: %s", rootPEM)
		}
		get := func(host string) (*http.Response, error) {
			c := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
				TLSClientConfig: &tls.Config{RootCAs: issued, ServerName: host},
				DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
					return (&net.Dialer{}).DialContext(ctx, network, ln.Addr().String())
				},
			}}
			return c.Get("https://" + host + "/healthz")
		}
		start := time.Now()
		res, err := get("partners.acme.example")
		if err != nil {
			t.Fatalf("the verified host's first request: %v", err)
		}
		_ = res.Body.Close()
		leaf := res.TLS.PeerCertificates[0]
		if res.StatusCode != http.StatusOK || len(leaf.DNSNames) != 1 || leaf.DNSNames[0] != "partners.acme.example" {
			t.Fatalf("verified host: %d, certificate for %v", res.StatusCode, leaf.DNSNames)
		}
		t.Logf("certificate obtained from pebble on the first handshake in %s, issued by %q", time.Since(start).Round(time.Millisecond), leaf.Issuer.CommonName)
		// The second handshake is served from the cache.
		res, err = get("partners.acme.example")
		if err != nil || !res.TLS.PeerCertificates[0].Equal(leaf) {
			t.Fatalf("second request: %v", err)
		}
		_ = res.Body.Close()

		for _, host := range []string{"pending.acme.example", "unknown.example", "app.partnerd.example"} {
			if res, err := get(host); err == nil {
				_ = res.Body.Close()
				t.Fatalf("%s got a certificate", host)
			}
		}
		var names []string
		_ = filepath.WalkDir(storage, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".crt") {
				names = append(names, filepath.Base(p))
			}
			return nil
		})
		if len(names) != 1 || names[0] != "partners.acme.example.crt" {
			t.Fatalf("certificates stored: %v", names)
		}
		if strings.Contains(pebbleLog.String(), "pending.acme.example") || strings.Contains(pebbleLog.String(), "unknown.example") {
			t.Fatalf("pebble was asked for a refused host:\n%s", pebbleLog.String())
		}
	})
}

// The manager refuses to start without a decision or storage, and with roots that are not PEM.
func TestNewRefusesAnIncompleteConfiguration(t *testing.T) {
	allow := func(context.Context, string) error { return nil }
	log := slog.New(slog.DiscardHandler)
	if _, err := autotls.New(autotls.Config{Addr: ":0", StorageDir: t.TempDir()}, nil, log); err == nil {
		t.Fatal("no decision function accepted")
	}
	if _, err := autotls.New(autotls.Config{Addr: ":0"}, allow, log); err == nil {
		t.Fatal("no storage accepted")
	}
	bad := filepath.Join(t.TempDir(), "roots.pem")
	_ = os.WriteFile(bad, []byte("not a certificate"), 0o600)
	if _, err := autotls.New(autotls.Config{Addr: ":0", StorageDir: t.TempDir(), CARoots: bad}, allow, log); err == nil {
		t.Fatal("roots without a certificate accepted")
	}
	m, err := autotls.New(autotls.Config{Addr: "127.0.0.1:0", StorageDir: t.TempDir()}, func(context.Context, string) error { return errors.New("no") }, log)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	// A handshake for a refused name fails without any ACME traffic (the CA is unreachable).
	ln, err := m.Listen(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.NotFoundHandler(), TLSConfig: m.TLSConfig(), ReadHeaderTimeout: time.Second}
	go func() { _ = hs.ServeTLS(ln, "", "") }()
	defer func() { _ = hs.Close() }()
	conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{ServerName: "refused.example", InsecureSkipVerify: true})
	if err == nil {
		_ = conn.Close()
		t.Fatal("a refused name got a handshake")
	}
}

// testLog writes log lines to the test's log.
type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// syncBuffer collects a child process's output, written by the process's copying goroutines
// while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
