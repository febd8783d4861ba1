package playbook

import (
	"testing"

	"github.com/partnerd/partnerd/models"
)

func TestTheDemoPlaybooksAreValid(t *testing.T) {
	for name, g := range map[string]models.PlaybookGraph{"onboarding": models.DemoOnboardingGraph(), "deal won": models.DemoDealWonGraph()} {
		if problems := Validate(g); len(problems) > 0 {
			t.Errorf("the %s playbook: %+v", name, problems)
		}
	}
}
