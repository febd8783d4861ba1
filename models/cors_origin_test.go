package models

import "testing"

func TestNormalizeOriginAcceptsSchemeHostAndPortOnly(t *testing.T) {
	for in, want := range map[string]string{
		"https://www.acme.example":      "https://www.acme.example",
		"HTTPS://WWW.Acme.Example:443":  "https://www.acme.example",
		"https://app.acme.example:8443": "https://app.acme.example:8443",
		"http://localhost:3000":         "http://localhost:3000",
		"http://127.0.0.1:5173":         "http://127.0.0.1:5173",
		"http://[::1]:8080":             "http://[::1]:8080",
		"http://localhost:80":           "http://localhost",
		"https://xn--bcher-kva.example": "https://xn--bcher-kva.example",
	} {
		if got, ok := NormalizeOrigin(in); !ok || got != want {
			t.Errorf("%q = %q %v, want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{
		"", "null", "*", "https://*.acme.example", "https://www.acme.example/", "https://www.acme.example/x",
		"http://www.acme.example", "https://user@www.acme.example", "https://user:pw@www.acme.example",
		"www.acme.example", "//www.acme.example", "https://10.0.0.1", "ftp://www.acme.example", "https://www.acme.example?x",
		"https://www.acme.example#x", "https://www.acme.example:0", "https://www.acme.example:65536", "https://www.acme.example:",
		"https://www.acme.example:08", "https://single", "https://a_b.example", "https://www.acme.example:8a", "https://",
		"https://www.acme.example.", "http://localhost.evil.example",
	} {
		if got, ok := NormalizeOrigin(in); ok {
			t.Errorf("%q accepted as %q", in, got)
		}
	}
}
