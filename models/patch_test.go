package models

import (
	"slices"
	"testing"
)

func TestSetChangedAppliesOnlyGivenDifferentValues(t *testing.T) {
	name, amount := "Acme", int64(100)
	var changed []string
	same, other, more := "Acme", "Globex", int64(250)
	if SetChanged(&changed, "name", nil, &name) || SetChanged(&changed, "name", &same, &name) {
		t.Fatal("an absent or equal value counted as a change")
	}
	if !SetChanged(&changed, "name", &other, &name) || name != "Globex" {
		t.Fatalf("name = %q after a change to Globex", name)
	}
	if !SetChanged(&changed, "amountMinor", &more, &amount) || amount != 250 {
		t.Fatalf("amount = %d after a change to 250", amount)
	}
	if !slices.Equal(changed, []string{"name", "amountMinor"}) {
		t.Fatalf("changed = %v", changed)
	}
}
