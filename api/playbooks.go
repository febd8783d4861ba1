package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/playbook"
)

const (
	tagPlaybooks = "Playbooks"
	tagDocuments = "Documents"
)

// CodeInvalidPlaybook is the code of a 422 for a graph with problems; errors[] lists each one.
const CodeInvalidPlaybook = "INVALID_PLAYBOOK"

// PlaybookStore is what the playbook, run and document operations need of storage, as the caller sees it.
type PlaybookStore interface {
	CreatePlaybook(ctx context.Context, p *models.Playbook) error
	ListPlaybooks(ctx context.Context, status string, pg models.Page) ([]models.Playbook, string, error)
	Playbook(ctx context.Context, id string) (*models.Playbook, error)
	UpdatePlaybook(ctx context.Context, id string, ch models.PlaybookChanges) (*models.Playbook, error)
	PublishPlaybook(ctx context.Context, id string) (*models.PlaybookVersion, error)
	PlaybookVersions(ctx context.Context, id string) ([]models.PlaybookVersion, error)
	SetPlaybookStatus(ctx context.Context, id, status string) (*models.Playbook, error)
	ListPlaybookRuns(ctx context.Context, f models.PlaybookRunFilter, pg models.Page) ([]models.PlaybookRun, string, error)
	PlaybookRun(ctx context.Context, id string) (*models.PlaybookRun, []models.PlaybookStep, error)
	RequestPlaybookRunCancel(ctx context.Context, id string) (*models.PlaybookRun, error)
	ListDocuments(ctx context.Context, partnerID string, pg models.Page) ([]models.Document, string, error)
	Document(ctx context.Context, id string) (*models.Document, error)
	SetPlaybookWebhookSecret(ctx context.Context, sealed models.Sealed) (time.Time, error)
}

// playbooks is the playbook store as the caller sees it.
func (s *Server) playbooks(ctx context.Context) PlaybookStore {
	return s.deps.Modules.Playbooks(models.PrincipalFrom(ctx))
}

// PlaybookSecretOutput is the new signing secret of call_webhook actions, shown once.
type PlaybookSecretOutput struct {
	Body struct {
		Secret    string    `json:"secret" doc:"The signing secret (whsec_…) of every call_webhook action of the tenant; shown only in this response. Receivers verify the webhook-signature header with it (Standard Webhooks)."`
		UpdatedAt time.Time `json:"updatedAt"`
	}
}

// RunCanceller stops a playbook run that is under way.
type RunCanceller interface {
	// CancelPlaybookRun asks the run to stop; it returns once the request is delivered.
	CancelPlaybookRun(ctx context.Context, tenantID, runID string) error
}

// PlaybookProblem is one thing wrong with a playbook graph.
type PlaybookProblem struct {
	Code    string `json:"code" doc:"The rule broken, e.g. NODE_UNREACHABLE or EXPRESSION_INVALID"`
	Message string `json:"message" doc:"What is wrong, for people"`
	Path    string `json:"path" doc:"Where in the graph JSON, e.g. nodes[2].sendEmail.to or edges[4].label"`
	NodeID  string `json:"nodeId,omitempty" doc:"The node concerned, when there is one"`
	Edge    *int   `json:"edge,omitempty" doc:"The index of the edge concerned, when there is one"`
}

// SampleEvent is an event a simulation starts with or delivers to a waiting node.
type SampleEvent struct {
	ID         string     `json:"id,omitempty" maxLength:"36" doc:"The event's id (event.id); default a new id"`
	Type       string     `json:"type" minLength:"1" maxLength:"128" doc:"The event type, e.g. deal.won" example:"deal.won"`
	Payload    JSONObject `json:"payload,omitempty" doc:"The event's payload (event.payload); numbers are JSON numbers"`
	CustomerID string     `json:"customerId,omitempty" maxLength:"36" doc:"The customer the event is about (event.customerId)"`
	PartnerID  string     `json:"partnerId,omitempty" maxLength:"36" doc:"The partner the event is attributed to (event.partnerId)"`
	OccurredAt *time.Time `json:"occurredAt,omitempty" doc:"When the event happened (event.occurredAt, RFC 3339); default now. For a received event: when it arrives"`
}

// SamplePartner is the partner a simulated run is for, as expressions see it.
type SamplePartner struct {
	ID     string     `json:"id,omitempty" maxLength:"36" doc:"partner.id; default the event's partnerId"`
	Name   string     `json:"name,omitempty" maxLength:"200" doc:"partner.name"`
	Type   string     `json:"type,omitempty" maxLength:"32" doc:"partner.type, e.g. reseller"`
	Level  string     `json:"level,omitempty" maxLength:"200" doc:"partner.level, the level's name, e.g. Gold"`
	Status string     `json:"status,omitempty" maxLength:"32" doc:"partner.status, e.g. active"`
	Custom JSONObject `json:"custom,omitempty" doc:"partner.custom, the partner's custom fields"`
}

// SimulatedStep is one step of a simulated run.
type SimulatedStep struct {
	NodeID   string               `json:"nodeId"`
	Kind     string               `json:"kind"`
	Name     string               `json:"name,omitempty"`
	At       time.Time            `json:"at" doc:"When the step would start"`
	Outcome  string               `json:"outcome,omitempty" doc:"The edge label the run would follow out of the step"`
	Result   *bool                `json:"result,omitempty" doc:"A condition's value"`
	Wait     string               `json:"wait,omitempty" doc:"How long the step would wait, e.g. 7d (wait_for_event: until the event arrives or the timeout passes)" example:"7d"`
	Received *SampleEvent         `json:"received,omitempty" doc:"The event that would end a wait_for_event"`
	Action   *models.PlaybookNode `json:"action,omitempty" doc:"An action node with its parameters rendered; nothing is carried out"`
	Error    string               `json:"error,omitempty" doc:"Why the step would fail"`
}

// SimulatedPath is the course a run would take, step by step, with no side effects.
type SimulatedPath struct {
	Version   int             `json:"version" doc:"The published version simulated; 0 for the draft"`
	Triggered bool            `json:"triggered" doc:"Whether the sample event would start a run at all"`
	Reason    string          `json:"reason,omitempty" doc:"Why the run would not start"`
	Steps     []SimulatedStep `json:"steps" nullable:"false" doc:"In the order of their start times; steps starting together keep graph order"`
	Failed    bool            `json:"failed" doc:"A step would fail (see its error) and end the run"`
	Truncated bool            `json:"truncated" doc:"The run would exceed the step limit"`
	EndsAt    time.Time       `json:"endsAt" doc:"When the last step would end"`
}

// PlaybookRun is one execution of a published playbook version.
type PlaybookRun struct {
	ID              string     `json:"id"`
	PlaybookID      string     `json:"playbookId"`
	Version         int        `json:"version" doc:"The published version the run follows"`
	EventID         string     `json:"eventId" doc:"The event that started the run"`
	PartnerID       string     `json:"partnerId,omitempty"`
	Status          string     `json:"status" enum:"queued,running,completed,failed,cancelled" doc:"queued: waiting for a free slot under the playbook's concurrency limit"`
	Error           string     `json:"error,omitempty" doc:"Why the run failed"`
	Depth           int        `json:"depth" doc:"The starting event's place in its causation chain"`
	CancelRequested bool       `json:"cancelRequested" doc:"An operator asked to cancel the run"`
	StartedAt       time.Time  `json:"startedAt"`
	EndedAt         *time.Time `json:"endedAt,omitempty"`
}

func playbookRunOf(r *models.PlaybookRun) PlaybookRun {
	return PlaybookRun{ID: r.ID, PlaybookID: r.PlaybookID, Version: r.Version, EventID: r.EventID, PartnerID: str(r.PartnerID),
		Status: r.Status, Error: r.Error, Depth: r.Depth, CancelRequested: r.CancelRequested, StartedAt: r.StartedAt, EndedAt: r.EndedAt}
}

// PlaybookStep is one node's execution within a run.
type PlaybookStep struct {
	ID        string     `json:"id"`
	NodeID    string     `json:"nodeId"`
	Kind      string     `json:"kind"`
	Status    string     `json:"status" enum:"running,completed,failed"`
	Output    JSONObject `json:"output" doc:"The step's output; later steps read it as steps.<nodeId>"`
	Error     string     `json:"error,omitempty" doc:"Why the step failed"`
	Outcome   string     `json:"outcome,omitempty" enum:"next,true,false,timeout" doc:"The label of the edges the run followed out of a completed step: true/false out of a condition, next/timeout out of wait_for_event, next elsewhere"`
	StartedAt time.Time  `json:"startedAt"`
	EndedAt   *time.Time `json:"endedAt,omitempty"`
}

func playbookStepOf(st *models.PlaybookStep) PlaybookStep {
	return PlaybookStep{ID: st.ID, NodeID: st.NodeID, Kind: st.Kind, Status: st.Status, Output: jsonObjectOf(st.Output),
		Error: st.Error, Outcome: stepOutcome(st), StartedAt: st.StartedAt, EndedAt: st.EndedAt}
}

// stepOutcome is the label of the edges a run followed out of a completed step, read from the
// step's output (playbook.ConditionOutput, playbook.EventOutput); empty for a step not completed.
func stepOutcome(st *models.PlaybookStep) string {
	if st.Status != models.StepCompleted {
		return ""
	}
	var out struct {
		Result   *bool `json:"result"`
		TimedOut *bool `json:"timedOut"`
	}
	_ = json.Unmarshal([]byte(st.Output), &out)
	switch st.Kind {
	case models.NodeCondition:
		if out.Result == nil {
			return ""
		}
		if *out.Result {
			return models.EdgeTrue
		}
		return models.EdgeFalse
	case models.NodeWaitForEvent:
		if out.TimedOut != nil && *out.TimedOut {
			return models.EdgeTimeout
		}
	}
	return models.EdgeNext
}

// PlaybookRunDetail is a run with its steps.
type PlaybookRunDetail struct {
	PlaybookRun
	Steps []PlaybookStep `json:"steps" nullable:"false" doc:"In the order they started"`
}

// Document is a record a playbook made for a partner to open, as lists show it: without its body.
type Document struct {
	ID        string    `json:"id"`
	PartnerID string    `json:"partnerId,omitempty"`
	Title     string    `json:"title"`
	Template  string    `json:"template,omitempty" doc:"The document template it was made from"`
	RunID     string    `json:"runId,omitempty" doc:"The playbook run that made it"`
	CreatedAt time.Time `json:"createdAt"`
}

func documentOf(d *models.Document) Document {
	return Document{ID: d.ID, PartnerID: str(d.PartnerID), Title: d.Title, Template: d.Template, RunID: str(d.RunID), CreatedAt: d.CreatedAt}
}

// DocumentDetail is a document with its body.
type DocumentDetail struct {
	Document
	Body string `json:"body" doc:"The rendered HTML"`
}

// jsonObjectOf is a stored JSON object as the API shows it; anything else shows as {}.
func jsonObjectOf(raw string) JSONObject {
	var probe map[string]json.RawMessage
	if raw == "" || json.Unmarshal([]byte(raw), &probe) != nil || probe == nil {
		return JSONObject("{}")
	}
	return JSONObject(raw)
}

// playbookOut is a playbook as the API shows it: lists are never null.
func playbookOut(p *models.Playbook) models.Playbook {
	out := *p
	out.Graph = graphOut(p.Graph)
	return out
}

func playbookVersionOut(v *models.PlaybookVersion) models.PlaybookVersion {
	out := *v
	out.Graph = graphOut(v.Graph)
	return out
}

func graphOut(g models.PlaybookGraph) models.PlaybookGraph {
	if g.Nodes == nil {
		g.Nodes = []models.PlaybookNode{}
	}
	if g.Edges == nil {
		g.Edges = []models.PlaybookEdge{}
	}
	return g
}

// CreatePlaybookInput adds a draft playbook.
type CreatePlaybookInput struct {
	Body struct {
		Name             string               `json:"name" minLength:"1" maxLength:"200"`
		Description      string               `json:"description,omitempty" maxLength:"2000"`
		Graph            models.PlaybookGraph `json:"graph"`
		ConcurrencyLimit int                  `json:"concurrencyLimit,omitempty" minimum:"0" maximum:"10000" doc:"Runs under way at once; 0 or absent for the default (100)"`
	}
}

// UpdatePlaybookInput changes a playbook's draft; fields left out keep their value.
type UpdatePlaybookInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Name             *string               `json:"name,omitempty" minLength:"1" maxLength:"200"`
		Description      *string               `json:"description,omitempty" maxLength:"2000"`
		Graph            *models.PlaybookGraph `json:"graph,omitempty" doc:"The new draft graph"`
		ConcurrencyLimit *int                  `json:"concurrencyLimit,omitempty" minimum:"0" maximum:"10000" doc:"Runs under way at once; 0 for the default (100)"`
	}
}

// ListPlaybooksInput filters playbooks.
type ListPlaybooksInput struct {
	ListParams
	Status string `query:"status" enum:"draft,enabled,disabled,archived" doc:"Only playbooks in this status"`
}

// ValidatePlaybookInput is a graph to check.
type ValidatePlaybookInput struct {
	Body struct {
		Graph models.PlaybookGraph `json:"graph"`
	}
}

// PlaybookVersionsInput pages a playbook's versions.
type PlaybookVersionsInput struct {
	ListParams
	ID string `path:"id" maxLength:"36"`
}

// SimulatePlaybookInput is a sample to run a playbook's graph on.
type SimulatePlaybookInput struct {
	ID      string `path:"id" maxLength:"36"`
	Version string `query:"version" maxLength:"9" pattern:"^(draft|[1-9][0-9]{0,8})$" doc:"The graph to simulate: a published version number, or draft; default the published version, or the draft before the first publication"`
	Body    struct {
		Event    SampleEvent            `json:"event" doc:"The event that would start the run"`
		Partner  *SamplePartner         `json:"partner,omitempty" doc:"The partner the run would be for; default a partner with only the event's partnerId as id"`
		Now      *time.Time             `json:"now,omitempty" doc:"When the run would start (RFC 3339); default the event's occurredAt"`
		Received map[string]SampleEvent `json:"received,omitempty" maxProperties:"200" doc:"By wait_for_event node id: an event that arrives while the node waits, at its occurredAt (or at once if that is earlier). Waiting nodes not named here time out."`
		Outputs  map[string]JSONObject  `json:"outputs,omitempty" maxProperties:"200" doc:"By action node id: the output the action is assumed to give, read by later expressions as steps.<id>; actions not named give {}" example:"{\"review\":{\"taskId\":\"t-42\"}}"`
	}
}

// ListPlaybookRunsInput filters runs.
type ListPlaybookRunsInput struct {
	ListParams
	PlaybookID string `query:"playbookId" maxLength:"36" doc:"Only runs of this playbook"`
	Status     string `query:"status" enum:"queued,running,completed,failed,cancelled" doc:"Only runs in this status"`
}

// ListDocumentsInput filters documents.
type ListDocumentsInput struct {
	ListParams
	PartnerID string `query:"partnerId" maxLength:"36" doc:"Only documents of this partner (partners see only their own whatever they pass)"`
}

// PlaybookOutput is one playbook.
type PlaybookOutput struct{ Body models.Playbook }

// PlaybookListOutput is a page of playbooks.
type PlaybookListOutput struct{ Body ListBody[models.Playbook] }

// PlaybookVersionOutput is one published version.
type PlaybookVersionOutput struct{ Body models.PlaybookVersion }

// PlaybookVersionListOutput is a page of a playbook's versions, oldest first.
type PlaybookVersionListOutput struct {
	Body ListBody[models.PlaybookVersion]
}

// PlaybookValidationOutput is the outcome of checking a graph.
type PlaybookValidationOutput struct {
	Body struct {
		Valid    bool              `json:"valid" doc:"Whether the graph can be saved and published"`
		Problems []PlaybookProblem `json:"problems" nullable:"false" doc:"Every problem found, in graph order"`
		// Variables is playbook.Variables of the graph.
		Variables map[string][]string `json:"variables" nullable:"false" doc:"By node id: the names the node's expressions and templates may read (event.payload.<field> from the catalogue schema of the trigger's event types, partner.*, now, steps.<id>.<field> of the steps some path passes before it, received.* in a wait_for_event)"`
	}
}

// PlaybookNodeKindInfo describes a node kind for graph editors.
type PlaybookNodeKindInfo struct {
	Kind        string           `json:"kind" doc:"The node kind"`
	Description string           `json:"description" doc:"What a node of the kind does"`
	Action      bool             `json:"action" doc:"The kind acts on the world (its steps run once each)"`
	Member      string           `json:"member,omitempty" doc:"The node's member holding the kind's parameters, e.g. sendEmail; absent for kinds without parameters"`
	SchemaRef   string           `json:"schemaRef,omitempty" doc:"The parameters' schema in this document, e.g. #/components/schemas/PlaybookSendEmail"`
	Parameters  *ParameterSchema `json:"parameters,omitempty" doc:"That schema itself: fields with their types, formats, enums, limits and which are required"`
	Labels      []string         `json:"labels" nullable:"false" doc:"The labels an edge out of the kind may have, the default first"`
	Required    []string         `json:"required" nullable:"false" doc:"The labels the kind needs an outgoing edge for"`
	FanOut      bool             `json:"fanOut" doc:"Several outgoing edges run at once (parallel)"`
	Outputs     []string         `json:"outputs" nullable:"false" doc:"The fields of a step's output, read later as steps.<id>.<field>"`
}

// ParameterSchema is a JSON Schema (draft 2020-12) of a node kind's parameters, taken from this document's components.
type ParameterSchema struct{ schema *huma.Schema }

// Schema declares ParameterSchema as a JSON Schema document.
func (ParameterSchema) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeObject, AdditionalProperties: true, Description: "JSON Schema (draft 2020-12) of the parameters."}
}

// MarshalJSON writes the schema document.
func (p ParameterSchema) MarshalJSON() ([]byte, error) { return json.Marshal(p.schema) }

// PlaybookNodeKindsOutput is every node kind.
type PlaybookNodeKindsOutput struct {
	Body struct {
		Data []PlaybookNodeKindInfo `json:"data" nullable:"false" doc:"Every node kind, trigger first"`
	}
}

// PlaybookVersionInput names one published version of a playbook.
type PlaybookVersionInput struct {
	ID      string `path:"id" maxLength:"36"`
	Version int    `path:"version" minimum:"1" maximum:"999999999"`
}

// nodeKindDescriptions say what each node kind does, for people.
var nodeKindDescriptions = map[string]string{
	models.NodeTrigger:          "Where a run starts: the event named by the graph's trigger",
	models.NodeCondition:        "Branches on an expression along its true and false edges",
	models.NodeWait:             "Pauses the run for a duration or until a time",
	models.NodeWaitForEvent:     "Pauses the run until a matching event arrives (next) or its timeout passes (timeout)",
	models.NodeParallel:         "Continues along every outgoing edge at once",
	models.NodeJoin:             "Continues once every incoming branch has arrived",
	models.NodeSendEmail:        "Sends a templated email",
	models.NodeCreateTask:       "Creates a task for the partner or the tenant's staff",
	models.NodeCreateDocument:   "Creates a document the partner can open",
	models.NodeAccrueCommission: "Books a one-off commission for the partner through the ledger",
	models.NodeCallWebhook:      "Makes a signed HTTP POST",
	models.NodeUpdatePartner:    "Changes the partner's level, status or a custom field",
	models.NodeEmitEvent:        "Emits an event on the bus",
	models.NodeSendSurvey:       "Emails the partner's users a CSAT or NPS survey",
}

// SimulatedPathOutput is a simulated run.
type SimulatedPathOutput struct{ Body SimulatedPath }

// PlaybookRunListOutput is a page of runs.
type PlaybookRunListOutput struct{ Body ListBody[PlaybookRun] }

// PlaybookRunOutput is one run.
type PlaybookRunOutput struct{ Body PlaybookRun }

// PlaybookRunDetailOutput is one run with its steps.
type PlaybookRunDetailOutput struct{ Body PlaybookRunDetail }

// DocumentListOutput is a page of documents.
type DocumentListOutput struct{ Body ListBody[Document] }

// DocumentOutput is one document with its body.
type DocumentOutput struct{ Body DocumentDetail }

func registerPlaybookRoutes(s *Server) {
	tags := []string{tagPlaybooks}
	register(s, huma.Operation{OperationID: "rotate-playbook-webhook-secret", Method: http.MethodPost, Path: "/api/playbooks/webhook-secret", Tags: tags,
		Summary:     "Set a new signing secret for call_webhook actions",
		Description: "Makes a new whsec_ secret, stores it sealed and shows it once; calls sign with it from now on. Until a secret is set, calls are signed with a secret derived from the server's key that no one can read.",
		Security:    UsersOrKeys, DefaultStatus: http.StatusCreated},
		Requires(authz.PlaybooksWrite), s.rotatePlaybookWebhookSecret)
	const graphRules = " The graph is checked as a whole: exactly one trigger, edges between existing nodes, no unreachable node, cycles only through a wait, expressions that compile with the right type, valid action parameters. A graph with problems is 422 INVALID_PLAYBOOK, listing every problem in errors[] (location body.graph.<path>, the message naming the rule and the node)."

	register(s, huma.Operation{OperationID: "create-playbook", Method: http.MethodPost, Path: "/api/playbooks", Tags: tags,
		RequestBody: requestExample(`{"name": "Welcome big wins", "description": "Thanks the partner and books a review after a large won deal.", "graph": {"trigger": {"eventType": "deal.won", "condition": "event.payload.amountMinor >= 1000000"}, "nodes": [{"id": "start", "kind": "trigger", "name": "Deal won"}, {"id": "thank", "kind": "send_email", "name": "Thank the partner", "sendEmail": {"to": "{{.partner.custom.contactEmail}}", "subject": "Congratulations on {{.event.payload.customerCompany}}", "text": "Your deal is won: thank you."}}, {"id": "pause", "kind": "wait", "name": "Wait a week", "wait": {"duration": "7d"}}, {"id": "review", "kind": "create_task", "name": "Plan a business review", "createTask": {"title": "Quarterly business review with {{.partner.name}}", "assignee": "operator", "dueInDays": 14}}], "edges": [{"from": "start", "to": "thank"}, {"from": "thank", "to": "pause"}, {"from": "pause", "to": "review"}]}}`),
		Summary:     "Create a playbook",
		Description: "The playbook starts as a draft; it runs once a version is published and it is enabled." + graphRules,
		Security:    UsersOrKeys, DefaultStatus: http.StatusCreated, Errors: []int{http.StatusUnprocessableEntity}},
		Requires(authz.PlaybooksWrite), s.createPlaybook)
	register(s, huma.Operation{OperationID: "list-playbooks", Method: http.MethodGet, Path: "/api/playbooks", Tags: tags,
		Summary: "List playbooks, oldest first", Description: "Operators only.", Security: UsersOrKeys},
		Requires(authz.PlaybooksRead), s.listPlaybooks)
	register(s, huma.Operation{OperationID: "validate-playbook", Method: http.MethodPost, Path: "/api/playbooks/validate", Tags: tags,
		RequestBody: requestExample(`{"graph": {"trigger": {"eventType": "deal.won", "condition": "event.payload.amountMinor >= 1000000"}, "nodes": [{"id": "start", "kind": "trigger", "name": "Deal won"}, {"id": "thank", "kind": "send_email", "name": "Thank the partner", "sendEmail": {"to": "{{.partner.custom.contactEmail}}", "subject": "Congratulations on {{.event.payload.customerCompany}}", "text": "Your deal is won: thank you."}}, {"id": "pause", "kind": "wait", "name": "Wait a week", "wait": {"duration": "7d"}}, {"id": "review", "kind": "create_task", "name": "Plan a business review", "createTask": {"title": "Quarterly business review with {{.partner.name}}", "assignee": "operator", "dueInDays": 14}}], "edges": [{"from": "start", "to": "thank"}, {"from": "thank", "to": "pause"}, {"from": "pause", "to": "review"}]}}`),
		Summary:     "Check a playbook graph",
		Description: "Lists every problem of the graph at once, as saving would; stores nothing.",
		Security:    UsersOrKeys},
		Requires(authz.PlaybooksRead), s.validatePlaybook)
	register(s, huma.Operation{OperationID: "list-playbook-node-kinds", Method: http.MethodGet, Path: "/api/playbook-node-kinds", Tags: tags,
		Summary:     "The node kinds of playbook graphs",
		Description: "Each kind with the member and the schema of its parameters (from this document's components), the labels of its outgoing edges and the fields of its output: what a graph editor needs to offer every kind and build its forms.",
		Security:    UsersOrKeys},
		Requires(authz.PlaybooksRead), s.listPlaybookNodeKinds)
	register(s, huma.Operation{OperationID: "get-playbook-version", Method: http.MethodGet, Path: "/api/playbooks/{id}/versions/{version}", Tags: tags,
		Summary: "Get one published version of a playbook", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.PlaybooksRead), s.getPlaybookVersion)
	register(s, huma.Operation{OperationID: "get-playbook", Method: http.MethodGet, Path: "/api/playbooks/{id}", Tags: tags,
		Summary: "Get a playbook with its draft graph", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.PlaybooksRead), s.getPlaybook)
	register(s, huma.Operation{OperationID: "update-playbook", Method: http.MethodPut, Path: "/api/playbooks/{id}", Tags: tags,
		RequestBody: requestExample(`{"description": "Thanks the partner and books a review two weeks after a large won deal.", "graph": {"trigger": {"eventType": "deal.won", "condition": "event.payload.amountMinor >= 1000000"}, "nodes": [{"id": "start", "kind": "trigger", "name": "Deal won"}, {"id": "thank", "kind": "send_email", "name": "Thank the partner", "sendEmail": {"to": "{{.partner.custom.contactEmail}}", "subject": "Congratulations on {{.event.payload.customerCompany}}", "text": "Your deal is won: thank you."}}, {"id": "pause", "kind": "wait", "name": "Wait a week", "wait": {"duration": "7d"}}, {"id": "review", "kind": "create_task", "name": "Plan a business review", "createTask": {"title": "Quarterly business review with {{.partner.name}}", "assignee": "operator", "dueInDays": 14}}], "edges": [{"from": "start", "to": "thank"}, {"from": "thank", "to": "pause"}, {"from": "pause", "to": "review"}]}}`),
		Summary:     "Change a playbook's draft",
		Description: "Fields left out keep their value. Published versions never change; publish again to run the new draft." + graphRules,
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}},
		Requires(authz.PlaybooksWrite), s.updatePlaybook)
	register(s, huma.Operation{OperationID: "publish-playbook", Method: http.MethodPost, Path: "/api/playbooks/{id}/publish", Tags: tags,
		Summary:     "Publish the draft as a new version",
		Description: "The draft graph becomes the next immutable version, on which new runs start; runs under way keep their version. A draft with problems is 422 INVALID_PLAYBOOK (locations graph.<path>).",
		Security:    UsersOrKeys, DefaultStatus: http.StatusCreated, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}},
		Requires(authz.PlaybooksWrite), s.publishPlaybook)
	register(s, huma.Operation{OperationID: "list-playbook-versions", Method: http.MethodGet, Path: "/api/playbooks/{id}/versions", Tags: tags,
		Summary: "List a playbook's published versions, oldest first", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.PlaybooksRead), s.listPlaybookVersions)

	status := func(action, summary, description string, handler func(context.Context, *IDPath) (*PlaybookOutput, error)) {
		register(s, huma.Operation{OperationID: action + "-playbook", Method: http.MethodPost, Path: "/api/playbooks/{id}/" + action, Tags: tags,
			Summary: summary, Description: description + " The lifecycle is draft → enabled ⇄ disabled, archived from any state; other moves are 409 ILLEGAL_PLAYBOOK_TRANSITION. Asking for the status the playbook has changes nothing.",
			Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict}},
			Requires(authz.PlaybooksWrite), handler)
	}
	status("enable", "Enable a playbook",
		"Matching events start runs on the published version; a playbook never published is 409 PLAYBOOK_NOT_PUBLISHED.", s.enablePlaybook)
	status("disable", "Disable a playbook", "No new runs start; runs under way continue.", s.disablePlaybook)
	status("archive", "Archive a playbook", "For good: it keeps its versions and runs for the record and never runs again.", s.archivePlaybook)

	register(s, huma.Operation{OperationID: "simulate-playbook", Method: http.MethodPost, Path: "/api/playbooks/{id}/simulate", Tags: tags,
		RequestBody: requestExample(`{"event": {"type": "deal.won", "partnerId": "01936f3a-5b2c-7e41-8d9a-4c2b7e1f6a30", "occurredAt": "2026-11-20T14:05:00Z", "payload": {"dealId": "01936f3b-5f6a-7b7c-8d8e-9f0a1b2c3d4e", "customerCompany": "Initech", "amountMinor": 2500000, "currency": "EUR"}}, "partner": {"id": "01936f3a-5b2c-7e41-8d9a-4c2b7e1f6a30", "name": "Northwind Traders", "type": "reseller", "level": "Gold", "status": "active", "custom": {"contactEmail": "maria@northwind.example"}}}`),
		Summary:     "Show the path a run would take",
		Description: "Runs the graph on a sample event without side effects: each condition's value, each wait's length (not waited), each wait_for_event timing out unless received names an event for it, each action with its parameters rendered (not carried out). " +
			"Parallel branches advance on their own clocks; a join starts when its last branch arrives. A graph with problems is 422 INVALID_PLAYBOOK (locations graph.<path>).",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity}},
		Requires(authz.PlaybooksRead), s.simulatePlaybook)

	register(s, huma.Operation{OperationID: "list-playbook-runs", Method: http.MethodGet, Path: "/api/playbook-runs", Tags: tags,
		Summary: "List playbook runs, oldest first", Description: "Operators only.", Security: UsersOrKeys},
		Requires(authz.PlaybooksRead), s.listPlaybookRuns)
	register(s, huma.Operation{OperationID: "get-playbook-run", Method: http.MethodGet, Path: "/api/playbook-runs/{id}", Tags: tags,
		Summary: "Get a playbook run with its steps", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.PlaybooksRead), s.getPlaybookRun)
	register(s, huma.Operation{OperationID: "cancel-playbook-run", Method: http.MethodPost, Path: "/api/playbook-runs/{id}/cancel", Tags: tags,
		Summary:     "Cancel a playbook run",
		Description: "Accepted: the run stops at its next step; steps already done stay done. Asking again is accepted too. A finished run is 409 RUN_NOT_ACTIVE; without a workflow engine on this server, 503 RUNS_UNAVAILABLE.",
		Security:    UsersOrKeys, DefaultStatus: http.StatusAccepted, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusServiceUnavailable}},
		Requires(authz.PlaybooksWrite), s.cancelPlaybookRun)

	docs := []string{tagDocuments}
	register(s, huma.Operation{OperationID: "list-documents", Method: http.MethodGet, Path: "/api/documents", Tags: docs,
		Summary: "List documents, oldest first", Description: "Documents playbooks made for partners. Partners see only their own.", Security: UsersOrKeys},
		Requires(authz.TasksRead), s.listDocuments)
	register(s, huma.Operation{OperationID: "get-document", Method: http.MethodGet, Path: "/api/documents/{id}", Tags: docs,
		Summary: "Get a document with its body", Description: "Partners open only their own.", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.TasksRead), s.getDocument)
}

// playbookOutput answers with the playbook p, or with err when there is one.
func playbookOutput(p *models.Playbook, err error) (*PlaybookOutput, error) {
	if err != nil {
		return nil, err
	}
	return &PlaybookOutput{Body: playbookOut(p)}, nil
}

// rotatePlaybookWebhookSecret sets a new signing secret for the tenant's call_webhook actions and shows it this once.
func (s *Server) rotatePlaybookWebhookSecret(ctx context.Context, _ *struct{}) (*PlaybookSecretOutput, error) {
	keys := s.deps.Webhooks.Keyring
	if keys == nil {
		return nil, errWebhooksUnavailable()
	}
	secret, err := models.NewWebhookSecret()
	if err != nil {
		return nil, err
	}
	tenantID := models.PrincipalFrom(ctx).TenantID
	sealed, err := keys.Seal(secret, models.SealContext{TenantID: tenantID, Table: "playbook_settings", RowID: tenantID, Field: "webhook_secret"})
	if err != nil {
		return nil, err
	}
	at, err := s.playbooks(ctx).SetPlaybookWebhookSecret(ctx, sealed)
	if err != nil {
		return nil, err
	}
	out := &PlaybookSecretOutput{}
	out.Body.Secret, out.Body.UpdatedAt = secret.Reveal(), at
	return out, nil
}

// createPlaybook creates a playbook as a draft.
func (s *Server) createPlaybook(ctx context.Context, in *CreatePlaybookInput) (*PlaybookOutput, error) {
	b := in.Body
	if problems := playbook.Validate(b.Graph); len(problems) > 0 {
		return nil, invalidPlaybook("body.graph", problems)
	}
	p := &models.Playbook{Name: b.Name, Description: b.Description, Status: models.PlaybookDraft,
		Graph: b.Graph, ConcurrencyLimit: b.ConcurrencyLimit}
	if err := s.playbooks(ctx).CreatePlaybook(ctx, p); err != nil {
		return nil, err
	}
	return &PlaybookOutput{Body: playbookOut(p)}, nil
}

// listPlaybooks lists playbooks, oldest first.
func (s *Server) listPlaybooks(ctx context.Context, in *ListPlaybooksInput) (*PlaybookListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Playbook, string, error) {
		return s.playbooks(ctx).ListPlaybooks(ctx, in.Status, pg)
	}, playbookOut)
	return &PlaybookListOutput{Body: body}, err
}

// validatePlaybook lists every problem of a playbook graph and what each node may read, storing nothing.
func (s *Server) validatePlaybook(_ context.Context, in *ValidatePlaybookInput) (*PlaybookValidationOutput, error) {
	problems := playbook.Validate(in.Body.Graph)
	out := &PlaybookValidationOutput{}
	out.Body.Variables = playbook.Variables(in.Body.Graph, s.payloadFields(in.Body.Graph.Trigger.EventType))
	out.Body.Valid = len(problems) == 0
	out.Body.Problems = make([]PlaybookProblem, 0, len(problems))
	for _, p := range problems {
		out.Body.Problems = append(out.Body.Problems, PlaybookProblem{Code: p.Code, Message: p.Message, Path: p.Path, NodeID: p.NodeID, Edge: p.Edge})
	}
	return out, nil
}

// payloadFields are the payload fields of the catalogue's event types that pattern matches, sorted.
func (s *Server) payloadFields(pattern string) []string {
	seen := map[string]bool{}
	for _, t := range models.EventCatalogue() {
		if pattern == "" || !models.MatchEventType(pattern, t.Name) {
			continue
		}
		if sc := s.payloadSchema(t.Payload).schema; sc != nil {
			for f := range sc.Properties {
				seen[f] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// listPlaybookNodeKinds answers every node kind with its parameters' schema from the document.
func (s *Server) listPlaybookNodeKinds(context.Context, *struct{}) (*PlaybookNodeKindsOutput, error) {
	reg := s.api.OpenAPI().Components.Schemas
	var props map[string]*huma.Schema
	if node := reg.Map()["PlaybookNode"]; node != nil {
		props = node.Properties
	}
	out := &PlaybookNodeKindsOutput{}
	out.Body.Data = make([]PlaybookNodeKindInfo, 0, len(models.PlaybookNodeKinds))
	for _, k := range playbook.Kinds() {
		nk := PlaybookNodeKindInfo{Kind: k.Kind, Description: nodeKindDescriptions[k.Kind], Action: k.Action, Member: k.Member,
			Labels: k.Labels, Required: k.Required, FanOut: k.FanOut, Outputs: k.Outputs}
		if p := props[k.Member]; k.Member != "" && p != nil && p.Ref != "" {
			nk.SchemaRef, nk.Parameters = p.Ref, &ParameterSchema{schema: reg.SchemaFromRef(p.Ref)}
		}
		out.Body.Data = append(out.Body.Data, nk)
	}
	return out, nil
}

// getPlaybookVersion answers one published version of a playbook.
func (s *Server) getPlaybookVersion(ctx context.Context, in *PlaybookVersionInput) (*PlaybookVersionOutput, error) {
	vs, err := s.playbooks(ctx).PlaybookVersions(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	for i := range vs {
		if vs[i].Version == in.Version {
			return &PlaybookVersionOutput{Body: playbookVersionOut(&vs[i])}, nil
		}
	}
	return nil, models.NotFound("PLAYBOOK_VERSION_NOT_FOUND", fmt.Sprintf("version %d of the playbook", in.Version))
}

// getPlaybook answers one playbook with its draft graph.
func (s *Server) getPlaybook(ctx context.Context, in *IDPath) (*PlaybookOutput, error) {
	return playbookOutput(s.playbooks(ctx).Playbook(ctx, in.ID))
}

// updatePlaybook changes a playbook's draft.
func (s *Server) updatePlaybook(ctx context.Context, in *UpdatePlaybookInput) (*PlaybookOutput, error) {
	b := in.Body
	if b.Graph != nil {
		if problems := playbook.Validate(*b.Graph); len(problems) > 0 {
			return nil, invalidPlaybook("body.graph", problems)
		}
	}
	return playbookOutput(s.playbooks(ctx).UpdatePlaybook(ctx, in.ID, models.PlaybookChanges{Name: b.Name, Description: b.Description,
		Graph: b.Graph, ConcurrencyLimit: b.ConcurrencyLimit}))
}

// publishPlaybook publishes a playbook's draft as its next version.
func (s *Server) publishPlaybook(ctx context.Context, in *IDPath) (*PlaybookVersionOutput, error) {
	sc := s.playbooks(ctx)
	p, err := sc.Playbook(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	if _, err := playbook.Compile(p.Graph); err != nil {
		return nil, graphError("graph", err)
	}
	v, err := sc.PublishPlaybook(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &PlaybookVersionOutput{Body: playbookVersionOut(v)}, nil
}

// listPlaybookVersions lists a playbook's published versions, oldest first.
func (s *Server) listPlaybookVersions(ctx context.Context, in *PlaybookVersionsInput) (*PlaybookVersionListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.PlaybookVersion, string, error) {
		vs, err := s.playbooks(ctx).PlaybookVersions(ctx, in.ID)
		if err != nil {
			return nil, "", err
		}
		return pageByVersion(vs, pg, func(v models.PlaybookVersion) int { return v.Version })
	}, playbookVersionOut)
	return &PlaybookVersionListOutput{Body: body}, err
}

// enablePlaybook enables a playbook: matching events start runs on its published version.
func (s *Server) enablePlaybook(ctx context.Context, in *IDPath) (*PlaybookOutput, error) {
	return playbookOutput(s.playbooks(ctx).SetPlaybookStatus(ctx, in.ID, models.PlaybookEnabled))
}

// disablePlaybook disables a playbook: no new runs start.
func (s *Server) disablePlaybook(ctx context.Context, in *IDPath) (*PlaybookOutput, error) {
	return playbookOutput(s.playbooks(ctx).SetPlaybookStatus(ctx, in.ID, models.PlaybookDisabled))
}

// archivePlaybook archives a playbook for good.
func (s *Server) archivePlaybook(ctx context.Context, in *IDPath) (*PlaybookOutput, error) {
	return playbookOutput(s.playbooks(ctx).SetPlaybookStatus(ctx, in.ID, models.PlaybookArchived))
}

// listPlaybookRuns lists playbook runs, oldest first.
func (s *Server) listPlaybookRuns(ctx context.Context, in *ListPlaybookRunsInput) (*PlaybookRunListOutput, error) {
	f := models.PlaybookRunFilter{PlaybookID: in.PlaybookID, Status: in.Status}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.PlaybookRun, string, error) {
		return s.playbooks(ctx).ListPlaybookRuns(ctx, f, pg)
	}, playbookRunOf)
	return &PlaybookRunListOutput{Body: body}, err
}

// getPlaybookRun answers one playbook run with its steps.
func (s *Server) getPlaybookRun(ctx context.Context, in *IDPath) (*PlaybookRunDetailOutput, error) {
	r, steps, err := s.playbooks(ctx).PlaybookRun(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	out := &PlaybookRunDetailOutput{Body: PlaybookRunDetail{PlaybookRun: playbookRunOf(r), Steps: make([]PlaybookStep, 0, len(steps))}}
	for i := range steps {
		out.Body.Steps = append(out.Body.Steps, playbookStepOf(&steps[i]))
	}
	return out, nil
}

// listDocuments lists the documents playbooks made for partners, oldest first.
func (s *Server) listDocuments(ctx context.Context, in *ListDocumentsInput) (*DocumentListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Document, string, error) {
		return s.playbooks(ctx).ListDocuments(ctx, in.PartnerID, pg)
	}, documentOf)
	return &DocumentListOutput{Body: body}, err
}

// getDocument answers one document with its body.
func (s *Server) getDocument(ctx context.Context, in *IDPath) (*DocumentOutput, error) {
	d, err := s.playbooks(ctx).Document(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &DocumentOutput{Body: DocumentDetail{Document: documentOf(d), Body: d.Body}}, nil
}

// invalidPlaybook is the 422 listing every problem of a graph, each located under prefix.
func invalidPlaybook(prefix string, problems []playbook.Problem) error {
	fs := make([]models.FieldError, 0, len(problems))
	for _, p := range problems {
		loc := prefix
		if p.Path != "" {
			loc += "." + p.Path
		}
		msg := p.Code + ": " + p.Message
		if p.NodeID != "" {
			msg = p.Code + " (node " + p.NodeID + "): " + p.Message
		}
		fs = append(fs, models.FieldError{Location: loc, Message: msg})
	}
	noun := "problems"
	if len(problems) == 1 {
		noun = "problem"
	}
	return models.Invalid(CodeInvalidPlaybook, fmt.Sprintf("the playbook graph has %d %s", len(problems), noun), fs...)
}

// graphError turns a compile error of a stored graph into the 422 listing its problems.
func graphError(prefix string, err error) error {
	var verr *playbook.ValidationError
	if errors.As(err, &verr) {
		return invalidPlaybook(prefix, verr.Problems)
	}
	return err
}

// simulatePlaybook shows the path a run of a playbook would take on a sample event, without side effects.
func (s *Server) simulatePlaybook(ctx context.Context, in *SimulatePlaybookInput) (*SimulatedPathOutput, error) {
	sc := s.playbooks(ctx)
	p, err := sc.Playbook(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	graph, version := p.Graph, 0
	want := p.PublishedVersion
	switch in.Version {
	case "draft":
		want = 0
	case "":
	default:
		want, _ = strconv.Atoi(in.Version)
	}
	if want > 0 {
		vs, err := sc.PlaybookVersions(ctx, in.ID)
		if err != nil {
			return nil, err
		}
		found := false
		for _, v := range vs {
			if v.Version == want {
				graph, version, found = v.Graph, v.Version, true
				break
			}
		}
		if !found {
			return nil, models.NotFound("PLAYBOOK_VERSION_NOT_FOUND", fmt.Sprintf("version %d of the playbook", want))
		}
	}
	sample, fs := sampleOf(in, time.Now().UTC())
	if len(fs) > 0 {
		return nil, models.Invalid("INVALID_SAMPLE", "the sample is not valid", fs...)
	}
	c, err := playbook.Compile(graph)
	if err != nil {
		return nil, graphError("graph", err)
	}
	path := c.Simulate(sample)
	out := SimulatedPath{Version: version, Triggered: path.Triggered, Reason: path.Reason, Steps: make([]SimulatedStep, 0, len(path.Steps)),
		Failed: path.Failed, Truncated: path.Truncated, EndsAt: path.EndsAt}
	for _, st := range path.Steps {
		step := SimulatedStep{NodeID: st.NodeID, Kind: st.Kind, Name: st.Name, At: st.At, Outcome: st.Outcome, Result: st.Result,
			Wait: st.Wait, Action: st.Action, Error: st.Error}
		if st.Received != nil {
			ev := sampleEventView(*st.Received)
			step.Received = &ev
		}
		out.Steps = append(out.Steps, step)
	}
	return &SimulatedPathOutput{Body: out}, nil
}

// sampleOf turns a simulation request into the sample the simulator runs on; now stands in for
// absent event times.
func sampleOf(in *SimulatePlaybookInput, now time.Time) (playbook.Sample, []models.FieldError) {
	var fs []models.FieldError
	object := func(loc string, raw JSONObject) map[string]any {
		out := map[string]any{}
		if len(raw) == 0 {
			return out
		}
		if err := json.Unmarshal(raw, &out); err != nil || out == nil {
			fs = append(fs, models.FieldError{Location: loc, Message: "must be a JSON object"})
			return map[string]any{}
		}
		return out
	}
	event := func(loc string, e SampleEvent) playbook.EventEnv {
		out := playbook.EventEnv{ID: e.ID, Type: e.Type, Payload: object(loc+".payload", e.Payload), CustomerID: e.CustomerID,
			PartnerID: e.PartnerID, OccurredAt: now}
		if out.ID == "" {
			out.ID = models.NewID()
		}
		if e.OccurredAt != nil {
			out.OccurredAt = e.OccurredAt.UTC()
		}
		return out
	}
	b := in.Body
	s := playbook.Sample{Event: event("body.event", b.Event)}
	s.Partner = playbook.PartnerEnv{ID: s.Event.PartnerID, Custom: map[string]any{}}
	if b.Partner != nil {
		pt := b.Partner
		s.Partner = playbook.PartnerEnv{ID: pt.ID, Name: pt.Name, Type: pt.Type, Level: pt.Level, Status: pt.Status,
			Custom: object("body.partner.custom", pt.Custom)}
		if s.Partner.ID == "" {
			s.Partner.ID = s.Event.PartnerID
		}
	}
	if b.Now != nil {
		s.Now = b.Now.UTC()
	}
	if len(b.Received) > 0 {
		s.Received = make(map[string]playbook.EventEnv, len(b.Received))
		for id, e := range b.Received {
			s.Received[id] = event("body.received."+id, e)
		}
	}
	if len(b.Outputs) > 0 {
		s.Outputs = make(map[string]map[string]any, len(b.Outputs))
		for id, o := range b.Outputs {
			s.Outputs[id] = object("body.outputs."+id, o)
		}
	}
	return s, fs
}

func sampleEventView(e playbook.EventEnv) SampleEvent {
	payload, err := json.Marshal(e.Payload)
	if err != nil || e.Payload == nil {
		payload = []byte("{}")
	}
	at := e.OccurredAt
	return SampleEvent{ID: e.ID, Type: e.Type, Payload: JSONObject(payload), CustomerID: e.CustomerID, PartnerID: e.PartnerID, OccurredAt: &at}
}

// cancelPlaybookRun cancels a playbook run under way.
func (s *Server) cancelPlaybookRun(ctx context.Context, in *IDPath) (*PlaybookRunOutput, error) {
	if s.deps.Runs == nil {
		return nil, models.Errorf(models.KindUnavailable, "RUNS_UNAVAILABLE", "playbook runs cannot be cancelled on this server")
	}
	r, err := s.playbooks(ctx).RequestPlaybookRunCancel(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	if r.Status == models.RunQueued || r.Status == models.RunRunning {
		if err := s.deps.Runs.CancelPlaybookRun(ctx, models.PrincipalFrom(ctx).TenantID, r.ID); err != nil {
			if _, ok := models.AsError(err); ok {
				return nil, err
			}
			s.log.ErrorContext(ctx, "cancelling a playbook run failed", "request_id", RequestID(ctx), "run_id", r.ID, "error", err.Error())
			return nil, models.Errorf(models.KindUnavailable, "RUN_NOT_REACHED", "the run could not be reached now; try again")
		}
	}
	return &PlaybookRunOutput{Body: playbookRunOf(r)}, nil
}
