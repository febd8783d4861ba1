package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
)

// certificateExpiryStepsPerRun bounds one run's history before it continues as new.
const certificateExpiryStepsPerRun = 100

// CertificateExpiry is the durable timer of a certificate: it sleeps until the certificate's
// expiry and lets the store decide then, which emits certification.expired unless the
// certificate was renewed meanwhile.
func CertificateExpiry(ctx workflow.Context, in CertificateExpiryInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second, RetryPolicy: activityRetry})
	var certs *activities.Certifications
	for range certificateExpiryStepsPerRun {
		var next models.CertificateExpiry
		step := activities.CertificateExpiryStep{TenantID: in.TenantID, CertificateID: in.CertificateID, At: workflow.Now(ctx)}
		if err := workflow.ExecuteActivity(ctx, certs.AdvanceCertificateExpiry, step).Get(ctx, &next); err != nil {
			return err
		}
		if next.Done {
			return nil
		}
		if err := workflow.Sleep(ctx, max(next.WakeAt.Sub(workflow.Now(ctx)), time.Second)); err != nil {
			return err
		}
	}
	return workflow.NewContinueAsNewError(ctx, CertificateExpiry, in)
}
