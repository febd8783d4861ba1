package activities

import (
	"context"
	"time"

	"github.com/partnerd/partnerd/models"
)

// CertificationStore is what the certification activities need of storage.
type CertificationStore interface {
	AdvanceCertificateExpiry(ctx context.Context, sys models.Scope, certificateID string, at time.Time) (models.CertificateExpiry, error)
}

// Certifications holds the activities of certificates.
type Certifications struct {
	Store CertificationStore
}

// CertificateExpiryStep names the certificate an expiry timer looks at, and the workflow's time.
type CertificateExpiryStep struct {
	TenantID      string
	CertificateID string
	// At is the workflow's clock, so that a timer and its test agree on what is due.
	At time.Time
}

// AdvanceCertificateExpiry expires a certificate that is due and says when to look again.
func (a *Certifications) AdvanceCertificateExpiry(ctx context.Context, in CertificateExpiryStep) (models.CertificateExpiry, error) {
	return a.Store.AdvanceCertificateExpiry(ctx, models.System(in.TenantID), in.CertificateID, in.At)
}
