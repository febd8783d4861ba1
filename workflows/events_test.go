package workflows_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

// eventStore is an in-memory EventStore.
type eventStore struct {
	mu       sync.Mutex
	events   map[string]*models.Event
	hooks    map[string][]string // event type → webhook ids
	outbox   []models.EventRef
	outboxAt map[string]time.Time
	fail     error
	// accrue makes every event's type a commission trigger.
	accrue bool
}

func (s *eventStore) EventByID(_ context.Context, sys models.Scope, id string) (*models.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return nil, s.fail
	}
	e, ok := s.events[id]
	if !ok || e.TenantID != sys.TenantID() {
		return nil, models.NotFound("EVENT_NOT_FOUND", "event")
	}
	return e, nil
}

// EventRoutes routes like the store's listeners: webhooks by type, commissions (when accrue)
// for events of a partner, the protection window of an approved deal.
func (s *eventStore) EventRoutes(ctx context.Context, sys models.Scope, id string) (models.EventRoutes, error) {
	e, err := s.EventByID(ctx, models.System(sys.TenantID()), id)
	if models.ErrorKind(err) == models.KindNotFound {
		return models.EventRoutes{}, nil
	}
	if err != nil {
		return models.EventRoutes{}, err
	}
	r := models.EventRoutes{Found: true, Depth: e.Depth, Webhooks: s.hooks[e.Type], Accrue: s.accrue && e.PartnerID != nil}
	if e.Type == models.EventDealApproved && e.SubjectID != nil {
		r.ProtectDeal = *e.SubjectID
	}
	if e.Type == models.EventAgreementPublished && strings.Contains(e.Payload, `"required":true`) {
		r.AgreementNotices = true
	}
	return r, nil
}

func (s *eventStore) PendingOutbox(_ context.Context, olderThan time.Time, limit int) ([]models.EventRef, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []models.EventRef
	for _, r := range s.outbox {
		if s.outboxAt[r.EventID].Before(olderThan) && len(out) < limit {
			out = append(out, r)
		}
	}
	return out, nil
}

func (s *eventStore) MarkDispatched(_ context.Context, ids []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outbox = slices.DeleteFunc(s.outbox, func(r models.EventRef) bool { return slices.Contains(ids, r.EventID) })
	return nil
}

type starter struct {
	mu      sync.Mutex
	started []string
	refuse  string
}

func (s *starter) StartFanouts(_ context.Context, refs []models.EventRef) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ok []string
	var err error
	for _, r := range refs {
		if r.EventID == s.refuse {
			err = errors.New("temporal unavailable")
			continue
		}
		s.started = append(s.started, r.EventID)
		ok = append(ok, r.EventID)
	}
	return ok, err
}

func TestEventFanoutStartsOneDeliveryPerSubscribedWebhook(t *testing.T) {
	for _, tc := range []struct {
		name  string
		event *models.Event
		hooks []string
		want  []string
	}{
		{"an event with two subscribed webhooks", &models.Event{ID: "e1", TenantID: "t1", Type: "invoice.paid"}, []string{"w1", "w2"}, []string{"w1", "w2"}},
		{"an event nobody subscribes to", &models.Event{ID: "e1", TenantID: "t1", Type: "invoice.paid"}, nil, nil},
		{"an event that no longer exists", nil, []string{"w1"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var suite testsuite.WorkflowTestSuite
			env := suite.NewTestWorkflowEnvironment()
			st := &eventStore{events: map[string]*models.Event{}, hooks: map[string][]string{"invoice.paid": tc.hooks}}
			if tc.event != nil {
				st.events[tc.event.ID] = tc.event
			}
			worker.Register(env, worker.Deps{System: &activities.System{}, Events: &activities.Events{Store: st}, Webhooks: &activities.Webhooks{}})
			var delivered []string
			var mu sync.Mutex
			env.OnWorkflow(workflows.WebhookDelivery, mock.Anything, mock.Anything).Return(
				func(_ workflow.Context, in workflows.WebhookDeliveryInput) error {
					mu.Lock()
					defer mu.Unlock()
					if in.TenantID != "t1" || in.EventID != "e1" {
						t.Errorf("delivery input = %+v", in)
					}
					delivered = append(delivered, in.WebhookID)
					return nil
				})
			env.ExecuteWorkflow(workflows.EventFanout, workflows.EventFanoutInput{TenantID: "t1", EventID: "e1", Type: "invoice.paid"})
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			var res workflows.EventFanoutResult
			_ = env.GetWorkflowResult(&res)
			slices.Sort(delivered)
			if !slices.Equal(res.Webhooks, tc.want) || !slices.Equal(delivered, tc.want) {
				t.Fatalf("result %v, delivered %v, want %v", res.Webhooks, delivered, tc.want)
			}
		})
	}
}

func TestEventFanoutWaitsOutADatabaseOutage(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	st := &eventStore{events: map[string]*models.Event{"e1": {ID: "e1", TenantID: "t1", Type: "a.b"}}, hooks: map[string][]string{"a.b": {"w1"}}, fail: errors.New("connection refused")}
	worker.Register(env, worker.Deps{System: &activities.System{}, Events: &activities.Events{Store: st}, Webhooks: &activities.Webhooks{}})
	env.OnWorkflow(workflows.WebhookDelivery, mock.Anything, mock.Anything).Return(nil)
	env.RegisterDelayedCallback(func() {
		st.mu.Lock()
		st.fail = nil
		st.mu.Unlock()
	}, 90*time.Second)
	env.ExecuteWorkflow(workflows.EventFanout, workflows.EventFanoutInput{TenantID: "t1", EventID: "e1", Type: "a.b"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("the fan-out gave up during the outage: %v", err)
	}
	var res workflows.EventFanoutResult
	_ = env.GetWorkflowResult(&res)
	if !slices.Equal(res.Webhooks, []string{"w1"}) {
		t.Fatalf("after the outage: %v", res.Webhooks)
	}
}

func TestRelayHandsOverOnlyOldOutboxRows(t *testing.T) {
	now := time.Now()
	st := &eventStore{outboxAt: map[string]time.Time{"old": now.Add(-time.Minute), "young": now, "refused": now.Add(-time.Minute)}}
	st.outbox = []models.EventRef{{EventID: "old"}, {EventID: "young"}, {EventID: "refused"}}
	s := &starter{refuse: "refused"}
	a := &activities.Events{Store: st, Starter: s}
	n, err := a.RelayOutbox(context.Background(), activities.RelayInput{Age: 5 * time.Second})
	if n != 1 || err == nil {
		t.Fatalf("relay = %d, %v; want 1 handed over and the refusal reported", n, err)
	}
	if !slices.Equal(s.started, []string{"old"}) {
		t.Fatalf("started %v", s.started)
	}
	left := []string{}
	for _, r := range st.outbox {
		left = append(left, r.EventID)
	}
	if !slices.Equal(left, []string{"young", "refused"}) {
		t.Fatalf("outbox after the pass = %v, want the young row and the refused one", left)
	}
}

func TestOutboxRelayPassesOnItsIntervalAndContinuesAsNew(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	st := &eventStore{outboxAt: map[string]time.Time{}}
	s := &starter{}
	worker.Register(env, worker.Deps{System: &activities.System{}, Events: &activities.Events{Store: st, Starter: s}, Webhooks: &activities.Webhooks{}})
	env.RegisterDelayedCallback(func() {
		st.mu.Lock()
		st.outbox = append(st.outbox, models.EventRef{TenantID: "t1", EventID: "stranded"})
		st.outboxAt["stranded"] = time.Time{}
		st.mu.Unlock()
	}, time.Minute)
	env.ExecuteWorkflow(workflows.OutboxRelay, workflows.OutboxRelayInput{Interval: 5 * time.Second, Age: 5 * time.Second})
	err := env.GetWorkflowError()
	if !workflow.IsContinueAsNewError(err) {
		t.Fatalf("the relay ended with %v, want continue-as-new", err)
	}
	if !slices.Equal(s.started, []string{"stranded"}) {
		t.Fatalf("the relay started %v, want the stranded event once", s.started)
	}
}

// refusingLedger refuses every accrual for good.
type refusingLedger struct{ activities.MoneyStore }

func (refusingLedger) AccrueCommissions(context.Context, models.Scope, string) ([]models.AccrualResult, error) {
	return nil, models.Conflict("BALANCE_OUT_OF_RANGE", "the pending balance would leave the range of 64-bit minor units")
}

func TestARefusedAccrualDoesNotHoldUpTheEventsWebhooks(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	partner := "p1"
	st := &eventStore{events: map[string]*models.Event{"e1": {ID: "e1", TenantID: "t1", Type: "invoice.paid", PartnerID: &partner}},
		hooks: map[string][]string{"invoice.paid": {"w1"}}, accrue: true}
	worker.Register(env, worker.Deps{System: &activities.System{}, Events: &activities.Events{Store: st}, Webhooks: &activities.Webhooks{},
		Money: &activities.Money{Store: refusingLedger{}}})
	delivered := 0
	env.OnWorkflow(workflows.WebhookDelivery, mock.Anything, mock.Anything).Return(func(workflow.Context, workflows.WebhookDeliveryInput) error {
		delivered++
		return nil
	})
	env.ExecuteWorkflow(workflows.EventFanout, workflows.EventFanoutInput{TenantID: "t1", EventID: "e1", Type: "invoice.paid"})
	var res workflows.EventFanoutResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if delivered != 1 || !strings.Contains(res.MoneyError, "BALANCE_OUT_OF_RANGE") {
		t.Fatalf("delivered %d, result %+v", delivered, res)
	}
}
