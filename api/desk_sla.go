package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// SLAStore is what the SLA operations need of storage, as the caller sees it.
type SLAStore interface {
	ListSLAPolicies(ctx context.Context, pg models.Page) ([]models.TicketSLAPolicy, string, error)
	SLAPolicy(ctx context.Context, priority string) (*models.TicketSLAPolicy, error)
	PutSLAPolicy(ctx context.Context, in models.TicketSLAPolicy) (*models.TicketSLAPolicy, bool, error)
	DeleteSLAPolicy(ctx context.Context, priority string) error
	BusinessHours(ctx context.Context) (models.BusinessHours, error)
	PutBusinessHours(ctx context.Context, h models.BusinessHours) (models.BusinessHours, error)
}

// SLAPolicy is the desk's targets for tickets of one priority, in business time.
type SLAPolicy struct {
	ID                   string    `json:"id"`
	Priority             string    `json:"priority" enum:"low,normal,high,urgent"`
	FirstResponseMinutes int       `json:"firstResponseMinutes" doc:"Business minutes until the desk's first public reply"`
	ResolutionMinutes    int       `json:"resolutionMinutes" doc:"Business minutes until the ticket is resolved"`
	WarnPercent          int       `json:"warnPercent,omitempty" doc:"ticket.sla_warning goes out when this share of a target is used"`
	WarnBeforeMinutes    int       `json:"warnBeforeMinutes,omitempty" doc:"ticket.sla_warning goes out this many business minutes before a target instead"`
	CreatedAt            time.Time `json:"createdAt"`
	UpdatedAt            time.Time `json:"updatedAt"`
}

func slaPolicyOf(p *models.TicketSLAPolicy) SLAPolicy {
	return SLAPolicy{ID: p.ID, Priority: p.Priority, FirstResponseMinutes: p.FirstResponseMinutes, ResolutionMinutes: p.ResolutionMinutes,
		WarnPercent: p.WarnPercent, WarnBeforeMinutes: p.WarnBeforeMinutes, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

// SLAPriorityPath names a priority's policy.
type SLAPriorityPath struct {
	Priority string `path:"priority" enum:"low,normal,high,urgent"`
}

// PutSLAPolicyInput sets a priority's policy.
type PutSLAPolicyInput struct {
	Priority string `path:"priority" enum:"low,normal,high,urgent"`
	Body     struct {
		FirstResponseMinutes int `json:"firstResponseMinutes" minimum:"1" maximum:"525600" example:"60"`
		ResolutionMinutes    int `json:"resolutionMinutes" minimum:"1" maximum:"525600" example:"480"`
		WarnPercent          int `json:"warnPercent,omitempty" minimum:"0" maximum:"99" doc:"80 when neither warnPercent nor warnBeforeMinutes is given" example:"80"`
		WarnBeforeMinutes    int `json:"warnBeforeMinutes,omitempty" minimum:"0" maximum:"525600" doc:"Instead of warnPercent: a fixed lead, shorter than the first response target"`
	}
}

// SLAPolicyOutput is one policy.
type SLAPolicyOutput struct{ Body SLAPolicy }

// SLAPolicyListOutput is a page of policies.
type SLAPolicyListOutput struct{ Body ListBody[SLAPolicy] }

// BusinessHoursBody is when SLA clocks run.
type BusinessHoursBody struct {
	TimeZone string                  `json:"timeZone" minLength:"1" maxLength:"64" doc:"An IANA time zone" example:"Europe/Berlin"`
	Windows  []models.BusinessWindow `json:"windows" maxItems:"28" nullable:"false" doc:"The weekly schedule in timeZone; empty means around the clock"`
}

// BusinessHoursInput sets the business hours.
type BusinessHoursInput struct{ Body BusinessHoursBody }

// BusinessHoursOutput is the business hours.
type BusinessHoursOutput struct{ Body BusinessHoursBody }

func (s *Server) sla(ctx context.Context) SLAStore { return s.desk(ctx) }

func registerSLARoutes(s *Server) {
	tags := []string{"Service desk"}
	op := func(id, method, path, summary, description string, status int, errs ...int) huma.Operation {
		return huma.Operation{OperationID: id, Method: method, Path: path, Tags: tags, Summary: summary, Description: description,
			DefaultStatus: status, Security: UsersOrKeys, Errors: append([]int{http.StatusForbidden}, errs...)}
	}
	register(s, op("list-sla-policies", http.MethodGet, "/api/ticket-sla-policies", "List SLA policies",
		"At most one per priority; a priority without one has no SLA clock.", 0), Requires(authz.TicketsManage), s.listSLAPolicies)
	register(s, op("get-sla-policy", http.MethodGet, "/api/ticket-sla-policies/{priority}", "Get a priority's SLA policy", "", 0,
		http.StatusNotFound, http.StatusUnprocessableEntity), Requires(authz.TicketsManage), s.getSLAPolicy)
	put := op("put-sla-policy", http.MethodPut, "/api/ticket-sla-policies/{priority}", "Set a priority's SLA policy",
		"First response and resolution targets in business minutes (the tenant's business hours), and when ticket.sla_warning goes out. "+
			"Applies to tickets opened at, or moved to, the priority from now on.", 0, http.StatusUnprocessableEntity)
	put.RequestBody = requestExample(`{"firstResponseMinutes": 60, "resolutionMinutes": 480, "warnPercent": 80}`)
	register(s, put, Requires(authz.TicketsManage), s.putSLAPolicy)
	register(s, op("delete-sla-policy", http.MethodDelete, "/api/ticket-sla-policies/{priority}", "Remove a priority's SLA policy",
		"Tickets opened at the priority from now on have no SLA clock; running clocks keep their targets.", http.StatusNoContent,
		http.StatusNotFound, http.StatusUnprocessableEntity), Requires(authz.TicketsManage), s.deleteSLAPolicy)
	register(s, op("get-business-hours", http.MethodGet, "/api/ticket-business-hours", "Get the desk's business hours",
		"When SLA clocks run; around the clock in UTC until set.", 0), Requires(authz.TicketsManage), s.getBusinessHours)
	hours := op("put-business-hours", http.MethodPut, "/api/ticket-business-hours", "Set the desk's business hours",
		"A weekly schedule of windows (HH:MM to HH:MM, 24:00 at the latest, no overlaps) in an IANA time zone, or no windows for around "+
			"the clock. Clocks of tickets opened from now on count in them; daylight saving time is the zone's.", 0, http.StatusUnprocessableEntity)
	hours.RequestBody = requestExample(`{"timeZone": "Europe/Berlin", "windows": [{"day": "mon", "start": "09:00", "end": "17:00"}, {"day": "tue", "start": "09:00", "end": "17:00"}]}`)
	register(s, hours, Requires(authz.TicketsManage), s.putBusinessHours)
}

func slaPolicyOutput(p *models.TicketSLAPolicy, err error) (*SLAPolicyOutput, error) {
	if err != nil {
		return nil, err
	}
	return &SLAPolicyOutput{Body: slaPolicyOf(p)}, nil
}

// listSLAPolicies lists the SLA policies.
func (s *Server) listSLAPolicies(ctx context.Context, in *ListParams) (*SLAPolicyListOutput, error) {
	body, err := listPage(ctx, s, *in, func(pg models.Page) ([]models.TicketSLAPolicy, string, error) {
		return s.sla(ctx).ListSLAPolicies(ctx, pg)
	}, slaPolicyOf)
	return &SLAPolicyListOutput{Body: body}, err
}

// getSLAPolicy reads a priority's policy.
func (s *Server) getSLAPolicy(ctx context.Context, in *SLAPriorityPath) (*SLAPolicyOutput, error) {
	return slaPolicyOutput(s.sla(ctx).SLAPolicy(ctx, in.Priority))
}

// putSLAPolicy sets a priority's policy.
func (s *Server) putSLAPolicy(ctx context.Context, in *PutSLAPolicyInput) (*SLAPolicyOutput, error) {
	b := in.Body
	p, _, err := s.sla(ctx).PutSLAPolicy(ctx, models.TicketSLAPolicy{Priority: in.Priority, FirstResponseMinutes: b.FirstResponseMinutes,
		ResolutionMinutes: b.ResolutionMinutes, WarnPercent: b.WarnPercent, WarnBeforeMinutes: b.WarnBeforeMinutes})
	return slaPolicyOutput(p, err)
}

// deleteSLAPolicy removes a priority's policy.
func (s *Server) deleteSLAPolicy(ctx context.Context, in *SLAPriorityPath) (*struct{}, error) {
	return nil, s.sla(ctx).DeleteSLAPolicy(ctx, in.Priority)
}

func businessHoursOutput(h models.BusinessHours, err error) (*BusinessHoursOutput, error) {
	if err != nil {
		return nil, err
	}
	if h.Windows == nil {
		h.Windows = []models.BusinessWindow{}
	}
	return &BusinessHoursOutput{Body: BusinessHoursBody{TimeZone: h.TimeZone, Windows: h.Windows}}, nil
}

// getBusinessHours reads the business hours.
func (s *Server) getBusinessHours(ctx context.Context, _ *struct{}) (*BusinessHoursOutput, error) {
	return businessHoursOutput(s.sla(ctx).BusinessHours(ctx))
}

// putBusinessHours sets the business hours.
func (s *Server) putBusinessHours(ctx context.Context, in *BusinessHoursInput) (*BusinessHoursOutput, error) {
	return businessHoursOutput(s.sla(ctx).PutBusinessHours(ctx, models.BusinessHours{TimeZone: in.Body.TimeZone, Windows: in.Body.Windows}))
}
