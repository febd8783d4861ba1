package store

import (
	"context"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
)

// Scope is a models.Scope with the conditions it puts on queries. It is the only place that
// writes a tenant condition; every query on tenant-owned tables takes its condition from a Scope.
type Scope struct{ models.Scope }

// ScopeOf is the scope of a principal. A nil principal or one without a tenant sees nothing.
func ScopeOf(p *models.Principal) Scope { return Scope{models.ScopeOf(p)} }

// System is a whole tenant's scope for the service's own work (workflows, activities, the
// relay): no partner restriction.
func System(tenantID string) Scope { return Scope{models.System(tenantID)} }

// Of is the store's side of scope s.
func Of(s models.Scope) Scope { return Scope{s} }

// Tenant is the condition "the row belongs to the scope's tenant"; with no tenant it matches
// nothing.
func (s Scope) Tenant() clause.Expression { return s.TenantOf("") }

// TenantOf is Tenant for the rows of one table or alias of a join.
func (s Scope) TenantOf(table string) clause.Expression {
	if s.TenantID() == "" {
		return clause.Expr{SQL: "1 = 0"}
	}
	column := "tenant_id"
	if table != "" {
		column = table + ".tenant_id"
	}
	return clause.Expr{SQL: column + " = ?", Vars: []any{s.TenantID()}}
}

// Rows limits q to the scope's tenant.
func (s Scope) Rows(q *gorm.DB) *gorm.DB { return q.Where(s.Tenant()) }

// PartnerRows is Rows plus, for a partner scope, only the rows whose column names its partner
// organisation.
func (s Scope) PartnerRows(q *gorm.DB, column string) *gorm.DB {
	q = s.Rows(q)
	if s.PartnerID() != "" {
		q = q.Where(column+" = ?", s.PartnerID())
	}
	return q
}

// PostgresTenantOf is TenantOf for a statement written for Postgres's own placeholders: the
// condition on table's tenant as parameter $n, and the value to pass there.
func (s Scope) PostgresTenantOf(table string, n int) (string, string) {
	return fmt.Sprintf("%s.tenant_id = $%d", table, n), s.TenantID()
}

// OperatorRows is Rows for records only the tenant's operators read (audit, mail, custom roles,
// webhooks): a partner scope sees none of them.
func (s Scope) OperatorRows(q *gorm.DB) *gorm.DB {
	if s.PartnerID() != "" {
		return q.Where("1 = 0")
	}
	return s.Rows(q)
}

// CheckPartner checks that partnerID names a partner organisation of the scope's tenant that the
// scope may act for (a partner scope only its own); location names the field in a problem.
func (s Scope) CheckPartner(tx *gorm.DB, partnerID, location string) error {
	if s.PartnerID() != "" && partnerID != s.PartnerID() {
		return models.Errorf(models.KindForbidden, "OTHER_PARTNER", "you can only act for your own partner organisation")
	}
	var n int64
	if err := tx.Model(&models.Partner{}).Where(s.Tenant()).Where("id = ?", partnerID).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return models.Invalid("PARTNER_NOT_FOUND", "no such partner", models.FieldError{Location: location, Message: "no such partner", Value: partnerID})
	}
	return nil
}

// Caller is who a module's scoped store acts for: the principal and its scope, on the core's
// database. Module stores embed it in their Scoped type.
type Caller struct {
	P     models.Principal
	Scope Scope
	core  *Store
}

// CallerOf is the caller p on s's database; a nil principal sees nothing.
func (s *Store) CallerOf(p *models.Principal) Caller {
	c := Caller{Scope: ScopeOf(p), core: s}
	if p != nil {
		c.P = *p
	}
	return c
}

// Rows starts a query on model limited to the caller's tenant.
func (c Caller) Rows(ctx context.Context, model any) *gorm.DB {
	return c.Scope.Rows(c.core.DB(ctx).Model(model))
}

// PartnerRows is Rows plus, for a partner caller, only the rows whose column names its partner
// organisation.
func (c Caller) PartnerRows(ctx context.Context, model any, column string) *gorm.DB {
	return c.Scope.PartnerRows(c.core.DB(ctx).Model(model), column)
}
