package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// DashboardStore is what the dashboard operations need of storage, as the caller sees it.
type DashboardStore interface {
	CreateDashboard(ctx context.Context, d *models.Dashboard) error
	ListDashboards(ctx context.Context, pg models.Page) ([]models.Dashboard, string, error)
	Dashboard(ctx context.Context, id string) (*models.Dashboard, error)
	UpdateDashboard(ctx context.Context, id string, ch models.DashboardChanges) (*models.Dashboard, error)
	DeleteDashboard(ctx context.Context, id string) error
	RenderDashboard(ctx context.Context, id string, now time.Time) (*models.RenderedDashboard, error)
	MyDashboard(ctx context.Context, now time.Time) (*models.RenderedDashboard, error)
	PreviewWidget(ctx context.Context, w models.Widget, now time.Time) (*models.WidgetResult, error)
}

// dashboards is the dashboard store as the caller sees it.
func (s *Server) dashboards(ctx context.Context) DashboardStore {
	return s.deps.Modules.Dashboards(models.PrincipalFrom(ctx))
}

const tagDashboards = "Dashboards"

// Widget is one tile of a dashboard.
type Widget struct {
	Kind      string `json:"kind" enum:"metric,time-series,event-list" doc:"metric: a metric's value over range; time-series: a metric over range per interval; event-list: the latest events of eventType"`
	Title     string `json:"title,omitempty" maxLength:"200"`
	MetricID  string `json:"metricId,omitempty" maxLength:"36" doc:"metric and time-series widgets"`
	Range     string `json:"range,omitempty" enum:"last_24_hours,last_7_days,last_30_days,last_90_days,last_365_days,month_to_date,year_to_date" doc:"metric and time-series widgets; default last_30_days"`
	Interval  string `json:"interval,omitempty" enum:"hour,day,week,month" doc:"time-series widgets"`
	EventType string `json:"eventType,omitempty" maxLength:"128" doc:"event-list widgets: an event type or a pattern with * wildcards"`
	Limit     int    `json:"limit,omitempty" minimum:"0" maximum:"100" doc:"event-list widgets: how many events; default 10"`
	X         int    `json:"x,omitempty" minimum:"0" maximum:"11" doc:"Column of the widget's left edge on the 12-column grid. x, y, w and h all 0 (or absent): not placed, shown after the placed widgets"`
	Y         int    `json:"y,omitempty" minimum:"0" maximum:"1000" doc:"Row of the widget's top edge"`
	W         int    `json:"w,omitempty" minimum:"0" maximum:"12" doc:"Width in columns (1 to 12, x + w at most 12)"`
	H         int    `json:"h,omitempty" minimum:"0" maximum:"24" doc:"Height in rows (1 to 24)"`
}

func widgetOf(w models.Widget) Widget {
	return Widget{Kind: w.Kind, Title: w.Title, MetricID: w.MetricID, Range: w.Range, Interval: w.Interval, EventType: w.EventType, Limit: w.Limit,
		X: w.X, Y: w.Y, W: w.W, H: w.H}
}

func widgetIn(w Widget) models.Widget {
	return models.Widget{Kind: w.Kind, Title: w.Title, MetricID: w.MetricID, Range: w.Range, Interval: w.Interval, EventType: w.EventType, Limit: w.Limit,
		X: w.X, Y: w.Y, W: w.W, H: w.H}
}

func widgetsIn(in []Widget) []models.Widget {
	out := make([]models.Widget, 0, len(in))
	for _, w := range in {
		out = append(out, widgetIn(w))
	}
	return out
}

// Dashboard is a dashboard as the API shows it.
type Dashboard struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Levels    []string  `json:"levels" nullable:"false" doc:"The partner levels that see this dashboard"`
	IsDefault bool      `json:"isDefault" doc:"Shown to partners whose level has no dashboard"`
	Widgets   []Widget  `json:"widgets" nullable:"false"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func dashboardOf(d *models.Dashboard) Dashboard {
	out := Dashboard{ID: d.ID, Name: d.Name, Levels: d.LevelList(), IsDefault: d.IsDefault, Widgets: []Widget{},
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
	if out.Levels == nil {
		out.Levels = []string{}
	}
	for _, w := range d.WidgetList() {
		out.Widgets = append(out.Widgets, widgetOf(w))
	}
	return out
}

// CreateDashboardInput defines a dashboard.
type CreateDashboardInput struct {
	Body struct {
		Name      string   `json:"name" minLength:"1" maxLength:"200"`
		Levels    []string `json:"levels,omitempty" maxItems:"50" maxLength:"64"`
		IsDefault bool     `json:"isDefault,omitempty" doc:"Make this the default dashboard; the previous default stops being one"`
		Widgets   []Widget `json:"widgets,omitempty" maxItems:"50"`
	}
}

// UpdateDashboardInput changes a dashboard; absent fields stay.
type UpdateDashboardInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Name      *string   `json:"name,omitempty" minLength:"1" maxLength:"200"`
		Levels    *[]string `json:"levels,omitempty" maxItems:"50" maxLength:"64"`
		IsDefault *bool     `json:"isDefault,omitempty"`
		Widgets   *[]Widget `json:"widgets,omitempty" maxItems:"50"`
	}
}

// DashboardOutput is one dashboard.
type DashboardOutput struct {
	Body Dashboard
}

// DashboardListOutput is a page of dashboards.
type DashboardListOutput struct {
	Body ListBody[Dashboard]
}

// WidgetProblem says why one widget could not be computed.
type WidgetProblem struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

// RenderedWidget is one computed widget.
type RenderedWidget struct {
	Widget Widget         `json:"widget"`
	Value  *MetricValue   `json:"value,omitempty" doc:"metric and time-series widgets"`
	Events []Event        `json:"events,omitempty" doc:"event-list widgets, newest first"`
	Error  *WidgetProblem `json:"error,omitempty"`
}

// RenderedDashboard is a dashboard computed for the caller.
type RenderedDashboard struct {
	Dashboard Dashboard        `json:"dashboard"`
	Widgets   []RenderedWidget `json:"widgets" nullable:"false"`
}

// RenderedDashboardOutput is a computed dashboard.
type RenderedDashboardOutput struct {
	Body RenderedDashboard
}

func renderedOf(r *models.RenderedDashboard) RenderedDashboard {
	out := RenderedDashboard{Dashboard: dashboardOf(&r.Dashboard), Widgets: []RenderedWidget{}}
	for i := range r.Widgets {
		out.Widgets = append(out.Widgets, renderedWidgetOf(&r.Widgets[i]))
	}
	return out
}

func renderedWidgetOf(w *models.WidgetResult) RenderedWidget {
	rw := RenderedWidget{Widget: widgetOf(w.Widget)}
	switch {
	case w.Err != nil:
		rw.Error = &WidgetProblem{Code: w.Err.Code, Detail: w.Err.Message}
	case w.Metric != nil:
		v := metricValueOf(w.Widget.MetricID, w.Widget.Interval, w.Metric)
		rw.Value = &v
	case w.Widget.Kind == models.WidgetEventList:
		rw.Events = make([]Event, 0, len(w.Events))
		for i := range w.Events {
			rw.Events = append(rw.Events, eventOf(&w.Events[i]))
		}
	}
	return rw
}

// PreviewWidgetInput is a widget to compute before it is saved on a dashboard.
type PreviewWidgetInput struct {
	Body struct {
		Widget Widget `json:"widget"`
	}
}

// RenderedWidgetOutput is one computed widget.
type RenderedWidgetOutput struct {
	Body RenderedWidget
}

func registerDashboardRoutes(s *Server) {
	tags := []string{tagDashboards}
	register(s, huma.Operation{
		OperationID: "create-dashboard", Method: http.MethodPost, Path: "/api/dashboards", Tags: tags,
		RequestBody: requestExample(`{"name": "Revenue", "isDefault": true, "levels": ["Gold", "Platinum"], "widgets": [{"kind": "metric", "title": "Won revenue", "metricId": "01936f3b-3d4e-7f5a-8b6c-7d8e9f0a1b2c", "range": "last_30_days"}, {"kind": "time-series", "title": "Won revenue per week", "metricId": "01936f3b-3d4e-7f5a-8b6c-7d8e9f0a1b2c", "range": "last_90_days", "interval": "week"}, {"kind": "event-list", "title": "Latest deals", "eventType": "deal.*", "limit": 10}]}`),
		Summary:     "Create a dashboard", DefaultStatus: http.StatusCreated, Security: UsersOrKeys,
		Errors: []int{http.StatusUnprocessableEntity},
	}, Requires(authz.DashboardsWrite), s.createDashboard)

	register(s, huma.Operation{
		OperationID: "list-dashboards", Method: http.MethodGet, Path: "/api/dashboards", Tags: tags,
		Summary: "List dashboards", Description: "Partners see the dashboards of their level, or else the default one.",
		Security: UsersOrKeys,
	}, Requires(authz.DashboardsRead), s.listDashboards)

	// Registered before /api/dashboards/{id} so that "mine" is never taken for an id.
	register(s, huma.Operation{
		OperationID: "render-my-dashboard", Method: http.MethodGet, Path: "/api/dashboards/mine", Tags: tags,
		Summary:     "Render my dashboard",
		Description: "For a partner, its level's dashboard (or else the default one) over its own data; for operators, the default dashboard.",
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound},
	}, Requires(authz.DashboardsRead), s.renderMyDashboard)

	register(s, huma.Operation{
		OperationID: "get-dashboard", Method: http.MethodGet, Path: "/api/dashboards/{id}", Tags: tags,
		Summary: "Get a dashboard", Security: UsersOrKeys, Errors: []int{http.StatusNotFound},
	}, Requires(authz.DashboardsRead), s.getDashboard)

	register(s, huma.Operation{
		OperationID: "update-dashboard", Method: http.MethodPatch, Path: "/api/dashboards/{id}", Tags: tags,
		RequestBody: requestExample(`{"name": "Revenue this quarter", "widgets": [{"kind": "metric", "title": "Won revenue", "metricId": "01936f3b-3d4e-7f5a-8b6c-7d8e9f0a1b2c", "range": "last_30_days"}, {"kind": "time-series", "title": "Won revenue per week", "metricId": "01936f3b-3d4e-7f5a-8b6c-7d8e9f0a1b2c", "range": "last_90_days", "interval": "week"}]}`),
		Summary:     "Change a dashboard", Security: UsersOrKeys,
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, Requires(authz.DashboardsWrite), s.updateDashboard)

	register(s, huma.Operation{
		OperationID: "delete-dashboard", Method: http.MethodDelete, Path: "/api/dashboards/{id}", Tags: tags,
		Summary: "Delete a dashboard", Security: UsersOrKeys, DefaultStatus: http.StatusNoContent, Errors: []int{http.StatusNotFound},
	}, Requires(authz.DashboardsWrite), s.deleteDashboard)

	register(s, huma.Operation{
		OperationID: "render-dashboard", Method: http.MethodGet, Path: "/api/dashboards/{id}/render", Tags: tags,
		Summary:     "Render a dashboard",
		Description: "Computes every widget for the caller. Partners may render only the dashboards they see, and only ever over their own customers' events.",
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound},
	}, Requires(authz.DashboardsRead), s.renderDashboard)

	register(s, huma.Operation{
		OperationID: "preview-widget", RequestBody: requestExample(`{"widget": {"kind": "metric", "metricId": "0193a7c2-8a51-7d41-9c3e-6f0f2b1f4a11", "range": "last_30_days"}}`), Method: http.MethodPost, Path: "/api/dashboards/preview-widget", Tags: tags,
		Summary:     "Preview a widget",
		Description: "Computes one widget that is not saved yet, as rendering a dashboard holding it would for the caller: for the dashboard builder. A widget naming a metric that does not exist is 422 INVALID_WIDGET.",
		Security:    UsersOrKeys, MaxBodyBytes: 4 << 10, Errors: []int{http.StatusUnprocessableEntity},
	}, Requires(authz.DashboardsWrite), s.previewWidget)
}

// createDashboard creates a dashboard.
func (s *Server) createDashboard(ctx context.Context, in *CreateDashboardInput) (*DashboardOutput, error) {
	b := in.Body
	d := &models.Dashboard{Name: b.Name, IsDefault: b.IsDefault}
	d.SetLevels(b.Levels)
	d.SetWidgets(widgetsIn(b.Widgets))
	if err := s.dashboards(ctx).CreateDashboard(ctx, d); err != nil {
		return nil, err
	}
	return &DashboardOutput{Body: dashboardOf(d)}, nil
}

// listDashboards lists dashboards.
func (s *Server) listDashboards(ctx context.Context, in *struct{ ListParams }) (*DashboardListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Dashboard, string, error) {
		return s.dashboards(ctx).ListDashboards(ctx, pg)
	}, dashboardOf)
	return &DashboardListOutput{Body: body}, err
}

// renderMyDashboard renders the caller's dashboard: a partner's level's or the default one.
func (s *Server) renderMyDashboard(ctx context.Context, _ *struct{}) (*RenderedDashboardOutput, error) {
	r, err := s.dashboards(ctx).MyDashboard(ctx, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	return &RenderedDashboardOutput{Body: renderedOf(r)}, nil
}

// getDashboard answers one dashboard.
func (s *Server) getDashboard(ctx context.Context, in *IDPath) (*DashboardOutput, error) {
	d, err := s.dashboards(ctx).Dashboard(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &DashboardOutput{Body: dashboardOf(d)}, nil
}

// updateDashboard changes a dashboard.
func (s *Server) updateDashboard(ctx context.Context, in *UpdateDashboardInput) (*DashboardOutput, error) {
	b := in.Body
	ch := models.DashboardChanges{Name: b.Name, Levels: b.Levels, IsDefault: b.IsDefault}
	if b.Widgets != nil {
		w := widgetsIn(*b.Widgets)
		ch.Widgets = &w
	}
	d, err := s.dashboards(ctx).UpdateDashboard(ctx, in.ID, ch)
	if err != nil {
		return nil, err
	}
	return &DashboardOutput{Body: dashboardOf(d)}, nil
}

// deleteDashboard deletes a dashboard.
func (s *Server) deleteDashboard(ctx context.Context, in *IDPath) (*struct{}, error) {
	return nil, s.dashboards(ctx).DeleteDashboard(ctx, in.ID)
}

// renderDashboard renders a dashboard's widgets for the caller.
func (s *Server) renderDashboard(ctx context.Context, in *IDPath) (*RenderedDashboardOutput, error) {
	r, err := s.dashboards(ctx).RenderDashboard(ctx, in.ID, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	return &RenderedDashboardOutput{Body: renderedOf(r)}, nil
}

// previewWidget computes one unsaved widget for the caller.
func (s *Server) previewWidget(ctx context.Context, in *PreviewWidgetInput) (*RenderedWidgetOutput, error) {
	r, err := s.dashboards(ctx).PreviewWidget(ctx, widgetIn(in.Body.Widget), time.Now().UTC())
	if err != nil {
		return nil, err
	}
	return &RenderedWidgetOutput{Body: renderedWidgetOf(r)}, nil
}
