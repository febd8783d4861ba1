package models

import "time"

// Types of the events the service emits about its own changes.
const (
	EventCustomerCreated    = "customer.created"
	EventCustomerUpdated    = "customer.updated"
	EventCustomerAttributed = "customer.attributed"
	EventCustomerDeleted    = "customer.deleted"
	EventWebhookDisabled    = "webhook.disabled"
	EventWebhookTested      = "webhook.tested"

	EventPartnerStatusChanged = "partner.status_changed"
	EventPartnerLevelChanged  = "partner.level_changed"
	EventPartnerApplied       = "partner.applied"
	EventPartnerApproved      = "partner.approved"
	EventPartnerRejected      = "partner.rejected"

	EventDealRegistered         = "deal.registered"
	EventDealApproved           = "deal.approved"
	EventDealRejected           = "deal.rejected"
	EventDealStageChanged       = "deal.stage_changed"
	EventDealWon                = "deal.won"
	EventDealLost               = "deal.lost"
	EventDealExpiring           = "deal.expiring"
	EventDealExpired            = "deal.expired"
	EventDealExtensionRequested = "deal.extension_requested"
	EventDealExtended           = "deal.extended"

	EventTaskCreated   = "task.created"
	EventTaskCompleted = "task.completed"
	EventTaskReopened  = "task.reopened"

	EventTicketOpened          = "ticket.opened"
	EventTicketUpdated         = "ticket.updated"
	EventTicketStatusChanged   = "ticket.status_changed"
	EventTicketReplied         = "ticket.replied"
	EventTicketNoteAdded       = "ticket.note_added"
	EventTicketAttachmentAdded = "ticket.attachment_added"
	EventTicketSLAWarning      = "ticket.sla_warning"
	EventTicketSLABreached     = "ticket.sla_breached"

	EventCommissionAccrued   = "commission.accrued"
	EventCommissionAvailable = "commission.available"
	EventCommissionReversed  = "commission.reversed"
	EventLedgerAdjusted      = "ledger.adjusted"
	EventWithdrawalRequested = "withdrawal.requested"
	EventWithdrawalApproved  = "withdrawal.approved"
	EventWithdrawalRejected  = "withdrawal.rejected"
	EventWithdrawalCancelled = "withdrawal.cancelled"
	EventPayoutPaid          = "payout.paid"
	EventPayoutFailed        = "payout.failed"

	EventContentFolderCreated = "content.folder_created"
	EventContentItemCreated   = "content.item_created"
	EventContentItemUpdated   = "content.item_updated"
	EventContentItemArchived  = "content.item_archived"
	EventContentVersionAdded  = "content.version_added"
	EventContentDownloaded    = "content.downloaded"

	EventAgreementCreated            = "agreement.created"
	EventAgreementVersionCreated     = "agreement.version_created"
	EventAgreementPublished          = "agreement.published"
	EventAgreementRequirementChanged = "agreement.requirement_changed"
	EventAgreementAccepted           = "agreement.accepted"
	EventAgreementGraceGranted       = "agreement.grace_granted"
	EventSurveyRequested             = "survey.requested"
	EventSurveyResponded             = "survey.responded"
	EventTaxRecordSubmitted          = "tax.record_submitted"
	EventTaxRecordApproved           = "tax.record_approved"
	EventTaxRecordRejected           = "tax.record_rejected"

	EventCertificationCoursePublished = "certification.course_published"
	EventCertificationCourseArchived  = "certification.course_archived"
	EventCertificationEarned          = "certification.earned"
	EventCertificationExpired         = "certification.expired"
	EventDomainAdded                  = "domain.added"
	EventDomainVerified               = "domain.verified"
	EventDomainFailed                 = "domain.failed"
	EventDomainUnverified             = "domain.unverified"
	EventDomainRemoved                = "domain.removed"
	EventPartnerHealthChanged         = "partner.health_changed"

	EventMDFFundAllocated           = "mdf.fund_allocated"
	EventMDFFundExpired             = "mdf.fund_expired"
	EventMDFRequestSubmitted        = "mdf.request_submitted"
	EventMDFRequestApproved         = "mdf.request_approved"
	EventMDFRequestRejected         = "mdf.request_rejected"
	EventMDFRequestChangesRequested = "mdf.request_changes_requested"
	EventMDFClaimSubmitted          = "mdf.claim_submitted"
	EventMDFClaimProofAdded         = "mdf.claim_proof_added"
	EventMDFClaimFirstApproved      = "mdf.claim_first_approved"
	EventMDFClaimApproved           = "mdf.claim_approved"
	EventMDFClaimRejected           = "mdf.claim_rejected"
)

// PartnerEventPayload is the payload of partner.* events.
type PartnerEventPayload struct {
	PartnerID      string `json:"partnerId"`
	Name           string `json:"name"`
	Type           string `json:"type"`
	Level          string `json:"level,omitempty"`
	Status         string `json:"status"`
	PreviousStatus string `json:"previousStatus,omitempty"`
	PreviousLevel  string `json:"previousLevel,omitempty"`
}

// ApplicationEventPayload is the payload of partner.applied, partner.approved and
// partner.rejected.
type ApplicationEventPayload struct {
	ApplicationID string `json:"applicationId"`
	Organisation  string `json:"organisation"`
	PartnerType   string `json:"partnerType"`
	ContactEmail  string `json:"contactEmail"`
	Status        string `json:"status"`
	PartnerID     string `json:"partnerId,omitempty" doc:"The partner organisation an approval created"`
	AutoApproved  bool   `json:"autoApproved,omitempty"`
	Reason        string `json:"reason,omitempty"`
}

// DealEventPayload is the payload of deal.* events.
type DealEventPayload struct {
	DealID          string     `json:"dealId"`
	PartnerID       string     `json:"partnerId"`
	Status          string     `json:"status"`
	PipelineID      string     `json:"pipelineId"`
	StageID         string     `json:"stageId"`
	StageName       string     `json:"stageName"`
	PreviousStageID string     `json:"previousStageId,omitempty"`
	CustomerCompany string     `json:"customerCompany"`
	CustomerDomain  string     `json:"customerDomain,omitempty"`
	CustomerID      string     `json:"customerId,omitempty" doc:"Set once the deal is won: the customer created or linked and attributed to the partner"`
	AmountMinor     int64      `json:"amountMinor" doc:"The deal's value in minor units of currency"`
	Currency        string     `json:"currency"`
	Reason          string     `json:"reason,omitempty" doc:"Why the deal was rejected or lost, or why an extension was asked for"`
	ProtectedUntil  *time.Time `json:"protectedUntil,omitempty"`
	ConflictReview  bool       `json:"conflictReview,omitempty" doc:"The registration overlaps another partner's and awaits review"`
}

// TaskEventPayload is the payload of task.* events.
type TaskEventPayload struct {
	TaskID    string `json:"taskId"`
	PartnerID string `json:"partnerId,omitempty"`
	Title     string `json:"title"`
	Status    string `json:"status"`
	LinkType  string `json:"linkType,omitempty"`
	LinkID    string `json:"linkId,omitempty"`
}

// CustomerEventPayload is the payload of customer.* events.
type CustomerEventPayload struct {
	CustomerID string `json:"customerId"`
	Email      string `json:"email,omitempty"`
	ExternalID string `json:"externalId,omitempty"`
	Name       string `json:"name,omitempty"`
	PartnerID  string `json:"partnerId,omitempty" doc:"The partner the customer is attributed to; empty while unattributed"`
}

// WebhookDisabledPayload is the payload of webhook.disabled, an operational event.
type WebhookDisabledPayload struct {
	WebhookID string `json:"webhookId"`
	URL       string `json:"url"`
	Reason    string `json:"reason" doc:"gone (the endpoint answered 410) or failing (it failed for the configured period)"`
}

// WebhookTestedPayload is the payload of webhook.tested, sent by the test-send operation.
type WebhookTestedPayload struct {
	WebhookID string `json:"webhookId"`
	Message   string `json:"message"`
}

// EventType describes one type the service emits.
type EventType struct {
	Name        string
	Description string
	// Payload is a value of the payload's Go type, from which the API derives its JSON schema.
	Payload any
}

// EventCatalogue lists every type the service emits, in display order. Every module adds its
// own here.
func EventCatalogue() []EventType {
	return []EventType{
		{EventCustomerCreated, "A customer was created, by an operator, a partner or an ingested event for an unknown email.", CustomerEventPayload{}},
		{EventCustomerUpdated, "A customer's email, external id or name changed.", CustomerEventPayload{}},
		{EventCustomerAttributed, "A customer was attributed to another partner, or its attribution was removed.", CustomerEventPayload{}},
		{EventCustomerDeleted, "A customer was deleted; its events stay.", CustomerEventPayload{}},
		{EventWebhookDisabled, "A webhook endpoint was disabled because it answered 410 or kept failing.", WebhookDisabledPayload{}},
		{EventWebhookTested, "An operator sent a test event to a webhook endpoint.", WebhookTestedPayload{}},
		{EventPartnerStatusChanged, "A partner organisation moved in its lifecycle: onboarding, active, suspended, offboarded.", PartnerEventPayload{}},
		{EventPartnerLevelChanged, "A partner organisation changed level.", PartnerEventPayload{}},
		{EventPartnerApplied, "An organisation applied to join the partner program.", ApplicationEventPayload{}},
		{EventPartnerApproved, "An application was approved: the partner organisation exists and its admin is invited.", ApplicationEventPayload{}},
		{EventPartnerRejected, "An application was rejected.", ApplicationEventPayload{}},
		{EventDealRegistered, "A partner registered a deal; conflictReview tells whether it overlaps another partner's.", DealEventPayload{}},
		{EventDealApproved, "An operator approved a deal registration; it is protected until protectedUntil.", DealEventPayload{}},
		{EventDealRejected, "An operator rejected a deal registration.", DealEventPayload{}},
		{EventDealStageChanged, "A deal moved to another open stage.", DealEventPayload{}},
		{EventDealWon, "A deal was won: amount, currency, partner and the attributed customer.", DealEventPayload{}},
		{EventDealLost, "A deal was lost.", DealEventPayload{}},
		{EventDealExpiring, "A deal's protection ends within seven days unless it progresses or is extended.", DealEventPayload{}},
		{EventDealExpired, "A deal's protection ended without progress.", DealEventPayload{}},
		{EventDealExtensionRequested, "A partner asked for a longer protection of a deal.", DealEventPayload{}},
		{EventDealExtended, "An operator extended a deal's protection.", DealEventPayload{}},
		{EventTaskCreated, "A task was created by hand (onboarding and playbook tasks are created without it).", TaskEventPayload{}},
		{EventTaskCompleted, "A task was completed.", TaskEventPayload{}},
		{EventTaskReopened, "A completed task was opened again.", TaskEventPayload{}},
		{EventTicketOpened, "A ticket was opened, by a partner or by the desk for a partner.", TicketEventPayload{}},
		{EventTicketUpdated, "The desk changed a ticket's subject, category, priority, tags or assignee.", TicketEventPayload{}},
		{EventTicketStatusChanged, "A ticket moved to another status, by hand or by a reply.", TicketEventPayload{}},
		{EventTicketReplied, "A partner or the desk replied on a ticket's thread; the text is read through the API.", TicketEventPayload{}},
		{EventTicketNoteAdded, "An operator added an internal note to a ticket; operators only, never shown to the partner.", TicketEventPayload{}},
		{EventTicketAttachmentAdded, "A file was attached to a ticket; for an internal note's file, operators only.", TicketEventPayload{}},
		{EventTicketSLAWarning, "A ticket's SLA target (first response or resolution) is close: the policy's warning threshold of business time is used. Operators only.", TicketSLAEventPayload{}},
		{EventTicketSLABreached, "A ticket's SLA target (first response or resolution) passed unmet. Operators only.", TicketSLAEventPayload{}},
		{EventCommissionAccrued, "A commission plan accrued on an event; the amount is pending until availableAt.", CommissionAccruedPayload{}},
		{EventCommissionAvailable, "An accrual's holding period ended: the amount is available for withdrawal.", CommissionAccruedPayload{}},
		{EventCommissionReversed, "An accrual was clawed back by a refund or reversal event, or by finance.", CommissionAccruedPayload{}},
		{EventLedgerAdjusted, "Finance adjusted a partner's available balance by hand.", LedgerMovedPayload{}},
		{EventWithdrawalRequested, "A partner asked to be paid out; the amount is held.", WithdrawalEventPayload{}},
		{EventWithdrawalApproved, "Finance approved a withdrawal; its payout starts.", WithdrawalEventPayload{}},
		{EventWithdrawalRejected, "Finance rejected a withdrawal; the hold is released.", WithdrawalEventPayload{}},
		{EventWithdrawalCancelled, "The partner cancelled a withdrawal before review; the hold is released.", WithdrawalEventPayload{}},
		{EventPayoutPaid, "A payout was paid: the withdrawal is complete.", WithdrawalEventPayload{}},
		{EventPayoutFailed, "A payout failed for good, with the provider's reason (a rail's refusal, a returned or bounced payment, finance's report): the held funds are available again.", WithdrawalEventPayload{}},
		{EventContentFolderCreated, "An operator added a folder to the content library.", ContentFolderEventPayload{}},
		{EventContentItemCreated, "An operator added a file or link to the content library.", ContentEventPayload{}},
		{EventContentItemUpdated, "A content item's details or visibility changed.", ContentEventPayload{}},
		{EventContentItemArchived, "A content item was archived: partners no longer see it.", ContentEventPayload{}},
		{EventContentVersionAdded, "A new file replaced a content item's current version; the earlier ones stay in its history.", ContentEventPayload{}},
		{EventContentDownloaded, "Someone started downloading a content item's file; partnerId names the partner (per-partner download counts).", ContentEventPayload{}},
		{EventAgreementCreated, "An operator added a legal agreement (partner agreement, NDA, program terms).", AgreementEventPayload{}},
		{EventAgreementVersionCreated, "An operator wrote a draft version of an agreement.", AgreementEventPayload{}},
		{EventAgreementPublished, "A version of an agreement was published and can no longer change; required tells whether partners must now accept it (they are asked to).", AgreementEventPayload{}},
		{EventAgreementRequirementChanged, "Which version of an agreement partners must accept, which partners or from when changed.", AgreementEventPayload{}},
		{EventAgreementAccepted, "A partner accepted a version of an agreement; partnerId names the partner (onboarding playbooks wait for it).", AgreementEventPayload{}},
		{EventAgreementGraceGranted, "An operator let a partner act without its pending agreements until graceUntil.", AgreementEventPayload{}},
		{EventSurveyRequested, "Survey invitations were created (batchId, kind, count); each recipient is emailed a single-use link.", SurveyEventPayload{}},
		{EventSurveyResponded, "A partner user answered a survey: its kind, score and class per partnerId (the comment is not in the event).", SurveyEventPayload{}},
		{EventTaxRecordSubmitted, "A partner's tax details or signed form were submitted for review (never the tax id).", TaxRecordEventPayload{}},
		{EventTaxRecordApproved, "Finance approved a partner's tax record: its withdrawals are no longer blocked or warned about.", TaxRecordEventPayload{}},
		{EventTaxRecordRejected, "Finance rejected a partner's tax record, with the reason.", TaxRecordEventPayload{}},
		{EventCertificationCoursePublished, "An operator published a certification course: partners who may see it can enrol; its quiz no longer changes.", CourseEventPayload{}},
		{EventCertificationCourseArchived, "An operator archived a certification course: no new enrolments or attempts; certificates stay.", CourseEventPayload{}},
		{EventCertificationEarned, "A partner user passed a course's quiz and holds a certificate until expiresAt; renews names the certificate it replaces. Never holds answers.", CertificationEventPayload{}},
		{EventCertificationExpired, "A certificate reached its expiry without being renewed.", CertificationEventPayload{}},
		{EventDomainAdded, "An operator added a custom domain for the tenant's portal or a partner's (host, partnerId); it is verified by a DNS TXT record.", DomainEventPayload{}},
		{EventDomainVerified, "A custom domain's TXT record was found: the host now serves the portal.", DomainEventPayload{}},
		{EventDomainFailed, "A custom domain's TXT record was not found within the verification window (72 h).", DomainEventPayload{}},
		{EventDomainUnverified, "A verified custom domain's TXT record stayed missing through the grace period: the host no longer serves the portal.", DomainEventPayload{}},
		{EventDomainRemoved, "An operator removed a custom domain.", DomainEventPayload{}},
		{EventPartnerHealthChanged, "A partner's health tier changed in a scoring run: fromTier, toTier, score and the model version that scored it (not sent for a partner's first tier).", HealthEventPayload{}},
		{EventMDFFundAllocated, "An operator allocated market development funds to a partner or a level, in one currency, until expiresAt; its expiry timer starts.", MDFFundEventPayload{}},
		{EventMDFFundExpired, "An MDF fund reached its expiry: what no approved request committed is released (released) and requests still waiting expire.", MDFFundEventPayload{}},
		{EventMDFRequestSubmitted, "A partner asked for part of an MDF fund for an activity (planned dates, budget, expected pipeline), or submitted it again after changes.", MDFRequestEventPayload{}},
		{EventMDFRequestApproved, "An operator approved an MDF request for its budget or a lesser amount (approved), which the fund commits.", MDFRequestEventPayload{}},
		{EventMDFRequestRejected, "An operator rejected an MDF request, with the reason.", MDFRequestEventPayload{}},
		{EventMDFRequestChangesRequested, "An operator asked the partner to change an MDF request (reason); the partner submits it again.", MDFRequestEventPayload{}},
		{EventMDFClaimSubmitted, "A partner claimed what an approved MDF request's activity cost, with its results (leads, deals influenced) and proof links.", MDFClaimEventPayload{}},
		{EventMDFClaimProofAdded, "A proof file was uploaded to an MDF claim waiting for its decision.", MDFClaimEventPayload{}},
		{EventMDFClaimFirstApproved, "Finance gave the first of the two approvals a claim above the tenant's four-eyes amount needs.", MDFClaimEventPayload{}},
		{EventMDFClaimApproved, "Finance approved an MDF claim: the amount is spent from its request and fund and reimbursed into the partner's MDF balance (movementId).", MDFClaimEventPayload{}},
		{EventMDFClaimRejected, "Finance rejected an MDF claim, with the reason.", MDFClaimEventPayload{}},
	}
}
