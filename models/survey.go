package models

import (
	"strconv"
	"strings"
	"time"
)

// Survey kinds: CSAT asks how satisfied the recipient is (1–5), NPS how likely they are to
// recommend the program (0–10).
const (
	SurveyCSAT = "csat"
	SurveyNPS  = "nps"
)

// SurveyKinds are the kinds of survey.
var SurveyKinds = []string{SurveyCSAT, SurveyNPS}

// Where a survey invitation came from.
const (
	SurveySourceBulk     = "bulk"
	SurveySourceTicket   = "ticket"
	SurveySourcePlaybook = "playbook"
)

// Survey limits.
const (
	// MaxSurveyComment bounds an answer's comment, in characters.
	MaxSurveyComment = 2000
	// MaxSurveyRecipients bounds the invitations one bulk send creates.
	MaxSurveyRecipients = 5000
	// SurveyTTL is how long an invitation's link answers by default.
	SurveyTTL = 14 * 24 * time.Hour
)

// SurveyQuestion is the question a kind of survey asks.
func SurveyQuestion(kind string) string {
	if kind == SurveyNPS {
		return "How likely is it that you would recommend our partner program to a colleague? (0 = not at all likely, 10 = extremely likely)"
	}
	return "How satisfied are you with the help you received? (1 = very dissatisfied, 5 = very satisfied)"
}

// SurveyScoreRange is the lowest and highest score of a kind of survey.
func SurveyScoreRange(kind string) (lo, hi int) {
	if kind == SurveyNPS {
		return 0, 10
	}
	return 1, 5
}

// NPS classes of a score.
const (
	NPSDetractor = "detractor"
	NPSPassive   = "passive"
	NPSPromoter  = "promoter"
)

// NPSClass is the class of an NPS score: 9–10 promoters, 7–8 passives, 0–6 detractors.
func NPSClass(score int) string {
	switch {
	case score >= 9:
		return NPSPromoter
	case score >= 7:
		return NPSPassive
	}
	return NPSDetractor
}

// CSATSatisfied says whether a CSAT score counts as satisfied (4 or 5).
func CSATSatisfied(score int) bool { return score >= 4 }

// CheckSurveyAnswer validates an answer to a survey of kind and returns the comment trimmed.
func CheckSurveyAnswer(kind string, score int, comment string) (string, error) {
	lo, hi := SurveyScoreRange(kind)
	if score < lo || score > hi {
		return "", Invalid("SCORE_OUT_OF_RANGE", "the score is out of range",
			FieldError{Location: "body.score", Message: "between " + strconv.Itoa(lo) + " and " + strconv.Itoa(hi), Value: score})
	}
	comment = strings.TrimSpace(comment)
	if len([]rune(comment)) > MaxSurveyComment {
		return "", Invalid("COMMENT_TOO_LONG", "the comment is longer than 2000 characters",
			FieldError{Location: "body.comment", Message: "at most 2000 characters"})
	}
	return comment, nil
}

// Survey is one invitation to answer a survey, sent to one user of a partner organisation; its
// link's token is kept only as a SHA-256 hash. Level is the partner's level when it was sent.
type Survey struct {
	ID         string     `json:"id" gorm:"primaryKey;size:36"`
	TenantID   string     `json:"-" gorm:"size:36;not null"`
	PartnerID  string     `json:"partnerId" gorm:"size:36;not null"`
	Level      string     `json:"level" gorm:"size:64"`
	UserID     string     `json:"userId" gorm:"size:36;not null"`
	Kind       string     `json:"kind" gorm:"size:8;not null"`
	Source     string     `json:"source" gorm:"size:16;not null"`
	TicketID   *string    `json:"ticketId,omitempty" gorm:"size:36"`
	BatchID    string     `json:"batchId" gorm:"size:36;not null"`
	TokenHash  *string    `json:"-" gorm:"size:64"`
	ExpiresAt  time.Time  `json:"expiresAt"`
	SentAt     *time.Time `json:"sentAt,omitempty"`
	AnsweredAt *time.Time `json:"answeredAt,omitempty"`
	Score      *int       `json:"score,omitempty"`
	Comment    string     `json:"comment,omitempty" gorm:"size:2000"`
	CreatedBy  string     `json:"-" gorm:"size:36"`
	CreatedAt  time.Time  `json:"createdAt"`
}

// SurveyRequest asks for surveys of one kind to be sent to the active users of the partners
// named and of every partner at the levels named.
type SurveyRequest struct {
	Kind       string
	PartnerIDs []string
	Levels     []string
	// TTL is how long the links answer; zero is SurveyTTL.
	TTL time.Duration
}

// SurveyFilter filters invitations.
type SurveyFilter struct {
	Kind      string
	PartnerID string
	// Answered filters on whether an answer came: nil for both.
	Answered *bool
}

// SurveyScoreQuery asks for the scores of one kind of survey, answered in [From, To), grouped
// by partner or level.
type SurveyScoreQuery struct {
	Kind     string
	GroupBy  string // "partner" or "level"
	From, To time.Time
}

// SurveyScore is the score of one group: for CSAT the percentage satisfied (4–5) of all
// responses, for NPS the percentage of promoters minus that of detractors, both rounded
// towards zero; nil without responses.
type SurveyScore struct {
	Group      string `json:"group"`
	Responses  int    `json:"responses"`
	Satisfied  int    `json:"satisfied"`
	Promoters  int    `json:"promoters"`
	Passives   int    `json:"passives"`
	Detractors int    `json:"detractors"`
	Score      *int   `json:"score"`
}

// Finish computes Score from the counts.
func (s *SurveyScore) Finish(kind string) {
	if s.Responses == 0 {
		s.Score = nil
		return
	}
	var v int
	if kind == SurveyNPS {
		v = (s.Promoters - s.Detractors) * 100 / s.Responses
	} else {
		v = s.Satisfied * 100 / s.Responses
	}
	s.Score = &v
}

// PublicSurvey is all an answer page learns from a link: the kind and the question.
type PublicSurvey struct {
	Kind     string
	Question string
	Program  string
}

// SurveyInvitationMail is one message inviting a user to answer a survey.
type SurveyInvitationMail struct {
	SurveyID string
	To       string
	Name     string
	Kind     string
	Program  string
}

// SurveyEventPayload is the payload of survey events. A response's comment is not in it: it
// is personal text, read through the surveys API by those allowed to.
type SurveyEventPayload struct {
	SurveyID  string  `json:"surveyId,omitempty"`
	BatchID   string  `json:"batchId,omitempty"`
	Kind      string  `json:"kind"`
	PartnerID string  `json:"partnerId,omitempty"`
	TicketID  *string `json:"ticketId,omitempty"`
	Score     *int    `json:"score,omitempty"`
	Class     string  `json:"class,omitempty" doc:"For NPS: promoter, passive or detractor; for CSAT: satisfied or unsatisfied"`
	Count     int     `json:"count,omitempty" doc:"survey.requested: how many invitations were created"`
}
