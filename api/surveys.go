package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// SurveyLinks answers survey links on the public answer page: no login, nothing but the survey.
type SurveyLinks interface {
	PublicSurvey(ctx context.Context, token string) (*models.PublicSurvey, error)
	AnswerSurvey(ctx context.Context, token string, score int, comment string) error
}

// SurveyStore is what the survey operations need of storage, as the caller sees it.
type SurveyStore interface {
	RequestSurveys(ctx context.Context, req models.SurveyRequest) (string, int, error)
	ListSurveys(ctx context.Context, f models.SurveyFilter, pg models.Page) ([]models.Survey, string, error)
	SurveyScores(ctx context.Context, q models.SurveyScoreQuery) ([]models.SurveyScore, error)
}

// surveys is the survey store as the caller sees it.
func (s *Server) surveys(ctx context.Context) SurveyStore {
	return s.deps.Modules.Surveys(models.PrincipalFrom(ctx))
}

// SurveyTokenPath names a survey link by its token.
type SurveyTokenPath struct {
	Token string `path:"token" maxLength:"100" doc:"The token of the survey link (after #token= in the emailed link)"`
}

// PublicSurveyOutput is all a survey link shows.
type PublicSurveyOutput struct {
	CacheControl string `header:"Cache-Control"`
	Body         struct {
		Kind     string `json:"kind" enum:"csat,nps"`
		Question string `json:"question"`
		MinScore int    `json:"minScore"`
		MaxScore int    `json:"maxScore"`
		Program  string `json:"program" doc:"The partner program's name"`
	}
}

// AnswerSurveyInput is an answer given through a survey link.
type AnswerSurveyInput struct {
	SurveyTokenPath
	Body struct {
		Score   int    `json:"score" minimum:"0" maximum:"10" doc:"CSAT: 1 to 5; NPS: 0 to 10"`
		Comment string `json:"comment,omitempty" maxLength:"2000"`
	}
}

// Survey is an invitation with its answer as operators and partners see it.
type Survey struct {
	ID         string     `json:"id"`
	Kind       string     `json:"kind" enum:"csat,nps"`
	PartnerID  string     `json:"partnerId"`
	Level      string     `json:"level" doc:"The partner's level when the survey was sent"`
	UserID     string     `json:"userId" doc:"The recipient"`
	Source     string     `json:"source" enum:"bulk,ticket,playbook"`
	TicketID   string     `json:"ticketId,omitempty"`
	BatchID    string     `json:"batchId"`
	ExpiresAt  time.Time  `json:"expiresAt"`
	SentAt     *time.Time `json:"sentAt,omitempty" doc:"When the link was last emailed"`
	AnsweredAt *time.Time `json:"answeredAt,omitempty"`
	Score      *int       `json:"score,omitempty"`
	Comment    string     `json:"comment,omitempty"`
	CreatedAt  time.Time  `json:"createdAt"`
}

func surveyOf(sv *models.Survey) Survey {
	return Survey{ID: sv.ID, Kind: sv.Kind, PartnerID: sv.PartnerID, Level: sv.Level, UserID: sv.UserID, Source: sv.Source, TicketID: str(sv.TicketID),
		BatchID: sv.BatchID, ExpiresAt: sv.ExpiresAt, SentAt: sv.SentAt, AnsweredAt: sv.AnsweredAt, Score: sv.Score, Comment: sv.Comment, CreatedAt: sv.CreatedAt}
}

// SendSurveysInput sends a survey to the users of partners and levels.
type SendSurveysInput struct {
	Body struct {
		Kind       string   `json:"kind" enum:"csat,nps"`
		PartnerIDs []string `json:"partnerIds,omitempty" maxItems:"1000" maxLength:"36"`
		Levels     []string `json:"levels,omitempty" maxItems:"50" maxLength:"64"`
		ExpiresIn  int      `json:"expiresInDays,omitempty" minimum:"0" maximum:"90" doc:"How long the links answer, in days; 14 when 0 or absent"`
	}
}

// SentSurveysOutput acknowledges a bulk send.
type SentSurveysOutput struct {
	Body struct {
		BatchID    string `json:"batchId"`
		Recipients int    `json:"recipients" doc:"Invitations created; each recipient is emailed a single-use link"`
	}
}

// ListSurveysInput filters invitations.
type ListSurveysInput struct {
	ListParams
	Kind      string `query:"kind" enum:"csat,nps"`
	PartnerID string `query:"partnerId" maxLength:"36"`
	Answered  string `query:"answered" enum:"true,false"`
}

// SurveyListOutput is a page of invitations.
type SurveyListOutput struct{ Body ListBody[Survey] }

// SurveyScoresInput asks for scores.
type SurveyScoresInput struct {
	Kind    string    `query:"kind" required:"true" enum:"csat,nps"`
	GroupBy string    `query:"groupBy" enum:"partner,level" default:"partner"`
	From    time.Time `query:"from" doc:"Answers at or after this time (RFC 3339)"`
	To      time.Time `query:"to" doc:"Answers before this time (RFC 3339)"`
}

// SurveyScoresOutput is the scores per group.
type SurveyScoresOutput struct {
	Body struct {
		Kind    string               `json:"kind" enum:"csat,nps"`
		GroupBy string               `json:"groupBy" enum:"partner,level"`
		Groups  []models.SurveyScore `json:"groups" nullable:"false" doc:"CSAT: score is the percentage of satisfied (4-5) answers; NPS: percentage of promoters (9-10) minus percentage of detractors (0-6); both rounded towards zero"`
	}
}

func registerSurveyRoutes(s *Server) {
	tags := []string{"Surveys"}
	register(s, huma.Operation{OperationID: "get-public-survey", Method: http.MethodGet, Path: "/api/survey-links/{token}", Tags: tags,
		Summary: "The survey a link asks", Description: "Public: no credentials, limited per client address. Shows only the kind, the question and the program's name. An unknown or expired link is 404, an answered one 409.",
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusTooManyRequests}}, Public(), s.getPublicSurvey)
	register(s, huma.Operation{OperationID: "answer-survey", Method: http.MethodPost, Path: "/api/survey-links/{token}", Tags: tags,
		RequestBody: requestExample(`{"score": 9, "comment": "Fast answers from the desk."}`),
		Summary:     "Answer a survey", Description: "Public: no credentials, limited per client address, 8 KiB. A link answers once: again is 409; unknown or expired 404; a score out of the kind's range 422.",
		DefaultStatus: http.StatusNoContent, MaxBodyBytes: 8 << 10,
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity, http.StatusTooManyRequests}}, Public(), s.answerSurvey)
	register(s, huma.Operation{OperationID: "send-surveys", Method: http.MethodPost, Path: "/api/surveys", Tags: tags,
		RequestBody: requestExample(`{"kind": "nps", "levels": ["gold"], "expiresInDays": 14}`),
		Summary:     "Send a survey to partners' users", Description: "Creates one invitation per active user of the partners and levels named (at most 5000, else 422) and emails each a single-use link; emits survey.requested.",
		DefaultStatus: http.StatusAccepted, Security: UsersOrKeys, Errors: []int{http.StatusUnprocessableEntity}}, Requires(authz.SurveysSend), s.sendSurveys)
	register(s, huma.Operation{OperationID: "list-surveys", Method: http.MethodGet, Path: "/api/surveys", Tags: tags,
		Summary: "List survey invitations and answers", Description: "Partners see their own organisation's.", Security: UsersOrKeys}, Requires(authz.SurveysRead), s.listSurveys)
	register(s, huma.Operation{OperationID: "get-survey-scores", Method: http.MethodGet, Path: "/api/survey-scores", Tags: tags,
		Summary: "CSAT or NPS per partner or level", Description: "Over the answers given in [from, to); partners see their own organisation's.", Security: UsersOrKeys,
		Errors: []int{http.StatusUnprocessableEntity}}, Requires(authz.SurveysRead), s.getSurveyScores)
}

// surveyAttempt counts one use of a survey link against the client address's quota.
func (s *Server) surveyAttempt(ctx context.Context) error {
	attempts := []models.RateLimit{{Policy: policySurveyAnswer, Key: models.RequestMetaFrom(ctx).ClientAddress, Quota: s.limits.SurveyAnswer}}
	return s.takeLimits(ctx, attempts, "too many survey requests from this address; try again later")
}

// getPublicSurvey answers what a survey link asks.
func (s *Server) getPublicSurvey(ctx context.Context, in *SurveyTokenPath) (*PublicSurveyOutput, error) {
	if err := s.surveyAttempt(ctx); err != nil {
		return nil, err
	}
	if s.deps.SurveyLinks == nil {
		return nil, models.NotFound("SURVEY_NOT_FOUND", "survey")
	}
	sv, err := s.deps.SurveyLinks.PublicSurvey(ctx, in.Token)
	if err != nil {
		return nil, err
	}
	out := &PublicSurveyOutput{CacheControl: "no-store"}
	out.Body.Kind, out.Body.Question, out.Body.Program = sv.Kind, sv.Question, sv.Program
	out.Body.MinScore, out.Body.MaxScore = models.SurveyScoreRange(sv.Kind)
	return out, nil
}

// answerSurvey records the answer given through a survey link.
func (s *Server) answerSurvey(ctx context.Context, in *AnswerSurveyInput) (*struct{}, error) {
	if err := s.surveyAttempt(ctx); err != nil {
		return nil, err
	}
	if s.deps.SurveyLinks == nil {
		return nil, models.NotFound("SURVEY_NOT_FOUND", "survey")
	}
	return nil, s.deps.SurveyLinks.AnswerSurvey(ctx, in.Token, in.Body.Score, in.Body.Comment)
}

// sendSurveys sends a survey to the users of the partners and levels named.
func (s *Server) sendSurveys(ctx context.Context, in *SendSurveysInput) (*SentSurveysOutput, error) {
	b := in.Body
	batch, n, err := s.surveys(ctx).RequestSurveys(ctx, models.SurveyRequest{Kind: b.Kind, PartnerIDs: b.PartnerIDs, Levels: b.Levels,
		TTL: time.Duration(b.ExpiresIn) * 24 * time.Hour})
	if err != nil {
		return nil, err
	}
	out := &SentSurveysOutput{}
	out.Body.BatchID, out.Body.Recipients = batch, n
	return out, nil
}

// listSurveys lists survey invitations with their answers.
func (s *Server) listSurveys(ctx context.Context, in *ListSurveysInput) (*SurveyListOutput, error) {
	f := models.SurveyFilter{Kind: in.Kind, PartnerID: in.PartnerID}
	if in.Answered != "" {
		answered := in.Answered == "true"
		f.Answered = &answered
	}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Survey, string, error) {
		return s.surveys(ctx).ListSurveys(ctx, f, pg)
	}, surveyOf)
	return &SurveyListOutput{Body: body}, err
}

// getSurveyScores answers the CSAT or NPS per partner or level over a period.
func (s *Server) getSurveyScores(ctx context.Context, in *SurveyScoresInput) (*SurveyScoresOutput, error) {
	groups, err := s.surveys(ctx).SurveyScores(ctx, models.SurveyScoreQuery{Kind: in.Kind, GroupBy: in.GroupBy, From: in.From, To: in.To})
	if err != nil {
		return nil, err
	}
	out := &SurveyScoresOutput{}
	out.Body.Kind, out.Body.GroupBy, out.Body.Groups = in.Kind, in.GroupBy, groups
	return out, nil
}
