package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// MetricStore is what the metric operations need of storage, as the caller sees it.
type MetricStore interface {
	CreateMetric(ctx context.Context, m *models.Metric, filters []models.MetricFilter) error
	ListMetrics(ctx context.Context, pg models.Page) ([]models.Metric, string, error)
	Metric(ctx context.Context, id string) (*models.Metric, error)
	UpdateMetric(ctx context.Context, id string, ch models.MetricChanges) (*models.Metric, error)
	DeleteMetric(ctx context.Context, id string) error
	ComputeMetric(ctx context.Context, id string, q models.MetricQuery) (*models.MetricResult, error)
}

// metrics is the metric store as the caller sees it.
func (s *Server) metrics(ctx context.Context) MetricStore {
	return s.deps.Modules.Metrics(models.PrincipalFrom(ctx))
}

const tagMetrics = "Metrics"

// JSONScalar is a JSON string, number, boolean or null passed through unchanged: numbers keep
// every digit.
type JSONScalar json.RawMessage

// Schema declares JSONScalar as any scalar.
func (JSONScalar) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Description: "A string, number, boolean or null"}
}

// MarshalJSON writes the value as it is.
func (v JSONScalar) MarshalJSON() ([]byte, error) {
	if len(v) == 0 {
		return []byte("null"), nil
	}
	return v, nil
}

// UnmarshalJSON keeps the raw value.
func (v *JSONScalar) UnmarshalJSON(b []byte) error {
	*v = append((*v)[:0], b...)
	return nil
}

// MetricFilterBody keeps only events whose payload value at path is (eq) or is not (neq) value.
type MetricFilterBody struct {
	Path  string     `json:"path" maxLength:"200" doc:"Dotted payload path, e.g. plan or invoice.currency"`
	Op    string     `json:"op" enum:"eq,neq" doc:"eq: the value at path equals value; neq: it differs or is missing"`
	Value JSONScalar `json:"value" doc:"A JSON scalar; numbers compare by value (1 equals 1.0)"`
}

// Metric is a metric definition as the API shows it.
type Metric struct {
	ID        string             `json:"id"`
	Name      string             `json:"name"`
	Kind      string             `json:"kind" enum:"count,sum,unique,csat,nps,mdf_roi"`
	EventType string             `json:"eventType"`
	Field     string             `json:"field,omitempty"`
	Filters   []MetricFilterBody `json:"filters" nullable:"false"`
	Unit      string             `json:"unit" enum:"count,money,score,bps" doc:"count: plain numbers; money: minor units of currency; score (csat and nps): whole percentage points rounded towards zero; bps (mdf_roi): basis points, 10000 = 1×"`
	Currency  string             `json:"currency,omitempty" doc:"ISO 4217 code of a money or mdf_roi metric"`
	FundID    string             `json:"fundId,omitempty" doc:"mdf_roi: the MDF fund whose claims it reads; absent for every fund"`
	CreatedAt time.Time          `json:"createdAt"`
	UpdatedAt time.Time          `json:"updatedAt"`
}

func metricOf(m *models.Metric) Metric {
	out := Metric{ID: m.ID, Name: m.Name, Kind: m.Kind, EventType: m.EventType, Field: m.Field,
		Filters: []MetricFilterBody{}, Unit: m.Unit, Currency: m.Currency, FundID: m.FundID, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
	for _, f := range m.FilterList() {
		out.Filters = append(out.Filters, MetricFilterBody{Path: f.Path, Op: f.Op, Value: JSONScalar(f.Value)})
	}
	return out
}

func filtersOf(in []MetricFilterBody) []models.MetricFilter {
	out := make([]models.MetricFilter, 0, len(in))
	for _, f := range in {
		out = append(out, models.MetricFilter{Path: f.Path, Op: f.Op, Value: json.RawMessage(f.Value)})
	}
	return out
}

// MetricBody is a metric definition as clients send it.
type MetricBody struct {
	Name      string             `json:"name" minLength:"1" maxLength:"200"`
	Kind      string             `json:"kind" enum:"count,sum,unique,csat,nps,mdf_roi" doc:"count: matching events; sum: the integer payload field added up; unique: distinct values of the field; csat: the percentage of CSAT survey answers scoring 4 or 5; nps: the percentage of NPS promoters (9–10) minus that of detractors (0–6); mdf_roi: the return on market development funds, the won revenue of the deals that the MDF claims approved in the range influenced (each deal once) divided by what those claims spent, in basis points. csat and nps always read the score of survey.responded events (eventType, field and unit are set to survey.responded, score and score); mdf_roi reads approved claims (eventType and unit are set to mdf.claim_approved and bps) and takes no field or filters."`
	EventType string             `json:"eventType,omitempty" maxLength:"128" doc:"An event type, or a pattern with * wildcards (invoice.*); required except for csat, nps and mdf_roi"`
	Field     string             `json:"field,omitempty" maxLength:"200" doc:"For sum and unique: a dotted payload path (amount, invoice.total); for unique, customer counts distinct customers. Sums take integer JSON numbers only; other values are skipped and counted as skipped."`
	Filters   []MetricFilterBody `json:"filters,omitempty" maxItems:"20"`
	Unit      string             `json:"unit,omitempty" enum:"count,money,score,bps" doc:"count (the default): plain numbers; money: a sum of amounts in minor units of currency; score: csat and nps (set for them); bps: mdf_roi (set for it)"`
	Currency  string             `json:"currency,omitempty" maxLength:"3" doc:"ISO 4217 code (EUR); required for money and mdf_roi (an mdf_roi metric with a fund defaults to the fund's), refused otherwise"`
	FundID    string             `json:"fundId,omitempty" maxLength:"36" doc:"mdf_roi only: the return of this MDF fund's claims (422 at fundId for a fund that is not the tenant's, at currency for a fund in another currency); without it, of every fund"`
}

// CreateMetricInput defines a metric.
type CreateMetricInput struct {
	Body MetricBody
}

// UpdateMetricInput changes a metric; absent fields stay. A change of what it computes
// rebuilds its rollup on the next compute.
type UpdateMetricInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Name      *string             `json:"name,omitempty" minLength:"1" maxLength:"200"`
		Kind      *string             `json:"kind,omitempty" enum:"count,sum,unique,csat,nps,mdf_roi" doc:"Becoming csat or nps sets eventType, field and unit to survey.responded, score and score; becoming mdf_roi sets eventType and unit to mdf.claim_approved and bps (send filters [] to drop filters)"`
		EventType *string             `json:"eventType,omitempty" maxLength:"128"`
		Field     *string             `json:"field,omitempty" maxLength:"200"`
		Filters   *[]MetricFilterBody `json:"filters,omitempty" maxItems:"20"`
		Unit      *string             `json:"unit,omitempty" enum:"count,money,score,bps"`
		Currency  *string             `json:"currency,omitempty" maxLength:"3" doc:"Empty for count metrics"`
		FundID    *string             `json:"fundId,omitempty" maxLength:"36" doc:"mdf_roi only; empty for every fund"`
	}
}

// MetricOutput is one metric.
type MetricOutput struct {
	Body Metric
}

// MetricListOutput is a page of metrics.
type MetricListOutput struct {
	Body ListBody[Metric]
}

// ComputeMetricInput asks for a metric's value.
type ComputeMetricInput struct {
	ID           string    `path:"id" maxLength:"36"`
	From         time.Time `query:"from" doc:"Start (RFC 3339), rounded down to the hour (to the day for unique metrics); default 30 days before to"`
	To           time.Time `query:"to" doc:"End, exclusive (RFC 3339), rounded up to the hour (to the day for unique metrics); default now"`
	Interval     string    `query:"interval" enum:"hour,day,week,month" doc:"Also return a time series with one point per interval (UTC; weeks start on Monday); empty intervals hold 0 (csat, nps and mdf_roi: null)"`
	PartnerID    string    `query:"partnerId" maxLength:"36" doc:"Only this partner's customers' events (mdf_roi: its MDF claims). Partners always get their own; naming another partner is 403."`
	PartnerLevel string    `query:"partnerLevel" maxLength:"64" doc:"Only events (mdf_roi: MDF claims) of partners currently at this level"`
}

// MetricPoint is one interval of a time series.
type MetricPoint struct {
	Start time.Time `json:"start"`
	Value *int64    `json:"value" doc:"The interval's value; null only for a csat or nps interval without answers and an mdf_roi interval without spend"`
	// Responses is set for csat and nps.
	Responses *int64 `json:"responses,omitempty" doc:"csat and nps: the answers of the interval"`
	// Spend and InfluencedRevenue are set for mdf_roi.
	Spend             *int64 `json:"spend,omitempty" doc:"mdf_roi: what the MDF claims approved in the interval spent, in minor units of currency"`
	InfluencedRevenue *int64 `json:"influencedRevenue,omitempty" doc:"mdf_roi: the won revenue of the deals those claims influenced, each once, in minor units of currency"`
}

// MetricValue is a computed metric.
type MetricValue struct {
	MetricID string    `json:"metricId"`
	Name     string    `json:"name" doc:"The metric's name"`
	Kind     string    `json:"kind" enum:"count,sum,unique,csat,nps,mdf_roi"`
	Unit     string    `json:"unit" enum:"count,money,score,bps" doc:"money: value and series are minor units of currency; score: whole percentage points rounded towards zero (csat 0 to 100, nps -100 to 100); bps: basis points (10000 = 1×) rounded half away from zero"`
	Currency string    `json:"currency,omitempty" doc:"ISO 4217 code of a money or mdf_roi metric"`
	From     time.Time `json:"from" doc:"The start actually computed"`
	To       time.Time `json:"to" doc:"The end actually computed, exclusive"`
	Interval string    `json:"interval,omitempty"`
	Value    *int64    `json:"value" doc:"The count, the integer sum, the number of distinct values, the csat or nps score, or the MDF return in basis points; null only for a csat or nps metric without answers in the range and an mdf_roi metric without spend"`
	// Responses is set for csat and nps.
	Responses *int64 `json:"responses,omitempty" doc:"csat and nps: the survey answers the score is computed from"`
	// Spend and InfluencedRevenue are set for mdf_roi.
	Spend             *int64        `json:"spend,omitempty" doc:"mdf_roi: what the MDF claims approved in the range spent (reimbursed), in minor units of currency"`
	InfluencedRevenue *int64        `json:"influencedRevenue,omitempty" doc:"mdf_roi: the won revenue, in currency and minor units, of the deals those claims influenced, each deal once"`
	Skipped           int64         `json:"skipped" doc:"Matching events left out because their field was missing or, for sums, not an integer (csat and nps: not a score of the kind's range)"`
	Series            []MetricPoint `json:"series,omitempty"`
}

func metricValueOf(id, interval string, r *models.MetricResult) MetricValue {
	v := MetricValue{MetricID: id, Name: r.Name, Kind: r.Kind, Unit: r.Unit, Currency: r.Currency, From: r.From, To: r.To, Interval: interval, Skipped: r.Skipped}
	score, roi := models.ScoreMetric(r.Kind), r.Kind == models.MetricMDFROI
	if r.HasValue() {
		v.Value = &r.Value
	}
	if score {
		v.Responses = &r.Responses
	}
	if roi {
		v.Spend, v.InfluencedRevenue = &r.Spend, &r.Revenue
	}
	if interval != "" {
		v.Series = make([]MetricPoint, 0, len(r.Series))
		for _, p := range r.Series {
			pt := MetricPoint{Start: p.Start}
			if p.HasValue(r.Kind) {
				pt.Value = &p.Value
			}
			if score {
				pt.Responses = &p.Responses
			}
			if roi {
				pt.Spend, pt.InfluencedRevenue = &p.Spend, &p.Revenue
			}
			v.Series = append(v.Series, pt)
		}
	}
	return v
}

// MetricValueOutput is a computed metric.
type MetricValueOutput struct {
	Body MetricValue
}

func registerMetricRoutes(s *Server) {
	tags := []string{tagMetrics}
	register(s, huma.Operation{
		OperationID: "create-metric", Method: http.MethodPost, Path: "/api/metrics", Tags: tags,
		RequestBody: requestExample(`{"name": "Won revenue (EUR)", "kind": "sum", "eventType": "deal.won", "field": "amountMinor", "filters": [{"path": "currency", "op": "eq", "value": "EUR"}]}`),
		Summary:     "Define a metric", DefaultStatus: http.StatusCreated, Security: UsersOrKeys,
		Errors: []int{http.StatusUnprocessableEntity},
	}, Requires(authz.MetricsWrite), s.createMetric)

	register(s, huma.Operation{
		OperationID: "list-metrics", Method: http.MethodGet, Path: "/api/metrics", Tags: tags,
		Summary: "List metrics", Security: UsersOrKeys,
	}, Requires(authz.MetricsRead), s.listMetrics)

	register(s, huma.Operation{
		OperationID: "get-metric", Method: http.MethodGet, Path: "/api/metrics/{id}", Tags: tags,
		Summary: "Get a metric", Security: UsersOrKeys, Errors: []int{http.StatusNotFound},
	}, Requires(authz.MetricsRead), s.getMetric)

	register(s, huma.Operation{
		OperationID: "update-metric", Method: http.MethodPatch, Path: "/api/metrics/{id}", Tags: tags,
		RequestBody: requestExample(`{"name": "Won revenue in euros"}`),
		Summary:     "Change a metric", Security: UsersOrKeys,
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, Requires(authz.MetricsWrite), s.updateMetric)

	register(s, huma.Operation{
		OperationID: "delete-metric", Method: http.MethodDelete, Path: "/api/metrics/{id}", Tags: tags,
		Summary: "Delete a metric", Description: "A metric shown on a dashboard cannot be deleted (409 METRIC_IN_USE).",
		Security: UsersOrKeys, DefaultStatus: http.StatusNoContent, Errors: []int{http.StatusNotFound, http.StatusConflict},
	}, Requires(authz.MetricsWrite), s.deleteMetric)

	register(s, huma.Operation{
		OperationID: "compute-metric", Method: http.MethodGet, Path: "/api/metrics/{id}/compute", Tags: tags,
		Summary:     "Compute a metric",
		Description: "The value over a range and, with interval, a time series. Partners always get their own customers' events only (mdf_roi: their own MDF claims).",
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, Requires(authz.MetricsRead), s.computeMetric)

	registerDashboardRoutes(s)
}

// createMetric defines a metric.
func (s *Server) createMetric(ctx context.Context, in *CreateMetricInput) (*MetricOutput, error) {
	b := in.Body
	m := &models.Metric{Name: b.Name, Kind: b.Kind, EventType: b.EventType, Field: b.Field, Unit: b.Unit, Currency: b.Currency, FundID: b.FundID}
	if err := s.metrics(ctx).CreateMetric(ctx, m, filtersOf(b.Filters)); err != nil {
		return nil, err
	}
	return &MetricOutput{Body: metricOf(m)}, nil
}

// listMetrics lists metrics.
func (s *Server) listMetrics(ctx context.Context, in *struct{ ListParams }) (*MetricListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Metric, string, error) {
		return s.metrics(ctx).ListMetrics(ctx, pg)
	}, metricOf)
	return &MetricListOutput{Body: body}, err
}

// getMetric answers one metric.
func (s *Server) getMetric(ctx context.Context, in *IDPath) (*MetricOutput, error) {
	m, err := s.metrics(ctx).Metric(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &MetricOutput{Body: metricOf(m)}, nil
}

// updateMetric changes a metric.
func (s *Server) updateMetric(ctx context.Context, in *UpdateMetricInput) (*MetricOutput, error) {
	b := in.Body
	ch := models.MetricChanges{Name: b.Name, Kind: b.Kind, EventType: b.EventType, Field: b.Field, Unit: b.Unit, Currency: b.Currency, FundID: b.FundID}
	if b.Filters != nil {
		f := filtersOf(*b.Filters)
		ch.Filters = &f
	}
	m, err := s.metrics(ctx).UpdateMetric(ctx, in.ID, ch)
	if err != nil {
		return nil, err
	}
	return &MetricOutput{Body: metricOf(m)}, nil
}

// deleteMetric deletes a metric.
func (s *Server) deleteMetric(ctx context.Context, in *IDPath) (*struct{}, error) {
	return nil, s.metrics(ctx).DeleteMetric(ctx, in.ID)
}

// computeMetric computes a metric's value over a range and, with an interval, its time series.
func (s *Server) computeMetric(ctx context.Context, in *ComputeMetricInput) (*MetricValueOutput, error) {
	r, err := s.metrics(ctx).ComputeMetric(ctx, in.ID, models.MetricQuery{From: in.From, To: in.To, Interval: in.Interval,
		PartnerID: in.PartnerID, PartnerLevel: in.PartnerLevel})
	if err != nil {
		return nil, err
	}
	return &MetricValueOutput{Body: metricValueOf(in.ID, in.Interval, r)}, nil
}
