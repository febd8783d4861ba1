package models

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"time"
)

// Health sources: what a component of a health model measures per partner.
const (
	// HealthWonRevenue is the value of the deals won in the window, in minor units of the
	// component's currency.
	HealthWonRevenue = "won_revenue"
	// HealthWonDeals is the number of deals won in the window.
	HealthWonDeals = "won_deals"
	// HealthNPS is the NPS of the surveys answered in the window (-100 to 100); none without answers.
	HealthNPS = "nps"
	// HealthCSAT is the CSAT of the surveys answered in the window (0 to 100); none without answers.
	HealthCSAT = "csat"
	// HealthOpenTickets is the number of tickets neither resolved nor closed.
	HealthOpenTickets = "open_tickets"
	// HealthSLABreaches is the number of SLA targets (first response, resolution) breached in the window.
	HealthSLABreaches = "sla_breaches"
	// HealthOnboarding is the percentage of the partner's onboarding tasks done; none without such tasks.
	HealthOnboarding = "onboarding_completion"
	// HealthDaysSinceSignIn is the whole days since a user of the partner last signed in or
	// renewed a session; since the partner joined when none ever did.
	HealthDaysSinceSignIn = "days_since_last_sign_in"
	// HealthMetric is one of the tenant's metrics computed for the partner over the window, as
	// the metric's compute answers it for that partner and period: a count, minor units of a
	// money sum's currency, a distinct count, a CSAT or NPS score (none without answers) or an
	// MDF return in basis points (none without spend).
	HealthMetric = "metric"
)

// HealthSources lists every source a component may measure.
var HealthSources = []string{HealthWonRevenue, HealthWonDeals, HealthNPS, HealthCSAT, HealthOpenTickets,
	HealthSLABreaches, HealthOnboarding, HealthDaysSinceSignIn, HealthMetric}

// HealthWindowed says whether a source counts over a window of days.
func HealthWindowed(source string) bool {
	switch source {
	case HealthWonRevenue, HealthWonDeals, HealthNPS, HealthCSAT, HealthSLABreaches, HealthMetric:
		return true
	}
	return false
}

// Health model limits.
const (
	MaxHealthComponents    = 20
	MaxHealthTiers         = 6
	MaxHealthWeight        = 100
	MaxHealthWindowDays    = 365
	DefaultHealthWindow    = 90
	DefaultHealthHour      = 3
	HealthThresholdLimit   = int64(1) << 50
	maxHealthLabelLength   = 100
	maxHealthTierNameBytes = 32
	maxHealthMetricIDBytes = 36
	// HealthSnapshotRetentionDays is how long snapshots are kept: the health run prunes those of
	// runs that started longer ago, except each partner's latest.
	HealthSnapshotRetentionDays = 400
)

// HealthComponent is one measure of a health model: a source, its weight, and the values at
// which it scores 0 and 100 (linear between, capped outside; either may be the larger, so a
// measure where less is better has ZeroAt above FullAt).
type HealthComponent struct {
	Source     string `json:"source" enum:"won_revenue,won_deals,nps,csat,open_tickets,sla_breaches,onboarding_completion,days_since_last_sign_in,metric" doc:"What the component measures"`
	Label      string `json:"label,omitempty" maxLength:"100" doc:"A name to show; the source when empty"`
	Weight     int    `json:"weight" minimum:"1" maximum:"100" doc:"Its share of the total, relative to the other components'"`
	ZeroAt     int64  `json:"zeroAt" minimum:"-1125899906842624" maximum:"1125899906842624" doc:"The value that scores 0"`
	FullAt     int64  `json:"fullAt" minimum:"-1125899906842624" maximum:"1125899906842624" doc:"The value that scores 100"`
	WindowDays int    `json:"windowDays,omitempty" minimum:"0" maximum:"365" doc:"The window of windowed sources, in days; 90 when 0"`
	Currency   string `json:"currency,omitempty" maxLength:"3" doc:"ISO 4217 currency of won_revenue (amounts in minor units); required there, empty elsewhere"`
	MetricID   string `json:"metricId,omitempty" maxLength:"36" doc:"The tenant's metric that a metric component computes per partner over the window; required there, empty elsewhere"`
}

// HealthTier names the scores from MinScore up to the next tier's cut-off.
type HealthTier struct {
	Name     string `json:"name" maxLength:"32" pattern:"^[a-z][a-z0-9_]*$" doc:"Lower-case name, e.g. healthy"`
	MinScore int    `json:"minScore" minimum:"0" maximum:"100" doc:"The lowest total score of the tier"`
}

// HealthModel is a tenant's health model: its components, its tiers from the best (highest
// cut-off) down to one starting at 0, and the hour (UTC) of the daily scoring. Version counts
// its changes; snapshots say which version scored them.
type HealthModel struct {
	TenantID   string            `json:"-"`
	Version    int               `json:"version"`
	Components []HealthComponent `json:"components"`
	Tiers      []HealthTier      `json:"tiers"`
	Hour       int               `json:"hour"`
	UpdatedBy  string            `json:"updatedBy,omitempty"`
	UpdatedAt  time.Time         `json:"updatedAt"`
}

var healthTierName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// CheckHealthModel validates a model's components, tiers and hour, naming every problem.
// metrics holds the ids of the tenant's metrics among those the components name; nil skips
// that check.
func CheckHealthModel(m *HealthModel, metrics map[string]bool) error {
	var fields []FieldError
	bad := func(loc, msg string, v any) {
		fields = append(fields, FieldError{Location: "body." + loc, Message: msg, Value: v})
	}
	if len(m.Components) == 0 || len(m.Components) > MaxHealthComponents {
		bad("components", fmt.Sprintf("1 to %d components", MaxHealthComponents), len(m.Components))
	}
	for i := range m.Components {
		c := &m.Components[i]
		at := fmt.Sprintf("components[%d].", i)
		if !slices.Contains(HealthSources, c.Source) {
			bad(at+"source", "unknown source", c.Source)
		}
		if c.Weight < 1 || c.Weight > MaxHealthWeight {
			bad(at+"weight", "a weight from 1 to 100", c.Weight)
		}
		if c.ZeroAt == c.FullAt {
			bad(at+"fullAt", "zeroAt and fullAt must differ", c.FullAt)
		}
		if c.ZeroAt > HealthThresholdLimit || c.ZeroAt < -HealthThresholdLimit || c.FullAt > HealthThresholdLimit || c.FullAt < -HealthThresholdLimit {
			bad(at+"zeroAt", "thresholds within ±2^50", c.ZeroAt)
		}
		if len(c.Label) > maxHealthLabelLength {
			bad(at+"label", "at most 100 characters", nil)
		}
		if c.WindowDays < 0 || c.WindowDays > MaxHealthWindowDays {
			bad(at+"windowDays", "0 to 365 days", c.WindowDays)
		}
		if !HealthWindowed(c.Source) && c.WindowDays != 0 {
			bad(at+"windowDays", "this source has no window", c.WindowDays)
		}
		if HealthWindowed(c.Source) && c.WindowDays == 0 {
			c.WindowDays = DefaultHealthWindow
		}
		if c.Source == HealthWonRevenue {
			if !ValidCurrency(c.Currency) {
				bad(at+"currency", "won_revenue needs an ISO 4217 currency", c.Currency)
			}
		} else if c.Currency != "" {
			bad(at+"currency", "only won_revenue takes a currency", c.Currency)
		}
		switch {
		case c.Source != HealthMetric && c.MetricID != "":
			bad(at+"metricId", "only a metric component names a metric", c.MetricID)
		case c.Source != HealthMetric:
		case c.MetricID == "":
			bad(at+"metricId", "a metric component names one of the tenant's metrics", c.MetricID)
		case len(c.MetricID) > maxHealthMetricIDBytes || (metrics != nil && !metrics[c.MetricID]):
			bad(at+"metricId", "no such metric in this tenant", c.MetricID)
		}
	}
	if len(m.Tiers) < 2 || len(m.Tiers) > MaxHealthTiers {
		bad("tiers", fmt.Sprintf("2 to %d tiers", MaxHealthTiers), len(m.Tiers))
	}
	seen := map[string]bool{}
	for i, t := range m.Tiers {
		at := fmt.Sprintf("tiers[%d].", i)
		if !healthTierName.MatchString(t.Name) || len(t.Name) > maxHealthTierNameBytes {
			bad(at+"name", "a lower-case name of letters, digits and underscores, at most 32", t.Name)
		} else if seen[t.Name] {
			bad(at+"name", "tier names are unique", t.Name)
		}
		seen[t.Name] = true
		if t.MinScore < 0 || t.MinScore > 100 {
			bad(at+"minScore", "0 to 100", t.MinScore)
		}
		if i > 0 && t.MinScore >= m.Tiers[i-1].MinScore {
			bad(at+"minScore", "tiers go from the highest cut-off down", t.MinScore)
		}
	}
	if n := len(m.Tiers); n > 0 && m.Tiers[n-1].MinScore != 0 {
		bad(fmt.Sprintf("tiers[%d].minScore", n-1), "the last tier starts at 0", m.Tiers[n-1].MinScore)
	}
	if m.Hour < 0 || m.Hour > 23 {
		bad("hour", "an hour from 0 to 23 (UTC)", m.Hour)
	}
	if len(fields) > 0 {
		return Invalid("INVALID_HEALTH_MODEL", "the health model is not valid", fields...)
	}
	return nil
}

// HealthValues are one partner's raw values per component index; a missing index has no data.
type HealthValues map[int]int64

// HealthComponentScore is how one component scored one partner: its raw value (absent without
// data), its normalised score (0 to 100), and its contribution to the total.
type HealthComponentScore struct {
	HealthComponent
	HealthMetricInfo
	Value        *int64   `json:"value,omitempty" doc:"The raw value: a count, minor units, a percentage, an NPS or days; absent without data"`
	Score        *float64 `json:"score,omitempty" doc:"The value normalised between zeroAt and fullAt, 0 to 100"`
	Contribution float64  `json:"contribution" doc:"Points of the total score this component gives: score × weight ÷ the weights of the components with data"`
}

// HealthMetricInfo says which metric a metric component computed, as it was when scored.
type HealthMetricInfo struct {
	MetricName     string `json:"metricName,omitempty" doc:"The name of the component's metric when it was scored"`
	MetricKind     string `json:"metricKind,omitempty" enum:"count,sum,unique,csat,nps,mdf_roi" doc:"The metric's kind"`
	MetricUnit     string `json:"metricUnit,omitempty" enum:"count,money,score,bps" doc:"What the metric's numbers are; money values are minor units of metricCurrency, bps values basis points (10000 = 1×)"`
	MetricCurrency string `json:"metricCurrency,omitempty" doc:"ISO 4217 currency of a money metric"`
	MetricDeleted  bool   `json:"metricDeleted,omitempty" doc:"The metric no longer existed when scored: the component had no value"`
}

// HealthResult is a partner's total score, tier and components under one model.
type HealthResult struct {
	Score      float64                `json:"score"`
	Tier       string                 `json:"tier"`
	Components []HealthComponentScore `json:"components"`
}

// round2 rounds to two decimals.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

// NormaliseHealth is v's score between zeroAt (0) and fullAt (100), capped to 0..100.
func NormaliseHealth(v, zeroAt, fullAt int64) float64 {
	s := float64(v-zeroAt) * 100 / float64(fullAt-zeroAt)
	return round2(math.Max(0, math.Min(100, s)))
}

// ScoreHealth scores one partner's values under m. Components without data are left out and
// the others' weights count in proportion; a partner without any data scores 0.
func ScoreHealth(m *HealthModel, values HealthValues) HealthResult {
	res := HealthResult{Components: make([]HealthComponentScore, len(m.Components))}
	weights := 0
	for i, c := range m.Components {
		res.Components[i].HealthComponent = c
		if v, ok := values[i]; ok {
			v := v
			s := NormaliseHealth(v, c.ZeroAt, c.FullAt)
			res.Components[i].Value, res.Components[i].Score = &v, &s
			weights += c.Weight
		}
	}
	total := 0.0
	for i := range res.Components {
		cs := &res.Components[i]
		if cs.Score != nil && weights > 0 {
			cs.Contribution = round2(*cs.Score * float64(cs.Weight) / float64(weights))
			total += *cs.Score * float64(cs.Weight) / float64(weights)
		}
	}
	res.Score = round2(total)
	res.Tier = HealthTierOf(m.Tiers, res.Score)
	return res
}

// HealthTierOf is the tier of a score: the first, from the highest cut-off down, that it reaches.
func HealthTierOf(tiers []HealthTier, score float64) string {
	for _, t := range tiers {
		if score >= float64(t.MinScore) {
			return t.Name
		}
	}
	if len(tiers) > 0 {
		return tiers[len(tiers)-1].Name
	}
	return ""
}

// Health run triggers and statuses.
const (
	HealthTriggerSchedule = "schedule"
	HealthTriggerManual   = "manual"
	HealthRunRunning      = "running"
	HealthRunDone         = "done"
)

// HealthRun is one scoring of a tenant's partners under one model version.
type HealthRun struct {
	ID           string     `json:"id" gorm:"primaryKey;size:36"`
	TenantID     string     `json:"-" gorm:"size:36;not null"`
	ModelVersion int        `json:"modelVersion" gorm:"not null"`
	Trigger      string     `json:"trigger" gorm:"column:run_trigger;size:16;not null"`
	Status       string     `json:"status" gorm:"size:16;not null"`
	Partners     int        `json:"partners" gorm:"not null"`
	Changes      int        `json:"changes" gorm:"not null"`
	RequestedBy  string     `json:"requestedBy,omitempty" gorm:"size:36"`
	StartedAt    time.Time  `json:"startedAt"`
	FinishedAt   *time.Time `json:"finishedAt,omitempty"`
}

// HealthSnapshot is one partner's score in one run; Components is the JSON of its
// []HealthComponentScore, so an old snapshot explains itself under the model that made it.
type HealthSnapshot struct {
	RunID        string    `gorm:"primaryKey;size:36"`
	PartnerID    string    `gorm:"primaryKey;size:36"`
	TenantID     string    `gorm:"size:36;not null"`
	ModelVersion int       `gorm:"not null"`
	Score        float64   `gorm:"not null"`
	Tier         string    `gorm:"size:32;not null"`
	Components   string    `gorm:"type:text;not null"`
	ComputedAt   time.Time `gorm:"not null"`
}

// PartnerHealth is a partner's current health: the latest snapshot's score and tier, the tier
// before the last change, and since when the tier holds.
type PartnerHealth struct {
	PartnerID    string    `gorm:"primaryKey;size:36"`
	TenantID     string    `gorm:"size:36;not null"`
	Score        float64   `gorm:"not null"`
	Tier         string    `gorm:"size:32;not null"`
	PreviousTier string    `gorm:"size:32;not null"`
	ModelVersion int       `gorm:"not null"`
	RunID        string    `gorm:"size:36;not null"`
	ComputedAt   time.Time `gorm:"not null"`
	TierSince    time.Time `gorm:"not null"`
}

// TableName is the table of current health rows.
func (PartnerHealth) TableName() string { return "partner_health" }

// HealthFilter narrows the list of current scores.
type HealthFilter struct {
	Tier string
}

// HealthPage is the outcome of scoring one page of a run's partners.
type HealthPage struct {
	// Scored is the partners scored by this call (0 when the page was scored before).
	Scored int
	// Changes is how many of them changed tier.
	Changes int
	// Next is the last partner id of the page, to pass as the next page's start; empty at the end.
	Next string
}

// HealthEventPayload is the payload of partner.health_changed.
type HealthEventPayload struct {
	PartnerID    string  `json:"partnerId"`
	FromTier     string  `json:"fromTier"`
	ToTier       string  `json:"toTier"`
	Score        float64 `json:"score"`
	ModelVersion int     `json:"modelVersion"`
	RunID        string  `json:"runId"`
}
