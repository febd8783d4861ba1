package workflows_test

import (
	"testing"
	"time"

	sdkworker "go.temporal.io/sdk/worker"
	sdkworkflow "go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/workflows"
)

// Recorded histories of a deal.won playbook run on the embedded server (condition, wait,
// parallel task and webhook call, join) and of the deal.won event's fan-out, written by the
// end-to-end test in cmd/partnerd with PARTNERD_RECORD_PLAYBOOK_HISTORY and
// PARTNERD_RECORD_FANOUT_HISTORY. Runs and fan-outs that are under way when partnerd is
// upgraded continue on the new code, so the code must still replay each shape they may have.
const (
	// recordedRun is a run from before local steps: every step record, the admission, the
	// action and the end were activities of their own.
	recordedRun = "testdata/playbook_run_history.json"
	// recordedLocalRun is a run with local steps (version 1 of the change playbook-local-steps).
	recordedLocalRun = "testdata/playbook_run_history_local.json"
	// recordedFanout is a fan-out from before local routes: the routes and the playbook runs
	// to start were activities (an event that starts one run, from bench/playbooks.sh on the
	// embedded server).
	recordedFanout = "testdata/event_fanout_history.json"
	// recordedLocalFanout is a fan-out with local routes (version 1 of fanout-local-routes).
	recordedLocalFanout = "testdata/event_fanout_history_local.json"
)

func TestARecordedPlaybookRunReplaysOnTodaysCode(t *testing.T) {
	for _, file := range []string{recordedRun, recordedLocalRun} {
		r := sdkworker.NewWorkflowReplayer()
		r.RegisterWorkflow(workflows.PlaybookRun)
		if err := r.ReplayWorkflowHistoryFromJSONFile(nil, file); err != nil {
			t.Fatalf("the recorded run %s does not replay: %v", file, err)
		}
	}
}

func TestARecordedFanoutReplaysOnTodaysCode(t *testing.T) {
	for _, file := range []string{recordedFanout, recordedLocalFanout} {
		r := sdkworker.NewWorkflowReplayer()
		r.RegisterWorkflow(workflows.EventFanout)
		if err := r.ReplayWorkflowHistoryFromJSONFile(nil, file); err != nil {
			t.Fatalf("the recorded fan-out %s does not replay: %v", file, err)
		}
	}
}

func TestTheReplayCatchesAChangedWorkflow(t *testing.T) {
	for _, file := range []string{recordedRun, recordedLocalRun} {
		r := sdkworker.NewWorkflowReplayer()
		// A "new version" that sleeps before doing anything: running runs would break on it.
		r.RegisterWorkflowWithOptions(func(ctx sdkworkflow.Context, in workflows.PlaybookRunInput) (workflows.PlaybookRunResult, error) {
			if err := sdkworkflow.Sleep(ctx, time.Minute); err != nil {
				return workflows.PlaybookRunResult{}, err
			}
			return workflows.PlaybookRun(ctx, in)
		}, sdkworkflow.RegisterOptions{Name: "PlaybookRun"})
		if err := r.ReplayWorkflowHistoryFromJSONFile(nil, file); err == nil {
			t.Fatalf("a workflow that schedules a timer first replayed the recorded history %s", file)
		}
	}
}
