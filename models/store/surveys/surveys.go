// Package surveys keeps CSAT and NPS surveys: one invitation per recipient, its single-use link
// (the token kept only as a SHA-256 hash), the answers and the scores computed from them.
package surveys

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// Store keeps surveys.
type Store struct {
	core *store.Store
}

// New is the surveys store on core's database.
func New(core *store.Store) *Store { return &Store{core: core} }

// Scoped is the surveys as one principal sees them: operators every invitation of their tenant,
// a partner only its own organisation's.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the surveys store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// Bounds of a bulk request's audience.
const (
	MaxRequestPartners = 1000
	MaxRequestLevels   = 50
)

// RequestSurveys creates an invitation of one kind for every active user of the partners and
// levels named, in one batch, and emits survey.requested (which emails them). More than
// models.MaxSurveyRecipients recipients is refused.
func (sc *Scoped) RequestSurveys(ctx context.Context, req models.SurveyRequest) (batchID string, count int, err error) {
	if !slices.Contains(models.SurveyKinds, req.Kind) {
		return "", 0, models.Invalid("INVALID_KIND", "kind is csat or nps", models.FieldError{Location: "body.kind", Message: "unknown kind", Value: req.Kind})
	}
	if len(req.PartnerIDs) == 0 && len(req.Levels) == 0 {
		return "", 0, models.Invalid("AUDIENCE_REQUIRED", "name partners or levels", models.FieldError{Location: "body.partnerIds", Message: "name partners or levels"})
	}
	if len(req.PartnerIDs) > MaxRequestPartners || len(req.Levels) > MaxRequestLevels {
		return "", 0, models.Invalid("AUDIENCE_TOO_LARGE", "at most 1000 partners and 50 levels")
	}
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		for _, id := range req.PartnerIDs {
			if err := sc.Scope.CheckPartner(tx, id, "body.partnerIds"); err != nil {
				return err
			}
		}
		var err error
		batchID, count, err = sc.s.Request(ctx, tx, ev, sc.Scope, req, models.SurveySourceBulk, sc.P.ActorID())
		return err
	})
	if err != nil {
		return "", 0, err
	}
	return batchID, count, nil
}

// Request creates, in tx, an invitation of req's kind for every active user of the partners and
// levels req names (partners already checked to be the scope's), in one batch from source, and
// emits survey.requested (which emails them). More than models.MaxSurveyRecipients recipients,
// or none, is refused.
func (s *Store) Request(ctx context.Context, tx *gorm.DB, ev *store.Outbox, sc store.Scope, req models.SurveyRequest, source, createdBy string) (batchID string, count int, err error) {
	ttl := req.TTL
	if ttl <= 0 {
		ttl = models.SurveyTTL
	}
	t := now()
	batchID = models.NewID()
	partners := sc.Rows(tx.Model(&models.Partner{})).Select("id")
	switch {
	case len(req.PartnerIDs) > 0 && len(req.Levels) > 0:
		partners = partners.Where("(id IN ? OR level IN ?)", req.PartnerIDs, req.Levels)
	case len(req.PartnerIDs) > 0:
		partners = partners.Where("id IN ?", req.PartnerIDs)
	default:
		partners = partners.Where("level IN ?", req.Levels)
	}
	var users []models.User
	if err := sc.Rows(tx.Model(&models.User{})).Select("id", "partner_id").Where("status = ?", models.UserStatusActive).
		Where("partner_id IN (?)", partners).Order("id").Limit(models.MaxSurveyRecipients + 1).Find(&users).Error; err != nil {
		return "", 0, err
	}
	if len(users) > models.MaxSurveyRecipients {
		return "", 0, models.Invalid("TOO_MANY_RECIPIENTS", "more than 5000 recipients: send to fewer partners or levels at a time")
	}
	if len(users) == 0 {
		return "", 0, models.Invalid("NO_RECIPIENTS", "the partners named have no active users")
	}
	levels := map[string]string{}
	var ps []models.Partner
	if err := sc.Rows(tx.Model(&models.Partner{})).Select("id", "level").Where("id IN (?)", partners).Find(&ps).Error; err != nil {
		return "", 0, err
	}
	for _, p := range ps {
		levels[p.ID] = p.Level
	}
	tenantID := sc.TenantID()
	rows := make([]models.Survey, 0, len(users))
	for _, u := range users {
		rows = append(rows, models.Survey{ID: models.NewID(), TenantID: tenantID, PartnerID: *u.PartnerID, Level: levels[*u.PartnerID],
			UserID: u.ID, Kind: req.Kind, Source: source, BatchID: batchID, ExpiresAt: t.Add(ttl),
			CreatedBy: createdBy, CreatedAt: t})
	}
	if err := tx.CreateInBatches(rows, 500).Error; err != nil {
		return "", 0, err
	}
	count = len(rows)
	if err := store.WriteAudit(ctx, tx, tenantID, "survey.requested", "survey_batch", batchID, "kind", "partnerIds", "levels"); err != nil {
		return "", 0, err
	}
	_, err = ev.Emit(ctx, tx, tenantID, models.NewEvent{Type: models.EventSurveyRequested, SubjectID: &batchID,
		Payload: store.MustJSON(models.SurveyEventPayload{BatchID: batchID, Kind: req.Kind, Count: count})})
	if err != nil {
		return "", 0, err
	}
	return batchID, count, nil
}

// surveys limits q to the invitations the principal sees, filtered: a partner only its own.
func (sc *Scoped) surveys(db *gorm.DB, f models.SurveyFilter) *gorm.DB {
	q := sc.Scope.PartnerRows(db.Model(&models.Survey{}), "partner_id")
	if f.Kind != "" {
		q = q.Where("kind = ?", f.Kind)
	}
	if f.PartnerID != "" {
		q = q.Where("partner_id = ?", f.PartnerID)
	}
	if f.Answered != nil {
		if *f.Answered {
			q = q.Where("answered_at IS NOT NULL")
		} else {
			q = q.Where("answered_at IS NULL")
		}
	}
	return q
}

// ListSurveys lists invitations with their answers, oldest first.
func (sc *Scoped) ListSurveys(ctx context.Context, f models.SurveyFilter, pg models.Page) ([]models.Survey, string, error) {
	return store.Page(sc.surveys(sc.s.core.DB(ctx), f), pg, func(s models.Survey) string { return s.ID })
}

// SurveyScores computes the scores of the surveys of one kind answered in [From, To), per
// partner or per level (the partner's level when the survey was sent), groups ordered by name.
func (sc *Scoped) SurveyScores(ctx context.Context, q models.SurveyScoreQuery) ([]models.SurveyScore, error) {
	if !slices.Contains(models.SurveyKinds, q.Kind) {
		return nil, models.Invalid("INVALID_KIND", "kind is csat or nps", models.FieldError{Location: "query.kind", Message: "unknown kind", Value: q.Kind})
	}
	column := "partner_id"
	if q.GroupBy == "level" {
		column = "level"
	}
	rows := sc.surveys(sc.s.core.DB(ctx), models.SurveyFilter{Kind: q.Kind}).Where("answered_at IS NOT NULL")
	if !q.From.IsZero() {
		rows = rows.Where("answered_at >= ?", q.From.UTC())
	}
	if !q.To.IsZero() {
		rows = rows.Where("answered_at < ?", q.To.UTC())
	}
	var counts []struct {
		Grp   string
		Score int
		N     int
	}
	if err := rows.Select(column + " AS grp, score, COUNT(*) AS n").Group(column + ", score").Order("grp").Find(&counts).Error; err != nil {
		return nil, err
	}
	out := []models.SurveyScore{}
	for _, c := range counts {
		if len(out) == 0 || out[len(out)-1].Group != c.Grp {
			out = append(out, models.SurveyScore{Group: c.Grp})
		}
		s := &out[len(out)-1]
		s.Responses += c.N
		if q.Kind == models.SurveyNPS {
			switch models.NPSClass(c.Score) {
			case models.NPSPromoter:
				s.Promoters += c.N
			case models.NPSPassive:
				s.Passives += c.N
			default:
				s.Detractors += c.N
			}
		} else if models.CSATSatisfied(c.Score) {
			s.Satisfied += c.N
		}
	}
	for i := range out {
		out[i].Finish(q.Kind)
	}
	return out, nil
}

// HashToken is the stored form of a survey link's token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// byToken finds the invitation a link's token names; unknown tokens are not found.
func (s *Store) byToken(db *gorm.DB, token string) (*models.Survey, error) {
	if token == "" || len(token) > 100 {
		return nil, models.NotFound("SURVEY_NOT_FOUND", "survey")
	}
	var sv models.Survey
	if err := db.Model(&models.Survey{}).Where("token_hash = ?", HashToken(token)).Take(&sv).Error; err != nil {
		return nil, store.NotFoundAs(err, "SURVEY_NOT_FOUND", "survey")
	}
	return &sv, nil
}

// answerable says why an invitation can no longer be answered, nil when it can.
func answerable(sv *models.Survey, t time.Time) error {
	if sv.AnsweredAt != nil {
		return models.Conflict("SURVEY_ANSWERED", "the survey was answered already")
	}
	if !sv.ExpiresAt.After(t) {
		return models.NotFound("SURVEY_EXPIRED", "survey")
	}
	return nil
}

// PublicSurvey is what a link's answer page shows: the kind, its question and the program's
// name. An unknown or expired link is not found; an answered one a conflict.
func (s *Store) PublicSurvey(ctx context.Context, token string) (*models.PublicSurvey, error) {
	db := s.core.DB(ctx)
	sv, err := s.byToken(db, token)
	if err != nil {
		return nil, err
	}
	if err := answerable(sv, now()); err != nil {
		return nil, err
	}
	var t models.Tenant
	if err := db.Model(&models.Tenant{}).Where("id = ?", sv.TenantID).Take(&t).Error; err != nil {
		return nil, store.NotFoundAs(err, "SURVEY_NOT_FOUND", "survey")
	}
	return &models.PublicSurvey{Kind: sv.Kind, Question: models.SurveyQuestion(sv.Kind), Program: t.Name}, nil
}

// AnswerSurvey records the answer a link's holder gives and emits survey.responded. A link
// answers once: of two answers at the same time one wins, the other is a conflict.
func (s *Store) AnswerSurvey(ctx context.Context, token string, score int, comment string) error {
	return s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		sv, err := s.byToken(tx, token)
		if err != nil {
			return err
		}
		t := now()
		if err := answerable(sv, t); err != nil {
			return err
		}
		comment, err := models.CheckSurveyAnswer(sv.Kind, score, comment)
		if err != nil {
			return err
		}
		sc := store.Of(models.System(sv.TenantID))
		res := sc.Rows(tx.Model(&models.Survey{})).Where("id = ? AND answered_at IS NULL AND expires_at > ?", sv.ID, t).
			Updates(map[string]any{"answered_at": t, "score": score, "comment": comment})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return models.Conflict("SURVEY_ANSWERED", "the survey was answered already")
		}
		class := models.NPSClass(score)
		if sv.Kind == models.SurveyCSAT {
			class = "unsatisfied"
			if models.CSATSatisfied(score) {
				class = "satisfied"
			}
		}
		if err := store.WriteAudit(ctx, tx, sv.TenantID, "survey.responded", "survey", sv.ID, "score", "comment"); err != nil {
			return err
		}
		partner := sv.PartnerID
		// The event occurs at the answer's time, so that csat and nps metrics over these events
		// count an answer in the same period as the scores do.
		_, err = ev.Emit(ctx, tx, sv.TenantID, models.NewEvent{Type: models.EventSurveyResponded, SubjectID: &sv.ID, PartnerID: &partner, OccurredAt: t,
			Payload: store.MustJSON(models.SurveyEventPayload{SurveyID: sv.ID, BatchID: sv.BatchID, Kind: sv.Kind, PartnerID: partner,
				TicketID: sv.TicketID, Score: &score, Class: class})})
		return err
	})
}

// EventPatterns are the events the surveys module reacts to in every tenant: new invitations.
func (s *Store) EventPatterns(context.Context, models.Scope) ([]string, error) {
	return []string{models.EventSurveyRequested}, nil
}

// RouteEvent emails the invitations a survey.requested event announces.
func (s *Store) RouteEvent(_ context.Context, e *models.Event, r *models.EventRoutes) error {
	if e.Type == models.EventSurveyRequested {
		r.SurveyInvitations = true
	}
	return nil
}

// SurveyInvitations are the messages still to send for the batch a survey.requested event
// (eventID) announces: its unanswered, unexpired invitations of active users.
func (s *Store) SurveyInvitations(ctx context.Context, sys models.Scope, eventID string) ([]models.SurveyInvitationMail, error) {
	sc := store.Of(sys)
	db := s.core.DB(ctx)
	var e models.Event
	if err := sc.Rows(db.Model(&models.Event{})).Where("id = ?", eventID).Take(&e).Error; err != nil {
		return nil, store.NotFoundAs(err, "EVENT_NOT_FOUND", "event")
	}
	if e.SubjectID == nil {
		return nil, nil
	}
	var t models.Tenant
	if err := db.Model(&models.Tenant{}).Where("id = ?", sys.TenantID()).Take(&t).Error; err != nil {
		return nil, err
	}
	var list []models.Survey
	if err := sc.Rows(db.Model(&models.Survey{})).Where("batch_id = ? AND answered_at IS NULL AND expires_at > ?", *e.SubjectID, now()).
		Order("id").Find(&list).Error; err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, nil
	}
	ids := make([]string, len(list))
	for i, sv := range list {
		ids[i] = sv.UserID
	}
	var users []models.User
	if err := sc.Rows(db.Model(&models.User{})).Where("id IN ? AND status = ?", ids, models.UserStatusActive).Find(&users).Error; err != nil {
		return nil, err
	}
	byID := map[string]models.User{}
	for _, u := range users {
		byID[u.ID] = u
	}
	out := make([]models.SurveyInvitationMail, 0, len(list))
	for _, sv := range list {
		u, ok := byID[sv.UserID]
		if !ok {
			continue
		}
		out = append(out, models.SurveyInvitationMail{SurveyID: sv.ID, To: u.Email, Name: u.Name, Kind: sv.Kind, Program: t.Name})
	}
	return out, nil
}

// IssueSurveyLink gives an unanswered invitation a new link token and returns it; the token is
// kept only as its hash, so an earlier link of the invitation stops answering.
func (s *Store) IssueSurveyLink(ctx context.Context, sys models.Scope, surveyID string) (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	hash := HashToken(token)
	t := now()
	res := store.Of(sys).Rows(s.core.DB(ctx).Model(&models.Survey{})).Where("id = ? AND answered_at IS NULL", surveyID).
		Updates(map[string]any{"token_hash": hash, "sent_at": t})
	if res.Error != nil {
		return "", res.Error
	}
	if res.RowsAffected == 0 {
		return "", models.NotFound("SURVEY_NOT_FOUND", "survey")
	}
	return token, nil
}

// SurveyLink is the address of a survey's answer page under the public base URL.
func SurveyLink(base, token string) string {
	return strings.TrimRight(base, "/") + "/survey#token=" + token
}

// SurveyResolvedTicket sends the requester of a resolved ticket a CSAT survey, in the
// ticket's transaction, when the tenant asks for it (SurveyOnResolve), the requester is an
// active user of the ticket's partner, and the ticket was not surveyed before.
func (s *Store) SurveyResolvedTicket(ctx context.Context, tx *gorm.DB, ev *store.Outbox, t *models.Ticket) error {
	var tenant models.Tenant
	if err := tx.Model(&models.Tenant{}).Select("id", "survey_on_resolve").Where("id = ?", t.TenantID).Take(&tenant).Error; err != nil {
		return err
	}
	if !tenant.SurveyOnResolve {
		return nil
	}
	sc := store.Of(models.System(t.TenantID))
	var users []models.User
	if err := sc.Rows(tx.Model(&models.User{})).Where("id = ? AND partner_id = ? AND status = ?", t.RequesterID, t.PartnerID, models.UserStatusActive).
		Find(&users).Error; err != nil || len(users) == 0 {
		return err
	}
	var n int64
	if err := sc.Rows(tx.Model(&models.Survey{})).Where("ticket_id = ?", t.ID).Count(&n).Error; err != nil || n > 0 {
		return err
	}
	var p models.Partner
	if err := sc.Rows(tx.Model(&models.Partner{})).Select("id", "level").Where("id = ?", t.PartnerID).Take(&p).Error; err != nil {
		return err
	}
	at := now()
	ticket := t.ID
	sv := &models.Survey{ID: models.NewID(), TenantID: t.TenantID, PartnerID: t.PartnerID, Level: p.Level, UserID: t.RequesterID,
		Kind: models.SurveyCSAT, Source: models.SurveySourceTicket, TicketID: &ticket, BatchID: models.NewID(), ExpiresAt: at.Add(models.SurveyTTL), CreatedAt: at}
	if err := tx.Create(sv).Error; err != nil {
		return err
	}
	_, err := ev.Emit(ctx, tx, t.TenantID, models.NewEvent{Type: models.EventSurveyRequested, SubjectID: &sv.BatchID,
		Payload: store.MustJSON(models.SurveyEventPayload{BatchID: sv.BatchID, Kind: sv.Kind, TicketID: &ticket, Count: 1})})
	return err
}
