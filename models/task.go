package models

import "time"

// Task statuses.
const (
	TaskOpen = "open"
	TaskDone = "done"
)

// Task is a piece of work for a partner organisation or an operator user, optionally linked to
// any record (a deal, a customer, a partner).
type Task struct {
	ID       string `gorm:"primaryKey;size:36"`
	TenantID string `gorm:"size:36;not null"`
	// PartnerID is the partner organisation the task belongs to; partners see only theirs.
	PartnerID *string `gorm:"size:36"`
	// AssigneeUserID is the user (operator or partner user) who should do it.
	AssigneeUserID *string `gorm:"size:36"`
	Title          string  `gorm:"size:200;not null"`
	Description    string  `gorm:"type:text"`
	DueDate        *string `gorm:"size:10"`
	Status         string  `gorm:"size:8;not null"`
	// LinkType and LinkID point at the record the task is about.
	LinkType string `gorm:"size:32"`
	LinkID   string `gorm:"size:36"`
	// Source says where the task came from: manual or onboarding.
	Source      string `gorm:"size:16;not null"`
	CreatedBy   string `gorm:"size:36"`
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CompletedAt *time.Time
	CompletedBy *string `gorm:"size:36"`
}

// Task sources.
const (
	TaskManual     = "manual"
	TaskOnboarding = "onboarding"
)

// TaskLinkTypes are the records a task may link to.
var TaskLinkTypes = []string{"deal", "customer", "partner"}

// TaskFilter selects tasks.
type TaskFilter struct {
	PartnerID, AssigneeUserID, Status, LinkType, LinkID, Source string
}

// TaskChanges are the fields a task update sets; nil leaves a field alone.
type TaskChanges struct {
	Title, Description, DueDate, AssigneeUserID *string
}

// OnboardingItem is one entry of a tenant's onboarding checklist template.
type OnboardingItem struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null"`
	Position    int    `gorm:"not null"`
	Title       string `gorm:"size:200;not null"`
	Description string `gorm:"type:text"`
	// DueInDays sets the task's due date this many days after the checklist starts; 0 for none.
	DueInDays int `gorm:"not null"`
}

// OnboardingProgress is how far a partner is through its onboarding checklist.
type OnboardingProgress struct {
	PartnerID string
	Total     int
	Done      int
	Tasks     []Task
}
