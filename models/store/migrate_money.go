package store

import (
	"time"

	"gorm.io/gorm"
)

// migrate0011Money adds commission plans and accruals, the append-only ledger with its running
// balances, payout methods and settings, withdrawals and payouts. UPDATE and DELETE of ledger
// rows fail in the database itself.
func migrate0011Money(tx *gorm.DB) error {
	type commissionPlan struct {
		ID              string `gorm:"primaryKey;size:36"`
		TenantID        string `gorm:"size:36;not null;index:commission_plans_trigger,priority:1;index:commission_plans_clawback,priority:1"`
		Name            string `gorm:"size:200;not null"`
		Description     string `gorm:"size:2000"`
		Status          string `gorm:"size:16;not null"`
		Trigger         string `gorm:"column:trigger_type;size:200;not null;index:commission_plans_trigger,priority:2"`
		ClawbackTrigger string `gorm:"size:200;index:commission_plans_clawback,priority:2"`
		Version         int    `gorm:"not null"`
		Definition      string `gorm:"type:text;not null"`
		CreatedBy       string `gorm:"size:36"`
		CreatedAt       time.Time
		UpdatedAt       time.Time
	}
	type commissionPlanVersion struct {
		TenantID   string `gorm:"size:36;not null"`
		PlanID     string `gorm:"primaryKey;size:36"`
		Version    int    `gorm:"primaryKey"`
		Name       string `gorm:"size:200;not null"`
		Definition string `gorm:"type:text;not null"`
		CreatedBy  string `gorm:"size:36"`
		CreatedAt  time.Time
	}
	type commissionAccrual struct {
		ID               string  `gorm:"primaryKey;size:36"`
		TenantID         string  `gorm:"size:36;not null;uniqueIndex:accruals_plan_event,priority:1;index:accruals_partner,priority:1;index:accruals_reference,priority:1;index:accruals_customer,priority:1"`
		PartnerID        string  `gorm:"size:36;not null;index:accruals_partner,priority:2;index:accruals_reference,priority:3"`
		PlanID           string  `gorm:"size:36;not null;uniqueIndex:accruals_plan_event,priority:2;index:accruals_reference,priority:2;index:accruals_customer,priority:2"`
		PlanVersion      int     `gorm:"not null"`
		SourceEventID    string  `gorm:"size:36;not null;uniqueIndex:accruals_plan_event,priority:3"`
		CustomerID       *string `gorm:"size:36;index:accruals_customer,priority:3"`
		Reference        string  `gorm:"size:200;index:accruals_reference,priority:4"`
		SourceAmount     int64   `gorm:"not null"`
		SourceOccurredAt time.Time
		RateBps          int64  `gorm:"not null"`
		Amount           int64  `gorm:"not null"`
		Currency         string `gorm:"size:3;not null"`
		Status           string `gorm:"size:16;not null"`
		MovementID       string `gorm:"size:36;not null"`
		AvailableAt      time.Time
		ReleasedAt       *time.Time
		ReversedAt       *time.Time
		ReversalReason   string `gorm:"size:1000"`
		CreatedAt        time.Time
	}
	type ledgerMovement struct {
		ID         string  `gorm:"primaryKey;size:36"`
		TenantID   string  `gorm:"size:36;not null;uniqueIndex:ledger_movements_key,priority:1"`
		PartnerID  string  `gorm:"size:36;not null"`
		Currency   string  `gorm:"size:3;not null"`
		Kind       string  `gorm:"size:32;not null"`
		Key        string  `gorm:"size:300;not null;uniqueIndex:ledger_movements_key,priority:2"`
		SourceType string  `gorm:"size:32;not null"`
		SourceID   string  `gorm:"size:300;not null"`
		ReversesID *string `gorm:"size:36"`
		Reason     string  `gorm:"size:1000"`
		CreatedBy  string  `gorm:"size:64"`
		CreatedAt  time.Time
	}
	type ledgerEntry struct {
		ID              string  `gorm:"primaryKey;size:36"`
		TenantID        string  `gorm:"size:36;not null;index:ledger_entries_partner,priority:1;index:ledger_entries_movement,priority:1"`
		PartnerID       string  `gorm:"size:36;not null;index:ledger_entries_partner,priority:2"`
		MovementID      string  `gorm:"size:36;not null;index:ledger_entries_movement,priority:2"`
		Account         string  `gorm:"size:16;not null"`
		Amount          int64   `gorm:"not null"`
		Currency        string  `gorm:"size:3;not null;index:ledger_entries_partner,priority:3"`
		Kind            string  `gorm:"size:32;not null"`
		SourceType      string  `gorm:"size:32;not null"`
		SourceID        string  `gorm:"size:300;not null"`
		ReversesEntryID *string `gorm:"size:36"`
		CreatedBy       string  `gorm:"size:64"`
		CreatedAt       time.Time
	}
	type ledgerBalance struct {
		TenantID  string `gorm:"primaryKey;size:36"`
		PartnerID string `gorm:"primaryKey;size:36"`
		Currency  string `gorm:"primaryKey;size:3"`
		Account   string `gorm:"primaryKey;size:16"`
		Balance   int64  `gorm:"not null"`
		UpdatedAt time.Time
	}
	type payoutMethod struct {
		ID        string `gorm:"primaryKey;size:36"`
		TenantID  string `gorm:"size:36;not null;index:payout_methods_partner,priority:1"`
		PartnerID string `gorm:"size:36;not null;index:payout_methods_partner,priority:2"`
		Kind      string `gorm:"size:16;not null"`
		Label     string `gorm:"size:200"`
		Details   string `gorm:"type:text;not null"`
		Masked    string `gorm:"size:200;not null"`
		CreatedBy string `gorm:"size:64"`
		CreatedAt time.Time
		RemovedAt *time.Time
	}
	type payoutSettings struct {
		TenantID    string `gorm:"primaryKey;size:36"`
		Provider    string `gorm:"size:16;not null"`
		HTTPURL     string `gorm:"column:http_url;size:2000"`
		HTTPSecret  string `gorm:"column:http_secret;type:text"`
		Minimums    string `gorm:"type:text;not null"`
		ConfirmDays int    `gorm:"not null"`
		UpdatedAt   time.Time
	}
	type withdrawal struct {
		ID             string  `gorm:"primaryKey;size:36"`
		TenantID       string  `gorm:"size:36;not null;index:withdrawals_partner,priority:1;index:withdrawals_status,priority:1;uniqueIndex:withdrawals_key,priority:1"`
		PartnerID      string  `gorm:"size:36;not null;index:withdrawals_partner,priority:2"`
		Amount         int64   `gorm:"not null"`
		Currency       string  `gorm:"size:3;not null"`
		PayoutMethodID string  `gorm:"size:36;not null"`
		Status         string  `gorm:"size:16;not null;index:withdrawals_status,priority:2"`
		Reason         string  `gorm:"size:1000"`
		RequestKey     *string `gorm:"size:255;uniqueIndex:withdrawals_key,priority:2"`
		RequestedBy    string  `gorm:"size:64"`
		ReviewedBy     *string `gorm:"size:36"`
		ReviewedAt     *time.Time
		Provider       string `gorm:"size:16"`
		Reference      string `gorm:"size:200"`
		PaidAt         *time.Time
		FailedAt       *time.Time
		CreatedAt      time.Time
		UpdatedAt      time.Time
	}
	type payout struct {
		ID           string `gorm:"primaryKey;size:36"`
		TenantID     string `gorm:"size:36;not null;index"`
		PartnerID    string `gorm:"size:36;not null"`
		WithdrawalID string `gorm:"size:36;not null;uniqueIndex"`
		Provider     string `gorm:"size:16;not null"`
		Amount       int64  `gorm:"not null"`
		Currency     string `gorm:"size:3;not null"`
		Status       string `gorm:"size:16;not null"`
		Reference    string `gorm:"size:200"`
		Failure      string `gorm:"size:1000"`
		Attempts     int    `gorm:"not null"`
		CreatedAt    time.Time
		UpdatedAt    time.Time
		CompletedAt  *time.Time
	}
	if err := tx.Migrator().CreateTable(&commissionPlan{}, &commissionPlanVersion{}, &ledgerMovement{}, &ledgerEntry{},
		&ledgerBalance{}, &payoutMethod{}, &withdrawal{}, &payout{}); err != nil {
		return err
	}
	if err := tx.Table("commission_accruals").Migrator().CreateTable(&commissionAccrual{}); err != nil {
		return err
	}
	if err := tx.Table("payout_settings").Migrator().CreateTable(&payoutSettings{}); err != nil {
		return err
	}
	return appendOnly(tx, "ledger_entries", "ledger_movements")
}

// appendOnly makes UPDATE and DELETE of the tables' rows fail in the database.
func appendOnly(tx *gorm.DB, tables ...string) error {
	var stmts []string
	if tx.Name() == "postgres" {
		stmts = append(stmts, `CREATE OR REPLACE FUNCTION partnerd_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'append-only: % on % is not allowed', TG_OP, TG_TABLE_NAME USING ERRCODE = 'P0001';
END $$`)
		for _, t := range tables {
			stmts = append(stmts,
				"CREATE TRIGGER "+t+"_append_only BEFORE UPDATE OR DELETE ON "+t+" FOR EACH ROW EXECUTE FUNCTION partnerd_append_only()",
				"CREATE TRIGGER "+t+"_no_truncate BEFORE TRUNCATE ON "+t+" FOR EACH STATEMENT EXECUTE FUNCTION partnerd_append_only()")
		}
	} else {
		for _, t := range tables {
			stmts = append(stmts,
				"CREATE TRIGGER "+t+"_no_update BEFORE UPDATE ON "+t+" BEGIN SELECT RAISE(ABORT, 'append-only: UPDATE on "+t+" is not allowed'); END",
				"CREATE TRIGGER "+t+"_no_delete BEFORE DELETE ON "+t+" BEGIN SELECT RAISE(ABORT, 'append-only: DELETE on "+t+" is not allowed'); END")
		}
	}
	for _, s := range stmts {
		if err := tx.Exec(s).Error; err != nil {
			return err
		}
	}
	return nil
}
