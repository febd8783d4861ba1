// Package certifications keeps certification courses (content items to study and a quiz),
// learners' enrolments and completed items, graded quiz attempts and the certificates a pass
// issues, with their expiry.
package certifications

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
	"github.com/partnerd/partnerd/models/store/content"
)

// Store keeps certifications.
type Store struct {
	core    *store.Store
	content *content.Store
}

// New is the certifications store on core's database; lib tells which content items a
// learner may see.
func New(core *store.Store, lib *content.Store) *Store { return &Store{core: core, content: lib} }

// Scoped is certifications as one principal sees them: operators every course, attempt and
// certificate of their tenant; a partner the published courses visible to it and its own
// organisation's attempts and certificates.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the certifications store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// EventPatterns are the events the certifications module reacts to: an earned certificate,
// whose expiry timer starts.
func (s *Store) EventPatterns(context.Context, models.Scope) ([]string, error) {
	return []string{models.EventCertificationEarned}, nil
}

// RouteEvent starts the expiry timer of an earned certificate.
func (s *Store) RouteEvent(_ context.Context, e *models.Event, r *models.EventRoutes) error {
	if e.Type == models.EventCertificationEarned && e.SubjectID != nil {
		r.ExpireCertificate = *e.SubjectID
	}
	return nil
}

func (sc *Scoped) operatorOnly() error {
	if sc.Scope.PartnerID() != "" {
		return models.Errorf(models.KindForbidden, "OPERATORS_ONLY", "courses are managed by operators")
	}
	return nil
}

// cleanIDs trims and de-duplicates ids, keeping their order.
func cleanIDs(in []string) []string {
	out := []string{}
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func normalizeVisibility(v models.ContentVisibility) models.ContentVisibility {
	return models.ContentVisibility{AllPartners: v.AllPartners, Levels: cleanIDs(v.Levels), PartnerIDs: cleanIDs(v.PartnerIDs)}
}

// checkItems refuses item ids that are not active content items of the tenant.
func (sc *Scoped) checkItems(tx *gorm.DB, ids []string) error {
	if len(ids) > models.MaxCourseItems {
		return models.Invalid("TOO_MANY_ITEMS", "a course has at most 50 items", models.FieldError{Location: "body.itemIds", Message: "at most 50", Value: len(ids)})
	}
	if len(ids) == 0 {
		return nil
	}
	var found []string
	if err := sc.Scope.Rows(tx.Model(&models.ContentItem{})).Where("id IN ? AND status = ?", ids, models.ContentActive).Pluck("id", &found).Error; err != nil {
		return err
	}
	for _, id := range ids {
		if !slices.Contains(found, id) {
			return models.Invalid("CONTENT_NOT_FOUND", "no such active content item", models.FieldError{Location: "body.itemIds", Message: "no such active content item", Value: id})
		}
	}
	return nil
}

func (sc *Scoped) checkPartners(tx *gorm.DB, ids []string) error {
	for _, id := range ids {
		if err := sc.Scope.CheckPartner(tx, id, "body.visibility.partnerIds"); err != nil {
			return err
		}
	}
	return nil
}

func writeItems(tx *gorm.DB, sc store.Scope, c *models.Course) error {
	if err := sc.Rows(tx).Where("course_id = ?", c.ID).Delete(&models.CourseItem{}).Error; err != nil {
		return err
	}
	for i, id := range c.ItemIDs {
		if err := tx.Create(&models.CourseItem{TenantID: c.TenantID, CourseID: c.ID, Position: i + 1, ItemID: id}).Error; err != nil {
			return err
		}
	}
	return nil
}

func writeGrants(tx *gorm.DB, sc store.Scope, c *models.Course) error {
	if err := sc.Rows(tx).Where("course_id = ?", c.ID).Delete(&models.CourseGrant{}).Error; err != nil {
		return err
	}
	for _, l := range c.Levels {
		if err := tx.Create(&models.CourseGrant{TenantID: c.TenantID, CourseID: c.ID, Kind: models.ContentGrantLevel, Value: l}).Error; err != nil {
			return err
		}
	}
	for _, p := range c.PartnerIDs {
		if err := tx.Create(&models.CourseGrant{TenantID: c.TenantID, CourseID: c.ID, Kind: models.ContentGrantPartner, Value: p}).Error; err != nil {
			return err
		}
	}
	return nil
}

func quizJSON(q models.Quiz) string { return store.MustJSON(q) }

func coursePayload(c *models.Course) string {
	return store.MustJSON(models.CourseEventPayload{CourseID: c.ID, Title: c.Title, Status: c.Status, Questions: len(c.Quiz.Questions)})
}

// CreateCourse adds a draft course; operators only.
func (sc *Scoped) CreateCourse(ctx context.Context, n models.NewCourse) (*models.Course, error) {
	if err := sc.operatorOnly(); err != nil {
		return nil, err
	}
	n.Title = strings.TrimSpace(n.Title)
	if n.Title == "" {
		return nil, models.Invalid("TITLE_REQUIRED", "a course needs a title", models.FieldError{Location: "body.title", Message: "required"})
	}
	if n.MaxAttempts == 0 {
		n.MaxAttempts = models.DefaultCourseAttempt
	}
	if err := models.ValidateCourseSettings(n.PassMark, n.MaxAttempts, n.ValidityDays); err != nil {
		return nil, err
	}
	quiz, err := models.NormalizeQuiz(n.Quiz)
	if err != nil {
		return nil, err
	}
	vis := normalizeVisibility(n.Visibility)
	t := now()
	c := &models.Course{ID: models.NewID(), TenantID: sc.P.TenantID, Title: n.Title, Description: n.Description, Status: models.CourseDraft,
		PassMark: n.PassMark, MaxAttempts: n.MaxAttempts, ValidityDays: n.ValidityDays, AllPartners: vis.AllPartners, QuizJSON: quizJSON(quiz),
		CreatedBy: sc.P.ActorID(), CreatedAt: t, UpdatedAt: t, ItemIDs: cleanIDs(n.ItemIDs), Levels: vis.Levels, PartnerIDs: vis.PartnerIDs, Quiz: quiz}
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		if err := sc.checkItems(tx, c.ItemIDs); err != nil {
			return err
		}
		if err := sc.checkPartners(tx, c.PartnerIDs); err != nil {
			return err
		}
		if err := tx.Create(c).Error; err != nil {
			return err
		}
		if err := writeItems(tx, sc.Scope, c); err != nil {
			return err
		}
		if err := writeGrants(tx, sc.Scope, c); err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, c.TenantID, "certification.course_created", "course", c.ID,
			"title", "itemIds", "quiz", "passMark", "maxAttempts", "validityDays", "visibility")
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// visible limits q (on courses) to what the principal may see: every course of the tenant for
// operators; for a partner, published courses visible to all partners, to its level or to it.
func (sc *Scoped) visible(tx *gorm.DB, q *gorm.DB) (*gorm.DB, error) {
	q = sc.Scope.Rows(q)
	partner := sc.Scope.PartnerID()
	if partner == "" {
		return q, nil
	}
	var levels []string
	if err := sc.Scope.Rows(tx.Model(&models.Partner{})).Where("id = ?", partner).Pluck("level", &levels).Error; err != nil {
		return nil, err
	}
	q = q.Where("status = ?", models.CoursePublished)
	grants := func(kind, value string) *gorm.DB {
		return sc.Scope.Rows(tx.Session(&gorm.Session{NewDB: true}).Model(&models.CourseGrant{})).Select("course_id").Where("kind = ? AND value = ?", kind, value)
	}
	if len(levels) == 1 && levels[0] != "" {
		return q.Where("(all_partners = ? OR id IN (?) OR id IN (?))",
			true, grants(models.ContentGrantPartner, partner), grants(models.ContentGrantLevel, levels[0])), nil
	}
	return q.Where("(all_partners = ? OR id IN (?))", true, grants(models.ContentGrantPartner, partner)), nil
}

// withDetails decodes the quizzes (without correct answers for partners) and loads the items
// and, for operators, the grants of courses.
func (sc *Scoped) withDetails(db *gorm.DB, courses []models.Course) error {
	if len(courses) == 0 {
		return nil
	}
	ids := make([]string, len(courses))
	byID := make(map[string]*models.Course, len(courses))
	for i := range courses {
		c := &courses[i]
		ids[i], byID[c.ID] = c.ID, c
		c.ItemIDs, c.Levels, c.PartnerIDs = []string{}, []string{}, []string{}
		c.Quiz = models.DecodeQuiz(c.QuizJSON)
		if sc.Scope.PartnerID() != "" {
			c.Quiz = c.Quiz.Public()
		}
	}
	var items []models.CourseItem
	if err := sc.Scope.Rows(db.Model(&models.CourseItem{})).Where("course_id IN ?", ids).Order("course_id, position").Find(&items).Error; err != nil {
		return err
	}
	for _, it := range items {
		byID[it.CourseID].ItemIDs = append(byID[it.CourseID].ItemIDs, it.ItemID)
	}
	if sc.Scope.PartnerID() != "" {
		return nil // partners do not learn who else sees a course
	}
	var grants []models.CourseGrant
	if err := sc.Scope.Rows(db.Model(&models.CourseGrant{})).Where("course_id IN ?", ids).Order("value").Find(&grants).Error; err != nil {
		return err
	}
	for _, g := range grants {
		c := byID[g.CourseID]
		if g.Kind == models.ContentGrantLevel {
			c.Levels = append(c.Levels, g.Value)
		} else {
			c.PartnerIDs = append(c.PartnerIDs, g.Value)
		}
	}
	return nil
}

// ListCourses lists the courses the principal may see.
func (sc *Scoped) ListCourses(ctx context.Context, f models.CourseFilter, pg models.Page) ([]models.Course, string, error) {
	db := sc.s.core.DB(ctx)
	q, err := sc.visible(db, db.Model(&models.Course{}))
	if err != nil {
		return nil, "", err
	}
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	q = store.Containing(q, f.Query, "title", "description")
	out, next, err := store.Page(q, pg, func(c models.Course) string { return c.ID })
	if err != nil {
		return nil, "", err
	}
	return out, next, sc.withDetails(db, out)
}

func (sc *Scoped) course(tx *gorm.DB, id string) (*models.Course, error) {
	q, err := sc.visible(tx, tx.Model(&models.Course{}))
	if err != nil {
		return nil, err
	}
	var c models.Course
	if err := q.Where("id = ?", id).Take(&c).Error; err != nil {
		return nil, store.NotFoundAs(err, "COURSE_NOT_FOUND", "course")
	}
	cs := []models.Course{c}
	if err := sc.withDetails(tx, cs); err != nil {
		return nil, err
	}
	return &cs[0], nil
}

// Course finds one course the principal may see; a partner gets its items limited to those
// visible to it and its quiz without the correct answers.
func (sc *Scoped) Course(ctx context.Context, id string) (*models.Course, error) {
	c, err := sc.course(sc.s.core.DB(ctx), id)
	if err != nil {
		return nil, err
	}
	if sc.Scope.PartnerID() != "" {
		if c.ItemIDs, err = sc.visibleItems(ctx, c.ItemIDs); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// visibleItems keeps the ids, in order, of the content items the principal may see.
func (sc *Scoped) visibleItems(ctx context.Context, ids []string) ([]string, error) {
	items, err := sc.s.content.For(&sc.P).VisibleContentItems(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, id := range ids {
		if slices.ContainsFunc(items, func(it models.ContentItem) bool { return it.ID == id }) {
			out = append(out, id)
		}
	}
	return out, nil
}

// UpdateCourse changes a course. A draft changes freely; a published course keeps its quiz,
// pass mark, attempts limit and validity (409 COURSE_PUBLISHED), since attempts were graded
// and certificates issued against them; an archived course does not change.
func (sc *Scoped) UpdateCourse(ctx context.Context, id string, ch models.CourseChanges) (*models.Course, error) {
	if err := sc.operatorOnly(); err != nil {
		return nil, err
	}
	var c *models.Course
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		var err error
		if c, err = sc.course(tx, id); err != nil {
			return err
		}
		if c.Status == models.CourseArchived {
			return models.Conflict("COURSE_ARCHIVED", "an archived course does not change")
		}
		if c.Status == models.CoursePublished && (ch.Quiz != nil || ch.PassMark != nil || ch.MaxAttempts != nil || ch.ValidityDays != nil) {
			return models.Conflict("COURSE_PUBLISHED", "a published course keeps its quiz, pass mark, attempts and validity; create a new course to change them")
		}
		var changed []string
		if ch.Title != nil {
			t := strings.TrimSpace(*ch.Title)
			if t == "" {
				return models.Invalid("TITLE_REQUIRED", "a course needs a title", models.FieldError{Location: "body.title", Message: "required"})
			}
			c.Title, changed = t, append(changed, "title")
		}
		if ch.Description != nil {
			c.Description, changed = *ch.Description, append(changed, "description")
		}
		if ch.PassMark != nil {
			c.PassMark, changed = *ch.PassMark, append(changed, "passMark")
		}
		if ch.MaxAttempts != nil {
			c.MaxAttempts, changed = *ch.MaxAttempts, append(changed, "maxAttempts")
		}
		if ch.ValidityDays != nil {
			c.ValidityDays, changed = *ch.ValidityDays, append(changed, "validityDays")
		}
		if err := models.ValidateCourseSettings(c.PassMark, c.MaxAttempts, c.ValidityDays); err != nil {
			return err
		}
		if ch.Quiz != nil {
			q, err := models.NormalizeQuiz(*ch.Quiz)
			if err != nil {
				return err
			}
			c.Quiz, c.QuizJSON, changed = q, quizJSON(q), append(changed, "quiz")
		}
		if ch.ItemIDs != nil {
			ids := cleanIDs(*ch.ItemIDs)
			if err := sc.checkItems(tx, ids); err != nil {
				return err
			}
			c.ItemIDs = ids
			if err := writeItems(tx, sc.Scope, c); err != nil {
				return err
			}
			changed = append(changed, "itemIds")
		}
		if ch.Visibility != nil {
			vis := normalizeVisibility(*ch.Visibility)
			if err := sc.checkPartners(tx, vis.PartnerIDs); err != nil {
				return err
			}
			c.AllPartners, c.Levels, c.PartnerIDs = vis.AllPartners, vis.Levels, vis.PartnerIDs
			if err := writeGrants(tx, sc.Scope, c); err != nil {
				return err
			}
			changed = append(changed, "visibility")
		}
		if len(changed) == 0 {
			return nil
		}
		c.UpdatedAt = now()
		if err := sc.Scope.Rows(tx.Model(&models.Course{})).Where("id = ?", c.ID).Updates(map[string]any{
			"title": c.Title, "description": c.Description, "pass_mark": c.PassMark, "max_attempts": c.MaxAttempts,
			"validity_days": c.ValidityDays, "quiz": c.QuizJSON, "all_partners": c.AllPartners, "updated_at": c.UpdatedAt}).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, c.TenantID, "certification.course_updated", "course", c.ID, changed...)
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// PublishCourse opens a draft course to the partners who may see it; from then on its quiz
// does not change. A course without questions is refused.
func (sc *Scoped) PublishCourse(ctx context.Context, id string) (*models.Course, error) {
	return sc.setStatus(ctx, id, models.CoursePublished)
}

// ArchiveCourse closes a course: no new enrolments or attempts; its certificates stay.
func (sc *Scoped) ArchiveCourse(ctx context.Context, id string) (*models.Course, error) {
	return sc.setStatus(ctx, id, models.CourseArchived)
}

func (sc *Scoped) setStatus(ctx context.Context, id, status string) (*models.Course, error) {
	if err := sc.operatorOnly(); err != nil {
		return nil, err
	}
	var c *models.Course
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		var err error
		if c, err = sc.course(tx, id); err != nil {
			return err
		}
		if c.Status == status {
			return nil
		}
		typ := models.EventCertificationCourseArchived
		updates := map[string]any{"status": status, "updated_at": now()}
		if status == models.CoursePublished {
			if c.Status != models.CourseDraft {
				return models.Conflict("COURSE_ARCHIVED", "an archived course cannot be published again")
			}
			if len(c.Quiz.Questions) == 0 {
				return models.Invalid("QUIZ_REQUIRED", "a course needs at least one quiz question to be published",
					models.FieldError{Location: "body.quiz.questions", Message: "at least one question"})
			}
			t := now()
			c.PublishedAt, updates["published_at"], typ = &t, t, models.EventCertificationCoursePublished
		}
		// The status it had is part of the condition: a concurrent change makes this one fail.
		res := sc.Scope.Rows(tx.Model(&models.Course{})).Where("id = ? AND status = ?", c.ID, c.Status).Updates(updates)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return models.Conflict("COURSE_CHANGED", "the course changed meanwhile; try again")
		}
		c.Status = status
		if err := store.WriteAudit(ctx, tx, c.TenantID, "certification.course_"+status, "course", c.ID, "status"); err != nil {
			return err
		}
		cid := c.ID
		_, err = ev.Emit(ctx, tx, c.TenantID, models.NewEvent{Type: typ, SubjectID: &cid, Payload: coursePayload(c)})
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// learnable finds a published course the principal may see and the content items it must
// complete (those of the course it may see), outside any transaction.
func (sc *Scoped) learnable(ctx context.Context, id string) (*models.Course, error) {
	if sc.P.UserID == "" {
		return nil, models.Errorf(models.KindForbidden, "USERS_ONLY", "courses are taken by users")
	}
	c, err := sc.Course(ctx, id)
	if err != nil {
		return nil, err
	}
	if c.Status != models.CoursePublished {
		return nil, models.Conflict("COURSE_NOT_OPEN", "the course is not published")
	}
	if sc.Scope.PartnerID() == "" {
		c.Quiz = models.DecodeQuiz(c.QuizJSON)
	}
	return c, nil
}

// enrolment finds or creates, in tx, the principal's enrolment in a course.
func (sc *Scoped) enrolment(tx *gorm.DB, courseID string) (*models.Enrolment, error) {
	t := now()
	e := models.Enrolment{ID: models.NewID(), TenantID: sc.P.TenantID, CourseID: courseID, UserID: sc.P.UserID, PartnerID: sc.Scope.PartnerID(),
		EnrolledAt: t, UpdatedAt: t}
	if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&e).Error; err != nil {
		return nil, err
	}
	var got models.Enrolment
	if err := sc.Scope.Rows(tx.Model(&models.Enrolment{})).Where("course_id = ? AND user_id = ?", courseID, sc.P.UserID).Take(&got).Error; err != nil {
		return nil, err
	}
	if err := sc.Scope.Rows(tx.Model(&models.ItemCompletion{})).Where("enrolment_id = ?", got.ID).Order("item_id").Pluck("item_id", &got.Completed).Error; err != nil {
		return nil, err
	}
	if got.Completed == nil {
		got.Completed = []string{}
	}
	return &got, nil
}

// Enrol enrols the principal (a user) in a published course it may see; enrolling again
// answers the enrolment.
func (sc *Scoped) Enrol(ctx context.Context, courseID string) (*models.Enrolment, error) {
	c, err := sc.learnable(ctx, courseID)
	if err != nil {
		return nil, err
	}
	var e *models.Enrolment
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		e, err = sc.enrolment(tx, c.ID)
		return err
	})
	return e, err
}

// Enrolment is the principal's own enrolment in a course it may see.
func (sc *Scoped) Enrolment(ctx context.Context, courseID string) (*models.Enrolment, error) {
	if _, err := sc.Course(ctx, courseID); err != nil {
		return nil, err
	}
	var e models.Enrolment
	if err := sc.Rows(ctx, &models.Enrolment{}).Where("course_id = ? AND user_id = ?", courseID, sc.P.UserID).Take(&e).Error; err != nil {
		return nil, store.NotFoundAs(err, "ENROLMENT_NOT_FOUND", "enrolment")
	}
	if err := sc.Rows(ctx, &models.ItemCompletion{}).Where("enrolment_id = ?", e.ID).Order("item_id").Pluck("item_id", &e.Completed).Error; err != nil {
		return nil, err
	}
	if e.Completed == nil {
		e.Completed = []string{}
	}
	return &e, nil
}

// CompleteCourseItem marks one item of a course completed by the principal, enrolling it when
// it is not yet; completing again changes nothing.
func (sc *Scoped) CompleteCourseItem(ctx context.Context, courseID, itemID string) (*models.Enrolment, error) {
	c, err := sc.learnable(ctx, courseID)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(c.ItemIDs, itemID) {
		return nil, models.NotFound("COURSE_ITEM_NOT_FOUND", "course item")
	}
	var e *models.Enrolment
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, _ *store.Outbox) error {
		if e, err = sc.enrolment(tx, c.ID); err != nil {
			return err
		}
		if slices.Contains(e.Completed, itemID) {
			return nil
		}
		done := models.ItemCompletion{TenantID: e.TenantID, EnrolmentID: e.ID, ItemID: itemID, CompletedAt: now()}
		if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&done).Error; err != nil {
			return err
		}
		e.Completed = append(e.Completed, itemID)
		slices.Sort(e.Completed)
		return nil
	})
	return e, err
}

// SubmitQuizAttempt grades the principal's answers to a course's quiz. Every item of the
// course it may see must be completed first (409 ITEMS_INCOMPLETE). Each attempt counts
// against the course's limit, which a pass gives back; past the limit it is 409
// ATTEMPTS_EXHAUSTED, however many attempts arrive at once. A pass by a partner user issues a
// certificate (replacing an earlier one of the course) and emits certification.earned;
// operators' attempts are graded only.
func (sc *Scoped) SubmitQuizAttempt(ctx context.Context, courseID string, answers []models.QuizAnswer) (*models.AttemptResult, error) {
	c, err := sc.learnable(ctx, courseID)
	if err != nil {
		return nil, err
	}
	full := c.Quiz
	if sc.Scope.PartnerID() != "" {
		// The learner's view hides the answers; grading needs them.
		var row models.Course
		if err := sc.Rows(ctx, &models.Course{}).Select("quiz").Where("id = ?", c.ID).Take(&row).Error; err != nil {
			return nil, err
		}
		full = models.DecodeQuiz(row.QuizJSON)
	}
	parsed, err := models.ParseQuizAnswers(full, answers)
	if err != nil {
		return nil, err
	}
	grade := models.GradeQuiz(full, parsed)
	res := &models.AttemptResult{}
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		e, err := sc.enrolment(tx, c.ID)
		if err != nil {
			return err
		}
		for _, id := range c.ItemIDs {
			if !slices.Contains(e.Completed, id) {
				return models.Conflict("ITEMS_INCOMPLETE", "complete every item of the course before the quiz")
			}
		}
		// The limit is in the condition: concurrent attempts are counted one after another by
		// the database and the one past the limit changes no row.
		t := now()
		upd := sc.Scope.Rows(tx.Model(&models.Enrolment{})).Where("id = ? AND attempts_used < ?", e.ID, c.MaxAttempts).
			Updates(map[string]any{"attempts_used": gorm.Expr("attempts_used + 1"), "attempts": gorm.Expr("attempts + 1"), "updated_at": t})
		if upd.Error != nil {
			return upd.Error
		}
		if upd.RowsAffected != 1 {
			return models.Conflict("ATTEMPTS_EXHAUSTED", "no attempts left for this course")
		}
		if err := sc.Scope.Rows(tx.Model(&models.Enrolment{})).Where("id = ?", e.ID).Take(e).Error; err != nil {
			return err
		}
		a := models.QuizAttempt{ID: models.NewID(), TenantID: e.TenantID, CourseID: c.ID, EnrolmentID: e.ID, UserID: e.UserID, PartnerID: e.PartnerID,
			Number: e.Attempts, Score: grade.Score, Correct: grade.Correct, Questions: grade.Questions, Passed: grade.Score >= c.PassMark,
			AnswersJSON: store.MustJSON(parsed), CreatedAt: t, Answers: parsed}
		res.AttemptsLeft = c.MaxAttempts - e.AttemptsUsed
		if a.Passed {
			res.AttemptsLeft = c.MaxAttempts
			if err := sc.Scope.Rows(tx.Model(&models.Enrolment{})).Where("id = ?", e.ID).Update("attempts_used", 0).Error; err != nil {
				return err
			}
			if e.PartnerID != "" {
				cert, err := sc.issue(ctx, tx, ev, c, &a, t)
				if err != nil {
					return err
				}
				a.CertificateID, res.Certificate = &cert.ID, cert
			}
		}
		if err := tx.Create(&a).Error; err != nil {
			return store.Translate(err, "ATTEMPT_CONFLICT", "another attempt was submitted at the same time; try again")
		}
		res.Attempt = a
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// issue gives the attempt's partner user a certificate of the course, replacing its earlier
// active one, and emits certification.earned.
func (sc *Scoped) issue(ctx context.Context, tx *gorm.DB, ev *store.Outbox, c *models.Course, a *models.QuizAttempt, t time.Time) (*models.Certificate, error) {
	var earlier []models.Certificate
	if err := sc.Scope.Rows(tx.Model(&models.Certificate{})).Where("course_id = ? AND user_id = ? AND status = ?", c.ID, a.UserID, models.CertificateActive).
		Find(&earlier).Error; err != nil {
		return nil, err
	}
	renews := ""
	for _, old := range earlier {
		if err := sc.Scope.Rows(tx.Model(&models.Certificate{})).Where("id = ? AND status = ?", old.ID, models.CertificateActive).
			Updates(map[string]any{"status": models.CertificateRenewed, "ended_at": t}).Error; err != nil {
			return nil, err
		}
		renews = old.ID
	}
	cert := &models.Certificate{ID: models.NewID(), TenantID: a.TenantID, CourseID: c.ID, CourseTitle: c.Title, UserID: a.UserID, PartnerID: a.PartnerID,
		AttemptID: a.ID, Score: a.Score, Status: models.CertificateActive, IssuedAt: t, ExpiresAt: t.AddDate(0, 0, c.ValidityDays)}
	if err := tx.Create(cert).Error; err != nil {
		return nil, err
	}
	id, partner := cert.ID, cert.PartnerID
	_, err := ev.Emit(ctx, tx, cert.TenantID, models.NewEvent{Type: models.EventCertificationEarned, SubjectID: &id, PartnerID: &partner,
		Payload: store.MustJSON(certificatePayload(cert, renews))})
	return cert, err
}

func certificatePayload(c *models.Certificate, renews string) models.CertificationEventPayload {
	issued, expires := c.IssuedAt, c.ExpiresAt
	return models.CertificationEventPayload{CertificateID: c.ID, CourseID: c.CourseID, CourseTitle: c.CourseTitle, UserID: c.UserID,
		PartnerID: c.PartnerID, Score: c.Score, IssuedAt: &issued, ExpiresAt: &expires, Renews: renews}
}

// ListQuizAttempts lists graded attempts: operators every one, partners their organisation's.
func (sc *Scoped) ListQuizAttempts(ctx context.Context, f models.AttemptFilter, pg models.Page) ([]models.QuizAttempt, string, error) {
	q := sc.PartnerRows(ctx, &models.QuizAttempt{}, "partner_id")
	if f.CourseID != "" {
		q = q.Where("course_id = ?", f.CourseID)
	}
	if f.PartnerID != "" {
		q = q.Where("partner_id = ?", f.PartnerID)
	}
	if f.UserID != "" {
		q = q.Where("user_id = ?", f.UserID)
	}
	out, next, err := store.Page(q, pg, func(a models.QuizAttempt) string { return a.ID })
	for i := range out {
		_ = json.Unmarshal([]byte(out[i].AnswersJSON), &out[i].Answers)
	}
	return out, next, err
}

// ListCertificates lists certificates: operators every one, partners their organisation's.
func (sc *Scoped) ListCertificates(ctx context.Context, f models.CertificateFilter, pg models.Page) ([]models.Certificate, string, error) {
	q := sc.PartnerRows(ctx, &models.Certificate{}, "partner_id")
	if f.CourseID != "" {
		q = q.Where("course_id = ?", f.CourseID)
	}
	if f.PartnerID != "" {
		q = q.Where("partner_id = ?", f.PartnerID)
	}
	if f.UserID != "" {
		q = q.Where("user_id = ?", f.UserID)
	}
	switch f.Status {
	case models.CertificateActive:
		q = q.Where("status = ? AND expires_at > ?", models.CertificateActive, now())
	case models.CertificateExpired:
		q = q.Where("(status = ? OR (status = ? AND expires_at <= ?))", models.CertificateExpired, models.CertificateActive, now())
	case models.CertificateRenewed:
		q = q.Where("status = ?", models.CertificateRenewed)
	}
	return store.Page(q, pg, func(c models.Certificate) string { return c.ID })
}

// Certificate finds one certificate: operators any of the tenant, partners their own
// organisation's.
func (sc *Scoped) Certificate(ctx context.Context, id string) (*models.Certificate, error) {
	var c models.Certificate
	if err := sc.PartnerRows(ctx, &models.Certificate{}, "partner_id").Where("id = ?", id).Take(&c).Error; err != nil {
		return nil, store.NotFoundAs(err, "CERTIFICATE_NOT_FOUND", "certificate")
	}
	return &c, nil
}

// AdvanceCertificateExpiry expires a certificate whose expiry is at or before at, emitting
// certification.expired, and says when to look again. A renewed, expired or missing
// certificate needs no timer.
func (s *Store) AdvanceCertificateExpiry(ctx context.Context, sys models.Scope, certificateID string, at time.Time) (models.CertificateExpiry, error) {
	next, err := store.AdvanceExpiry(ctx, s.core, store.Of(sys), certificateID, at,
		func(c *models.Certificate) (bool, time.Time) {
			return c.Status == models.CertificateActive, c.ExpiresAt
		},
		func(tx *gorm.DB, ev *store.Outbox, c *models.Certificate) error {
			t := at.UTC()
			res := store.Of(sys).Rows(tx.Model(&models.Certificate{})).Where("id = ? AND status = ?", c.ID, models.CertificateActive).
				Updates(map[string]any{"status": models.CertificateExpired, "ended_at": t})
			if res.Error != nil {
				return res.Error
			}
			if res.RowsAffected != 1 {
				return nil
			}
			id, partner := c.ID, c.PartnerID
			_, err := ev.Emit(ctx, tx, c.TenantID, models.NewEvent{Type: models.EventCertificationExpired, SubjectID: &id, PartnerID: &partner,
				Payload: store.MustJSON(certificatePayload(c, ""))})
			return err
		})
	return models.CertificateExpiry(next), err
}
