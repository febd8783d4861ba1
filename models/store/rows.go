package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/partnerd/partnerd/models"
)

// LockForUpdate locks the rows a query reads for the rest of its transaction (Postgres).
var LockForUpdate = clause.Locking{Strength: "UPDATE"}

// MustJSON encodes an event payload; the payload types always encode.
func MustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// LockRow reads the row of model with id in scope sc, locked for the rest of tx on Postgres.
func LockRow(s *Store, tx *gorm.DB, dest any, sc Scope, id string) error {
	q := tx.Where(sc.Tenant()).Where("id = ?", id)
	if s.dialect == Postgres {
		q = q.Clauses(LockForUpdate)
	}
	return q.Take(dest).Error
}

// NotFoundAs turns a missing row into a not-found error with the given code.
func NotFoundAs(err error, code, what string) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return models.NotFound(code, what)
	}
	return err
}

// ActorOf names who books a movement: the principal in ctx, or "system".
func ActorOf(ctx context.Context) string {
	if p := models.PrincipalFrom(ctx); p != nil {
		return p.ActorRef()
	}
	return "system"
}

// Deref is the string s points at, or "" for nil.
func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// NonEmpty points at s, or is nil for "".
func NonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// EscapeLike escapes s for a SQL LIKE pattern written with ESCAPE '\', so that its %, _ and \
// match themselves.
func EscapeLike(s string) string {
	return likeEscaper.Replace(s)
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// Containing narrows q to rows where any of cols holds text, case-insensitively; text's %, _ and
// \ match themselves. An empty text leaves q as it is.
func Containing(q *gorm.DB, text string, cols ...string) *gorm.DB {
	if text == "" || len(cols) == 0 {
		return q
	}
	like := "%" + EscapeLike(strings.ToLower(text)) + "%"
	conds := make([]string, len(cols))
	args := make([]any, len(cols))
	for i, c := range cols {
		conds[i] = "LOWER(" + c + `) LIKE ? ESCAPE '\'`
		args[i] = like
	}
	return q.Where("("+strings.Join(conds, " OR ")+")", args...)
}
