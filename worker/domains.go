package worker

import (
	"context"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/partnerd/partnerd/workflows"
)

// DomainStarter starts custom-domain verifications.
type DomainStarter struct {
	Client client.Client
}

// VerifyDomain starts the verification of a domain, replacing one under way (a restart begins
// a new verification window).
func (d *DomainStarter) VerifyDomain(ctx context.Context, tenantID, domainID string) error {
	_, err := d.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       workflows.DomainWorkflowID(domainID),
		TaskQueue:                workflows.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING,
	}, workflows.DomainVerification, workflows.DomainInput{TenantID: tenantID, DomainID: domainID})
	return err
}
