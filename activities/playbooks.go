package activities

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/playbook"
)

// PlaybookStore is what the playbook activities need of storage.
type PlaybookStore interface {
	EventByID(ctx context.Context, sys models.Scope, id string) (*models.Event, error)
	PlaybookPartner(ctx context.Context, sys models.Scope, partnerID string) (*models.Partner, error)
	PlaybooksFor(ctx context.Context, sys models.Scope, eventType string) ([]models.PlaybookRef, error)
	PlaybookVersion(ctx context.Context, sys models.Scope, playbookID string, version int) (*models.PlaybookVersion, error)
	BeginPlaybookRun(ctx context.Context, run *models.PlaybookRun, limit int) (*models.PlaybookRun, bool, error)
	RecordPlaybookStep(ctx context.Context, step *models.PlaybookStep) error
	FinishPlaybookRun(ctx context.Context, sys models.Scope, runID, status, errMsg string) error
	RunsWaitingFor(ctx context.Context, sys models.Scope, eventType string, partnerID *string) ([]string, error)
	PlaybookCreateTask(ctx context.Context, sys models.Scope, key string, t *models.Task) (string, error)
	PlaybookCreateDocument(ctx context.Context, sys models.Scope, key string, d *models.Document) (string, error)
	PlaybookBonus(ctx context.Context, sys models.Scope, key, partnerID string, amount int64, currency, reason string) (string, error)
	PlaybookUpdatePartner(ctx context.Context, sys models.Scope, key, partnerID string, ch models.PlaybookUpdatePartner) error
	PlaybookEmitEvent(ctx context.Context, sys models.Scope, key string, ne models.NewEvent) (string, error)
	PlaybookSendSurvey(ctx context.Context, sys models.Scope, key, partnerID, kind string) (string, error)
	PlaybookWebhookSecret(ctx context.Context, sys models.Scope) (models.Sealed, error)
}

// Playbooks holds the activities of playbook runs: starting them, recording their steps and
// carrying out their actions.
type Playbooks struct {
	Store PlaybookStore
	// Mail sends send_email actions.
	Mail *Mail
	// HTTP sends call_webhook actions, through the webhooks' address guard.
	HTTP HTTPDoer
	// Keyring derives each tenant's signing secret for call_webhook.
	Keyring *models.Keyring
	// Observer is told of runs started and finished; nil records nothing.
	Observer Observer
}

// RunStart is a run the fan-out starts a workflow for.
type RunStart struct {
	RunID      string
	PlaybookID string
	Version    int
	Limit      int
}

// StartRuns creates a run for every enabled playbook whose trigger (type and condition)
// matches the event, unless the event is too deep in a causation chain. Runs are idempotent
// on (playbook, event): a second fan-out finds the same runs.
func (a *Playbooks) StartRuns(ctx context.Context, in EventRef) ([]RunStart, error) {
	runs, err := a.startRuns(ctx, in)
	observer(a.Observer).PlaybookRunsStarted(len(runs))
	return runs, err
}

func (a *Playbooks) startRuns(ctx context.Context, in EventRef) ([]RunStart, error) {
	e, err := a.Store.EventByID(ctx, models.System(in.TenantID), in.EventID)
	if models.ErrorKind(err) == models.KindNotFound {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if e.Depth >= models.MaxPlaybookDepth {
		return nil, nil
	}
	refs, err := a.Store.PlaybooksFor(ctx, models.System(in.TenantID), e.Type)
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	env, err := a.env(ctx, e)
	if err != nil {
		return nil, err
	}
	var out []RunStart
	for _, ref := range refs {
		c, err := playbook.Compile(ref.Graph)
		if err != nil {
			continue // published versions compiled when they were published
		}
		env.Now = time.Now().UTC()
		if ok, err := c.Triggers(env); err != nil || !ok {
			continue
		}
		run, _, err := a.Store.BeginPlaybookRun(ctx, &models.PlaybookRun{TenantID: in.TenantID, PlaybookID: ref.PlaybookID,
			Version: ref.Version, EventID: e.ID, PartnerID: e.PartnerID, Depth: e.Depth}, ref.ConcurrencyLimit)
		if err != nil {
			return out, err
		}
		out = append(out, RunStart{RunID: run.ID, PlaybookID: ref.PlaybookID, Version: ref.Version, Limit: ref.ConcurrencyLimit})
	}
	return out, nil
}

// Waiting is what the fan-out signals to waiting runs: the event as expressions see it.
type Waiting struct {
	Runs  []string
	Event playbook.EventEnv
}

// WaitingRuns lists the runs waiting in a wait_for_event step for an event of this type and
// partner, for the fan-out to signal.
func (a *Playbooks) WaitingRuns(ctx context.Context, in EventRef) (Waiting, error) {
	e, err := a.Store.EventByID(ctx, models.System(in.TenantID), in.EventID)
	if models.ErrorKind(err) == models.KindNotFound {
		return Waiting{}, nil
	} else if err != nil {
		return Waiting{}, err
	}
	runs, err := a.Store.RunsWaitingFor(ctx, models.System(in.TenantID), e.Type, e.PartnerID)
	if err != nil || len(runs) == 0 {
		return Waiting{}, err
	}
	env, err := a.env(ctx, e)
	return Waiting{Runs: runs, Event: env.Event}, err
}

// RunRef names a run of a published playbook version and the event that started it.
type RunRef struct {
	TenantID   string
	RunID      string
	PlaybookID string
	Version    int
	EventID    string
	// Limit is the playbook's concurrency limit: a run waits for a slot beyond it.
	Limit int
}

// RunData is what a run workflow interprets: the pinned graph and the data its expressions see.
type RunData struct {
	Admitted bool
	// Status is the run's status; a finished run is not run again.
	Status  string
	Depth   int
	Graph   models.PlaybookGraph
	Event   playbook.EventEnv
	Partner playbook.PartnerEnv
}

// AdmitRun asks for a slot under the playbook's concurrency limit and, once admitted, loads the
// run's pinned version and its event and partner.
func (a *Playbooks) AdmitRun(ctx context.Context, in RunRef) (RunData, error) {
	run, admitted, err := a.Store.BeginPlaybookRun(ctx, &models.PlaybookRun{ID: in.RunID, TenantID: in.TenantID,
		PlaybookID: in.PlaybookID, Version: in.Version, EventID: in.EventID}, in.Limit)
	if err != nil {
		return RunData{}, err
	}
	out := RunData{Admitted: admitted, Status: run.Status, Depth: run.Depth}
	if !admitted {
		return out, nil
	}
	v, err := a.Store.PlaybookVersion(ctx, models.System(in.TenantID), in.PlaybookID, run.Version)
	if err != nil {
		return out, err
	}
	e, err := a.Store.EventByID(ctx, models.System(in.TenantID), run.EventID)
	if err != nil {
		return out, err
	}
	env, err := a.env(ctx, e)
	if err != nil {
		return out, err
	}
	out.Graph, out.Event, out.Partner = v.Graph, env.Event, env.Partner
	return out, nil
}

// env is what expressions see of an event and its partner.
func (a *Playbooks) env(ctx context.Context, e *models.Event) (playbook.Env, error) {
	env := playbook.Env{Event: playbook.EventEnv{ID: e.ID, Type: e.Type, OccurredAt: e.OccurredAt}}
	_ = json.Unmarshal([]byte(e.Payload), &env.Event.Payload)
	if e.CustomerID != nil {
		env.Event.CustomerID = *e.CustomerID
	}
	if e.PartnerID != nil {
		env.Event.PartnerID = *e.PartnerID
		p, err := a.Store.PlaybookPartner(ctx, models.System(e.TenantID), *e.PartnerID)
		if err != nil && models.ErrorKind(err) != models.KindNotFound {
			return env, err
		}
		if p != nil {
			env.Partner = playbook.PartnerEnv{ID: p.ID, Name: p.Name, Type: p.Type, Level: p.Level, Status: p.Status}
			_ = json.Unmarshal([]byte(p.CustomFields), &env.Partner.Custom)
		}
	}
	return env, nil
}

// RecordStep records a step's start or end.
func (a *Playbooks) RecordStep(ctx context.Context, step models.PlaybookStep) error {
	return a.Store.RecordPlaybookStep(ctx, &step)
}

// FinishInput ends a run.
type FinishInput struct {
	TenantID string
	RunID    string
	Status   string
	Error    string
}

// FinishRun records how a run ended.
func (a *Playbooks) FinishRun(ctx context.Context, in FinishInput) error {
	if err := a.Store.FinishPlaybookRun(ctx, models.System(in.TenantID), in.RunID, in.Status, in.Error); err != nil {
		return err
	}
	observer(a.Observer).PlaybookRunFinished(in.Status)
	return nil
}

// ActInput is one action of a run, with its templates rendered.
type ActInput struct {
	TenantID string
	RunID    string
	// StepID names this execution of the node: a node a loop visits again acts again.
	StepID string
	// EventID and Depth place events the action emits in the trigger's causation chain.
	EventID   string
	Depth     int
	PartnerID string
	Node      models.PlaybookNode
}

// ActStepInput is an action step of a run: the action, and the step's record as it started.
type ActStepInput struct {
	Act  ActInput
	Step models.PlaybookStep
}

// ActStep carries out an action step once (see Act) and records the step: completed with the
// action's output, or, while an attempt fails and the action is retried, running. The step
// record is idempotent, so a retry after a crash between the action and its record finds the
// action done and records it.
func (a *Playbooks) ActStep(ctx context.Context, in ActStepInput) (map[string]any, error) {
	out, err := a.Act(ctx, in.Act)
	step := in.Step
	if err != nil {
		// Visible as under way while it is retried (best effort: the run records how it ended);
		// the action's error is returned as it is, so that a refusal stays final.
		step.Status, step.EndedAt = models.StepRunning, nil
		_ = a.Store.RecordPlaybookStep(context.WithoutCancel(ctx), &step)
		return nil, err
	}
	now := time.Now().UTC()
	step.Status, step.EndedAt, step.Output, step.Error = models.StepCompleted, &now, "{}", ""
	if out != nil {
		b, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		step.Output = string(b)
	}
	if err := a.Store.RecordPlaybookStep(ctx, &step); err != nil {
		return nil, err
	}
	return out, nil
}

// Act carries out one action once: a retry after a crash finds what the first attempt did.
func (a *Playbooks) Act(ctx context.Context, in ActInput) (map[string]any, error) {
	key := in.RunID + ":" + in.StepID
	ctx = models.WithCausation(ctx, models.Causation{EventID: in.EventID, Depth: in.Depth})
	var partner *string
	if in.PartnerID != "" {
		partner = &in.PartnerID
	}
	needPartner := func() error {
		if in.PartnerID == "" {
			return temporal.NewNonRetryableApplicationError("the run's event is attributed to no partner", "PlaybookNoPartner", nil)
		}
		return nil
	}
	switch n := in.Node; n.Kind {
	case models.NodeCreateTask:
		p := n.CreateTask
		t := &models.Task{Title: p.Title, Description: p.Description, LinkType: "playbook_run", LinkID: in.RunID}
		if p.Assignee == models.AssigneePartner {
			if err := needPartner(); err != nil {
				return nil, err
			}
			t.PartnerID = partner
		}
		if p.DueInDays > 0 {
			due := time.Now().UTC().AddDate(0, 0, p.DueInDays).Format(time.DateOnly)
			t.DueDate = &due
		}
		id, err := a.Store.PlaybookCreateTask(ctx, models.System(in.TenantID), key, t)
		return map[string]any{"taskId": id}, err
	case models.NodeCreateDocument:
		p := n.CreateDocument
		id, err := a.Store.PlaybookCreateDocument(ctx, models.System(in.TenantID), key, &models.Document{PartnerID: partner, Title: p.Title,
			Body: p.Body, Template: p.Template, RunID: &in.RunID})
		return map[string]any{"documentId": id}, err
	case models.NodeAccrueCommission:
		if err := needPartner(); err != nil {
			return nil, err
		}
		p := n.AccrueCommission
		id, err := a.Store.PlaybookBonus(ctx, models.System(in.TenantID), key, in.PartnerID, p.AmountMinor, p.Currency, p.Reason)
		return map[string]any{"movementId": id, "amount": p.AmountMinor, "currency": p.Currency}, err
	case models.NodeUpdatePartner:
		if err := needPartner(); err != nil {
			return nil, err
		}
		return map[string]any{"partnerId": in.PartnerID}, a.Store.PlaybookUpdatePartner(ctx, models.System(in.TenantID), key, in.PartnerID, *n.UpdatePartner)
	case models.NodeEmitEvent:
		p := n.EmitEvent
		id, err := a.Store.PlaybookEmitEvent(ctx, models.System(in.TenantID), key, models.NewEvent{Type: p.Type, Payload: p.Payload, PartnerID: partner})
		return map[string]any{"eventId": id}, err
	case models.NodeSendSurvey:
		if err := needPartner(); err != nil {
			return nil, err
		}
		id, err := a.Store.PlaybookSendSurvey(ctx, models.System(in.TenantID), key, in.PartnerID, n.SendSurvey.Kind)
		if k := models.ErrorKind(err); k == models.KindInvalid || k == models.KindNotFound {
			// No active user to ask, or the partner is gone: trying again cannot help.
			return nil, temporal.NewNonRetryableApplicationError(err.Error(), "PlaybookSurveyRefused", err)
		}
		return map[string]any{"batchId": id}, err
	case models.NodeCallWebhook:
		return a.callWebhook(ctx, in, key)
	case models.NodeSendEmail:
		return a.sendEmail(ctx, in, key)
	}
	return nil, temporal.NewNonRetryableApplicationError("not an action: "+in.Node.Kind, "PlaybookNotAction", nil)
}

// signingSecret is the secret a tenant's call_webhook actions are signed with: the one set
// through the API, or until then one derived from the master key.
func (a *Playbooks) signingSecret(ctx context.Context, tenantID string) (models.Secret, error) {
	sealed, err := a.Store.PlaybookWebhookSecret(ctx, models.System(tenantID))
	if err != nil || sealed == "" {
		if err != nil {
			return "", err
		}
		return SigningSecret(a.Keyring, tenantID)
	}
	return a.Keyring.Open(sealed, models.SealContext{TenantID: tenantID, Table: "playbook_settings", RowID: tenantID, Field: "webhook_secret"})
}

// SigningSecret is the whsec_ secret derived from the current master key that signs a tenant's
// call_webhook actions until the tenant sets its own.
func SigningSecret(keys *models.Keyring, tenantID string) (models.Secret, error) {
	k, err := keys.DeriveKey(keys.Current(), "playbook webhooks "+tenantID)
	if err != nil {
		return "", err
	}
	return models.Secret("whsec_" + base64.StdEncoding.EncodeToString(k)), nil
}

// callWebhook POSTs the rendered body, signed like our webhooks with the run and node as
// message id; only 2xx succeeds, anything else is retried.
func (a *Playbooks) callWebhook(ctx context.Context, in ActInput, key string) (map[string]any, error) {
	if a.HTTP == nil || a.Keyring == nil {
		return nil, temporal.NewNonRetryableApplicationError("webhook calls are not configured", "PlaybookWebhookUnavailable", nil)
	}
	secret, err := a.signingSecret(ctx, in.TenantID)
	if err != nil {
		return nil, err
	}
	req, err := signedPostWith(ctx, in.Node.CallWebhook.URL, "partnerd-playbooks/1", key, secret, []byte(in.Node.CallWebhook.Body))
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("the webhook URL or signing secret is not valid", "PlaybookWebhookInvalid", err)
	}
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("webhook unreachable: %s", describeSendError(err, 15*time.Second))
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("webhook answered %d", resp.StatusCode)
	}
	return map[string]any{"status": resp.StatusCode}, nil
}

// sendEmail sends the rendered message to each recipient, once per run, node and recipient.
func (a *Playbooks) sendEmail(ctx context.Context, in ActInput, key string) (map[string]any, error) {
	if a.Mail == nil {
		return nil, temporal.NewNonRetryableApplicationError("email is not configured", "PlaybookMailUnavailable", nil)
	}
	p := in.Node.SendEmail
	var ids []any
	for i, to := range strings.Split(p.To, ",") {
		to = strings.TrimSpace(to)
		if to == "" {
			continue
		}
		res, err := a.Mail.SendEmail(ctx, SendEmailInput{TenantID: in.TenantID, To: to, Subject: p.Subject, Text: p.Text, HTML: p.HTML,
			Verbatim: true, Purpose: models.MailPurposePlaybook, Reference: in.RunID, IdempotencyKey: key + ":" + strconv.Itoa(i)})
		if err != nil {
			return nil, err
		}
		ids = append(ids, res.MailID)
	}
	return map[string]any{"mailIds": ids}, nil
}
