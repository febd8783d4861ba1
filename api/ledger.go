package api

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

const tagLedger = "Ledger"

// LedgerStore is what the accrual, balance, entry, statement and adjustment operations need of storage, as the caller sees it.
type LedgerStore interface {
	ListAccruals(ctx context.Context, f models.AccrualFilter, pg models.Page) ([]models.Accrual, string, error)
	Accrual(ctx context.Context, id string) (*models.Accrual, error)
	ReverseAccrual(ctx context.Context, id, reason string) (*models.Accrual, error)
	Balances(ctx context.Context, partnerID, currency string) ([]models.Balance, error)
	ListLedgerEntries(ctx context.Context, f models.EntryFilter, pg models.Page) ([]models.LedgerEntry, string, error)
	Statement(ctx context.Context, partnerID, currency string, from, to time.Time) (*models.Statement, error)
	AdjustBalance(ctx context.Context, a models.Adjustment) (*models.LedgerMovement, error)
}

// ledger is the ledger as the caller sees it.
func (s *Server) ledger(ctx context.Context) LedgerStore {
	return s.deps.Modules.Ledger(models.PrincipalFrom(ctx))
}

// Accrual is one plan version's commission on one source event.
type Accrual struct {
	ID               string     `json:"id"`
	PartnerID        string     `json:"partnerId"`
	PlanID           string     `json:"planId"`
	PlanVersion      int        `json:"planVersion" doc:"The plan version that computed the accrual"`
	SourceEventID    string     `json:"sourceEventId"`
	CustomerID       string     `json:"customerId,omitempty"`
	Reference        string     `json:"reference,omitempty" doc:"The source's business object, e.g. a deal id"`
	SourceAmount     int64      `json:"sourceAmount" doc:"In minor units of currency"`
	SourceOccurredAt time.Time  `json:"sourceOccurredAt"`
	RateBps          int64      `json:"rateBps" doc:"Basis points applied (0 for flat amounts)"`
	Amount           int64      `json:"amount" doc:"The commission in minor units of currency"`
	Currency         string     `json:"currency"`
	Status           string     `json:"status" enum:"pending,available,reversed" doc:"pending during the holding period, then available; reversed by a clawback"`
	MovementID       string     `json:"movementId" doc:"The ledger movement that booked it"`
	AvailableAt      time.Time  `json:"availableAt"`
	ReleasedAt       *time.Time `json:"releasedAt,omitempty"`
	ReversedAt       *time.Time `json:"reversedAt,omitempty"`
	ReversalReason   string     `json:"reversalReason,omitempty"`
	CreatedAt        time.Time  `json:"createdAt"`
}

func accrualOf(a *models.Accrual) Accrual {
	return Accrual{ID: a.ID, PartnerID: a.PartnerID, PlanID: a.PlanID, PlanVersion: a.PlanVersion, SourceEventID: a.SourceEventID,
		CustomerID: str(a.CustomerID), Reference: a.Reference, SourceAmount: a.SourceAmount, SourceOccurredAt: a.SourceOccurredAt,
		RateBps: a.RateBps, Amount: a.Amount, Currency: a.Currency, Status: a.Status, MovementID: a.MovementID,
		AvailableAt: a.AvailableAt, ReleasedAt: a.ReleasedAt, ReversedAt: a.ReversedAt, ReversalReason: a.ReversalReason, CreatedAt: a.CreatedAt}
}

// Balance is a partner's money in one currency, in minor units.
type Balance struct {
	PartnerID   string `json:"partnerId"`
	Currency    string `json:"currency"`
	Pending     int64  `json:"pending" doc:"Accrued, still in the holding period"`
	Available   int64  `json:"available" doc:"Free to withdraw; negative after a clawback of money already paid out"`
	Held        int64  `json:"held" doc:"Held by withdrawals awaiting approval or payout"`
	Paid        int64  `json:"paid" doc:"Paid out"`
	TotalEarned int64  `json:"totalEarned" doc:"Everything accrued or adjusted, net of clawbacks"`
	// The MDF balance, kept apart from commissions (ADR 33).
	MDFAvailable  int64 `json:"mdfAvailable" doc:"Reimbursed MDF claims free to withdraw (with account=mdf)"`
	MDFHeld       int64 `json:"mdfHeld" doc:"Held by MDF withdrawals awaiting approval or payout"`
	MDFPaid       int64 `json:"mdfPaid" doc:"MDF reimbursements paid out"`
	MDFReimbursed int64 `json:"mdfReimbursed" doc:"Every MDF claim ever reimbursed"`
}

func balanceOf(b *models.Balance) Balance {
	return Balance{PartnerID: b.PartnerID, Currency: b.Currency, Pending: b.Pending, Available: b.Available, Held: b.Held,
		Paid: b.Paid, TotalEarned: b.TotalEarned, MDFAvailable: b.MDFAvailable, MDFHeld: b.MDFHeld, MDFPaid: b.MDFPaid, MDFReimbursed: b.MDFReimbursed}
}

// LedgerEntry is one immutable line of the ledger.
type LedgerEntry struct {
	ID              string    `json:"id"`
	PartnerID       string    `json:"partnerId"`
	MovementID      string    `json:"movementId" doc:"The balanced movement the entry belongs to; its entries sum to zero"`
	Account         string    `json:"account" enum:"earned,pending,available,held,paid,mdf_reimbursed,mdf_available,mdf_held,mdf_paid"`
	Amount          int64     `json:"amount" doc:"Signed, in minor units of currency"`
	Currency        string    `json:"currency"`
	Kind            string    `json:"kind" enum:"accrual,release,clawback,adjustment,withdrawal_hold,withdrawal_release,payout,mdf_reimbursement"`
	SourceType      string    `json:"sourceType" enum:"event,accrual,withdrawal,payout,adjustment,mdf_claim"`
	SourceID        string    `json:"sourceId"`
	ReversesEntryID string    `json:"reversesEntryId,omitempty" doc:"The entry this one reverses"`
	CreatedBy       string    `json:"createdBy,omitempty"`
	CreatedAt       time.Time `json:"createdAt"`
}

func ledgerEntryOf(e *models.LedgerEntry) LedgerEntry {
	return LedgerEntry{ID: e.ID, PartnerID: e.PartnerID, MovementID: e.MovementID, Account: e.Account, Amount: e.Amount, Currency: e.Currency,
		Kind: e.Kind, SourceType: e.SourceType, SourceID: e.SourceID, ReversesEntryID: str(e.ReversesEntryID), CreatedBy: e.CreatedBy, CreatedAt: e.CreatedAt}
}

// LedgerMovement is one balanced change of a partner's balances with its entries.
type LedgerMovement struct {
	ID         string        `json:"id"`
	PartnerID  string        `json:"partnerId"`
	Currency   string        `json:"currency"`
	Kind       string        `json:"kind" enum:"accrual,release,clawback,adjustment,withdrawal_hold,withdrawal_release,payout,mdf_reimbursement"`
	SourceType string        `json:"sourceType" enum:"event,accrual,withdrawal,payout,adjustment,mdf_claim"`
	SourceID   string        `json:"sourceId"`
	Reason     string        `json:"reason,omitempty"`
	CreatedBy  string        `json:"createdBy,omitempty"`
	CreatedAt  time.Time     `json:"createdAt"`
	Entries    []LedgerEntry `json:"entries" nullable:"false"`
}

func ledgerMovementOf(m *models.LedgerMovement) LedgerMovement {
	out := LedgerMovement{ID: m.ID, PartnerID: m.PartnerID, Currency: m.Currency, Kind: m.Kind, SourceType: m.SourceType, SourceID: m.SourceID,
		Reason: m.Reason, CreatedBy: m.CreatedBy, CreatedAt: m.CreatedAt, Entries: make([]LedgerEntry, 0, len(m.Entries))}
	for i := range m.Entries {
		out.Entries = append(out.Entries, ledgerEntryOf(&m.Entries[i]))
	}
	return out
}

// Statement is a partner's ledger in one currency over a period.
type Statement struct {
	PartnerID string        `json:"partnerId"`
	Currency  string        `json:"currency"`
	From      time.Time     `json:"from"`
	To        time.Time     `json:"to"`
	Opening   Balance       `json:"opening" doc:"Balances before from"`
	Closing   Balance       `json:"closing" doc:"Balances before to"`
	Entries   []LedgerEntry `json:"entries" nullable:"false" doc:"Every entry from from (inclusive) to to (exclusive), oldest first"`
}

// ListAccrualsInput filters accruals (partners see only their own whatever they pass).
type ListAccrualsInput struct {
	ListParams
	PartnerID string `query:"partnerId" maxLength:"36"`
	PlanID    string `query:"planId" maxLength:"36"`
	Status    string `query:"status" enum:"pending,available,reversed"`
	Currency  string `query:"currency" maxLength:"3" pattern:"^[A-Z]{3}$"`
}

// ReverseAccrualInput claws an accrual back.
type ReverseAccrualInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Reason string `json:"reason" minLength:"1" maxLength:"1000" doc:"Why the commission is reversed; recorded in the ledger and the audit log"`
	}
}

// BalancesInput filters balances.
type BalancesInput struct {
	PartnerID string `query:"partnerId" maxLength:"36" doc:"Only this partner's balances (partners always see only their own)"`
	Currency  string `query:"currency" maxLength:"3" pattern:"^[A-Z]{3}$"`
}

// ListEntriesInput filters ledger entries.
type ListEntriesInput struct {
	ListParams
	PartnerID  string    `query:"partnerId" maxLength:"36"`
	Currency   string    `query:"currency" maxLength:"3" pattern:"^[A-Z]{3}$"`
	Account    string    `query:"account" enum:"earned,pending,available,held,paid,mdf_reimbursed,mdf_available,mdf_held,mdf_paid"`
	Kind       string    `query:"kind" enum:"accrual,release,clawback,adjustment,withdrawal_hold,withdrawal_release,payout,mdf_reimbursement"`
	SourceType string    `query:"sourceType" enum:"event,accrual,withdrawal,payout,adjustment,mdf_claim"`
	SourceID   string    `query:"sourceId" maxLength:"300"`
	From       time.Time `query:"from" doc:"Booked at or after (RFC 3339)"`
	To         time.Time `query:"to" doc:"Booked before (RFC 3339)"`
}

// StatementInput asks for a statement.
type StatementInput struct {
	PartnerID string    `query:"partnerId" maxLength:"36" doc:"Required for operators; partners may leave it out for their own"`
	Currency  string    `query:"currency" required:"true" maxLength:"3" pattern:"^[A-Z]{3}$" example:"EUR"`
	From      time.Time `query:"from" doc:"Start of the period, inclusive (RFC 3339); default the start of the current month (UTC)"`
	To        time.Time `query:"to" doc:"End of the period, exclusive (RFC 3339); default now"`
	Format    string    `query:"format" enum:"json,csv" default:"json" doc:"json, or csv: one line per entry, then the opening and closing balances"`
}

// AdjustBalanceInput books a manual correction of a partner's available balance.
type AdjustBalanceInput struct {
	IdempotencyKey string `header:"Idempotency-Key"`
	Body           struct {
		PartnerID string `json:"partnerId" minLength:"1" maxLength:"36"`
		Amount    int64  `json:"amount" minimum:"-1000000000000000" maximum:"1000000000000000" doc:"Signed, non-zero, in minor units: positive credits the available balance, negative debits it (it may go negative)"`
		Currency  string `json:"currency" maxLength:"3" pattern:"^[A-Z]{3}$" example:"EUR"`
		Reason    string `json:"reason" minLength:"1" maxLength:"1000" doc:"Why; recorded in the ledger and the audit log"`
	}
}

// AccrualOutput is one accrual.
type AccrualOutput struct{ Body Accrual }

// AccrualListOutput is a page of accruals.
type AccrualListOutput struct{ Body ListBody[Accrual] }

// BalancesOutput lists balances per partner and currency.
type BalancesOutput struct {
	Body struct {
		Data []Balance `json:"data" nullable:"false"`
	}
}

// LedgerEntryListOutput is a page of ledger entries, oldest first.
type LedgerEntryListOutput struct{ Body ListBody[LedgerEntry] }

// StatementOutput is a statement as JSON or CSV.
type StatementOutput struct {
	ContentType        string `header:"Content-Type"`
	ContentDisposition string `header:"Content-Disposition"`
	Body               []byte
}

// LedgerMovementOutput is the movement an adjustment booked.
type LedgerMovementOutput struct{ Body LedgerMovement }

func registerLedgerRoutes(s *Server) {
	tags := []string{tagLedger}
	register(s, huma.Operation{OperationID: "list-accruals", Method: http.MethodGet, Path: "/api/ledger/accruals", Tags: tags,
		Summary: "List accruals", Description: "Partners see only their own.", Security: UsersOrKeys},
		Requires(authz.LedgerRead), s.listAccruals)
	register(s, huma.Operation{OperationID: "get-accrual", Method: http.MethodGet, Path: "/api/ledger/accruals/{id}", Tags: tags,
		Summary: "Get an accrual", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.LedgerRead), s.getAccrual)
	register(s, huma.Operation{OperationID: "reverse-accrual", Method: http.MethodPost, Path: "/api/ledger/accruals/{id}/reverse", Tags: tags,
		RequestBody: requestExample(`{"reason": "The invoice was refunded in full."}`),
		Summary:     "Reverse an accrual",
		Description: "Claws the commission back with a reversing movement: from pending while it is held back, otherwise from available, which may go negative when the money was paid out already. A reversed accrual answers 409 ACCRUAL_REVERSED.",
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires(authz.LedgerWrite), s.reverseAccrual)
	register(s, huma.Operation{OperationID: "list-balances", Method: http.MethodGet, Path: "/api/ledger/balances", Tags: tags,
		Summary: "Balances per partner and currency", Description: "Partners see only their own.", Security: UsersOrKeys},
		Requires(authz.LedgerRead), s.listBalances)
	register(s, huma.Operation{OperationID: "list-ledger-entries", Method: http.MethodGet, Path: "/api/ledger/entries", Tags: tags,
		Summary: "List ledger entries, oldest first", Description: "Partners see only their own.", Security: UsersOrKeys},
		Requires(authz.LedgerRead), s.listLedgerEntries)

	statementSchema := s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(Statement{}), true, "Statement")
	register(s, huma.Operation{OperationID: "get-ledger-statement", Method: http.MethodGet, Path: "/api/ledger/statement", Tags: tags,
		Summary:     "A partner's statement for a period, as JSON or CSV",
		Description: "Opening and closing balances and every entry of the period in one currency; at most 10000 entries (longer periods answer 422 STATEMENT_TOO_LONG). Partners see only their own.",
		Security:    UsersOrKeys, Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
		Responses: map[string]*huma.Response{"200": {
			Description: "The statement",
			Content: map[string]*huma.MediaType{
				"application/json": {Schema: statementSchema},
				"text/csv": {Schema: &huma.Schema{Type: huma.TypeString,
					Description: "Header row; one line per entry (createdAt, entryId, movementId, account, kind, amount, currency, sourceType, sourceId); then one opening and one closing line per account"}},
			},
		}}},
		Requires(authz.LedgerRead), s.statement)

	register(s, idempotent(huma.Operation{OperationID: "adjust-balance", Method: http.MethodPost, Path: "/api/ledger/adjustments", Tags: tags,
		RequestBody: requestExample(`{"partnerId": "01936f3a-5b2c-7e41-8d9a-4c2b7e1f6a30", "amount": -5000, "currency": "EUR", "reason": "Correction of a duplicate bonus paid in October."}`),
		Summary:     "Correct a partner's available balance",
		Description: "Finance's manual adjustment with a reason: a positive amount credits the available balance, a negative one debits it. Audited; emits ledger.adjusted. Requires an Idempotency-Key; the key also makes the ledger book the adjustment once.",
		Security:    UsersOrKeys, DefaultStatus: http.StatusCreated, Errors: []int{http.StatusForbidden, http.StatusUnprocessableEntity}}, true),
		Requires(authz.LedgerWrite), s.adjustBalance)
}

// listAccruals lists commission accruals.
func (s *Server) listAccruals(ctx context.Context, in *ListAccrualsInput) (*AccrualListOutput, error) {
	f := models.AccrualFilter{PartnerID: in.PartnerID, PlanID: in.PlanID, Status: in.Status, Currency: in.Currency}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.Accrual, string, error) {
		return s.ledger(ctx).ListAccruals(ctx, f, pg)
	}, accrualOf)
	return &AccrualListOutput{Body: body}, err
}

// getAccrual answers one accrual.
func (s *Server) getAccrual(ctx context.Context, in *IDPath) (*AccrualOutput, error) {
	a, err := s.ledger(ctx).Accrual(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &AccrualOutput{Body: accrualOf(a)}, nil
}

// reverseAccrual reverses an accrual with a reason.
func (s *Server) reverseAccrual(ctx context.Context, in *ReverseAccrualInput) (*AccrualOutput, error) {
	a, err := s.ledger(ctx).ReverseAccrual(ctx, in.ID, in.Body.Reason)
	if err != nil {
		return nil, err
	}
	return &AccrualOutput{Body: accrualOf(a)}, nil
}

// listBalances lists balances per partner and currency.
func (s *Server) listBalances(ctx context.Context, in *BalancesInput) (*BalancesOutput, error) {
	bs, err := s.ledger(ctx).Balances(ctx, in.PartnerID, in.Currency)
	if err != nil {
		return nil, err
	}
	out := &BalancesOutput{}
	out.Body.Data = make([]Balance, 0, len(bs))
	for i := range bs {
		out.Body.Data = append(out.Body.Data, balanceOf(&bs[i]))
	}
	return out, nil
}

// listLedgerEntries lists ledger entries, oldest first.
func (s *Server) listLedgerEntries(ctx context.Context, in *ListEntriesInput) (*LedgerEntryListOutput, error) {
	f := models.EntryFilter{PartnerID: in.PartnerID, Currency: in.Currency, Account: in.Account, Kind: in.Kind,
		SourceType: in.SourceType, SourceID: in.SourceID, From: in.From, To: in.To}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.LedgerEntry, string, error) {
		return s.ledger(ctx).ListLedgerEntries(ctx, f, pg)
	}, ledgerEntryOf)
	return &LedgerEntryListOutput{Body: body}, err
}

// adjustBalance corrects a partner's available balance by finance's manual adjustment.
func (s *Server) adjustBalance(ctx context.Context, in *AdjustBalanceInput) (*LedgerMovementOutput, error) {
	b := in.Body
	if b.Amount == 0 {
		return nil, models.Invalid("INVALID_ADJUSTMENT", "the adjustment is not valid",
			models.FieldError{Location: "body.amount", Message: "a non-zero amount in minor units", Value: b.Amount})
	}
	if !validIdempotencyKey(in.IdempotencyKey) {
		return nil, codedProblem(ctx, http.StatusBadRequest, CodeIdempotencyKeyRequired, "this operation requires an Idempotency-Key header")
	}
	mv, err := s.ledger(ctx).AdjustBalance(ctx, models.Adjustment{PartnerID: b.PartnerID, Amount: b.Amount, Currency: b.Currency,
		Reason: b.Reason, Key: in.IdempotencyKey})
	if err != nil {
		return nil, err
	}
	return &LedgerMovementOutput{Body: ledgerMovementOf(mv)}, nil
}

// statement answers a partner's statement for a period, as JSON or CSV.
func (s *Server) statement(ctx context.Context, in *StatementInput) (*StatementOutput, error) {
	partnerID := in.PartnerID
	if partnerID == "" {
		partnerID = models.PrincipalFrom(ctx).PartnerID
	}
	if partnerID == "" {
		return nil, models.Invalid("PARTNER_REQUIRED", "operators name the partner of the statement",
			models.FieldError{Location: "query.partnerId", Message: "required for operators"})
	}
	now := time.Now().UTC()
	from, to := in.From, in.To
	if to.IsZero() {
		to = now
	}
	if from.IsZero() {
		from = time.Date(to.Year(), to.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	if !from.Before(to) {
		return nil, models.Invalid("INVALID_PERIOD", "the period must start before it ends",
			models.FieldError{Location: "query.from", Message: "must be before to", Value: from.Format(time.RFC3339)})
	}
	st, err := s.ledger(ctx).Statement(ctx, partnerID, in.Currency, from, to)
	if err != nil {
		return nil, err
	}
	view := Statement{PartnerID: st.PartnerID, Currency: st.Currency, From: st.From, To: st.To, Opening: balanceOf(&st.Opening),
		Closing: balanceOf(&st.Closing), Entries: make([]LedgerEntry, 0, len(st.Entries))}
	for i := range st.Entries {
		view.Entries = append(view.Entries, ledgerEntryOf(&st.Entries[i]))
	}
	if in.Format == "csv" {
		name := "statement-" + st.PartnerID + "-" + st.Currency + "-" + st.From.Format("20060102") + "-" + st.To.Format("20060102") + ".csv"
		return &StatementOutput{ContentType: "text/csv; charset=utf-8", ContentDisposition: `attachment; filename="` + name + `"`, Body: statementCSV(view)}, nil
	}
	b, err := json.Marshal(view)
	if err != nil {
		return nil, err
	}
	return &StatementOutput{ContentType: "application/json", Body: b}, nil
}

// statementCSV writes a statement as CSV: a header row, one line per entry, then one opening
// and one closing line per account.
func statementCSV(st Statement) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"createdAt", "entryId", "movementId", "account", "kind", "amount", "currency", "sourceType", "sourceId"})
	for _, e := range st.Entries {
		_ = w.Write([]string{e.CreatedAt.UTC().Format(time.RFC3339Nano), e.ID, e.MovementID, e.Account, e.Kind,
			strconv.FormatInt(e.Amount, 10), e.Currency, e.SourceType, csvText(e.SourceID)})
	}
	for _, side := range []struct {
		kind string
		at   time.Time
		b    Balance
	}{{"opening", st.From, st.Opening}, {"closing", st.To, st.Closing}} {
		type line struct {
			name   string
			amount int64
		}
		lines := []line{{models.AccountPending, side.b.Pending}, {models.AccountAvailable, side.b.Available}, {models.AccountHeld, side.b.Held},
			{models.AccountPaid, side.b.Paid}, {"totalEarned", side.b.TotalEarned}}
		if st.Closing.MDFReimbursed != 0 || st.Opening.MDFReimbursed != 0 {
			// A partner with MDF reimbursements gets the lines of its MDF balance too.
			lines = append(lines, line{models.AccountMDFAvailable, side.b.MDFAvailable}, line{models.AccountMDFHeld, side.b.MDFHeld},
				line{models.AccountMDFPaid, side.b.MDFPaid}, line{"mdfReimbursed", side.b.MDFReimbursed})
		}
		for _, acc := range lines {
			_ = w.Write([]string{side.at.UTC().Format(time.RFC3339Nano), "", "", acc.name, side.kind, strconv.FormatInt(acc.amount, 10), st.Currency, "", ""})
		}
	}
	w.Flush()
	return buf.Bytes()
}

// csvText keeps a text cell from being read as a formula by spreadsheets.
func csvText(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}
