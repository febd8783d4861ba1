package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0030Certifications adds certification courses (their items, visibility grants and
// quiz), enrolments with the items completed, quiz attempts and certificates.
func migrate0030Certifications(tx *gorm.DB) error {
	type course struct {
		ID           string `gorm:"primaryKey;size:36"`
		TenantID     string `gorm:"size:36;not null;index:courses_tenant_status,priority:1"`
		Title        string `gorm:"size:200;not null"`
		Description  string `gorm:"size:5000"`
		Status       string `gorm:"size:16;not null;index:courses_tenant_status,priority:2"`
		PassMark     int    `gorm:"not null"`
		MaxAttempts  int    `gorm:"not null"`
		ValidityDays int    `gorm:"not null"`
		AllPartners  bool   `gorm:"not null;default:false"`
		Quiz         string `gorm:"type:text;not null"`
		CreatedBy    string `gorm:"size:36"`
		CreatedAt    time.Time
		UpdatedAt    time.Time
		PublishedAt  *time.Time
	}
	type courseItem struct {
		TenantID string `gorm:"size:36;not null"`
		CourseID string `gorm:"primaryKey;size:36"`
		Position int    `gorm:"primaryKey"`
		ItemID   string `gorm:"size:36;not null"`
	}
	type courseGrant struct {
		TenantID string `gorm:"size:36;not null"`
		CourseID string `gorm:"primaryKey;size:36"`
		Kind     string `gorm:"primaryKey;size:8"`
		Value    string `gorm:"primaryKey;size:64"`
	}
	type enrolment struct {
		ID           string `gorm:"primaryKey;size:36"`
		TenantID     string `gorm:"size:36;not null;index:enrolments_tenant_partner,priority:1"`
		CourseID     string `gorm:"size:36;not null;uniqueIndex:enrolments_course_user,priority:1"`
		UserID       string `gorm:"size:36;not null;uniqueIndex:enrolments_course_user,priority:2"`
		PartnerID    string `gorm:"size:36;index:enrolments_tenant_partner,priority:2"`
		AttemptsUsed int    `gorm:"not null;default:0"`
		Attempts     int    `gorm:"not null;default:0"`
		EnrolledAt   time.Time
		UpdatedAt    time.Time
	}
	type itemCompletion struct {
		TenantID    string `gorm:"size:36;not null"`
		EnrolmentID string `gorm:"primaryKey;size:36"`
		ItemID      string `gorm:"primaryKey;size:36"`
		CompletedAt time.Time
	}
	type quizAttempt struct {
		ID            string  `gorm:"primaryKey;size:36"`
		TenantID      string  `gorm:"size:36;not null;index:quiz_attempts_tenant_partner,priority:1"`
		CourseID      string  `gorm:"size:36;not null"`
		EnrolmentID   string  `gorm:"size:36;not null;uniqueIndex:quiz_attempts_enrolment_number,priority:1"`
		UserID        string  `gorm:"size:36;not null"`
		PartnerID     string  `gorm:"size:36;index:quiz_attempts_tenant_partner,priority:2"`
		Number        int     `gorm:"not null;uniqueIndex:quiz_attempts_enrolment_number,priority:2"`
		Score         int     `gorm:"not null"`
		Correct       int     `gorm:"not null"`
		Questions     int     `gorm:"not null"`
		Passed        bool    `gorm:"not null"`
		Answers       string  `gorm:"type:text;not null"`
		CertificateID *string `gorm:"size:36"`
		CreatedAt     time.Time
	}
	type certificate struct {
		ID          string `gorm:"primaryKey;size:36"`
		TenantID    string `gorm:"size:36;not null;index:certificates_tenant_partner,priority:1"`
		CourseID    string `gorm:"size:36;not null;index:certificates_course_user,priority:1"`
		CourseTitle string `gorm:"size:200;not null"`
		UserID      string `gorm:"size:36;not null;index:certificates_course_user,priority:2"`
		PartnerID   string `gorm:"size:36;not null;index:certificates_tenant_partner,priority:2"`
		AttemptID   string `gorm:"size:36;not null"`
		Score       int    `gorm:"not null"`
		Status      string `gorm:"size:16;not null;index:certificates_tenant_partner,priority:3"`
		IssuedAt    time.Time
		ExpiresAt   time.Time
		EndedAt     *time.Time
	}
	tables := []struct {
		name  string
		model any
	}{{"courses", &course{}}, {"course_items", &courseItem{}}, {"course_grants", &courseGrant{}}, {"enrolments", &enrolment{}},
		{"item_completions", &itemCompletion{}}, {"quiz_attempts", &quizAttempt{}}, {"certificates", &certificate{}}}
	for _, t := range tables {
		if err := tx.Table(t.name).Migrator().CreateTable(t.model); err != nil {
			return err
		}
	}
	// Grants are found by what they grant: a level's or a partner's courses.
	return tx.Exec("CREATE INDEX course_grants_value ON course_grants (tenant_id, kind, value, course_id)").Error
}
