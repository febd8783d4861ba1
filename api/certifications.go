package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// CertificationStore is what the certification operations need of storage, as the caller sees it.
type CertificationStore interface {
	CreateCourse(ctx context.Context, n models.NewCourse) (*models.Course, error)
	ListCourses(ctx context.Context, f models.CourseFilter, pg models.Page) ([]models.Course, string, error)
	Course(ctx context.Context, id string) (*models.Course, error)
	UpdateCourse(ctx context.Context, id string, ch models.CourseChanges) (*models.Course, error)
	PublishCourse(ctx context.Context, id string) (*models.Course, error)
	ArchiveCourse(ctx context.Context, id string) (*models.Course, error)
	Enrol(ctx context.Context, courseID string) (*models.Enrolment, error)
	Enrolment(ctx context.Context, courseID string) (*models.Enrolment, error)
	CompleteCourseItem(ctx context.Context, courseID, itemID string) (*models.Enrolment, error)
	SubmitQuizAttempt(ctx context.Context, courseID string, answers []models.QuizAnswer) (*models.AttemptResult, error)
	ListQuizAttempts(ctx context.Context, f models.AttemptFilter, pg models.Page) ([]models.QuizAttempt, string, error)
	ListCertificates(ctx context.Context, f models.CertificateFilter, pg models.Page) ([]models.Certificate, string, error)
	Certificate(ctx context.Context, id string) (*models.Certificate, error)
}

// certifications is the certifications store as the caller sees it.
func (s *Server) certifications(ctx context.Context) CertificationStore {
	return s.deps.Modules.Certifications(models.PrincipalFrom(ctx))
}

// QuizOption is one answer a question offers; correct is shown to operators only.
type QuizOption struct {
	ID      string `json:"id" example:"q1o2"`
	Text    string `json:"text"`
	Correct *bool  `json:"correct,omitempty" doc:"Whether the option is right (operators only; never shown to partners)"`
}

// QuizQuestion is a single- or multiple-choice question.
type QuizQuestion struct {
	ID       string       `json:"id" example:"q1"`
	Text     string       `json:"text"`
	Multiple bool         `json:"multiple" doc:"Several options may be right, and all of them must be chosen"`
	Options  []QuizOption `json:"options" nullable:"false"`
}

// Course is a certification course.
type Course struct {
	ID           string         `json:"id"`
	Title        string         `json:"title"`
	Description  string         `json:"description,omitempty"`
	Status       string         `json:"status" enum:"draft,published,archived"`
	PassMark     int            `json:"passMark" doc:"The lowest score, in percent of the questions answered right, that passes"`
	MaxAttempts  int            `json:"maxAttempts" doc:"Attempts a learner has before a pass; a pass gives them back"`
	ValidityDays int            `json:"validityDays" doc:"How long a certificate of the course is valid"`
	ItemIDs      []string       `json:"itemIds" nullable:"false" doc:"The content items to study, in order (partners: those visible to them)"`
	Questions    []QuizQuestion `json:"questions" nullable:"false" doc:"The quiz (partners never see which options are right)"`
	// Visibility is shown to operators only.
	Visibility  *ContentVisibility `json:"visibility,omitempty" doc:"Who sees the course (operators only)"`
	CreatedAt   time.Time          `json:"createdAt"`
	UpdatedAt   time.Time          `json:"updatedAt"`
	PublishedAt *time.Time         `json:"publishedAt,omitempty"`
}

func courseView(partner bool) func(*models.Course) Course {
	return func(c *models.Course) Course {
		out := Course{ID: c.ID, Title: c.Title, Description: c.Description, Status: c.Status, PassMark: c.PassMark, MaxAttempts: c.MaxAttempts,
			ValidityDays: c.ValidityDays, ItemIDs: c.ItemIDs, Questions: []QuizQuestion{}, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
			PublishedAt: c.PublishedAt}
		if out.ItemIDs == nil {
			out.ItemIDs = []string{}
		}
		for _, q := range c.Quiz.Questions {
			qq := QuizQuestion{ID: q.ID, Text: q.Text, Multiple: q.Multiple, Options: make([]QuizOption, 0, len(q.Options))}
			for _, o := range q.Options {
				opt := QuizOption{ID: o.ID, Text: o.Text}
				if !partner {
					right := o.Correct
					opt.Correct = &right
				}
				qq.Options = append(qq.Options, opt)
			}
			out.Questions = append(out.Questions, qq)
		}
		if !partner {
			v := ContentVisibility{AllPartners: c.AllPartners, Levels: c.Levels, PartnerIDs: c.PartnerIDs}
			if v.Levels == nil {
				v.Levels = []string{}
			}
			if v.PartnerIDs == nil {
				v.PartnerIDs = []string{}
			}
			out.Visibility = &v
		}
		return out
	}
}

func (s *Server) courseOf(ctx context.Context) func(*models.Course) Course {
	p := models.PrincipalFrom(ctx)
	return courseView(p != nil && p.PartnerID != "")
}

// QuizOptionInput is one option of a question as an operator writes it.
type QuizOptionInput struct {
	Text    string `json:"text" minLength:"1" maxLength:"1000" example:"The partner's claim on the customer"`
	Correct bool   `json:"correct,omitempty" example:"true"`
}

// QuizQuestionInput is a question as an operator writes it; ids are given from positions.
type QuizQuestionInput struct {
	Text     string            `json:"text" minLength:"1" maxLength:"1000" example:"What does a deal registration protect?"`
	Multiple bool              `json:"multiple,omitempty" doc:"Several options may be right" example:"false"`
	Options  []QuizOptionInput `json:"options" minItems:"2" maxItems:"10"`
}

func quizOf(in []QuizQuestionInput) models.Quiz {
	q := models.Quiz{Questions: make([]models.QuizQuestion, 0, len(in))}
	for _, qq := range in {
		mq := models.QuizQuestion{Text: qq.Text, Multiple: qq.Multiple}
		for _, o := range qq.Options {
			mq.Options = append(mq.Options, models.QuizOption{Text: o.Text, Correct: o.Correct})
		}
		q.Questions = append(q.Questions, mq)
	}
	return q
}

// CreateCourseInput adds a draft course.
type CreateCourseInput struct {
	Body struct {
		Title        string                 `json:"title" minLength:"1" maxLength:"200" example:"Reseller basics"`
		Description  string                 `json:"description,omitempty" maxLength:"5000" example:"Deal registration, pricing and support."`
		ItemIDs      []string               `json:"itemIds,omitempty" maxItems:"50" maxLength:"36" doc:"Content items to study, in order" example:"[\"0193a7c2-8a51-7d41-9c3e-6f0f2b1f4a10\"]"`
		Questions    []QuizQuestionInput    `json:"questions,omitempty" maxItems:"100" doc:"The quiz; at least one question to publish"`
		PassMark     int                    `json:"passMark" minimum:"1" maximum:"100" example:"80"`
		MaxAttempts  int                    `json:"maxAttempts,omitempty" minimum:"0" maximum:"100" doc:"3 when 0 or absent" example:"3"`
		ValidityDays int                    `json:"validityDays" minimum:"1" maximum:"3650" example:"365"`
		Visibility   ContentVisibilityInput `json:"visibility,omitempty" doc:"Who sees the course once published; nobody but operators when absent"`
	}
}

// UpdateCourseInput changes a course; absent fields stay. A published course keeps its
// questions, pass mark, attempts and validity.
type UpdateCourseInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Title        *string                 `json:"title,omitempty" minLength:"1" maxLength:"200" example:"Reseller basics 2027"`
		Description  *string                 `json:"description,omitempty" maxLength:"5000" example:"Updated for 2027."`
		ItemIDs      *[]string               `json:"itemIds,omitempty" maxItems:"50" maxLength:"36" example:"[]"`
		Questions    *[]QuizQuestionInput    `json:"questions,omitempty" maxItems:"100"`
		PassMark     *int                    `json:"passMark,omitempty" minimum:"1" maximum:"100" example:"75"`
		MaxAttempts  *int                    `json:"maxAttempts,omitempty" minimum:"1" maximum:"100" example:"5"`
		ValidityDays *int                    `json:"validityDays,omitempty" minimum:"1" maximum:"3650" example:"730"`
		Visibility   *ContentVisibilityInput `json:"visibility,omitempty" doc:"Replaces who sees the course"`
	}
}

// CourseIDPath names a course.
type CourseIDPath struct {
	ID string `path:"id" maxLength:"36"`
}

// CourseItemPath names an item of a course.
type CourseItemPath struct {
	ID     string `path:"id" maxLength:"36"`
	ItemID string `path:"itemId" maxLength:"36"`
}

// ListCoursesInput filters courses.
type ListCoursesInput struct {
	ListParams
	Status string `query:"status" enum:"draft,published,archived" doc:"Operators; partners see published courses only"`
	Q      string `query:"q" maxLength:"200" doc:"Text in the title or description"`
}

// Enrolment is a learner's progress in a course.
type Enrolment struct {
	CourseID         string    `json:"courseId"`
	CompletedItemIDs []string  `json:"completedItemIds" nullable:"false"`
	AttemptsUsed     int       `json:"attemptsUsed" doc:"Attempts since the last pass"`
	Attempts         int       `json:"attempts" doc:"Every attempt made"`
	EnrolledAt       time.Time `json:"enrolledAt"`
}

func enrolmentOf(e *models.Enrolment) Enrolment {
	out := Enrolment{CourseID: e.CourseID, CompletedItemIDs: e.Completed, AttemptsUsed: e.AttemptsUsed, Attempts: e.Attempts, EnrolledAt: e.EnrolledAt}
	if out.CompletedItemIDs == nil {
		out.CompletedItemIDs = []string{}
	}
	return out
}

// QuizAnswerInput is the options chosen for one question.
type QuizAnswerInput struct {
	QuestionID string   `json:"questionId" maxLength:"16" example:"q1"`
	OptionIDs  []string `json:"optionIds" maxItems:"10" maxLength:"16" example:"[\"q1o2\"]"`
}

// SubmitQuizAttemptInput is a learner's answers.
type SubmitQuizAttemptInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Answers []QuizAnswerInput `json:"answers" maxItems:"100" doc:"One per question at most; a question left out is wrong"`
	}
}

// QuizAttempt is a graded attempt. It says how many questions were right, never which.
type QuizAttempt struct {
	ID            string            `json:"id"`
	CourseID      string            `json:"courseId"`
	UserID        string            `json:"userId"`
	PartnerID     string            `json:"partnerId,omitempty"`
	Number        int               `json:"number"`
	Score         int               `json:"score" doc:"Percent of the questions answered right, rounded down"`
	Correct       int               `json:"correct" doc:"Questions answered right"`
	Questions     int               `json:"questions"`
	Passed        bool              `json:"passed"`
	Answers       []QuizAnswerInput `json:"answers" nullable:"false" doc:"The options chosen"`
	CertificateID string            `json:"certificateId,omitempty" doc:"The certificate the pass issued (partner users)"`
	CreatedAt     time.Time         `json:"createdAt"`
}

func quizAttemptOf(a *models.QuizAttempt) QuizAttempt {
	out := QuizAttempt{ID: a.ID, CourseID: a.CourseID, UserID: a.UserID, PartnerID: a.PartnerID, Number: a.Number, Score: a.Score, Correct: a.Correct,
		Questions: a.Questions, Passed: a.Passed, Answers: []QuizAnswerInput{}, CertificateID: str(a.CertificateID), CreatedAt: a.CreatedAt}
	for _, ans := range a.Answers {
		out.Answers = append(out.Answers, QuizAnswerInput{QuestionID: ans.QuestionID, OptionIDs: ans.OptionIDs})
	}
	return out
}

// Certificate says a partner user passed a course.
type Certificate struct {
	ID          string     `json:"id"`
	CourseID    string     `json:"courseId"`
	CourseTitle string     `json:"courseTitle"`
	UserID      string     `json:"userId"`
	PartnerID   string     `json:"partnerId"`
	AttemptID   string     `json:"attemptId"`
	Score       int        `json:"score"`
	Status      string     `json:"status" enum:"active,renewed,expired" doc:"expired once expiresAt passed, even before the expiry is recorded"`
	IssuedAt    time.Time  `json:"issuedAt"`
	ExpiresAt   time.Time  `json:"expiresAt"`
	EndedAt     *time.Time `json:"endedAt,omitempty" doc:"When it was renewed or expired"`
}

func certificateOf(c *models.Certificate) Certificate {
	status := c.Status
	if status == models.CertificateActive && !time.Now().Before(c.ExpiresAt) {
		status = models.CertificateExpired
	}
	return Certificate{ID: c.ID, CourseID: c.CourseID, CourseTitle: c.CourseTitle, UserID: c.UserID, PartnerID: c.PartnerID, AttemptID: c.AttemptID,
		Score: c.Score, Status: status, IssuedAt: c.IssuedAt, ExpiresAt: c.ExpiresAt, EndedAt: c.EndedAt}
}

// AttemptResultBody is a graded attempt with the certificate a pass issued.
type AttemptResultBody struct {
	Attempt      QuizAttempt  `json:"attempt"`
	Certificate  *Certificate `json:"certificate,omitempty"`
	AttemptsLeft int          `json:"attemptsLeft" doc:"Attempts left before a pass"`
}

// ListQuizAttemptsInput filters attempts.
type ListQuizAttemptsInput struct {
	ListParams
	CourseID  string `query:"courseId" maxLength:"36"`
	PartnerID string `query:"partnerId" maxLength:"36"`
	UserID    string `query:"userId" maxLength:"36"`
}

// ListCertificatesInput filters certificates.
type ListCertificatesInput struct {
	ListParams
	CourseID  string `query:"courseId" maxLength:"36"`
	PartnerID string `query:"partnerId" maxLength:"36"`
	UserID    string `query:"userId" maxLength:"36"`
	Status    string `query:"status" enum:"active,renewed,expired" doc:"active: in force now; expired: past their expiry"`
}

// CertificateIDPath names a certificate.
type CertificateIDPath struct {
	ID string `path:"id" maxLength:"36"`
}

// CourseOutput is one course.
type CourseOutput struct{ Body Course }

// CourseListOutput is a page of courses.
type CourseListOutput struct{ Body ListBody[Course] }

// EnrolmentOutput is one enrolment.
type EnrolmentOutput struct{ Body Enrolment }

// AttemptResultOutput is a graded attempt.
type AttemptResultOutput struct{ Body AttemptResultBody }

// QuizAttemptListOutput is a page of attempts.
type QuizAttemptListOutput struct{ Body ListBody[QuizAttempt] }

// CourseCertificateOutput is one certificate.
type CourseCertificateOutput struct{ Body Certificate }

// CourseCertificateListOutput is a page of certificates.
type CourseCertificateListOutput struct{ Body ListBody[Certificate] }

func registerCertificationRoutes(s *Server) {
	tags := []string{"Certifications"}
	register(s, huma.Operation{OperationID: "list-courses", Method: http.MethodGet, Path: "/api/courses", Tags: tags,
		Summary: "List certification courses", Description: "Partners see the published courses visible to all partners, to their level or to them by name, without the quiz's answers.",
		Security: UsersOrKeys}, Requires(authz.CertificationsRead), s.listCourses)
	register(s, huma.Operation{OperationID: "create-course", Method: http.MethodPost, Path: "/api/courses", Tags: tags,
		RequestBody: requestExample(`{"title": "Reseller basics", "description": "Deal registration, pricing and support.", "itemIds": ["0193a7c2-8a51-7d41-9c3e-6f0f2b1f4a10"], "questions": [{"text": "What does a deal registration protect?", "options": [{"text": "Nothing"}, {"text": "The partner's claim on the customer", "correct": true}]}], "passMark": 80, "maxAttempts": 3, "validityDays": 365, "visibility": {"levels": ["Gold"]}}`),
		Summary:     "Write a draft certification course", Description: "Content items in order and a quiz of 1 to 100 questions, each single or multiple choice with 2 to 10 options. Question and option ids are given from their positions (q1, q1o2).",
		DefaultStatus: http.StatusCreated, Security: UsersOrKeys, Errors: []int{http.StatusUnprocessableEntity}}, Requires(authz.CertificationsManage), s.createCourse)
	register(s, huma.Operation{OperationID: "get-course", Method: http.MethodGet, Path: "/api/courses/{id}", Tags: tags,
		Summary: "Get a course", Description: "Operators see the right options; partners see only the items visible to them and never the answers. A course the caller may not see is 404.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound}}, Requires(authz.CertificationsRead), s.getCourse)
	register(s, huma.Operation{OperationID: "update-course", Method: http.MethodPatch, Path: "/api/courses/{id}", Tags: tags,
		RequestBody: requestExample(`{"title": "Reseller basics 2027", "passMark": 75}`),
		Summary:     "Change a course", Description: "A published course keeps its questions, pass mark, attempts and validity (409 COURSE_PUBLISHED): write a new course to change them. An archived course does not change.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}}, Requires(authz.CertificationsManage), s.updateCourse)
	register(s, huma.Operation{OperationID: "publish-course", Method: http.MethodPost, Path: "/api/courses/{id}/publish", Tags: tags,
		Summary: "Publish a draft course", Description: "Partners who may see it can enrol; its quiz no longer changes. Emits certification.course_published.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}}, Requires(authz.CertificationsManage), s.publishCourse)
	register(s, huma.Operation{OperationID: "archive-course", Method: http.MethodPost, Path: "/api/courses/{id}/archive", Tags: tags,
		Summary: "Archive a course", Description: "No new enrolments or attempts; its certificates stay until they expire.",
		Security: UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict}}, Requires(authz.CertificationsManage), s.archiveCourse)
	register(s, huma.Operation{OperationID: "enrol-course", Method: http.MethodPost, Path: "/api/courses/{id}/enrolment", Tags: tags,
		Summary: "Enrol in a course", Description: "For the caller itself; enrolling again answers the enrolment.",
		Security: UsersOnly, Errors: []int{http.StatusNotFound, http.StatusConflict}}, Requires(authz.CertificationsLearn), s.enrolCourse)
	register(s, huma.Operation{OperationID: "get-enrolment", Method: http.MethodGet, Path: "/api/courses/{id}/enrolment", Tags: tags,
		Summary: "The caller's progress in a course", Description: "404 ENROLMENT_NOT_FOUND before the caller enrols.",
		Security: UsersOnly, Errors: []int{http.StatusNotFound}}, Requires(authz.CertificationsLearn), s.getEnrolment)
	register(s, huma.Operation{OperationID: "complete-course-item", Method: http.MethodPost, Path: "/api/courses/{id}/items/{itemId}/completion", Tags: tags,
		Summary: "Mark an item of a course completed", Description: "For the caller itself, enrolling it when needed; again changes nothing.",
		Security: UsersOnly, Errors: []int{http.StatusNotFound, http.StatusConflict}}, Requires(authz.CertificationsLearn), s.completeCourseItem)
	register(s, huma.Operation{OperationID: "submit-quiz-attempt", Method: http.MethodPost, Path: "/api/courses/{id}/attempts", Tags: tags,
		RequestBody: requestExample(`{"answers": [{"questionId": "q1", "optionIds": ["q1o2"]}]}`),
		Summary:     "Take a course's quiz", Description: "Every item of the course the caller sees must be completed (409 ITEMS_INCOMPLETE). The answer says the score and how many questions were right, never which. Past the attempts limit: 409 ATTEMPTS_EXHAUSTED. A partner user's pass issues a certificate (emits certification.earned), replacing an earlier one of the course.",
		DefaultStatus: http.StatusCreated, Security: UsersOnly, MaxBodyBytes: 64 << 10,
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}}, Requires(authz.CertificationsLearn), s.submitQuizAttempt)
	register(s, huma.Operation{OperationID: "list-quiz-attempts", Method: http.MethodGet, Path: "/api/quiz-attempts", Tags: tags,
		Summary: "List graded quiz attempts", Description: "Partners see their own organisation's.", Security: UsersOrKeys}, Requires(authz.CertificationsRead), s.listQuizAttempts)
	register(s, huma.Operation{OperationID: "list-certificates", Method: http.MethodGet, Path: "/api/certificates", Tags: tags,
		Summary: "List certificates", Description: "Partners see their own organisation's.", Security: UsersOrKeys}, Requires(authz.CertificationsRead), s.listCertificates)
	register(s, huma.Operation{OperationID: "get-certificate", Method: http.MethodGet, Path: "/api/certificates/{id}", Tags: tags,
		Summary: "Get a certificate", Description: "Another organisation's certificate is 404 to partners.", Security: UsersOrKeys,
		Errors: []int{http.StatusNotFound}}, Requires(authz.CertificationsRead), s.getCertificate)
}

func (s *Server) courseOutput(ctx context.Context, c *models.Course, err error) (*CourseOutput, error) {
	if err != nil {
		return nil, err
	}
	return &CourseOutput{Body: s.courseOf(ctx)(c)}, nil
}

func (s *Server) listCourses(ctx context.Context, in *ListCoursesInput) (*CourseListOutput, error) {
	f := models.CourseFilter{Status: in.Status, Query: in.Q}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Course, string, error) {
		return s.certifications(ctx).ListCourses(ctx, f, pg)
	}, s.courseOf(ctx))
	return &CourseListOutput{Body: body}, err
}

func (s *Server) createCourse(ctx context.Context, in *CreateCourseInput) (*CourseOutput, error) {
	b := in.Body
	c, err := s.certifications(ctx).CreateCourse(ctx, models.NewCourse{Title: b.Title, Description: b.Description, ItemIDs: b.ItemIDs,
		Quiz: quizOf(b.Questions), PassMark: b.PassMark, MaxAttempts: b.MaxAttempts, ValidityDays: b.ValidityDays, Visibility: b.Visibility.model()})
	return s.courseOutput(ctx, c, err)
}

func (s *Server) getCourse(ctx context.Context, in *CourseIDPath) (*CourseOutput, error) {
	c, err := s.certifications(ctx).Course(ctx, in.ID)
	return s.courseOutput(ctx, c, err)
}

func (s *Server) updateCourse(ctx context.Context, in *UpdateCourseInput) (*CourseOutput, error) {
	b := in.Body
	ch := models.CourseChanges{Title: b.Title, Description: b.Description, ItemIDs: b.ItemIDs, PassMark: b.PassMark, MaxAttempts: b.MaxAttempts,
		ValidityDays: b.ValidityDays}
	if b.Questions != nil {
		q := quizOf(*b.Questions)
		ch.Quiz = &q
	}
	if b.Visibility != nil {
		v := b.Visibility.model()
		ch.Visibility = &v
	}
	c, err := s.certifications(ctx).UpdateCourse(ctx, in.ID, ch)
	return s.courseOutput(ctx, c, err)
}

func (s *Server) publishCourse(ctx context.Context, in *CourseIDPath) (*CourseOutput, error) {
	c, err := s.certifications(ctx).PublishCourse(ctx, in.ID)
	return s.courseOutput(ctx, c, err)
}

func (s *Server) archiveCourse(ctx context.Context, in *CourseIDPath) (*CourseOutput, error) {
	c, err := s.certifications(ctx).ArchiveCourse(ctx, in.ID)
	return s.courseOutput(ctx, c, err)
}

func enrolmentOutput(e *models.Enrolment, err error) (*EnrolmentOutput, error) {
	if err != nil {
		return nil, err
	}
	return &EnrolmentOutput{Body: enrolmentOf(e)}, nil
}

func (s *Server) enrolCourse(ctx context.Context, in *CourseIDPath) (*EnrolmentOutput, error) {
	return enrolmentOutput(s.certifications(ctx).Enrol(ctx, in.ID))
}

func (s *Server) getEnrolment(ctx context.Context, in *CourseIDPath) (*EnrolmentOutput, error) {
	return enrolmentOutput(s.certifications(ctx).Enrolment(ctx, in.ID))
}

func (s *Server) completeCourseItem(ctx context.Context, in *CourseItemPath) (*EnrolmentOutput, error) {
	return enrolmentOutput(s.certifications(ctx).CompleteCourseItem(ctx, in.ID, in.ItemID))
}

func (s *Server) submitQuizAttempt(ctx context.Context, in *SubmitQuizAttemptInput) (*AttemptResultOutput, error) {
	answers := make([]models.QuizAnswer, 0, len(in.Body.Answers))
	for _, a := range in.Body.Answers {
		answers = append(answers, models.QuizAnswer{QuestionID: a.QuestionID, OptionIDs: a.OptionIDs})
	}
	res, err := s.certifications(ctx).SubmitQuizAttempt(ctx, in.ID, answers)
	if err != nil {
		return nil, err
	}
	out := &AttemptResultOutput{Body: AttemptResultBody{Attempt: quizAttemptOf(&res.Attempt), AttemptsLeft: res.AttemptsLeft}}
	if res.Certificate != nil {
		c := certificateOf(res.Certificate)
		out.Body.Certificate = &c
	}
	return out, nil
}

func (s *Server) listQuizAttempts(ctx context.Context, in *ListQuizAttemptsInput) (*QuizAttemptListOutput, error) {
	f := models.AttemptFilter{CourseID: in.CourseID, PartnerID: in.PartnerID, UserID: in.UserID}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.QuizAttempt, string, error) {
		return s.certifications(ctx).ListQuizAttempts(ctx, f, pg)
	}, quizAttemptOf)
	return &QuizAttemptListOutput{Body: body}, err
}

func (s *Server) listCertificates(ctx context.Context, in *ListCertificatesInput) (*CourseCertificateListOutput, error) {
	f := models.CertificateFilter{CourseID: in.CourseID, PartnerID: in.PartnerID, UserID: in.UserID, Status: in.Status}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Certificate, string, error) {
		return s.certifications(ctx).ListCertificates(ctx, f, pg)
	}, certificateOf)
	return &CourseCertificateListOutput{Body: body}, err
}

func (s *Server) getCertificate(ctx context.Context, in *CertificateIDPath) (*CourseCertificateOutput, error) {
	c, err := s.certifications(ctx).Certificate(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &CourseCertificateOutput{Body: certificateOf(c)}, nil
}
