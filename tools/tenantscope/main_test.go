package main

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, dir, name, src string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestHandWrittenTenantConditionsAreFoundOutsideTheScopeFile(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "models/store/scope.go", "package store\nconst c = \"tenant_id = ?\"\n")
	write(t, dir, "models/store/deals/deals.go", "package deals\nfunc f() { q.Where(\"tenant_id = ? AND id = ?\", t, id) }\n")
	write(t, dir, "models/store/metrics/raw.go", "package metrics\nconst sql = `JOIN u ON u.tenant_id = $2`\n")
	write(t, dir, "models/store/events/in.go", "package events\nconst sql = \"tenant_id IN ?\"\n")
	write(t, dir, "models/store/events/join.go", "package events\nconst sql = \"JOIN r ON r.tenant_id = s.tenant_id\"\n")
	write(t, dir, "models/store/events/events_test.go", "package events\nconst sql = \"tenant_id = ?\"\n")
	findings, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range findings {
		rel, _ := filepath.Rel(dir, f.Pos.Filename)
		got[filepath.ToSlash(rel)] = true
	}
	for _, want := range []string{"models/store/deals/deals.go", "models/store/metrics/raw.go", "models/store/events/in.go"} {
		if !got[want] {
			t.Errorf("the condition in %s was not reported", want)
		}
	}
	for _, clean := range []string{"models/store/scope.go", "models/store/events/join.go", "models/store/events/events_test.go"} {
		if got[clean] {
			t.Errorf("%s was reported, but it may hold what it holds", clean)
		}
	}
	if len(findings) != 3 {
		t.Errorf("found %d conditions, want 3: %v", len(findings), findings)
	}
}

func TestTheRepositoryWritesNoTenantConditionByHand(t *testing.T) {
	findings, err := Check(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Error(f)
	}
}
