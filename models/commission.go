package models

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Commission plan statuses: an active plan accrues; an archived one no longer does.
const (
	PlanActive   = "active"
	PlanArchived = "archived"
)

// Calculation kinds of a commission plan.
const (
	CalcPercentage = "percentage"
	CalcFlat       = "flat"
	CalcTiered     = "tiered"
)

// Tier periods: the span over which a partner's volume is summed to pick its tier.
const (
	PeriodMonth   = "month"
	PeriodQuarter = "quarter"
	PeriodYear    = "year"
)

// CommissionPlan is a rule that turns matching events into accruals. Its definition is
// versioned: every change makes a new immutable version, and accruals record the version that
// computed them.
type CommissionPlan struct {
	ID          string `gorm:"primaryKey;size:36"`
	TenantID    string `gorm:"size:36;not null"`
	Name        string `gorm:"size:200;not null"`
	Description string `gorm:"size:2000"`
	Status      string `gorm:"size:16;not null"`
	// Trigger is the definition's trigger, kept in a column so that matching plans are found
	// by the event type alone.
	Trigger string `gorm:"column:trigger_type;size:200;not null"`
	// ClawbackTrigger is the definition's clawback trigger, or empty.
	ClawbackTrigger string `gorm:"size:200"`
	Version         int    `gorm:"not null"`
	// Definition is the current version's PlanDefinition as JSON.
	Definition string `gorm:"type:text;not null"`
	CreatedBy  string `gorm:"size:36"`
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// CommissionPlanVersion is one immutable version of a plan's definition.
type CommissionPlanVersion struct {
	TenantID   string `gorm:"size:36;not null"`
	PlanID     string `gorm:"primaryKey;size:36"`
	Version    int    `gorm:"primaryKey"`
	Name       string `gorm:"size:200;not null"`
	Definition string `gorm:"type:text;not null"`
	CreatedBy  string `gorm:"size:36"`
	CreatedAt  time.Time
}

// PlanDefinition is what a plan version says: when it applies and how much it accrues.
type PlanDefinition struct {
	// Trigger is the event type whose events accrue, e.g. deal.won or invoice.paid.
	Trigger string `json:"trigger"`
	// AmountPath is the payload path of the source amount in minor units (deal.won: amountMinor).
	AmountPath string `json:"amountPath,omitempty"`
	// CurrencyPath is the payload path of the source currency (default currency).
	CurrencyPath string `json:"currencyPath,omitempty"`
	// Currency is used when the source carries no currency.
	Currency string `json:"currency,omitempty"`
	// ReferencePath is the payload path naming the source's business object (deal.won:
	// dealId); a clawback event with the same reference reverses the accrual.
	ReferencePath string `json:"referencePath,omitempty"`
	// ClawbackTrigger is the event type that reverses earlier accruals of the plan, e.g.
	// invoice.refunded; matched by partner and reference.
	ClawbackTrigger string          `json:"clawbackTrigger,omitempty"`
	Conditions      PlanConditions  `json:"conditions"`
	Calculation     PlanCalculation `json:"calculation"`
	// RecurrenceMonths limits accruals for one customer to this many months after the
	// customer's first accrual under the plan; 0 is no limit.
	RecurrenceMonths int `json:"recurrenceMonths,omitempty"`
	// HoldingDays is how long an accrual stays pending before it becomes available.
	HoldingDays int `json:"holdingDays"`
}

// PlanConditions narrow the events a plan accrues on; empty conditions match everything.
type PlanConditions struct {
	// PartnerLevels are level names; the partner must be at one of them.
	PartnerLevels []string `json:"partnerLevels,omitempty"`
	// PartnerTypes are partner types (reseller, agency, ...).
	PartnerTypes []string `json:"partnerTypes,omitempty"`
	// MinAmount and MaxAmount bound the source amount, inclusive, in minor units.
	MinAmount *int64 `json:"minAmount,omitempty"`
	MaxAmount *int64 `json:"maxAmount,omitempty"`
	// PayloadEquals are payload fields that must equal the given JSON scalars.
	PayloadEquals []PayloadEquals `json:"payloadEquals,omitempty"`
}

// PayloadEquals demands that a payload field equals a JSON scalar.
type PayloadEquals struct {
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

// PlanCalculation says how an accrual's amount follows from the source amount.
type PlanCalculation struct {
	Kind string `json:"kind"`
	// RateBps is the percentage in basis points (1000 = 10 %).
	RateBps BasisPoints `json:"rateBps,omitempty"`
	// FlatAmount is the fixed accrual in minor units of the source currency.
	FlatAmount int64 `json:"flatAmount,omitempty"`
	// Tiers apply the rate of the highest tier whose FromVolume the partner's volume in the
	// period (including this source) reaches, to the whole source amount.
	Tiers      []PlanTier `json:"tiers,omitempty"`
	TierPeriod string     `json:"tierPeriod,omitempty"`
}

// PlanTier is one step of a tiered calculation.
type PlanTier struct {
	FromVolume int64       `json:"fromVolume"`
	RateBps    BasisPoints `json:"rateBps"`
}

// WithDefaults fills the paths a trigger implies: deal.won carries amountMinor, currency and
// dealId.
func (d PlanDefinition) WithDefaults() PlanDefinition {
	if d.Trigger == EventDealWon {
		if d.AmountPath == "" {
			d.AmountPath = "amountMinor"
		}
		if d.ReferencePath == "" {
			d.ReferencePath = "dealId"
		}
	}
	if d.CurrencyPath == "" {
		d.CurrencyPath = "currency"
	}
	return d
}

// MaxHoldingDays bounds a plan's holding period.
const MaxHoldingDays = 3650

// ValidatePlan returns every problem of a plan's name and definition at once, or nil.
func ValidatePlan(name string, d PlanDefinition) *Error {
	var fs []FieldError
	add := func(loc, msg string, v any) {
		fs = append(fs, FieldError{Location: "body." + loc, Message: msg, Value: v})
	}
	if strings.TrimSpace(name) == "" {
		add("name", "is required", nil)
	}
	if !ValidEventType(d.Trigger) || (ReservedEventType(d.Trigger) && d.Trigger != EventDealWon) {
		add("definition.trigger", "must be deal.won or an ingested event type such as invoice.paid (the service's own events, e.g. commission.accrued, cannot pay commissions)", d.Trigger)
	}
	if d.ClawbackTrigger != "" && (!ValidEventType(d.ClawbackTrigger) || d.ClawbackTrigger == d.Trigger || ReservedEventType(d.ClawbackTrigger)) {
		add("definition.clawbackTrigger", "must be an ingested event type other than the trigger, such as invoice.refunded", d.ClawbackTrigger)
	}
	if d.ClawbackTrigger != "" && d.ReferencePath == "" {
		add("definition.referencePath", "a clawback trigger needs the payload path that names the source", nil)
	}
	for loc, p := range map[string]string{"amountPath": d.AmountPath, "currencyPath": d.CurrencyPath, "referencePath": d.ReferencePath} {
		if p != "" && !ValidPayloadPath(p) {
			add("definition."+loc, "must be a dotted payload path such as amount or invoice.total", p)
		}
	}
	if d.Currency != "" && !ValidCurrency(d.Currency) {
		add("definition.currency", "must be an ISO 4217 code such as EUR", d.Currency)
	}
	if d.HoldingDays < 0 || d.HoldingDays > MaxHoldingDays {
		add("definition.holdingDays", "must be 0 to 3650 days", d.HoldingDays)
	}
	if d.RecurrenceMonths < 0 || d.RecurrenceMonths > 600 {
		add("definition.recurrenceMonths", "must be 0 (no limit) to 600 months", d.RecurrenceMonths)
	}
	c := d.Conditions
	for loc, a := range map[string]*int64{"minAmount": c.MinAmount, "maxAmount": c.MaxAmount} {
		if a != nil && !ValidAmount(*a) {
			add("definition.conditions."+loc, amountBoundMessage, *a)
		}
	}
	if c.MinAmount != nil && c.MaxAmount != nil && *c.MinAmount > *c.MaxAmount {
		add("definition.conditions.maxAmount", "must not be below minAmount", *c.MaxAmount)
	}
	for i, pe := range c.PayloadEquals {
		loc := "definition.conditions.payloadEquals[" + strconv.Itoa(i) + "]"
		if !ValidPayloadPath(pe.Path) {
			add(loc+".path", "must be a dotted payload path", pe.Path)
		}
		if !jsonScalar(pe.Value) {
			add(loc+".value", "must be a string, number, boolean or null", nil)
		}
	}
	calc := d.Calculation
	switch calc.Kind {
	case CalcPercentage:
		if calc.RateBps <= 0 || calc.RateBps > MaxBasisPoints {
			add("definition.calculation.rateBps", "must be 1 to 10000 basis points (0.01 % to 100 %)", calc.RateBps)
		}
		if d.AmountPath == "" {
			add("definition.amountPath", "a percentage needs the payload path of the source amount", nil)
		}
	case CalcFlat:
		if calc.FlatAmount <= 0 || calc.FlatAmount > MaxAmountMinor {
			add("definition.calculation.flatAmount", "must be a positive amount in minor units, at most 10^15", calc.FlatAmount)
		}
	case CalcTiered:
		if len(calc.Tiers) == 0 || len(calc.Tiers) > 20 {
			add("definition.calculation.tiers", "must list 1 to 20 tiers", len(calc.Tiers))
		}
		for i, t := range calc.Tiers {
			loc := "definition.calculation.tiers[" + strconv.Itoa(i) + "]"
			if t.RateBps <= 0 || t.RateBps > MaxBasisPoints {
				add(loc+".rateBps", "must be 1 to 10000 basis points", t.RateBps)
			}
			if !ValidAmount(t.FromVolume) {
				add(loc+".fromVolume", amountBoundMessage, t.FromVolume)
			}
			if i == 0 && t.FromVolume != 0 {
				add(loc+".fromVolume", "the first tier starts at 0", t.FromVolume)
			}
			if i > 0 && t.FromVolume <= calc.Tiers[i-1].FromVolume {
				add(loc+".fromVolume", "tiers must ascend by volume", t.FromVolume)
			}
		}
		if !slices.Contains([]string{PeriodMonth, PeriodQuarter, PeriodYear}, calc.TierPeriod) {
			add("definition.calculation.tierPeriod", "must be month, quarter or year", calc.TierPeriod)
		}
		if d.AmountPath == "" {
			add("definition.amountPath", "tiers need the payload path of the source amount", nil)
		}
	default:
		add("definition.calculation.kind", "must be percentage, flat or tiered", calc.Kind)
	}
	if len(fs) > 0 {
		return Invalid("INVALID_COMMISSION_PLAN", "the commission plan is not valid", fs...)
	}
	return nil
}

// amountBoundMessage is the problem of an amount beyond ±MaxAmountMinor.
const amountBoundMessage = "must be within ±10^15 minor units"

// PeriodStart is the start of the tier period holding t (UTC).
func PeriodStart(period string, t time.Time) time.Time {
	t = t.UTC()
	switch period {
	case PeriodQuarter:
		return time.Date(t.Year(), t.Month()-(t.Month()-1)%3, 1, 0, 0, 0, 0, time.UTC)
	case PeriodYear:
		return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// AccrualSubject is what a plan looks at: the source event and its partner.
type AccrualSubject struct {
	EventType   string
	Payload     string
	PartnerID   string
	PartnerType string
	Level       string
	CustomerID  string
	OccurredAt  time.Time
	// PeriodVolume is the partner's source volume under the plan in the tier period so far,
	// in the source currency (tiered plans only).
	PeriodVolume int64
	// FirstAccrualAt is when the customer first accrued under the plan (recurrence limits).
	FirstAccrualAt *time.Time
}

// PlanPreview is what one plan would do with a sample event.
type PlanPreview struct {
	Plan  CommissionPlan
	Quote AccrualQuote
}

// AccrualQuote is what a plan would accrue for one subject, or why it would not.
type AccrualQuote struct {
	Match bool
	// Reason says why a plan does not match, for previews.
	Reason       string
	SourceAmount int64
	Currency     string
	Reference    string
	RateBps      BasisPoints
	Amount       int64
	AvailableAt  time.Time
}

// SourceFacts reads the amount, currency and reference of a source payload under a plan.
// amountOK is false when the amount is missing or not an integer within ±MaxAmountMinor.
func (d PlanDefinition) SourceFacts(payload string) (amount int64, amountOK bool, currency, reference string) {
	doc := decodeDocument(payload)
	if d.AmountPath != "" {
		if v, ok := lookup(doc, strings.Split(d.AmountPath, ".")); ok {
			if n, isNum := v.(json.Number); isNum {
				if i, err := strconv.ParseInt(string(n), 10, 64); err == nil && ValidAmount(i) {
					amount, amountOK = i, true
				}
			}
		}
	}
	if v, ok := lookup(doc, strings.Split(d.CurrencyPath, ".")); ok {
		if s, isStr := v.(string); isStr {
			currency = s
		}
	}
	if currency == "" {
		currency = d.Currency
	}
	if d.ReferencePath != "" {
		if v, ok := lookup(doc, strings.Split(d.ReferencePath, ".")); ok {
			switch x := v.(type) {
			case string:
				reference = x
			case json.Number:
				reference = x.String()
			}
		}
	}
	return amount, amountOK, currency, reference
}

func decodeDocument(payload string) any {
	d := json.NewDecoder(strings.NewReader(payload))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		return nil
	}
	return doc
}

// Quote computes what the definition accrues for s: conditions, then the calculation, in
// integer arithmetic only.
func (d PlanDefinition) Quote(s AccrualSubject) AccrualQuote {
	d = d.WithDefaults()
	no := func(reason string) AccrualQuote { return AccrualQuote{Reason: reason} }
	if s.EventType != d.Trigger {
		return no("the event type is not the plan's trigger")
	}
	if s.PartnerID == "" {
		return no("the event is attributed to no partner")
	}
	amount, amountOK, currency, reference := d.SourceFacts(s.Payload)
	needsAmount := d.Calculation.Kind != CalcFlat || d.Conditions.MinAmount != nil || d.Conditions.MaxAmount != nil
	if needsAmount && !amountOK {
		return no("the payload has no integer amount within ±10^15 minor units at " + d.AmountPath)
	}
	if !ValidCurrency(currency) {
		return no("the source has no ISO 4217 currency at " + d.CurrencyPath + " and the plan names none")
	}
	c := d.Conditions
	if len(c.PartnerLevels) > 0 && !slices.Contains(c.PartnerLevels, s.Level) {
		return no("the partner's level is not one of the plan's levels")
	}
	if len(c.PartnerTypes) > 0 && !slices.Contains(c.PartnerTypes, s.PartnerType) {
		return no("the partner's type is not one of the plan's types")
	}
	if c.MinAmount != nil && amount < *c.MinAmount {
		return no("the amount is below the plan's minimum")
	}
	if c.MaxAmount != nil && amount > *c.MaxAmount {
		return no("the amount is above the plan's maximum")
	}
	if len(c.PayloadEquals) > 0 {
		doc := decodeDocument(s.Payload)
		for _, pe := range c.PayloadEquals {
			v, ok := lookup(doc, strings.Split(pe.Path, "."))
			if !ok || !scalarEqual(v, decodeScalar(pe.Value)) {
				return no("the payload field " + pe.Path + " does not have the plan's value")
			}
		}
	}
	if d.RecurrenceMonths > 0 && s.FirstAccrualAt != nil && !s.OccurredAt.Before(s.FirstAccrualAt.AddDate(0, d.RecurrenceMonths, 0)) {
		return no("the customer's recurrence period under the plan has ended")
	}
	q := AccrualQuote{Match: true, SourceAmount: amount, Currency: currency, Reference: reference,
		AvailableAt: s.OccurredAt.AddDate(0, 0, d.HoldingDays)}
	switch d.Calculation.Kind {
	case CalcFlat:
		q.Amount = d.Calculation.FlatAmount
	case CalcPercentage, CalcTiered:
		q.RateBps = d.Calculation.RateBps
		if d.Calculation.Kind == CalcTiered {
			volume, ok := AddMinor(s.PeriodVolume, amount)
			if !ok {
				return no("the partner's volume in the period overflows")
			}
			for _, t := range d.Calculation.Tiers {
				if volume >= t.FromVolume {
					q.RateBps = t.RateBps
				}
			}
		}
		v, ok := ApplyRate(amount, q.RateBps)
		if !ok {
			return no("the accrual would overflow")
		}
		q.Amount = v
	}
	if q.Amount <= 0 {
		return no("the plan accrues nothing on this amount")
	}
	return q
}

// Accrual statuses: pending during the holding period, then available; reversed by a
// clawback.
const (
	AccrualPending   = "pending"
	AccrualAvailable = "available"
	AccrualReversed  = "reversed"
)

// Accrual is the record of one plan version accruing on one source event.
type Accrual struct {
	ID            string  `gorm:"primaryKey;size:36"`
	TenantID      string  `gorm:"size:36;not null"`
	PartnerID     string  `gorm:"size:36;not null"`
	PlanID        string  `gorm:"size:36;not null"`
	PlanVersion   int     `gorm:"not null"`
	SourceEventID string  `gorm:"size:36;not null"`
	CustomerID    *string `gorm:"size:36"`
	// Reference names the source's business object (a deal id, an invoice id).
	Reference    string `gorm:"size:200"`
	SourceAmount int64  `gorm:"not null"`
	// SourceOccurredAt is when the source event happened: it places the accrual in a tier
	// period and a customer's recurrence window.
	SourceOccurredAt time.Time
	RateBps          BasisPoints `gorm:"not null"`
	Amount           int64       `gorm:"not null"`
	Currency         string      `gorm:"size:3;not null"`
	Status           string      `gorm:"size:16;not null"`
	// MovementID is the ledger movement that booked the accrual.
	MovementID  string `gorm:"size:36;not null"`
	AvailableAt time.Time
	ReleasedAt  *time.Time
	ReversedAt  *time.Time
	// ReversalReason says why the accrual was clawed back.
	ReversalReason string `gorm:"size:1000"`
	CreatedAt      time.Time
}

// AccrualFilter selects accruals.
type AccrualFilter struct {
	PartnerID, PlanID, Status, Currency string
}

// AccrualResult says what accrual did for one plan and one event.
type AccrualResult struct {
	PlanID string
	// AccrualID is set when an accrual exists for the pair (new or found).
	AccrualID string
	// Created is false when the accrual existed already (a replay) or nothing matched.
	Created     bool
	Pending     bool
	AvailableAt time.Time
	Reason      string
}

// CommissionAccruedPayload is the payload of commission.accrued and commission.reversed.
type CommissionAccruedPayload struct {
	AccrualID     string    `json:"accrualId"`
	PlanID        string    `json:"planId"`
	PlanVersion   int       `json:"planVersion"`
	PartnerID     string    `json:"partnerId"`
	SourceEventID string    `json:"sourceEventId"`
	SourceAmount  int64     `json:"sourceAmount" doc:"The source amount in minor units"`
	RateBps       int64     `json:"rateBps,omitempty"`
	Amount        int64     `json:"amount" doc:"The accrual in minor units"`
	Currency      string    `json:"currency"`
	Status        string    `json:"status"`
	AvailableAt   time.Time `json:"availableAt"`
	Reason        string    `json:"reason,omitempty"`
}

// TableName keeps accruals beside the plans that made them.
func (Accrual) TableName() string { return "commission_accruals" }

// CommissionClawback records that a clawback event arrived for a plan, partner and reference,
// so that an accrual booked after it (its source event was late) is not paid.
type CommissionClawback struct {
	TenantID  string `gorm:"primaryKey;size:36"`
	PlanID    string `gorm:"primaryKey;size:36"`
	PartnerID string `gorm:"primaryKey;size:36"`
	Reference string `gorm:"primaryKey;size:200"`
	EventID   string `gorm:"size:36;not null"`
	CreatedAt time.Time
}

// AccrualRelease says what releasing an accrual did.
type AccrualRelease struct {
	// Done is set when the accrual needs no more waiting: released now or before, or reversed.
	Done bool
	// WakeAt is when to try again when the holding period has not ended yet.
	WakeAt time.Time
}
