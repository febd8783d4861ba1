package main

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/api"
	"github.com/partnerd/partnerd/models"
)

// The production guide names every setting, by its variable and its flag, so that an operator
// reading it sees all of them.
func TestProductionGuideNamesEverySetting(t *testing.T) {
	guide, err := os.ReadFile("../../docs/production.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range settings {
		for _, name := range []string{"`" + s.env + "`", "`-" + s.flag + "`"} {
			if !strings.Contains(string(guide), name) {
				t.Errorf("docs/production.md does not name %s", name)
			}
		}
	}
}

// The rate-limit settings default to the API's documented quotas, read N/window or off, and
// report a bad value with its variable.
func TestRateLimitSettings(t *testing.T) {
	c, err := loadConfig("serve", nil, envOf(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.RateLimits != api.DefaultRateLimits() {
		t.Fatalf("defaults = %+v; want %+v", c.RateLimits, api.DefaultRateLimits())
	}
	c, err = loadConfig("serve", []string{"-rate-limit-tenant", "off"}, envOf(map[string]string{
		"PARTNERD_RATE_LIMIT_MACHINE_KEY": "50/1s",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.RateLimits.MachineKey != (models.Quota{Limit: 50, Window: time.Second}) || !c.RateLimits.Tenant.Off() {
		t.Fatalf("limits = %+v", c.RateLimits)
	}
	_, err = loadConfig("serve", nil, envOf(map[string]string{"PARTNERD_RATE_LIMIT_SIGNUP": "lots"}), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "PARTNERD_RATE_LIMIT_SIGNUP") {
		t.Fatalf("a bad quota = %v", err)
	}
}
