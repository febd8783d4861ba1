package models

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Statuses of a course.
const (
	CourseDraft     = "draft"
	CoursePublished = "published"
	CourseArchived  = "archived"
)

// Statuses of a certificate.
const (
	// CertificateActive is a certificate in force until its expiry.
	CertificateActive = "active"
	// CertificateRenewed is a certificate replaced by a later pass of the same course.
	CertificateRenewed = "renewed"
	// CertificateExpired is a certificate whose expiry passed.
	CertificateExpired = "expired"
)

// Bounds of a course and its quiz.
const (
	MaxCourseItems       = 50
	MaxQuizQuestions     = 100
	MinQuizOptions       = 2
	MaxQuizOptions       = 10
	MaxQuizTextRunes     = 1000
	MaxCourseAttempts    = 100
	MaxCertificateDays   = 3650
	DefaultCourseAttempt = 3
)

// Course is a certification course: content items to study in order and a quiz whose pass
// issues a certificate valid for ValidityDays.
type Course struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null"`
	Title       string `gorm:"size:200;not null"`
	Description string `gorm:"size:5000"`
	Status      string `gorm:"size:16;not null"`
	// PassMark is the lowest score (percent of questions answered right) that passes.
	PassMark int `gorm:"not null"`
	// MaxAttempts is how many attempts a learner has without passing; a pass gives them back.
	MaxAttempts  int `gorm:"not null"`
	ValidityDays int `gorm:"not null"`
	AllPartners  bool
	// QuizJSON is the Quiz with its correct answers, as JSON.
	QuizJSON    string `gorm:"column:quiz;type:text;not null"`
	CreatedBy   string `gorm:"size:36"`
	CreatedAt   time.Time
	UpdatedAt   time.Time
	PublishedAt *time.Time
	// ItemIDs, Levels and PartnerIDs are loaded from their own tables; Quiz from QuizJSON.
	ItemIDs    []string `gorm:"-"`
	Levels     []string `gorm:"-"`
	PartnerIDs []string `gorm:"-"`
	Quiz       Quiz     `gorm:"-"`
}

// CourseItem is the content item at one position of a course.
type CourseItem struct {
	TenantID string `gorm:"size:36;not null"`
	CourseID string `gorm:"primaryKey;size:36"`
	Position int    `gorm:"primaryKey"`
	ItemID   string `gorm:"size:36;not null"`
}

// CourseGrant makes a course visible to a level (by name) or a partner (by id).
type CourseGrant struct {
	TenantID string `gorm:"size:36;not null"`
	CourseID string `gorm:"primaryKey;size:36"`
	Kind     string `gorm:"primaryKey;size:8"`
	Value    string `gorm:"primaryKey;size:64"`
}

// Enrolment is a user taking a course: the items completed and the attempts used since the
// last pass.
type Enrolment struct {
	ID        string `gorm:"primaryKey;size:36"`
	TenantID  string `gorm:"size:36;not null"`
	CourseID  string `gorm:"size:36;not null"`
	UserID    string `gorm:"size:36;not null"`
	PartnerID string `gorm:"size:36"`
	// AttemptsUsed counts the attempts since the last pass (or since enrolment).
	AttemptsUsed int `gorm:"not null"`
	// Attempts counts every attempt ever made.
	Attempts   int `gorm:"not null"`
	EnrolledAt time.Time
	UpdatedAt  time.Time
	// Completed are the ids of the items marked completed, loaded from their own table.
	Completed []string `gorm:"-"`
}

// ItemCompletion records that a learner completed one item of a course.
type ItemCompletion struct {
	TenantID    string `gorm:"size:36;not null"`
	EnrolmentID string `gorm:"primaryKey;size:36"`
	ItemID      string `gorm:"primaryKey;size:36"`
	CompletedAt time.Time
}

// QuizAttempt is one graded submission of a course's quiz.
type QuizAttempt struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null"`
	CourseID    string `gorm:"size:36;not null"`
	EnrolmentID string `gorm:"size:36;not null"`
	UserID      string `gorm:"size:36;not null"`
	PartnerID   string `gorm:"size:36"`
	Number      int    `gorm:"not null"`
	Score       int    `gorm:"not null"`
	Correct     int    `gorm:"not null"`
	Questions   int    `gorm:"not null"`
	Passed      bool
	// AnswersJSON is the QuizAnswers as given (option ids), as JSON.
	AnswersJSON   string  `gorm:"column:answers;type:text;not null"`
	CertificateID *string `gorm:"size:36"`
	CreatedAt     time.Time
	Answers       []QuizAnswer `gorm:"-"`
}

// Certificate says a partner user passed a course, from IssuedAt until ExpiresAt.
type Certificate struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null"`
	CourseID    string `gorm:"size:36;not null"`
	CourseTitle string `gorm:"size:200;not null"`
	UserID      string `gorm:"size:36;not null"`
	PartnerID   string `gorm:"size:36;not null"`
	AttemptID   string `gorm:"size:36;not null"`
	Score       int    `gorm:"not null"`
	Status      string `gorm:"size:16;not null"`
	IssuedAt    time.Time
	ExpiresAt   time.Time
	// EndedAt is when it was renewed or expired.
	EndedAt *time.Time
}

// Quiz is a course's questions. Question and option ids are given by the server from their
// positions ("q3", "q3o2"), so a quiz written again gets the same ids.
type Quiz struct {
	Questions []QuizQuestion `json:"questions"`
}

// QuizQuestion is a single-choice (one option is right) or multiple-choice (one or more are
// right, and all of them must be chosen) question.
type QuizQuestion struct {
	ID       string       `json:"id"`
	Text     string       `json:"text"`
	Multiple bool         `json:"multiple"`
	Options  []QuizOption `json:"options"`
}

// QuizOption is one answer a question offers.
type QuizOption struct {
	ID      string `json:"id"`
	Text    string `json:"text"`
	Correct bool   `json:"correct"`
}

// QuizAnswer is the options a learner chose for one question.
type QuizAnswer struct {
	QuestionID string   `json:"questionId"`
	OptionIDs  []string `json:"optionIds"`
}

// QuizGrade is the result of grading answers: how many questions were right and the score.
type QuizGrade struct {
	Correct   int
	Questions int
	// Score is Correct × 100 / Questions, rounded down.
	Score int
}

// NewCourse is what an operator gives to create or rewrite a course.
type NewCourse struct {
	Title        string
	Description  string
	ItemIDs      []string
	Quiz         Quiz
	PassMark     int
	MaxAttempts  int
	ValidityDays int
	Visibility   ContentVisibility
}

// CourseChanges change a course; nil fields stay. A published course keeps its quiz, pass
// mark, attempts and validity.
type CourseChanges struct {
	Title        *string
	Description  *string
	ItemIDs      *[]string
	Quiz         *Quiz
	PassMark     *int
	MaxAttempts  *int
	ValidityDays *int
	Visibility   *ContentVisibility
}

// CourseFilter narrows courses; zero fields do not filter.
type CourseFilter struct {
	Status string
	Query  string
}

// CertificateFilter narrows certificates; zero fields do not filter.
type CertificateFilter struct {
	CourseID  string
	PartnerID string
	UserID    string
	Status    string
}

// AttemptFilter narrows quiz attempts; zero fields do not filter.
type AttemptFilter struct {
	CourseID  string
	PartnerID string
	UserID    string
}

// AttemptResult is a graded attempt and, when it passed a partner user, the certificate it
// issued.
type AttemptResult struct {
	Attempt     QuizAttempt
	Certificate *Certificate
	// AttemptsLeft is how many attempts remain before a pass.
	AttemptsLeft int
}

// CertificateExpiry is what a certificate's expiry timer does next.
type CertificateExpiry struct {
	Done   bool
	WakeAt time.Time
}

// CertificationEventPayload is the payload of certification.* events about learners. It never
// holds answers.
type CertificationEventPayload struct {
	CertificateID string     `json:"certificateId,omitempty"`
	CourseID      string     `json:"courseId"`
	CourseTitle   string     `json:"courseTitle"`
	UserID        string     `json:"userId,omitempty"`
	PartnerID     string     `json:"partnerId,omitempty"`
	Score         int        `json:"score,omitempty" doc:"Percent of the questions answered right"`
	IssuedAt      *time.Time `json:"issuedAt,omitempty"`
	ExpiresAt     *time.Time `json:"expiresAt,omitempty"`
	Renews        string     `json:"renews,omitempty" doc:"The certificate this one replaces (certification.earned)"`
}

// CourseEventPayload is the payload of certification.course_* events.
type CourseEventPayload struct {
	CourseID  string `json:"courseId"`
	Title     string `json:"title"`
	Status    string `json:"status"`
	Questions int    `json:"questions"`
}

func quizInvalid(msg, location string, value any) error {
	return Invalid("INVALID_QUIZ", msg, FieldError{Location: location, Message: msg, Value: value})
}

// NormalizeQuiz checks a quiz written by an operator and gives its questions and options their
// ids: 1 to 100 questions of 1 to 1000 characters, each with 2 to 10 distinct options; a
// single-choice question has exactly one correct option, a multiple-choice one at least one.
func NormalizeQuiz(q Quiz) (Quiz, error) {
	if len(q.Questions) > MaxQuizQuestions {
		return Quiz{}, quizInvalid("a quiz has at most 100 questions", "body.quiz.questions", len(q.Questions))
	}
	out := Quiz{Questions: make([]QuizQuestion, 0, len(q.Questions))}
	for i, qq := range q.Questions {
		loc := fmt.Sprintf("body.quiz.questions[%d]", i)
		text := strings.TrimSpace(qq.Text)
		if text == "" || len([]rune(text)) > MaxQuizTextRunes {
			return Quiz{}, quizInvalid("a question's text is 1 to 1000 characters", loc+".text", nil)
		}
		if len(qq.Options) < MinQuizOptions || len(qq.Options) > MaxQuizOptions {
			return Quiz{}, quizInvalid("a question has 2 to 10 options", loc+".options", len(qq.Options))
		}
		nq := QuizQuestion{ID: fmt.Sprintf("q%d", i+1), Text: text, Multiple: qq.Multiple, Options: make([]QuizOption, 0, len(qq.Options))}
		correct := 0
		seen := map[string]bool{}
		for j, o := range qq.Options {
			ot := strings.TrimSpace(o.Text)
			if ot == "" || len([]rune(ot)) > MaxQuizTextRunes {
				return Quiz{}, quizInvalid("an option's text is 1 to 1000 characters", fmt.Sprintf("%s.options[%d].text", loc, j), nil)
			}
			if seen[ot] {
				return Quiz{}, quizInvalid("a question's options differ", fmt.Sprintf("%s.options[%d].text", loc, j), ot)
			}
			seen[ot] = true
			if o.Correct {
				correct++
			}
			nq.Options = append(nq.Options, QuizOption{ID: fmt.Sprintf("%so%d", nq.ID, j+1), Text: ot, Correct: o.Correct})
		}
		switch {
		case !qq.Multiple && correct != 1:
			return Quiz{}, quizInvalid("a single-choice question has exactly one correct option", loc+".options", correct)
		case qq.Multiple && correct < 1:
			return Quiz{}, quizInvalid("a multiple-choice question has at least one correct option", loc+".options", correct)
		}
		out.Questions = append(out.Questions, nq)
	}
	return out, nil
}

// ValidateCourseSettings checks a course's pass mark, attempts and validity.
func ValidateCourseSettings(passMark, maxAttempts, validityDays int) error {
	switch {
	case passMark < 1 || passMark > 100:
		return Invalid("INVALID_PASS_MARK", "the pass mark is 1 to 100 percent", FieldError{Location: "body.passMark", Message: "1 to 100", Value: passMark})
	case maxAttempts < 1 || maxAttempts > MaxCourseAttempts:
		return Invalid("INVALID_ATTEMPTS", "the attempts limit is 1 to 100", FieldError{Location: "body.maxAttempts", Message: "1 to 100", Value: maxAttempts})
	case validityDays < 1 || validityDays > MaxCertificateDays:
		return Invalid("INVALID_VALIDITY", "a certificate is valid 1 to 3650 days", FieldError{Location: "body.validityDays", Message: "1 to 3650", Value: validityDays})
	}
	return nil
}

// Public is the quiz as learners see it: the questions and options without which are correct.
func (q Quiz) Public() Quiz {
	out := Quiz{Questions: make([]QuizQuestion, len(q.Questions))}
	for i, qq := range q.Questions {
		opts := make([]QuizOption, len(qq.Options))
		for j, o := range qq.Options {
			opts[j] = QuizOption{ID: o.ID, Text: o.Text}
		}
		out.Questions[i] = QuizQuestion{ID: qq.ID, Text: qq.Text, Multiple: qq.Multiple, Options: opts}
	}
	return out
}

// DecodeQuiz reads a stored quiz; a damaged one reads as empty.
func DecodeQuiz(s string) Quiz {
	var q Quiz
	if json.Unmarshal([]byte(s), &q) != nil {
		return Quiz{}
	}
	return q
}

func answerInvalid(msg string, i int, value any) error {
	return Invalid("INVALID_ANSWERS", msg, FieldError{Location: fmt.Sprintf("body.answers[%d]", i), Message: msg, Value: value})
}

// ParseQuizAnswers checks a learner's answers against quiz and returns them in the quiz's
// question order with their options in the question's order: every answer names a question of
// the quiz at most once and one or more distinct options of that question, exactly one for a
// single-choice question. Questions left out are answered wrong. Whatever it accepts holds at
// most one answer per question and at most MaxQuizOptions options per answer.
func ParseQuizAnswers(q Quiz, answers []QuizAnswer) ([]QuizAnswer, error) {
	if len(answers) > len(q.Questions) {
		return nil, Invalid("INVALID_ANSWERS", "more answers than questions", FieldError{Location: "body.answers", Message: "more answers than questions", Value: len(answers)})
	}
	index := make(map[string]int, len(q.Questions))
	for i, qq := range q.Questions {
		index[qq.ID] = i
	}
	byQuestion := make(map[int][]string, len(answers))
	for i, a := range answers {
		qi, ok := index[a.QuestionID]
		if !ok {
			return nil, answerInvalid("no such question", i, Clip(a.QuestionID, 40))
		}
		if _, dup := byQuestion[qi]; dup {
			return nil, answerInvalid("a question is answered once", i, a.QuestionID)
		}
		qq := q.Questions[qi]
		if len(a.OptionIDs) == 0 || len(a.OptionIDs) > len(qq.Options) {
			return nil, answerInvalid("choose one or more of the question's options", i, len(a.OptionIDs))
		}
		if !qq.Multiple && len(a.OptionIDs) != 1 {
			return nil, answerInvalid("a single-choice question takes one option", i, len(a.OptionIDs))
		}
		chosen := make([]bool, len(qq.Options))
		for _, id := range a.OptionIDs {
			oi := slices.IndexFunc(qq.Options, func(o QuizOption) bool { return o.ID == id })
			if oi < 0 {
				return nil, answerInvalid("no such option of the question", i, Clip(id, 40))
			}
			if chosen[oi] {
				return nil, answerInvalid("an option is chosen once", i, id)
			}
			chosen[oi] = true
		}
		ids := make([]string, 0, len(a.OptionIDs))
		for oi, c := range chosen {
			if c {
				ids = append(ids, qq.Options[oi].ID)
			}
		}
		byQuestion[qi] = ids
	}
	out := make([]QuizAnswer, 0, len(byQuestion))
	for qi, qq := range q.Questions {
		if ids, ok := byQuestion[qi]; ok {
			out = append(out, QuizAnswer{QuestionID: qq.ID, OptionIDs: ids})
		}
	}
	return out, nil
}

// GradeQuiz grades answers already checked by ParseQuizAnswers: a question is right when the
// options chosen are exactly its correct ones.
func GradeQuiz(q Quiz, answers []QuizAnswer) QuizGrade {
	g := QuizGrade{Questions: len(q.Questions)}
	given := make(map[string][]string, len(answers))
	for _, a := range answers {
		given[a.QuestionID] = a.OptionIDs
	}
	for _, qq := range q.Questions {
		chosen, ok := given[qq.ID]
		if !ok {
			continue
		}
		right := true
		for _, o := range qq.Options {
			if o.Correct != slices.Contains(chosen, o.ID) {
				right = false
				break
			}
		}
		if right {
			g.Correct++
		}
	}
	if g.Questions > 0 {
		g.Score = g.Correct * 100 / g.Questions
	}
	return g
}
