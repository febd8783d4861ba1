package models

import (
	"net/netip"
	"testing"
)

func TestWebhookAddressGuard(t *testing.T) {
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	everything := []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}
	for _, c := range []struct {
		addr    string
		allowed []netip.Prefix
		blocked bool
	}{
		{"93.184.216.34", nil, false},
		{"2606:2800:220:1:248:1893:25c8:1946", nil, false},
		{"127.0.0.1", nil, true},
		{"127.8.9.10", nil, true},
		{"::1", nil, true},
		{"::ffff:127.0.0.1", nil, true}, // IPv4-mapped loopback
		{"10.1.2.3", nil, true},
		{"172.16.0.1", nil, true},
		{"172.32.0.1", nil, false},
		{"192.168.1.1", nil, true},
		{"100.64.0.1", nil, true},
		{"169.254.10.10", nil, true},
		{"0.0.0.0", nil, true},
		{"::", nil, true},
		{"224.0.0.1", nil, true},
		{"fd12:3456::1", nil, true},
		{"fe80::1%eth0", nil, true},
		{"64:ff9b::7f00:1", nil, true}, // NAT64 of 127.0.0.1
		{"2002:7f00:1::", nil, true},   // 6to4 of 127.0.0.1
		{"2002:5db8:d822::", nil, false},
		{"127.0.0.1", loopback, false},
		{"::ffff:127.0.0.1", loopback, false},
		{"10.1.2.3", loopback, true},
		{"169.254.169.254", everything, true}, // metadata stays closed whatever is allowed
		{"fd00:ec2::254", everything, true},
		{"10.1.2.3", everything, false},
	} {
		reason := WebhookAddressBlocked(netip.MustParseAddr(c.addr), c.allowed)
		if (reason != "") != c.blocked {
			t.Errorf("%s (allowed %v): blocked = %q, want blocked %v", c.addr, c.allowed, reason, c.blocked)
		}
	}
}

func TestCheckWebhookURL(t *testing.T) {
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	for _, c := range []struct {
		url     string
		allowed []netip.Prefix
		code    string
	}{
		{"https://hooks.example.com/in?x=1", nil, ""},
		{"http://93.184.216.34:8080/in", nil, ""},
		{"ftp://hooks.example.com/in", nil, "INVALID_WEBHOOK_URL"},
		{"https://user:pw@hooks.example.com/in", nil, "INVALID_WEBHOOK_URL"},
		{"https:///nohost", nil, "INVALID_WEBHOOK_URL"},
		{"hooks.example.com/in", nil, "INVALID_WEBHOOK_URL"},
		{"http://127.0.0.1:9000/in", nil, "WEBHOOK_URL_NOT_ALLOWED"},
		{"http://[::1]/in", nil, "WEBHOOK_URL_NOT_ALLOWED"},
		{"http://localhost:9000/in", nil, "WEBHOOK_URL_NOT_ALLOWED"},
		{"http://api.LOCALHOST./in", nil, "WEBHOOK_URL_NOT_ALLOWED"},
		{"http://169.254.169.254/latest/meta-data", loopback, "WEBHOOK_URL_NOT_ALLOWED"},
		{"http://10.0.0.5/in", nil, "WEBHOOK_URL_NOT_ALLOWED"},
		{"http://127.0.0.1:9000/in", loopback, ""},
		{"http://localhost:9000/in", loopback, ""},
	} {
		err := CheckWebhookURL(c.url, c.allowed, "body.url")
		got := ""
		if err != nil {
			got = err.Code
			if len(err.Fields) != 1 || err.Fields[0].Location != "body.url" {
				t.Errorf("%s: the error does not point at body.url: %+v", c.url, err)
			}
		}
		if got != c.code {
			t.Errorf("%s (allowed %v) = %q, want %q", c.url, c.allowed, got, c.code)
		}
	}
}
