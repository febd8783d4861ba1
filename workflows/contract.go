// Package workflows holds partnerd's deterministic Temporal workflows. This file is the
// contract other packages may import: task queue names, workflow-ID helpers and the
// Input/Result structs.
package workflows

import (
	"time"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/sla"
)

// TaskQueue is the task queue every partnerd worker polls.
const TaskQueue = "partnerd"

// ProbeInput asks the worker fleet to prove that it processes work end to end.
type ProbeInput struct {
	// TenantID is empty: the probe concerns the installation, not a tenant.
	TenantID string
	// RequestedAt is when the caller asked, for the round-trip time in the result.
	RequestedAt time.Time
}

// ProbeResult says which worker answered and whether it reached the database.
type ProbeResult struct {
	WorkerVersion string
	DatabaseOK    bool
}

// ProbeWorkflowID is the workflow id of a probe requested at t by one caller.
func ProbeWorkflowID(caller string, t time.Time) string {
	return "probe-" + caller + "-" + t.UTC().Format("20060102T150405.000000000")
}

// EventFanoutInput names one committed event to hand to its subscribers.
type EventFanoutInput struct {
	TenantID string
	EventID  string
	Type     string
}

// EventFanoutResult says what the fan-out started.
type EventFanoutResult struct {
	// Webhooks are the ids of the webhook endpoints a delivery was started for.
	Webhooks []string
	// DealProtection is the deal whose protection timer was started.
	DealProtection string
	// Accruals are the accruals the event made (new or found from an earlier run).
	Accruals []string
	// Clawbacks are the accruals the event reversed.
	Clawbacks []string
	// Payout is the withdrawal whose payout was started.
	Payout string
	// AgreementNotices counts the users emailed to accept a newly required agreement version.
	AgreementNotices int
	// SurveyInvitations counts the survey invitations emailed.
	SurveyInvitations int
	// MoneyError says why the ledger refused the event's accrual or clawback for good.
	MoneyError string
	// Runs are the playbook runs the event started; Signalled the waiting runs it reached.
	Runs      []string
	Signalled []string
	// TicketSLA is the ticket whose SLA clock the event started or reached.
	TicketSLA string
	// CertificateExpiry is the certificate whose expiry timer was started.
	CertificateExpiry string
	// MDFFundExpiry is the MDF fund whose expiry timer was started.
	MDFFundExpiry string
}

// EventWorkflowID is the id of an event's fan-out workflow: starting it twice is a no-op.
func EventWorkflowID(eventID string) string { return "event-" + eventID }

// WebhookDeliveryInput asks for one event to be delivered to one webhook endpoint.
type WebhookDeliveryInput struct {
	TenantID  string
	WebhookID string
	EventID   string
	// DeliveryID names an existing delivery to replay; empty for a first delivery.
	DeliveryID string
}

// WebhookDeliveryWorkflowID is the id of the workflow delivering an event to an endpoint.
func WebhookDeliveryWorkflowID(eventID, webhookID string) string {
	return "delivery-" + eventID + "-" + webhookID
}

// OutboxRelayWorkflowID is the id of the one workflow that hands over events whose dispatch
// after commit did not happen.
const OutboxRelayWorkflowID = "outbox-relay"

// OutboxRelayInput configures the relay.
type OutboxRelayInput struct {
	// TenantID is empty: the relay serves the whole installation.
	TenantID string
	// Interval is the pause between two passes; Age is how old an outbox row must be before
	// the relay takes it (younger ones are still being dispatched after their commit).
	Interval time.Duration
	Age      time.Duration
}

// DealProtectionInput names the approved deal a protection timer watches.
type DealProtectionInput struct {
	TenantID string
	DealID   string
}

// DealProtectionWorkflowID is the id of a deal's protection timer: one per deal.
func DealProtectionWorkflowID(dealID string) string { return "deal-protection-" + dealID }

// CertificateExpiryInput names the certificate an expiry timer watches.
type CertificateExpiryInput struct {
	TenantID      string
	CertificateID string
}

// CertificateExpiryWorkflowID is the id of a certificate's expiry timer: one per certificate.
func CertificateExpiryWorkflowID(certificateID string) string {
	return "certificate-expiry-" + certificateID
}

// MDFFundExpiryInput names the MDF fund an expiry timer watches.
type MDFFundExpiryInput struct {
	TenantID string
	FundID   string
}

// MDFFundExpiryWorkflowID is the id of an MDF fund's expiry timer: one per fund.
func MDFFundExpiryWorkflowID(fundID string) string { return "mdf-fund-expiry-" + fundID }

// TicketSLAInput names the ticket an SLA clock watches. Clock and Priority carry a running
// clock across continue-as-new; a new clock starts from OpenedAt.
type TicketSLAInput struct {
	TenantID string
	TicketID string
	OpenedAt time.Time
	Clock    *sla.Clock
	Priority string
}

// TicketSLAWorkflowID is the id of a ticket's SLA clock: one per ticket.
func TicketSLAWorkflowID(ticketID string) string { return "ticket-sla-" + ticketID }

// TicketSLASignal is the signal that tells a ticket's SLA clock what happened to the ticket
// (a models.TicketSLASignal).
const TicketSLASignal = "ticket-sla"

// CommissionHoldInput names an accrual waiting for its holding period to end.
type CommissionHoldInput struct {
	TenantID  string
	AccrualID string
	// AvailableAt is when the holding period ends.
	AvailableAt time.Time
}

// CommissionHoldWorkflowID is the id of an accrual's holding timer: one per accrual.
func CommissionHoldWorkflowID(accrualID string) string { return "commission-hold-" + accrualID }

// PayoutInput names the approved withdrawal a payout workflow pays.
type PayoutInput struct {
	TenantID     string
	WithdrawalID string
}

// PayoutResult is how a payout ended: paid, failed, or settled before the workflow ran.
type PayoutResult struct {
	Status    string
	Reference string
}

// PayoutWorkflowID is the id of a withdrawal's payout workflow: one per withdrawal.
func PayoutWorkflowID(withdrawalID string) string { return "payout-" + withdrawalID }

// PayoutBatchInput names a tenant's daily batch of one rail.
type PayoutBatchInput struct {
	TenantID string
	Provider string
	// Day is the UTC date the batch pays, 2006-01-02.
	Day string
}

// PayoutBatchResult is how a batch ended.
type PayoutBatchResult struct {
	BatchID string
	Payouts int
	Paid    int
	Failed  int
}

// PayoutBatchWorkflowID is the id of a tenant's batch of a rail for a day: one per day.
func PayoutBatchWorkflowID(tenantID, provider, day string) string {
	return "payout-batch-" + tenantID + "-" + provider + "-" + day
}

// PayoutBatchScheduleWorkflowID is the id of the one payout batch schedule of an installation.
const PayoutBatchScheduleWorkflowID = "payout-batch-schedule"

// PayoutBatchScheduleInput sets how often batches are made (a day).
type PayoutBatchScheduleInput struct {
	Interval time.Duration
}

// PayoutDecisionSignal carries finance's confirmation or failure of a manual payout.
const PayoutDecisionSignal = "payout-decision"

// PayoutDecision is finance's word on a manual payout.
type PayoutDecision struct {
	Paid bool
	// Reference is the bank reference of a paid payout; Reason explains a failure.
	Reference string
	Reason    string
	// By is the operator who decided.
	By string
}

// PlaybookRunInput names one run of a published playbook version; the run hands it to its
// activities as it is.
type PlaybookRunInput = activities.RunRef

// PlaybookRunResult is how a run ended.
type PlaybookRunResult struct {
	Status string
	Steps  int
	Error  string
}

// PlaybookRunWorkflowID is the id of a run's workflow.
func PlaybookRunWorkflowID(runID string) string { return "playbook-run-" + runID }

// PlaybookEventSignal carries an event to runs waiting in a wait_for_event step.
const PlaybookEventSignal = "playbook-event"

// LevelReviewWorkflowID is the id of the one level review of an installation.
const LevelReviewWorkflowID = "level-review"

// LevelReviewInput sets how often the level review runs.
type LevelReviewInput struct {
	Interval time.Duration
}

// DomainInput names the custom domain a verification watches. Watching is false while the
// domain waits for its TXT record (from Since, for models.DomainVerifyWindow) and true once it
// is verified (checked again every models.DomainRecheckEvery, one check per run).
type DomainInput struct {
	TenantID string
	DomainID string
	Watching bool
	Since    time.Time
}

// DomainWorkflowID is the id of a custom domain's verification: one per domain.
func DomainWorkflowID(domainID string) string { return "domain-" + domainID }

// HealthScheduleWorkflowID is the id of the one health schedule of an installation.
const HealthScheduleWorkflowID = "health-schedule"

// HealthScheduleInput sets how often the health schedule looks for tenants due (an hour).
type HealthScheduleInput struct {
	Interval time.Duration
}

// HealthRunWorkflowID is the id of one health scoring run's workflow.
func HealthRunWorkflowID(runID string) string { return "health-run-" + runID }

// HealthRunInput names a scoring run and where it stands: the last partner scored and the
// totals so far (carried when the workflow continues as new).
type HealthRunInput struct {
	TenantID string
	RunID    string
	PageSize int
	After    string
	Partners int
	Changes  int
}

// HealthRunResult is what a run scored.
type HealthRunResult struct {
	Partners int
	Changes  int
	// Pruned counts the snapshots past the retention that the run deleted.
	Pruned int
}
