package workflows_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

type pinger struct{ err error }

func (p pinger) Ping(context.Context) error { return p.err }

func TestProbeReportsTheWorkerAndItsDatabase(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pingErr error
		wantDB  bool
	}{
		{"a worker that reaches its database", nil, true},
		{"a worker whose database is down", errors.New("down"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var suite testsuite.WorkflowTestSuite
			env := suite.NewTestWorkflowEnvironment()
			worker.Register(env, worker.Deps{System: &activities.System{DB: pinger{tc.pingErr}, Version: "v-test"}})
			env.ExecuteWorkflow(workflows.Probe, workflows.ProbeInput{RequestedAt: time.Now()})
			if !env.IsWorkflowCompleted() {
				t.Fatal("the probe did not complete")
			}
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			var res workflows.ProbeResult
			if err := env.GetWorkflowResult(&res); err != nil {
				t.Fatal(err)
			}
			if res.WorkerVersion != "v-test" || res.DatabaseOK != tc.wantDB {
				t.Fatalf("result = %+v, want version v-test and database ok %v", res, tc.wantDB)
			}
		})
	}
}
