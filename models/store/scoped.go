package store

import (
	"gorm.io/gorm"

	"github.com/partnerd/partnerd/models"
)

// Scoped is the store as one principal sees it. Every query on tenant-owned data goes through
// it and is limited to the principal's tenant and, for partner principals, to its partner
// organisation: a row outside the scope reads as missing. Tenant and partner of new rows come
// from the principal, never from input.
type Scoped struct {
	s     *Store
	p     models.Principal
	scope Scope
}

// For returns the store scoped to p. A nil principal or one without a tenant sees nothing.
func (s *Store) For(p *models.Principal) *Scoped {
	sc := &Scoped{s: s, scope: ScopeOf(p)}
	if p != nil {
		sc.p = *p
	}
	return sc
}

// Principal is who the scope belongs to.
func (sc *Scoped) Principal() models.Principal { return sc.p }

// Page applies keyset pagination on ids (UUIDv7, so id order is creation order) and fetches
// one row more than asked, to know whether another page follows.
func Page[T any](q *gorm.DB, pg models.Page, id func(T) string) ([]T, string, error) {
	return pageOn(q, "id", " > ?", "", pg, id)
}

// PageNewest pages q newest first on column (UUIDv7 ids): the cursor names the last row of a
// page and the next page starts below it. Like Page, it fetches one row more than asked.
func PageNewest[T any](q *gorm.DB, column string, pg models.Page, id func(T) string) ([]T, string, error) {
	return pageOn(q, column, " < ?", " DESC", pg, id)
}

// pageOn pages q on column: after compares a row with the cursor, order is the column's
// direction.
func pageOn[T any](q *gorm.DB, column, after, order string, pg models.Page, id func(T) string) ([]T, string, error) {
	limit := pg.Limit
	if limit <= 0 {
		limit = 20
	}
	if pg.After != "" {
		q = q.Where(column+after, pg.After)
	}
	var rows []T
	if err := q.Order(column + order).Limit(limit + 1).Find(&rows).Error; err != nil {
		return nil, "", err
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		next = id(rows[len(rows)-1])
	}
	return rows, next, nil
}
