package models

import "time"

// Run statuses. A run waits for a free slot when its playbook is at its concurrency limit.
const (
	RunQueued    = "queued"
	RunRunning   = "running"
	RunCompleted = "completed"
	RunFailed    = "failed"
	RunCancelled = "cancelled"
)

// Step statuses.
const (
	StepRunning   = "running"
	StepCompleted = "completed"
	StepFailed    = "failed"
)

// MaxPlaybookDepth is how deep a causation chain may grow before playbooks stop starting runs
// for it: a playbook that triggers itself ends there instead of looping forever.
const MaxPlaybookDepth = 8

// PlaybookRun is one execution of one published playbook version, started by one event.
type PlaybookRun struct {
	ID         string  `gorm:"primaryKey;size:36"`
	TenantID   string  `gorm:"size:36;not null"`
	PlaybookID string  `gorm:"size:36;not null"`
	Version    int     `gorm:"not null"`
	EventID    string  `gorm:"size:36;not null"`
	PartnerID  *string `gorm:"size:36"`
	Status     string  `gorm:"size:16;not null"`
	Error      string  `gorm:"size:2000"`
	// Depth is the triggering event's place in its causation chain.
	Depth int `gorm:"not null"`
	// CancelRequested is set when an operator asked to cancel the run.
	CancelRequested bool `gorm:"not null;default:false"`
	StartedAt       time.Time
	EndedAt         *time.Time
}

// PlaybookStep is one node's execution within a run.
type PlaybookStep struct {
	ID       string `gorm:"primaryKey;size:36"`
	TenantID string `gorm:"size:36;not null"`
	RunID    string `gorm:"size:36;not null"`
	NodeID   string `gorm:"size:64;not null"`
	Kind     string `gorm:"size:32;not null"`
	Status   string `gorm:"size:16;not null"`
	// Output is the step's output as a JSON object; Error says why it failed.
	Output    string `gorm:"type:text"`
	Error     string `gorm:"size:2000"`
	StartedAt time.Time
	EndedAt   *time.Time
}

// PlaybookRunFilter selects runs.
type PlaybookRunFilter struct {
	PlaybookID, Status string
}

// PlaybookRef is an enabled playbook whose trigger matches an event: the version new runs use.
type PlaybookRef struct {
	PlaybookID       string
	Version          int
	ConcurrencyLimit int
	// Graph is the graph of that version.
	Graph PlaybookGraph
}

// Document is a record a playbook created from a template for a partner to open.
type Document struct {
	ID        string  `gorm:"primaryKey;size:36"`
	TenantID  string  `gorm:"size:36;not null"`
	PartnerID *string `gorm:"size:36"`
	Title     string  `gorm:"size:1000;not null"`
	// Body is the rendered HTML.
	Body      string  `gorm:"type:text;not null"`
	Template  string  `gorm:"size:64"`
	RunID     *string `gorm:"size:36"`
	CreatedAt time.Time
}

// PlaybookEffect is the result of one action of one run, recorded once: a retried action
// finds it and does nothing again.
type PlaybookEffect struct {
	TenantID string `gorm:"primaryKey;size:36"`
	// Key is run id + ":" + step id (one execution of a node).
	Key string `gorm:"primaryKey;size:200"`
	// Output is the action's output as a JSON object.
	Output    string `gorm:"type:text;not null"`
	CreatedAt time.Time
}

// PlaybookSettings are a tenant's playbook settings: the secret call_webhook actions are signed
// with.
type PlaybookSettings struct {
	TenantID string `gorm:"primaryKey;size:36"`
	// WebhookSecret is the sealed whsec_ signing secret.
	WebhookSecret Sealed `gorm:"type:text;not null"`
	UpdatedAt     time.Time
}

// TableName is one row per tenant.
func (PlaybookSettings) TableName() string { return "playbook_settings" }
