// Package desk keeps the service desk: ticket categories, tickets and their threads of replies
// and internal notes. It is the desk module's persistence and business transactions on the core
// store; internal notes never leave it for a partner principal.
package desk

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store"
)

// Store keeps the service desk of every tenant.
type Store struct {
	core    *store.Store
	surveys TicketSurveys
}

// TicketSurveys sends a resolved ticket's requester a survey when the tenant asks for it.
type TicketSurveys interface {
	SurveyResolvedTicket(ctx context.Context, tx *gorm.DB, ev *store.Outbox, t *models.Ticket) error
}

// New is the desk store on core's database; surveys (optional) surveys resolved tickets.
func New(core *store.Store, surveys TicketSurveys) *Store {
	return &Store{core: core, surveys: surveys}
}

// Scoped is the desk as one principal sees it: operators see every ticket and note, a partner
// only its own organisation's tickets and never an internal note.
type Scoped struct {
	s *Store
	store.Caller
}

// For returns the desk store scoped to p.
func (s *Store) For(p *models.Principal) *Scoped {
	return &Scoped{s: s, Caller: s.core.CallerOf(p)}
}

func (sc *Scoped) byPartner() bool { return sc.P.PartnerID != "" }

func (sc *Scoped) ticketRows(ctx context.Context) *gorm.DB {
	return sc.PartnerRows(ctx, &models.Ticket{}, "partner_id")
}

// messageRows are the thread messages the caller may read: a partner's own tickets' replies,
// never an internal note.
func (sc *Scoped) messageRows(ctx context.Context) *gorm.DB {
	q := sc.PartnerRows(ctx, &models.TicketMessage{}, "partner_id")
	if sc.byPartner() {
		q = q.Where("internal = ?", false)
	}
	return q
}

// ListTicketCategories lists the tenant's ticket categories, oldest first.
func (sc *Scoped) ListTicketCategories(ctx context.Context, pg models.Page) ([]models.TicketCategory, string, error) {
	return store.Page(sc.Rows(ctx, &models.TicketCategory{}), pg, func(c models.TicketCategory) string { return c.ID })
}

// TicketCategory finds one category.
func (sc *Scoped) TicketCategory(ctx context.Context, id string) (*models.TicketCategory, error) {
	var c models.TicketCategory
	err := sc.Rows(ctx, &models.TicketCategory{}).Where("id = ?", id).Take(&c).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("TICKET_CATEGORY_NOT_FOUND", "ticket category")
	}
	return &c, err
}

// checkCategoryName refuses a name another category of the tenant has (case-insensitively).
func (sc *Scoped) checkCategoryName(tx *gorm.DB, name, except string) error {
	var n int64
	if err := tx.Model(&models.TicketCategory{}).Where(sc.Scope.Tenant()).Where("LOWER(name) = LOWER(?) AND id <> ?", name, except).Count(&n).Error; err != nil {
		return err
	}
	if n > 0 {
		return models.Errorf(models.KindConflict, "TICKET_CATEGORY_EXISTS", "a ticket category called %q exists already", name)
	}
	return nil
}

// CreateTicketCategory adds a category; operators only.
func (sc *Scoped) CreateTicketCategory(ctx context.Context, c *models.TicketCategory) error {
	c.ID, c.TenantID, c.Name = models.NewID(), sc.P.TenantID, strings.TrimSpace(c.Name)
	return sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		if err := sc.checkCategoryName(tx, c.Name, ""); err != nil {
			return err
		}
		if err := tx.Create(c).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, c.TenantID, "ticket_category.created", "ticket_category", c.ID, "name", "description")
	})
}

// UpdateTicketCategory renames a category or changes its description.
func (sc *Scoped) UpdateTicketCategory(ctx context.Context, id string, ch models.TicketCategoryChanges) (*models.TicketCategory, error) {
	c, err := sc.TicketCategory(ctx, id)
	if err != nil {
		return nil, err
	}
	err = sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		var changed []string
		if ch.Name != nil {
			name := strings.TrimSpace(*ch.Name)
			if err := sc.checkCategoryName(tx, name, c.ID); err != nil {
				return err
			}
			models.SetChanged(&changed, "name", &name, &c.Name)
		}
		models.SetChanged(&changed, "description", ch.Description, &c.Description)
		if len(changed) == 0 {
			return nil
		}
		c.UpdatedAt = time.Now().UTC()
		if err := tx.Save(c).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, c.TenantID, "ticket_category.updated", "ticket_category", c.ID, changed...)
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// DeleteTicketCategory removes a category no ticket uses; 409 TICKET_CATEGORY_IN_USE otherwise.
func (sc *Scoped) DeleteTicketCategory(ctx context.Context, id string) error {
	c, err := sc.TicketCategory(ctx, id)
	if err != nil {
		return err
	}
	return sc.s.core.DB(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&models.Ticket{}).Where(sc.Scope.Tenant()).Where("category_id = ?", c.ID).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return models.Errorf(models.KindConflict, "TICKET_CATEGORY_IN_USE", "%d tickets are in this category; move them first", n)
		}
		if err := tx.Where(sc.Scope.Tenant()).Delete(&models.TicketCategory{}, "id = ?", c.ID).Error; err != nil {
			return err
		}
		return store.WriteAudit(ctx, tx, c.TenantID, "ticket_category.deleted", "ticket_category", c.ID)
	})
}

// checkCategory verifies that a category of the tenant exists.
func (sc *Scoped) checkCategory(tx *gorm.DB, id string) error {
	var n int64
	if err := tx.Model(&models.TicketCategory{}).Where(sc.Scope.Tenant()).Where("id = ?", id).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return models.Invalid("TICKET_CATEGORY_NOT_FOUND", "no such ticket category", models.FieldError{Location: "body.categoryId", Message: "no such category", Value: id})
	}
	return nil
}

// checkAssignee verifies that userID is an active operator user of the tenant.
func (sc *Scoped) checkAssignee(tx *gorm.DB, userID string) error {
	var n int64
	if err := tx.Model(&models.User{}).Where(sc.Scope.Tenant()).Where("id = ? AND partner_id IS NULL AND status = ?", userID, models.UserStatusActive).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return models.Invalid("ASSIGNEE_NOT_OPERATOR", "a ticket is assigned to an active operator user",
			models.FieldError{Location: "body.assigneeUserId", Message: "no such operator user", Value: userID})
	}
	return nil
}

// checkCustomer verifies that the customer exists and is attributed to the ticket's partner.
func (sc *Scoped) checkCustomer(tx *gorm.DB, customerID, partnerID string) error {
	var n int64
	if err := tx.Model(&models.Customer{}).Where(sc.Scope.Tenant()).Where("id = ? AND partner_id = ?", customerID, partnerID).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return models.Invalid("TICKET_CUSTOMER_NOT_FOUND", "the customer is not one of the partner's",
			models.FieldError{Location: "body.customerId", Message: "no such customer of the partner", Value: customerID})
	}
	return nil
}

// checkRequester verifies that a requester an operator names is a user of the partner or an
// operator user of the tenant.
func (sc *Scoped) checkRequester(tx *gorm.DB, userID, partnerID string) error {
	var n int64
	if err := tx.Model(&models.User{}).Where(sc.Scope.Tenant()).Where("id = ? AND (partner_id = ? OR partner_id IS NULL)", userID, partnerID).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return models.Invalid("TICKET_REQUESTER_NOT_FOUND", "the requester is a user of the partner or an operator",
			models.FieldError{Location: "body.requesterId", Message: "no such user", Value: userID})
	}
	return nil
}

// ticketEvent is a ticket.* event about t; partnerVisible says whether the event belongs to the
// partner's timeline (never for internal notes).
func ticketEvent(typ string, t *models.Ticket, partnerVisible bool, fill func(*models.TicketEventPayload)) models.NewEvent {
	p := models.TicketEventPayload{TicketID: t.ID, PartnerID: t.PartnerID, CustomerID: store.Deref(t.CustomerID), CategoryID: store.Deref(t.CategoryID),
		Subject: t.Subject, Status: t.Status, Priority: t.Priority, AssigneeUserID: store.Deref(t.AssigneeUserID), Tags: t.TagList()}
	if p.Tags == nil {
		p.Tags = []string{}
	}
	if fill != nil {
		fill(&p)
	}
	id := t.ID
	ne := models.NewEvent{Type: typ, SubjectID: &id, Payload: store.MustJSON(p)}
	if partnerVisible {
		pid := t.PartnerID
		ne.PartnerID = &pid
	}
	return ne
}

// OpenTicket opens a ticket with its first message. Partners open tickets of their own
// organisation as themselves; operators name the partner and may name the requester; assignee,
// category and customer are checked against the tenant and the partner.
func (sc *Scoped) OpenTicket(ctx context.Context, in models.NewTicket) (*models.Ticket, error) {
	t := in.Ticket
	tags, err := models.NormalizeTicketTags(in.Tags)
	if err != nil {
		return nil, err
	}
	if sc.byPartner() {
		if t.PartnerID == "" {
			t.PartnerID = sc.P.PartnerID
		}
		if t.AssigneeUserID != nil {
			return nil, models.Errorf(models.KindForbidden, "ASSIGNMENT_FOR_OPERATORS", "only the desk assigns tickets")
		}
		if t.RequesterID != "" && t.RequesterID != sc.P.ActorID() {
			return nil, models.Errorf(models.KindForbidden, "REQUESTER_FOR_OPERATORS", "partners open tickets as themselves")
		}
	} else if t.PartnerID == "" {
		return nil, models.Invalid("PARTNER_REQUIRED", "say which partner the ticket is for", models.FieldError{Location: "body.partnerId", Message: "required for operators"})
	}
	if !slices.Contains(models.TicketPriorities, t.Priority) {
		t.Priority = models.TicketNormal
	}
	now := time.Now().UTC()
	t.ID, t.TenantID, t.Status, t.CreatedBy = models.NewID(), sc.P.TenantID, models.TicketOpen, sc.P.ActorID()
	t.CreatedAt, t.UpdatedAt = now, now
	t.SetTags(tags)
	err = sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		if err := sc.Scope.CheckPartner(tx, t.PartnerID, "body.partnerId"); err != nil {
			return err
		}
		if t.RequesterID == "" {
			t.RequesterID = sc.P.ActorID()
		} else if !sc.byPartner() {
			if err := sc.checkRequester(tx, t.RequesterID, t.PartnerID); err != nil {
				return err
			}
		}
		if t.CustomerID != nil {
			if err := sc.checkCustomer(tx, *t.CustomerID, t.PartnerID); err != nil {
				return err
			}
		}
		if t.CategoryID != nil {
			if err := sc.checkCategory(tx, *t.CategoryID); err != nil {
				return err
			}
		}
		if t.AssigneeUserID != nil {
			if err := sc.checkAssignee(tx, *t.AssigneeUserID); err != nil {
				return err
			}
		}
		if err := tx.Create(&t).Error; err != nil {
			return err
		}
		m := &models.TicketMessage{ID: models.NewID(), TenantID: t.TenantID, TicketID: t.ID, PartnerID: t.PartnerID, AuthorID: sc.P.ActorID(),
			AuthorKind: sc.authorKind(), Body: in.Body, CreatedAt: now}
		if err := tx.Create(m).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, t.TenantID, "ticket.opened", "ticket", t.ID, "subject", "partnerId", "customerId", "categoryId", "priority", "assigneeUserId", "tags"); err != nil {
			return err
		}
		_, err := ev.Emit(ctx, tx, t.TenantID, ticketEvent(models.EventTicketOpened, &t, true, func(p *models.TicketEventPayload) { p.MessageID = m.ID }))
		return err
	})
	if err != nil {
		return nil, err
	}
	return &t, nil
}

func (sc *Scoped) authorKind() string {
	if sc.byPartner() {
		return models.TicketAuthorPartner
	}
	return models.TicketAuthorOperator
}

// ListTickets lists the tickets the principal may see, oldest first.
func (sc *Scoped) ListTickets(ctx context.Context, f models.TicketFilter, pg models.Page) ([]models.Ticket, string, error) {
	q := sc.ticketRows(ctx)
	for col, v := range map[string]string{"status": f.Status, "priority": f.Priority, "assignee_user_id": f.AssigneeUserID,
		"partner_id": f.PartnerID, "category_id": f.CategoryID, "customer_id": f.CustomerID} {
		if v != "" {
			q = q.Where(col+" = ?", v)
		}
	}
	if f.Tag != "" {
		q = q.Where(`tags LIKE ? ESCAPE '\'`, `%"`+store.EscapeLike(f.Tag)+`"%`)
	}
	q = store.Containing(q, f.Q, "subject")
	switch f.SLA {
	case models.TicketSLABreached:
		q = q.Where("(first_response_breached_at IS NOT NULL OR resolution_breached_at IS NOT NULL)")
	case models.TicketSLAPaused:
		q = q.Where("sla_paused_at IS NOT NULL")
	}
	return store.Page(q, pg, func(t models.Ticket) string { return t.ID })
}

// Ticket finds one ticket the principal may see.
func (sc *Scoped) Ticket(ctx context.Context, id string) (*models.Ticket, error) {
	var t models.Ticket
	err := sc.ticketRows(ctx).Where("id = ?", id).Take(&t).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("TICKET_NOT_FOUND", "ticket")
	}
	return &t, err
}

// lockTicket reads a ticket the principal may see again inside tx, locked where the database can.
func (sc *Scoped) lockTicket(ctx context.Context, tx *gorm.DB, id string) (*models.Ticket, error) {
	if _, err := sc.Ticket(ctx, id); err != nil {
		return nil, err
	}
	var t models.Ticket
	if err := store.LockRow(sc.s.core, tx, &t, sc.Scope, id); err != nil {
		return nil, err
	}
	return &t, nil
}

// UpdateTicket changes a ticket's subject, priority, category, tags or assignee; operators only.
func (sc *Scoped) UpdateTicket(ctx context.Context, id string, c models.TicketChanges) (*models.Ticket, error) {
	var out *models.Ticket
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		t, err := sc.lockTicket(ctx, tx, id)
		if err != nil {
			return err
		}
		out = t
		var changed []string
		models.SetChanged(&changed, "subject", c.Subject, &t.Subject)
		models.SetChanged(&changed, "priority", c.Priority, &t.Priority)
		if c.CategoryID != nil && *c.CategoryID != store.Deref(t.CategoryID) {
			if *c.CategoryID != "" {
				if err := sc.checkCategory(tx, *c.CategoryID); err != nil {
					return err
				}
			}
			t.CategoryID, changed = store.NonEmpty(*c.CategoryID), append(changed, "categoryId")
		}
		if c.AssigneeUserID != nil && *c.AssigneeUserID != store.Deref(t.AssigneeUserID) {
			if *c.AssigneeUserID != "" {
				if err := sc.checkAssignee(tx, *c.AssigneeUserID); err != nil {
					return err
				}
			}
			t.AssigneeUserID, changed = store.NonEmpty(*c.AssigneeUserID), append(changed, "assigneeUserId")
		}
		if c.Tags != nil {
			tags, err := models.NormalizeTicketTags(*c.Tags)
			if err != nil {
				return err
			}
			if !slices.Equal(tags, t.TagList()) {
				t.SetTags(tags)
				changed = append(changed, "tags")
			}
		}
		if len(changed) == 0 {
			return nil
		}
		t.UpdatedAt = time.Now().UTC()
		if err := tx.Save(t).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, t.TenantID, "ticket.updated", "ticket", t.ID, changed...); err != nil {
			return err
		}
		_, err = ev.Emit(ctx, tx, t.TenantID, ticketEvent(models.EventTicketUpdated, t, true, func(p *models.TicketEventPayload) { p.Changed = changed }))
		return err
	})
	return out, err
}

// setStatus moves t to status to, stamping when it was resolved or closed.
func setStatus(t *models.Ticket, to string, now time.Time) {
	t.Status, t.UpdatedAt = to, now
	switch to {
	case models.TicketResolved:
		t.ResolvedAt = &now
	case models.TicketClosed:
		t.ClosedAt = &now
	default:
		t.ResolvedAt = nil
	}
}

// ChangeTicketStatus moves a ticket to another status along the transitions of
// models.CheckTicketTransition; partners may only resolve, reopen and close.
func (sc *Scoped) ChangeTicketStatus(ctx context.Context, id, to string) (*models.Ticket, error) {
	var out *models.Ticket
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		t, err := sc.lockTicket(ctx, tx, id)
		if err != nil {
			return err
		}
		from := t.Status
		if err := models.CheckTicketTransition(from, to, sc.byPartner()); err != nil {
			return err
		}
		setStatus(t, to, time.Now().UTC())
		if err := tx.Save(t).Error; err != nil {
			return err
		}
		out = t
		if err := store.WriteAudit(ctx, tx, t.TenantID, "ticket.status_changed", "ticket", t.ID, "status"); err != nil {
			return err
		}
		if _, err = ev.Emit(ctx, tx, t.TenantID, ticketEvent(models.EventTicketStatusChanged, t, true, func(p *models.TicketEventPayload) { p.PreviousStatus = from })); err != nil {
			return err
		}
		if to == models.TicketResolved && sc.s.surveys != nil {
			return sc.s.surveys.SurveyResolvedTicket(ctx, tx, ev, t)
		}
		return nil
	})
	return out, err
}

// TicketMessages lists a ticket's thread, oldest first: for a partner its replies only, never
// an internal note.
func (sc *Scoped) TicketMessages(ctx context.Context, ticketID string, pg models.Page) ([]models.TicketMessage, string, error) {
	if _, err := sc.Ticket(ctx, ticketID); err != nil {
		return nil, "", err
	}
	return store.Page(sc.messageRows(ctx).Where("ticket_id = ?", ticketID), pg, func(m models.TicketMessage) string { return m.ID })
}

// AddTicketMessage adds a reply, or for operators an internal note, to a ticket's thread. A
// reply moves the ticket (models.TicketStatusAfterReply) and the desk's first reply stamps the
// first response; a note changes nothing a partner sees and its event is the operators' only.
func (sc *Scoped) AddTicketMessage(ctx context.Context, ticketID, body string, internal bool) (*models.TicketMessage, error) {
	if internal && sc.byPartner() {
		return nil, models.Errorf(models.KindForbidden, "NOTES_FOR_OPERATORS", "only the desk writes internal notes")
	}
	var m *models.TicketMessage
	err := sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		t, err := sc.lockTicket(ctx, tx, ticketID)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		m = &models.TicketMessage{ID: models.NewID(), TenantID: t.TenantID, TicketID: t.ID, PartnerID: t.PartnerID, AuthorID: sc.P.ActorID(),
			AuthorKind: sc.authorKind(), Internal: internal, Body: body, CreatedAt: now}
		if internal {
			if err := tx.Create(m).Error; err != nil {
				return err
			}
			if err := store.WriteAudit(ctx, tx, t.TenantID, "ticket.note_added", "ticket", t.ID, "note"); err != nil {
				return err
			}
			_, err := ev.Emit(ctx, tx, t.TenantID, ticketEvent(models.EventTicketNoteAdded, t, false, func(p *models.TicketEventPayload) { p.MessageID = m.ID }))
			return err
		}
		from := t.Status
		next, ok := models.TicketStatusAfterReply(from, sc.byPartner())
		if !ok {
			return models.Errorf(models.KindConflict, "TICKET_CLOSED", "a closed ticket takes no replies; open a new one")
		}
		if err := tx.Create(m).Error; err != nil {
			return err
		}
		if next != from {
			setStatus(t, next, now)
		}
		if !sc.byPartner() && t.FirstResponseAt == nil {
			t.FirstResponseAt = &now
		}
		t.UpdatedAt = now
		if err := tx.Save(t).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, t.TenantID, "ticket.replied", "ticket", t.ID, "message"); err != nil {
			return err
		}
		if _, err := ev.Emit(ctx, tx, t.TenantID, ticketEvent(models.EventTicketReplied, t, true, func(p *models.TicketEventPayload) {
			p.MessageID, p.AuthorKind = m.ID, m.AuthorKind
		})); err != nil {
			return err
		}
		if next != from {
			_, err = ev.Emit(ctx, tx, t.TenantID, ticketEvent(models.EventTicketStatusChanged, t, true, func(p *models.TicketEventPayload) { p.PreviousStatus = from }))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// attachmentRows are the attachments the caller may read: a partner's own tickets' files, never
// an internal note's.
func (sc *Scoped) attachmentRows(ctx context.Context) *gorm.DB {
	q := sc.PartnerRows(ctx, &models.TicketAttachment{}, "partner_id")
	if sc.byPartner() {
		q = q.Where("internal = ?", false)
	}
	return q
}

// CheckTicketUpload verifies, before a file is stored, that the caller may attach one to the
// ticket and, when messageID is given, to that message: one of the thread the caller sees and
// wrote itself.
func (sc *Scoped) CheckTicketUpload(ctx context.Context, ticketID, messageID string) error {
	if _, err := sc.Ticket(ctx, ticketID); err != nil {
		return err
	}
	if messageID == "" {
		return nil
	}
	_, err := sc.uploadMessage(sc.s.core.DB(ctx), ticketID, messageID)
	return err
}

func (sc *Scoped) uploadMessage(tx *gorm.DB, ticketID, messageID string) (*models.TicketMessage, error) {
	q := sc.Scope.PartnerRows(tx.Model(&models.TicketMessage{}), "partner_id").Where("id = ? AND ticket_id = ?", messageID, ticketID)
	if sc.byPartner() {
		q = q.Where("internal = ?", false)
	}
	var m models.TicketMessage
	if err := q.Take(&m).Error; errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("TICKET_MESSAGE_NOT_FOUND", "ticket message")
	} else if err != nil {
		return nil, err
	}
	if m.AuthorID != sc.P.ActorID() {
		return nil, models.Errorf(models.KindForbidden, "NOT_YOUR_MESSAGE", "files go with a message of your own")
	}
	return &m, nil
}

// AddTicketAttachment records a stored file as an attachment of a ticket (and of one of the
// caller's messages when a.MessageID is set; an internal note's file is internal).
func (sc *Scoped) AddTicketAttachment(ctx context.Context, ticketID string, a *models.TicketAttachment) error {
	return sc.s.core.Transact(ctx, func(tx *gorm.DB, ev *store.Outbox) error {
		t, err := sc.lockTicket(ctx, tx, ticketID)
		if err != nil {
			return err
		}
		a.Internal = false
		if a.MessageID != nil {
			m, err := sc.uploadMessage(tx, t.ID, *a.MessageID)
			if err != nil {
				return err
			}
			a.Internal = m.Internal
		}
		a.ID, a.TenantID, a.TicketID, a.PartnerID, a.UploadedBy = models.NewID(), t.TenantID, t.ID, t.PartnerID, sc.P.ActorID()
		a.CreatedAt = time.Now().UTC()
		if err := tx.Create(a).Error; err != nil {
			return err
		}
		if err := store.WriteAudit(ctx, tx, t.TenantID, "ticket.attachment_added", "ticket", t.ID, "attachment"); err != nil {
			return err
		}
		_, err = ev.Emit(ctx, tx, t.TenantID, ticketEvent(models.EventTicketAttachmentAdded, t, !a.Internal, func(p *models.TicketEventPayload) {
			p.AttachmentID, p.MessageID = a.ID, store.Deref(a.MessageID)
			if !a.Internal {
				p.AttachmentName = a.Name
			}
		}))
		return err
	})
}

// TicketAttachments lists a ticket's files, oldest first: for a partner never an internal note's.
func (sc *Scoped) TicketAttachments(ctx context.Context, ticketID string, pg models.Page) ([]models.TicketAttachment, string, error) {
	if _, err := sc.Ticket(ctx, ticketID); err != nil {
		return nil, "", err
	}
	return store.Page(sc.attachmentRows(ctx).Where("ticket_id = ?", ticketID), pg, func(a models.TicketAttachment) string { return a.ID })
}

// TicketAttachment finds one attachment the caller may read, authorised like its ticket.
func (sc *Scoped) TicketAttachment(ctx context.Context, id string) (*models.TicketAttachment, error) {
	var a models.TicketAttachment
	err := sc.attachmentRows(ctx).Where("id = ?", id).Take(&a).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.NotFound("TICKET_ATTACHMENT_NOT_FOUND", "ticket attachment")
	}
	return &a, err
}
