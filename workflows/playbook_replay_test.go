package workflows_test

import (
	"testing"
	"time"

	sdkworker "go.temporal.io/sdk/worker"
	sdkworkflow "go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/workflows"
)

// recordedRun is the history of a deal.won playbook run on the embedded server (condition,
// wait, parallel task and webhook call, join), written by the end-to-end test in cmd/partnerd
// with PARTNERD_RECORD_PLAYBOOK_HISTORY. Runs that are under way when partnerd is upgraded
// continue on the new code, so the code must still replay it.
const recordedRun = "testdata/playbook_run_history.json"

func TestARecordedPlaybookRunReplaysOnTodaysCode(t *testing.T) {
	r := sdkworker.NewWorkflowReplayer()
	r.RegisterWorkflow(workflows.PlaybookRun)
	if err := r.ReplayWorkflowHistoryFromJSONFile(nil, recordedRun); err != nil {
		t.Fatalf("the recorded run does not replay: %v", err)
	}
}

func TestTheReplayCatchesAChangedWorkflow(t *testing.T) {
	r := sdkworker.NewWorkflowReplayer()
	// A "new version" that sleeps before doing anything: running runs would break on it.
	r.RegisterWorkflowWithOptions(func(ctx sdkworkflow.Context, in workflows.PlaybookRunInput) (workflows.PlaybookRunResult, error) {
		if err := sdkworkflow.Sleep(ctx, time.Minute); err != nil {
			return workflows.PlaybookRunResult{}, err
		}
		return workflows.PlaybookRun(ctx, in)
	}, sdkworkflow.RegisterOptions{Name: "PlaybookRun"})
	if err := r.ReplayWorkflowHistoryFromJSONFile(nil, recordedRun); err == nil {
		t.Fatal("a workflow that schedules a timer first replayed the recorded history")
	}
}
