package models

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Metric kinds.
const (
	// MetricCount counts matching events.
	MetricCount = "count"
	// MetricSum adds up an integer payload field of matching events.
	MetricSum = "sum"
	// MetricUnique counts the distinct values of a payload field (or distinct customers).
	MetricUnique = "unique"
	// MetricCSAT is the CSAT score of the CSAT surveys answered: the percentage of answers
	// scoring 4 or 5.
	MetricCSAT = "csat"
	// MetricNPS is the NPS of the NPS surveys answered: the percentage of promoters (9–10) minus
	// that of detractors (0–6).
	MetricNPS = "nps"
	// MetricMDFROI is the return on market development funds (ADR 33): the won revenue of the
	// deals that MDF claims reimbursed in the period influenced, divided by what those claims
	// spent, in basis points (10 000 = 1×). It reads claims and deals, not events.
	MetricMDFROI = "mdf_roi"
)

// MetricKinds lists the metric kinds.
var MetricKinds = []string{MetricCount, MetricSum, MetricUnique, MetricCSAT, MetricNPS, MetricMDFROI}

// EventMetric reports whether a metric kind is computed over events (and kept in a rollup):
// every kind but mdf_roi, which reads MDF claims and deals.
func EventMetric(kind string) bool { return kind != MetricMDFROI }

// MDFROIMetricEventType is the event that marks the spend an mdf_roi metric counts: a claim's
// final approval, when it is reimbursed. The metric reads the claims themselves.
const MDFROIMetricEventType = EventMDFClaimApproved

// ScoreMetric reports whether a metric kind is a survey score (csat or nps): computed over
// survey.responded events, in whole percentage points, with no value without answers.
func ScoreMetric(kind string) bool { return kind == MetricCSAT || kind == MetricNPS }

// Survey score metrics read the score of survey.responded events.
const (
	ScoreMetricEventType = EventSurveyResponded
	ScoreMetricField     = "score"
)

// Metric units: what a metric's numbers are.
const (
	// UnitCount: plain numbers (counts, quantities).
	UnitCount = "count"
	// UnitMoney: minor units of the metric's currency (a sum of amounts such as 1999 for 19.99 EUR).
	UnitMoney = "money"
	// UnitScore: whole percentage points rounded towards zero (CSAT 0 to 100, NPS -100 to 100).
	UnitScore = "score"
	// UnitBasisPoints: a ratio in basis points (10 000 = 1×), of amounts in the metric's currency
	// (mdf_roi).
	UnitBasisPoints = "bps"
)

// MetricUnits lists the metric units.
var MetricUnits = []string{UnitCount, UnitMoney, UnitScore, UnitBasisPoints}

// MetricFieldCustomer is the field of a unique metric that counts distinct customers.
const MetricFieldCustomer = "customer"

// Filter operators of a metric's payload filters.
const (
	FilterEq  = "eq"
	FilterNeq = "neq"
)

// Compute intervals.
const (
	IntervalHour  = "hour"
	IntervalDay   = "day"
	IntervalWeek  = "week"
	IntervalMonth = "month"
)

// Intervals lists the intervals a time series may use.
var Intervals = []string{IntervalHour, IntervalDay, IntervalWeek, IntervalMonth}

// Metric is an operator-defined count, sum, unique count or survey score over events of one
// type, or the return on market development funds.
type Metric struct {
	ID       string `gorm:"primaryKey;size:36"`
	TenantID string `gorm:"size:36;not null"`
	Name     string `gorm:"size:200;not null"`
	Kind     string `gorm:"size:16;not null"`
	// EventType is an exact event type or a pattern with `*` wildcards.
	EventType string `gorm:"size:128;not null"`
	// Field is the dotted payload path summed or counted once per value; MetricFieldCustomer
	// counts distinct customers. Empty for count metrics.
	Field string `gorm:"size:200"`
	// Filters is a JSON array of MetricFilter.
	Filters string `gorm:"type:text;not null"`
	// Unit is UnitCount or UnitMoney (a sum in minor units of Currency), UnitScore (csat, nps)
	// or UnitBasisPoints (mdf_roi).
	Unit string `gorm:"size:16;not null"`
	// Currency is the ISO 4217 code of a money or mdf_roi metric; empty otherwise.
	Currency string `gorm:"size:3;not null"`
	// FundID limits an mdf_roi metric to the claims of one MDF fund; empty for every fund (and
	// for the other kinds).
	FundID string `gorm:"size:36;not null;default:''"`
	// RolledUpTo is the event id up to which (inclusive) the metric's rollup holds every
	// matching event; empty when nothing is rolled up yet.
	RolledUpTo string `gorm:"size:36;not null"`
	// Numbered is how many distinct values the rollup of a unique metric has numbered.
	Numbered  int64 `gorm:"not null"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

// MetricFilter keeps only events whose payload value at Path is (eq) or is not (neq) Value.
type MetricFilter struct {
	Path string `json:"path"`
	Op   string `json:"op"`
	// Value is a JSON scalar: a string, a number, true, false or null.
	Value json.RawMessage `json:"value"`
}

// FilterList is the metric's payload filters.
func (m *Metric) FilterList() []MetricFilter {
	var out []MetricFilter
	_ = json.Unmarshal([]byte(m.Filters), &out)
	return out
}

// MetricChanges are the fields an update sets; nil fields stay.
type MetricChanges struct {
	Name      *string
	Kind      *string
	EventType *string
	Field     *string
	Filters   *[]MetricFilter
	Unit      *string
	Currency  *string
	FundID    *string
}

// MetricQuery asks for a metric's value over [From, To), optionally per Interval, limited to
// one partner or the partners of one level.
type MetricQuery struct {
	From, To     time.Time
	Interval     string
	PartnerID    string
	PartnerLevel string
}

// MetricPoint is one bucket of a time series.
type MetricPoint struct {
	Start time.Time
	Value int64
	// Responses counts the answers of a csat or nps point; without answers the point has no
	// score (Value is 0 and means nothing).
	Responses int64
	// Spend and Revenue are an mdf_roi point's reimbursed spend and influenced won revenue;
	// without spend the point has no ROI.
	Spend, Revenue int64
}

// HasValue reports whether the point has a value: a csat or nps point needs answers, an mdf_roi
// point spend.
func (p MetricPoint) HasValue(kind string) bool { return hasValue(kind, p.Responses, p.Spend) }

func hasValue(kind string, responses, spend int64) bool {
	switch {
	case ScoreMetric(kind):
		return responses > 0
	case kind == MetricMDFROI:
		return spend > 0
	}
	return true
}

// AlwaysValued reports whether every computation of a metric of kind has a value, even over
// nothing (0): counts, sums and unique counts, not scores or ROI.
func AlwaysValued(kind string) bool { return !ScoreMetric(kind) && kind != MetricMDFROI }

// MetricResult is a computed metric.
type MetricResult struct {
	// Kind is the metric's kind.
	Kind string
	// Name, Unit and Currency are the metric's, for showing the numbers.
	Name, Unit, Currency string
	// From and To are the range actually computed: the requested range widened to whole
	// hours (whole days for unique metrics).
	From, To time.Time
	Value    int64
	// Skipped counts matching events whose field held no usable value: a missing field, or for
	// sums a value that is not an integer JSON number within int64.
	Skipped int64
	// Responses counts the answers a csat or nps metric was computed from; without answers
	// there is no score (Value is 0 and means nothing).
	Responses int64
	// Spend is what the MDF claims of an mdf_roi metric spent (minor units of Currency), Revenue
	// the won revenue of the deals they influenced; without spend there is no ROI.
	Spend, Revenue int64
	// Series is set when an interval was asked for; empty buckets hold zero (csat and nps: no
	// answers, no score; mdf_roi: no spend, no ROI).
	Series []MetricPoint
}

// HasValue reports whether the result has a value: a csat or nps score needs answers, an ROI
// spend.
func (r *MetricResult) HasValue() bool { return hasValue(r.Kind, r.Responses, r.Spend) }

// ScoreOf is the score of a csat or nps metric from its answers: total is the number satisfied
// (CSAT) or promoters minus detractors (NPS). Like SurveyScore.Finish: × 100 / responses,
// rounded towards zero; 0 without responses.
func ScoreOf(total, responses int64) int64 {
	if responses <= 0 {
		return 0
	}
	return total * 100 / responses
}

// NormalizeMetric fills in what a csat or nps metric always reads (survey.responded, its score,
// unit score), what an mdf_roi metric is (claims approved, unit bps) and the default unit
// (count) of the others.
func NormalizeMetric(m *Metric) {
	if ScoreMetric(m.Kind) {
		m.EventType, m.Field, m.Unit, m.Currency = ScoreMetricEventType, ScoreMetricField, UnitScore, ""
		return
	}
	if m.Kind == MetricMDFROI {
		m.EventType, m.Field, m.Unit = MDFROIMetricEventType, "", UnitBasisPoints
		m.Currency = strings.ToUpper(m.Currency)
		return
	}
	if m.Unit == "" {
		m.Unit = UnitCount
	}
}

// MaxSeriesPoints bounds the length of a computed time series.
const MaxSeriesPoints = 1000

var payloadPathPattern = regexp.MustCompile(`^[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*$`)

// ValidPayloadPath reports whether p is a dotted payload path such as `amount` or
// `invoice.total`.
func ValidPayloadPath(p string) bool {
	return len(p) <= 200 && payloadPathPattern.MatchString(p)
}

// ValidateMetric returns every problem of a metric definition at once, located under prefix
// (e.g. "body."), or nil.
func ValidateMetric(m *Metric, filters []MetricFilter, prefix string) *Error {
	var problems []FieldError
	if m.Name == "" {
		problems = append(problems, FieldError{Location: prefix + "name", Message: "is required"})
	}
	switch m.Kind {
	case MetricCount:
		if m.Field != "" {
			problems = append(problems, FieldError{Location: prefix + "field", Message: "a count takes no field", Value: m.Field})
		}
	case MetricSum:
		if !ValidPayloadPath(m.Field) || m.Field == MetricFieldCustomer {
			problems = append(problems, FieldError{Location: prefix + "field", Message: "a sum needs a dotted payload path such as amount or invoice.total", Value: m.Field})
		}
	case MetricUnique:
		if !ValidPayloadPath(m.Field) {
			problems = append(problems, FieldError{Location: prefix + "field", Message: "a unique count needs a dotted payload path or customer", Value: m.Field})
		}
	case MetricCSAT, MetricNPS:
		if m.EventType != ScoreMetricEventType || m.Field != ScoreMetricField {
			problems = append(problems, FieldError{Location: prefix + "eventType", Message: "csat and nps metrics read the score of survey.responded", Value: m.EventType})
		}
	case MetricMDFROI:
		if m.EventType != MDFROIMetricEventType || m.Field != "" {
			problems = append(problems, FieldError{Location: prefix + "eventType", Message: "an mdf_roi metric reads approved MDF claims (mdf.claim_approved) and takes no field", Value: m.EventType})
		}
		if len(filters) > 0 {
			problems = append(problems, FieldError{Location: prefix + "filters", Message: "an mdf_roi metric reads MDF claims, not event payloads: it takes no filters (name a fund with fundId)"})
		}
	default:
		problems = append(problems, FieldError{Location: prefix + "kind", Message: "must be count, sum, unique, csat, nps or mdf_roi", Value: m.Kind})
	}
	if m.FundID != "" && m.Kind != MetricMDFROI {
		problems = append(problems, FieldError{Location: prefix + "fundId", Message: "only an mdf_roi metric takes a fund", Value: m.FundID})
	}
	switch m.Unit {
	case UnitCount:
		if m.Currency != "" {
			problems = append(problems, FieldError{Location: prefix + "currency", Message: "only money and mdf_roi metrics take a currency", Value: m.Currency})
		}
	case UnitMoney:
		if m.Kind != MetricSum {
			problems = append(problems, FieldError{Location: prefix + "unit", Message: "only a sum can be money", Value: m.Unit})
		}
		if !ValidCurrency(m.Currency) {
			problems = append(problems, FieldError{Location: prefix + "currency", Message: "a money metric needs an ISO 4217 currency such as EUR", Value: m.Currency})
		}
	case UnitScore:
		if !ScoreMetric(m.Kind) {
			problems = append(problems, FieldError{Location: prefix + "unit", Message: "only csat and nps metrics are scores", Value: m.Unit})
		}
	case UnitBasisPoints:
		if m.Kind != MetricMDFROI {
			problems = append(problems, FieldError{Location: prefix + "unit", Message: "only an mdf_roi metric is in basis points", Value: m.Unit})
		}
		if !ValidCurrency(m.Currency) {
			problems = append(problems, FieldError{Location: prefix + "currency", Message: "an mdf_roi metric needs the ISO 4217 currency of the spend and revenue it divides, such as EUR", Value: m.Currency})
		}
	default:
		problems = append(problems, FieldError{Location: prefix + "unit", Message: "must be count, money, score or bps", Value: m.Unit})
	}
	if ScoreMetric(m.Kind) && m.Unit != UnitScore {
		problems = append(problems, FieldError{Location: prefix + "unit", Message: "csat and nps metrics are scores", Value: m.Unit})
	}
	if m.Kind == MetricMDFROI && m.Unit != UnitBasisPoints {
		problems = append(problems, FieldError{Location: prefix + "unit", Message: "an mdf_roi metric is in basis points (bps)", Value: m.Unit})
	}
	if !ValidEventPattern(m.EventType) {
		problems = append(problems, FieldError{Location: prefix + "eventType", Message: "must be an event type or a pattern with * wildcards", Value: m.EventType})
	}
	for i, f := range filters {
		loc := prefix + "filters[" + itoa(i) + "]."
		if !ValidPayloadPath(f.Path) {
			problems = append(problems, FieldError{Location: loc + "path", Message: "must be a dotted payload path", Value: f.Path})
		}
		if f.Op != FilterEq && f.Op != FilterNeq {
			problems = append(problems, FieldError{Location: loc + "op", Message: "must be eq or neq", Value: f.Op})
		}
		if !jsonScalar(f.Value) {
			problems = append(problems, FieldError{Location: loc + "value", Message: "must be a string, number, boolean or null"})
		}
	}
	if len(problems) > 0 {
		return Invalid("INVALID_METRIC", "the metric is not valid", problems...)
	}
	return nil
}

func jsonScalar(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return false
	}
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

func itoa(i int) string { return strconv.Itoa(i) }

// MetricEvaluator applies one metric definition to events.
type MetricEvaluator struct {
	kind, field, pattern string
	path                 []string
	filters              []compiledFilter
}

type compiledFilter struct {
	path []string
	neq  bool
	want any
}

// Evaluator compiles the metric for evaluating events.
func (m *Metric) Evaluator() *MetricEvaluator {
	e := &MetricEvaluator{kind: m.Kind, field: m.Field, pattern: m.EventType}
	if m.Field != "" && m.Field != MetricFieldCustomer {
		e.path = strings.Split(m.Field, ".")
	}
	if ScoreMetric(m.Kind) {
		// The answers to surveys of the metric's kind only.
		e.filters = append(e.filters, compiledFilter{path: []string{"kind"}, want: m.Kind})
	}
	for _, f := range m.FilterList() {
		e.filters = append(e.filters, compiledFilter{path: strings.Split(f.Path, "."), neq: f.Op == FilterNeq, want: decodeScalar(f.Value)})
	}
	return e
}

// Observation is what one event contributes to a metric.
type Observation struct {
	// Match reports whether the event counts for the metric at all.
	Match bool
	// Usable is false when the field held no usable value (the event is skipped).
	Usable bool
	// Amount is the integer value of a sum.
	Amount int64
	// Value is the value counted once by a unique metric.
	Value string
}

// Observe evaluates one event: its type, customer and JSON payload.
func (e *MetricEvaluator) Observe(eventType string, customerID *string, payload string) Observation {
	if !MatchEventType(e.pattern, eventType) {
		return Observation{}
	}
	var doc any
	if len(e.filters) > 0 || e.path != nil {
		d := json.NewDecoder(strings.NewReader(payload))
		d.UseNumber()
		if err := d.Decode(&doc); err != nil {
			doc = nil
		}
	}
	for _, f := range e.filters {
		v, ok := lookup(doc, f.path)
		eq := ok && scalarEqual(v, f.want)
		if eq == f.neq {
			return Observation{}
		}
	}
	o := Observation{Match: true}
	switch e.kind {
	case MetricCount:
		o.Usable = true
	case MetricSum:
		if v, ok := lookup(doc, e.path); ok {
			if n, isNum := v.(json.Number); isNum {
				if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
					o.Usable, o.Amount = true, i
				}
			}
		}
	case MetricCSAT, MetricNPS:
		// A score within the kind's range; Amount is 1 for a satisfied CSAT answer, +1 for an
		// NPS promoter and -1 for a detractor.
		v, ok := lookup(doc, e.path)
		n, isNum := v.(json.Number)
		if !ok || !isNum {
			break
		}
		score, err := strconv.Atoi(string(n))
		lo, hi := SurveyScoreRange(e.kind)
		if err != nil || score < lo || score > hi {
			break
		}
		o.Usable = true
		switch {
		case e.kind == MetricCSAT && CSATSatisfied(score):
			o.Amount = 1
		case e.kind == MetricNPS && NPSClass(score) == NPSPromoter:
			o.Amount = 1
		case e.kind == MetricNPS && NPSClass(score) == NPSDetractor:
			o.Amount = -1
		}
	case MetricUnique:
		if e.field == MetricFieldCustomer {
			if customerID != nil && *customerID != "" {
				o.Usable, o.Value = true, *customerID
			}
			break
		}
		v, ok := lookup(doc, e.path)
		if !ok {
			break
		}
		switch x := v.(type) {
		case string:
			o.Usable, o.Value = true, "s:"+x
		case json.Number:
			o.Usable, o.Value = true, "n:"+canonicalNumber(x)
		case bool:
			o.Usable, o.Value = true, "b:"+strconv.FormatBool(x)
		}
		if len(o.Value) > 200 {
			sum := sha256.Sum256([]byte(o.Value))
			o.Value = "h:" + hex.EncodeToString(sum[:])
		}
	}
	return o
}

func lookup(doc any, path []string) (any, bool) {
	cur := doc
	for _, p := range path {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func decodeScalar(raw json.RawMessage) any {
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	var v any
	_ = d.Decode(&v)
	return v
}

// scalarEqual compares JSON scalars; numbers are equal when they denote the same value
// (1, 1.0 and 1e0 are equal).
func scalarEqual(a, b any) bool {
	an, aNum := a.(json.Number)
	bn, bNum := b.(json.Number)
	if aNum && bNum {
		x, ok1 := new(big.Rat).SetString(string(an))
		y, ok2 := new(big.Rat).SetString(string(bn))
		return ok1 && ok2 && x.Cmp(y) == 0
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

func canonicalNumber(n json.Number) string {
	if r, ok := new(big.Rat).SetString(string(n)); ok {
		return r.RatString()
	}
	return string(n)
}

// ValidInterval reports whether interval is empty or one of Intervals.
func ValidInterval(interval string) bool {
	return interval == "" || slices.Contains(Intervals, interval)
}

// IntervalStart is the start of the interval bucket holding t (UTC; weeks start on Monday).
func IntervalStart(interval string, t time.Time) time.Time {
	t = t.UTC()
	switch interval {
	case IntervalHour:
		return t.Truncate(time.Hour)
	case IntervalDay:
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	case IntervalWeek:
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	case IntervalMonth:
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return t
}

// NextInterval is the start of the bucket after the one starting at start.
func NextInterval(interval string, start time.Time) time.Time {
	switch interval {
	case IntervalHour:
		return start.Add(time.Hour)
	case IntervalDay:
		return start.AddDate(0, 0, 1)
	case IntervalWeek:
		return start.AddDate(0, 0, 7)
	case IntervalMonth:
		return start.AddDate(0, 1, 0)
	}
	return start
}
