package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
)

// Backoff of a pending domain's checks: the first after a minute, doubling up to an hour.
const (
	domainFirstWait = time.Minute
	domainMaxWait   = time.Hour
)

// DomainVerification verifies a custom domain by its DNS TXT record and keeps it verified.
// Pending, it checks with backoff (1 min doubling to 1 h) until the record is found or
// models.DomainVerifyWindow has passed (the domain fails). Verified, it checks once a day; a
// record missing through the grace period unverifies the domain (the store decides and emits
// the events). It ends when the domain is removed, failed or unverified.
func DomainVerification(ctx workflow.Context, in DomainInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, RetryPolicy: activityRetry})
	var a *activities.Domains
	check := func(final bool) (string, error) {
		var status string
		err := workflow.ExecuteActivity(ctx, a.CheckDomain, activities.DomainCheckInput{TenantID: in.TenantID, DomainID: in.DomainID,
			At: workflow.Now(ctx), Final: final}).Get(ctx, &status)
		return status, err
	}
	if in.Watching {
		if err := workflow.Sleep(ctx, models.DomainRecheckEvery); err != nil {
			return err
		}
		status, err := check(false)
		if err != nil || status != models.DomainVerified {
			return err
		}
		return workflow.NewContinueAsNewError(ctx, DomainVerification, in)
	}
	if in.Since.IsZero() {
		in.Since = workflow.Now(ctx)
	}
	deadline := in.Since.Add(models.DomainVerifyWindow)
	wait := domainFirstWait
	for {
		final := !workflow.Now(ctx).Before(deadline)
		status, err := check(final)
		if err != nil {
			return err
		}
		switch {
		case status == models.DomainVerified:
			return workflow.NewContinueAsNewError(ctx, DomainVerification, DomainInput{TenantID: in.TenantID, DomainID: in.DomainID, Watching: true})
		case status != models.DomainPending || final:
			return nil
		}
		if err := workflow.Sleep(ctx, min(wait, deadline.Sub(workflow.Now(ctx)))); err != nil {
			return err
		}
		wait = min(wait*2, domainMaxWait)
	}
}
