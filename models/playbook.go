package models

import (
	"slices"
	"time"
)

// Playbook statuses.
const (
	// PlaybookDraft is a playbook being authored; it never runs.
	PlaybookDraft = "draft"
	// PlaybookEnabled is a playbook whose published version starts runs on matching events.
	PlaybookEnabled = "enabled"
	// PlaybookDisabled is a playbook that starts no new runs; runs under way continue.
	PlaybookDisabled = "disabled"
	// PlaybookArchived is a playbook kept for its history only, for good.
	PlaybookArchived = "archived"
)

// PlaybookStatuses lists the playbook statuses in lifecycle order.
var PlaybookStatuses = []string{PlaybookDraft, PlaybookEnabled, PlaybookDisabled, PlaybookArchived}

// DefaultPlaybookConcurrencyLimit is how many runs of one playbook may be under way at once when
// the playbook names no limit.
const DefaultPlaybookConcurrencyLimit = 100

// MaxPlaybookConcurrencyLimit is the highest concurrency limit a playbook may set.
const MaxPlaybookConcurrencyLimit = 10000

// playbookTransitions are the legal moves of a playbook's lifecycle.
var playbookTransitions = map[string][]string{
	PlaybookDraft:    {PlaybookEnabled, PlaybookArchived},
	PlaybookEnabled:  {PlaybookDisabled, PlaybookArchived},
	PlaybookDisabled: {PlaybookEnabled, PlaybookArchived},
}

// CheckPlaybookTransition refuses a status change the playbook lifecycle does not allow, with
// 409 ILLEGAL_PLAYBOOK_TRANSITION: draft → enabled ⇄ disabled, and archived from any state, for
// good. Enabling also needs a published version, which the caller checks.
func CheckPlaybookTransition(from, to string) *Error {
	if slices.Contains(playbookTransitions[from], to) {
		return nil
	}
	return Errorf(KindConflict, "ILLEGAL_PLAYBOOK_TRANSITION", "a %s playbook cannot become %s", from, to)
}

// Playbook is an operator-authored automation of a tenant: a trigger and a graph of nodes. The
// graph held here is the draft; runs always use a published, immutable PlaybookVersion.
type Playbook struct {
	ID          string `json:"id" gorm:"primaryKey;size:36"`
	TenantID    string `json:"-" gorm:"size:36;not null;index"`
	Name        string `json:"name" gorm:"size:200;not null" maxLength:"200" doc:"Name shown to operators"`
	Description string `json:"description" gorm:"type:text" maxLength:"2000" doc:"What the playbook is for"`
	// Status is one of PlaybookStatuses.
	Status string `json:"status" gorm:"size:16;not null" enum:"draft,enabled,disabled,archived" doc:"Lifecycle status: only enabled playbooks start runs"`
	// Graph is the draft graph; publishing copies it into a new PlaybookVersion.
	Graph PlaybookGraph `json:"graph" gorm:"serializer:json;type:text;not null" doc:"The draft graph, edited freely; runs use published versions"`
	// PublishedVersion is the version new runs start on; 0 until the first publication.
	PublishedVersion int `json:"publishedVersion" gorm:"not null;default:0" minimum:"0" doc:"Version new runs start on; 0 before the first publication"`
	// ConcurrencyLimit caps the runs under way at once; 0 means DefaultPlaybookConcurrencyLimit.
	ConcurrencyLimit int       `json:"concurrencyLimit" gorm:"not null;default:0" minimum:"0" maximum:"10000" doc:"Runs under way at once; 0 for the default (100)"`
	CreatedAt        time.Time `json:"createdAt"`
	UpdatedAt        time.Time `json:"updatedAt"`
}

// EffectiveConcurrencyLimit is the number of runs of p that may be under way at once.
func (p *Playbook) EffectiveConcurrencyLimit() int {
	if p.ConcurrencyLimit <= 0 {
		return DefaultPlaybookConcurrencyLimit
	}
	return p.ConcurrencyLimit
}

// PlaybookVersion is a published graph of a playbook. It never changes once written; a run
// records the version it started on and follows that graph to its end.
type PlaybookVersion struct {
	TenantID   string `json:"-" gorm:"size:36;not null;index"`
	PlaybookID string `json:"playbookId" gorm:"primaryKey;size:36"`
	// Version counts publications of the playbook from 1.
	Version     int           `json:"version" gorm:"primaryKey" minimum:"1"`
	Graph       PlaybookGraph `json:"graph" gorm:"serializer:json;type:text;not null"`
	PublishedAt time.Time     `json:"publishedAt" gorm:"not null"`
	// PublishedBy is the user who published the version.
	PublishedBy string `json:"publishedBy" gorm:"size:36;not null"`
}

// Playbook node kinds.
const (
	// NodeTrigger is the entry of the graph; exactly one per graph.
	NodeTrigger = "trigger"
	// NodeCondition branches on an expression along its `true` and `false` edges.
	NodeCondition = "condition"
	// NodeWait pauses the run for a duration or until a time.
	NodeWait = "wait"
	// NodeWaitForEvent pauses the run until a matching event arrives or its timeout passes.
	NodeWaitForEvent = "wait_for_event"
	// NodeParallel continues along every outgoing edge at once.
	NodeParallel = "parallel"
	// NodeJoin continues once every incoming branch has arrived.
	NodeJoin = "join"
	// NodeSendEmail sends a templated email.
	NodeSendEmail = "send_email"
	// NodeCreateTask creates a task for the partner or an operator.
	NodeCreateTask = "create_task"
	// NodeCreateDocument creates a document the partner can open.
	NodeCreateDocument = "create_document"
	// NodeAccrueCommission books a one-off commission for the partner through the ledger.
	NodeAccrueCommission = "accrue_commission"
	// NodeCallWebhook makes a signed HTTP call.
	NodeCallWebhook = "call_webhook"
	// NodeUpdatePartner changes the partner's level, status or a custom field.
	NodeUpdatePartner = "update_partner"
	// NodeEmitEvent emits an event on the bus.
	NodeEmitEvent = "emit_event"
	// NodeSendSurvey emails the active users of the run's partner a CSAT or NPS survey.
	NodeSendSurvey = "send_survey"
)

// PlaybookNodeKinds lists every node kind.
var PlaybookNodeKinds = []string{
	NodeTrigger, NodeCondition, NodeWait, NodeWaitForEvent, NodeParallel, NodeJoin,
	NodeSendEmail, NodeCreateTask, NodeCreateDocument, NodeAccrueCommission, NodeCallWebhook,
	NodeUpdatePartner, NodeEmitEvent, NodeSendSurvey,
}

// PlaybookActionKinds lists the node kinds that act on the world.
var PlaybookActionKinds = []string{
	NodeSendEmail, NodeCreateTask, NodeCreateDocument, NodeAccrueCommission, NodeCallWebhook,
	NodeUpdatePartner, NodeEmitEvent, NodeSendSurvey,
}

// IsPlaybookAction reports whether kind is an action node kind.
func IsPlaybookAction(kind string) bool { return slices.Contains(PlaybookActionKinds, kind) }

// Playbook edge labels.
const (
	// EdgeNext is the default edge label; an empty label means the same.
	EdgeNext = "next"
	// EdgeTrue is followed when a condition holds.
	EdgeTrue = "true"
	// EdgeFalse is followed when a condition does not hold.
	EdgeFalse = "false"
	// EdgeTimeout is followed when a wait_for_event node's timeout passes first.
	EdgeTimeout = "timeout"
)

// Task assignees of a create_task node.
const (
	// AssigneePartner gives the task to the partner organisation of the run.
	AssigneePartner = "partner"
	// AssigneeOperator gives the task to the tenant's staff.
	AssigneeOperator = "operator"
)

// PlaybookGraph is what a playbook does: the trigger that starts a run and the nodes and edges
// the run follows.
type PlaybookGraph struct {
	Trigger PlaybookTrigger `json:"trigger" doc:"Which events start a run"`
	Nodes   []PlaybookNode  `json:"nodes" maxItems:"200" doc:"The steps; exactly one has kind trigger"`
	Edges   []PlaybookEdge  `json:"edges" maxItems:"400" doc:"Directed connections between nodes"`
}

// PlaybookTrigger selects the events that start a run.
type PlaybookTrigger struct {
	// EventType is an event type or a pattern with `*` wildcards (`deal.*`).
	EventType string `json:"eventType" maxLength:"128" doc:"Event type or pattern with * wildcards, e.g. deal.won or deal.*" example:"deal.won"`
	// Condition is an optional boolean expression over the event and the partner.
	Condition string `json:"condition,omitempty" maxLength:"2000" doc:"Boolean expression; the run starts only when it holds" example:"event.payload.amount >= 100000"`
}

// PlaybookNode is one step of a graph. Kind says what it does; the member named after the kind
// (sendEmail for send_email, ...) holds its parameters, and no other member is set. Trigger,
// parallel and join nodes take no parameters.
type PlaybookNode struct {
	// ID names the node within its graph: a letter or underscore, then letters, digits or
	// underscores, at most 64 characters, so that expressions can say steps.<id>.
	ID   string `json:"id" maxLength:"64" pattern:"^[A-Za-z_][A-Za-z0-9_]*$" doc:"Unique within the graph; expressions read its output as steps.<id>"`
	Kind string `json:"kind" enum:"trigger,condition,wait,wait_for_event,parallel,join,send_email,create_task,create_document,accrue_commission,call_webhook,update_partner,emit_event,send_survey" doc:"What the node does"`
	Name string `json:"name,omitempty" maxLength:"200" doc:"Label shown to operators"`

	Condition        *PlaybookCondition        `json:"condition,omitempty" doc:"Parameters of a condition node"`
	Wait             *PlaybookWait             `json:"wait,omitempty" doc:"Parameters of a wait node"`
	WaitForEvent     *PlaybookWaitForEvent     `json:"waitForEvent,omitempty" doc:"Parameters of a wait_for_event node"`
	SendEmail        *PlaybookSendEmail        `json:"sendEmail,omitempty" doc:"Parameters of a send_email node"`
	CreateTask       *PlaybookCreateTask       `json:"createTask,omitempty" doc:"Parameters of a create_task node"`
	CreateDocument   *PlaybookCreateDocument   `json:"createDocument,omitempty" doc:"Parameters of a create_document node"`
	AccrueCommission *PlaybookAccrueCommission `json:"accrueCommission,omitempty" doc:"Parameters of an accrue_commission node"`
	CallWebhook      *PlaybookCallWebhook      `json:"callWebhook,omitempty" doc:"Parameters of a call_webhook node"`
	UpdatePartner    *PlaybookUpdatePartner    `json:"updatePartner,omitempty" doc:"Parameters of an update_partner node"`
	EmitEvent        *PlaybookEmitEvent        `json:"emitEvent,omitempty" doc:"Parameters of an emit_event node"`
	SendSurvey       *PlaybookSendSurvey       `json:"sendSurvey,omitempty" doc:"Parameters of a send_survey node"`
}

// PlaybookEdge leads from one node to another. Label chooses the branch: `true`/`false` out of
// a condition, `next`/`timeout` out of a wait_for_event, `next` (or empty) elsewhere.
type PlaybookEdge struct {
	From  string `json:"from" maxLength:"64" doc:"Id of the source node"`
	To    string `json:"to" maxLength:"64" doc:"Id of the target node"`
	Label string `json:"label,omitempty" enum:"next,true,false,timeout" doc:"Branch: true/false after a condition, next/timeout after wait_for_event, next (default) elsewhere"`
}

// PlaybookCondition branches the run.
type PlaybookCondition struct {
	// Expression is a boolean expression over event, partner, steps and now.
	Expression string `json:"expression" maxLength:"2000" doc:"Boolean expression over event, partner, steps and now" example:"event.payload.amount >= 100000"`
}

// PlaybookWait pauses the run: for Duration, or until the time Until evaluates to. Exactly one
// is set.
type PlaybookWait struct {
	// Duration is like "72h", "3d" or "1d12h"; more than zero, at most 365 days.
	Duration string `json:"duration,omitempty" maxLength:"32" doc:"How long to wait: Go duration with an optional leading day count, e.g. 72h, 3d, 1d12h; at most 365d" example:"7d"`
	// Until is an expression giving the time to wait for.
	Until string `json:"until,omitempty" maxLength:"2000" doc:"Expression giving the time to wait until, at most 365 days ahead" example:"event.occurredAt + days(30)"`
}

// PlaybookWaitForEvent pauses the run until an event of EventType for which Condition holds
// arrives (the `next` edge), or Timeout passes (the `timeout` edge).
type PlaybookWaitForEvent struct {
	EventType string `json:"eventType" maxLength:"128" doc:"Event type or pattern with * wildcards" example:"task.completed"`
	// Condition reads the arriving event as `received`, next to event, partner, steps and now.
	Condition string `json:"condition,omitempty" maxLength:"2000" doc:"Boolean expression; the arriving event is received" example:"received.payload.taskId == steps.agreement.taskId"`
	Timeout   string `json:"timeout" maxLength:"32" doc:"How long to wait at most, e.g. 3d; at most 365d" example:"3d"`
}

// PlaybookSendEmail sends an email. Every field is a template over the run's data.
type PlaybookSendEmail struct {
	// To is a comma-separated address list, or a template that renders to one.
	To      string `json:"to" maxLength:"2000" doc:"Recipients: addresses separated by commas, or a template rendering to them" example:"{{.partner.custom.contactEmail}}"`
	Subject string `json:"subject" maxLength:"1000" doc:"Subject template (text/template)"`
	// Text and HTML are the bodies; at least one is set.
	Text string `json:"text,omitempty" maxLength:"65536" doc:"Plain-text body template (text/template)"`
	HTML string `json:"html,omitempty" maxLength:"65536" doc:"HTML body template (html/template: data is escaped)"`
}

// PlaybookCreateTask creates a task.
type PlaybookCreateTask struct {
	Title       string `json:"title" maxLength:"1000" doc:"Title template"`
	Description string `json:"description,omitempty" maxLength:"65536" doc:"Description template"`
	// Assignee is AssigneePartner or AssigneeOperator.
	Assignee string `json:"assignee" enum:"partner,operator" doc:"Who does the task: the partner organisation or the tenant's staff"`
	// DueInDays sets the due date that many days after the step runs; 0 for none.
	DueInDays int `json:"dueInDays,omitempty" minimum:"0" maximum:"365" doc:"Due date, in days after the step runs; 0 for none"`
}

// PlaybookCreateDocument creates a document record the partner can open, from a stored
// document template (Template) or an inline body (Body); exactly one is set.
type PlaybookCreateDocument struct {
	Title    string `json:"title" maxLength:"1000" doc:"Title template"`
	Template string `json:"template,omitempty" maxLength:"64" pattern:"^[a-z0-9][a-z0-9_-]*$" doc:"Name of a stored document template"`
	Body     string `json:"body,omitempty" maxLength:"65536" doc:"Inline HTML body template (html/template: data is escaped)"`
}

// PlaybookAccrueCommission books a one-off commission for the run's partner: a fixed
// AmountMinor or an AmountExpression, exactly one of them.
type PlaybookAccrueCommission struct {
	// AmountMinor is in minor units of Currency; more than zero.
	AmountMinor int64 `json:"amountMinor,omitempty" minimum:"0" maximum:"1000000000000" doc:"Fixed amount in minor units (cents)" example:"50000"`
	// AmountExpression computes the amount in minor units; it must give a whole number > 0.
	AmountExpression string `json:"amountExpression,omitempty" maxLength:"2000" doc:"Expression giving the amount in minor units" example:"event.payload.amount / 100"`
	Currency         string `json:"currency" maxLength:"3" pattern:"^[A-Z]{3}$" doc:"ISO 4217 currency code" example:"EUR"`
	Reason           string `json:"reason" maxLength:"500" doc:"Why the bonus is paid, shown on the ledger entry (template)"`
}

// PlaybookCallWebhook makes a signed HTTP POST.
type PlaybookCallWebhook struct {
	URL string `json:"url" maxLength:"2048" format:"uri" doc:"Absolute http or https URL"`
	// Body is a template; empty sends the run's event and partner as JSON.
	Body string `json:"body,omitempty" maxLength:"65536" doc:"Body template; empty sends the event and the partner as JSON"`
}

// PlaybookUpdatePartner changes one thing about the run's partner: its level (LevelID), its
// status (Status) or a custom field (CustomField set to CustomValue). Exactly one is set.
type PlaybookUpdatePartner struct {
	LevelID     string `json:"levelId,omitempty" maxLength:"36" doc:"Level to move the partner to"`
	Status      string `json:"status,omitempty" enum:"onboarding,active,suspended,offboarded" doc:"Status to move the partner to"`
	CustomField string `json:"customField,omitempty" maxLength:"64" pattern:"^[A-Za-z_][A-Za-z0-9_]*$" doc:"Custom field to set"`
	CustomValue string `json:"customValue,omitempty" maxLength:"2000" doc:"Value template for the custom field"`
}

// PlaybookSendSurvey emails every active user of the run's partner a survey of one kind, with a
// single-use link to answer it (at most models.MaxSurveyRecipients users).
type PlaybookSendSurvey struct {
	Kind string `json:"kind" enum:"csat,nps" doc:"csat: satisfaction from 1 to 5; nps: likelihood to recommend from 0 to 10"`
}

// PlaybookEmitEvent emits an event whose causation is the run's event.
type PlaybookEmitEvent struct {
	// Type is an event type outside the namespaces the service keeps for itself.
	Type string `json:"type" maxLength:"128" doc:"Event type, outside the reserved namespaces" example:"onboarding.reminded"`
	// Payload is a template that renders to a JSON object; empty means {}.
	Payload string `json:"payload,omitempty" maxLength:"65536" doc:"Template rendering to a JSON object"`
}
