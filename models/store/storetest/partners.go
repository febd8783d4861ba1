package storetest

import (
	"context"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

// Partners is a tenant with two partner organisations, A and B, and the stages of its default
// pipeline: the fixture of the deal, task and level tests.
type Partners struct {
	Ctx context.Context
	// Op is the tenant's owner; A and B are users of the two partner organisations.
	Op, A, B           *stores.Scoped
	TenantID           string
	PartnerA, PartnerB string
	WonID, LostID      string
	// OpenIDs are the open stages in order; DefaultStageID is the first.
	OpenIDs        []string
	OpUserID       string
	DefaultStageID string
}

// NewPartners creates the Partners fixture in a new tenant.
func NewPartners(t *testing.T, s *stores.Set) *Partners {
	t.Helper()
	ctx := context.Background()
	owner := Tenant(t, s.Core(), "deals")
	e := &Partners{Ctx: ctx, Op: s.For(owner), TenantID: owner.TenantID, OpUserID: owner.UserID}
	for i, name := range []string{"Alpha Resellers", "Beta Partners"} {
		p := &models.Partner{Name: name, Type: "reseller", Level: "gold", Status: "active"}
		if err := e.Op.CreatePartner(ctx, p); err != nil {
			t.Fatal(err)
		}
		sc := s.For(&models.Principal{Kind: models.PrincipalPartner, TenantID: owner.TenantID, UserID: models.NewID(), PartnerID: p.ID})
		if i == 0 {
			e.PartnerA, e.A = p.ID, sc
		} else {
			e.PartnerB, e.B = p.ID, sc
		}
	}
	ps, _, err := e.Op.ListPipelines(ctx, models.Page{})
	if err != nil || len(ps) != 1 || !ps[0].IsDefault || len(ps[0].Stages) != len(models.DefaultStages()) {
		t.Fatalf("a new tenant's pipelines = %+v, %v", ps, err)
	}
	for _, st := range ps[0].Stages {
		switch st.Outcome {
		case models.OutcomeWon:
			e.WonID = st.ID
		case models.OutcomeLost:
			e.LostID = st.ID
		default:
			e.OpenIDs = append(e.OpenIDs, st.ID)
		}
	}
	e.DefaultStageID = e.OpenIDs[0]
	return e
}

// Register registers a deal as sc.
func (e *Partners) Register(t *testing.T, sc *stores.Scoped, company, domain, email string, amount int64) *models.Deal {
	t.Helper()
	d := &models.Deal{CustomerCompany: company, CustomerDomain: domain, ContactEmail: email, AmountMinor: amount, Currency: "EUR"}
	if err := sc.RegisterDeal(e.Ctx, d); err != nil {
		t.Fatal(err)
	}
	return d
}
