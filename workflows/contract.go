// Package workflows holds partnerd's deterministic Temporal workflows. This file is the
// contract other packages may import: task queue names, workflow-ID helpers and the
// Input/Result structs.
package workflows

import "time"

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
