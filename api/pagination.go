package api

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/models"
)

// ListParams are the query parameters of every list operation.
type ListParams struct {
	Limit  int    `query:"limit" default:"20" doc:"Rows per page, 1 to 100; larger values are clamped to 100, negative ones are refused."`
	Cursor string `query:"cursor" maxLength:"512" doc:"The nextCursor of the previous page; opaque."`
}

// ListBody is the shape of every list response.
type ListBody[T any] struct {
	Data       []T    `json:"data" nullable:"false"`
	NextCursor string `json:"nextCursor" doc:"Pass as cursor for the next page; empty on the last page."`
}

// cursors seal list positions so that clients cannot forge them: a tampered cursor is a 400.
// A cursor only ever names a position inside the caller's own scope, so it grants nothing.
type cursors struct{ key []byte }

type cursorBody struct {
	After string `json:"a"`
}

func (c cursors) encode(after string) string {
	if after == "" {
		return ""
	}
	b, _ := json.Marshal(cursorBody{After: after})
	mac := hmac.New(sha256.New, c.key)
	mac.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:16])
}

func (c cursors) page(ctx context.Context, l ListParams) (models.Page, error) {
	if l.Limit < 0 {
		p := newProblem(ctx, http.StatusBadRequest, "limit must not be negative")
		p.Code = "INVALID_LIMIT"
		p.Type = problemType(p.Code)
		p.Errors = []*huma.ErrorDetail{{Location: "query.limit", Message: "must be 0 or more", Value: l.Limit}}
		return models.Page{}, p
	}
	pg := models.Page{Limit: min(l.Limit, 100)}
	if pg.Limit == 0 {
		pg.Limit = 20
	}
	if l.Cursor == "" {
		return pg, nil
	}
	body, sig, ok := strings.Cut(l.Cursor, ".")
	raw, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	mac := hmac.New(sha256.New, c.key)
	mac.Write(raw)
	var cb cursorBody
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(got, mac.Sum(nil)[:16]) || json.Unmarshal(raw, &cb) != nil || cb.After == "" {
		p := newProblem(ctx, http.StatusBadRequest, "the cursor is not valid; start again without it")
		p.Code = "INVALID_CURSOR"
		p.Type = problemType(p.Code)
		p.Errors = []*huma.ErrorDetail{{Location: "query.cursor", Message: "invalid cursor"}}
		return pg, p
	}
	pg.After = cb.After
	return pg, nil
}

// listPage runs one list operation: it turns the parameters into a page, fetches the rows and
// maps each to its API view.
func listPage[T, V any](ctx context.Context, s *Server, l ListParams,
	fetch func(models.Page) ([]T, string, error), view func(*T) V) (ListBody[V], error) {
	pg, err := s.cursors.page(ctx, l)
	if err != nil {
		return ListBody[V]{}, err
	}
	rows, next, err := fetch(pg)
	if err != nil {
		return ListBody[V]{}, err
	}
	out := ListBody[V]{Data: make([]V, 0, len(rows)), NextCursor: s.cursors.encode(next)}
	for i := range rows {
		out.Data = append(out.Data, view(&rows[i]))
	}
	return out, nil
}

// pageByVersion pages versions, sorted by their number, as a list: the cursor is the number of
// the last version of a page.
func pageByVersion[T any](vs []T, pg models.Page, version func(T) int) ([]T, string, error) {
	after := 0
	if pg.After != "" {
		after, _ = strconv.Atoi(pg.After)
	}
	var out []T
	for _, v := range vs {
		if version(v) > after {
			out = append(out, v)
		}
	}
	if len(out) > pg.Limit {
		out = out[:pg.Limit]
		return out, strconv.Itoa(version(out[len(out)-1])), nil
	}
	return out, "", nil
}
