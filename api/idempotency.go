package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/models"
)

// Headers of idempotent requests and their replays.
const (
	// HeaderIdempotencyKey carries the client's key for a write that must happen at most once.
	HeaderIdempotencyKey = "Idempotency-Key"
	// HeaderIdempotentReplayed is "true" on a response replayed from an earlier request.
	HeaderIdempotentReplayed = "Idempotent-Replayed"
)

// Problem codes of idempotent requests.
const (
	CodeIdempotencyKeyRequired = "IDEMPOTENCY_KEY_REQUIRED"
	CodeIdempotencyKeyInvalid  = "IDEMPOTENCY_KEY_INVALID"
	CodeIdempotencyKeyReused   = "IDEMPOTENCY_KEY_REUSED"
	CodeIdempotencyKeyInFlight = "IDEMPOTENCY_KEY_IN_FLIGHT"
)

// maxIdempotencyKeyLen is the longest Idempotency-Key accepted.
const maxIdempotencyKeyLen = 255

// metaIdempotency is the operation metadata key marking an operation idempotent.
const metaIdempotency = "partnerd.idempotency"

// idempotencyMode is how an operation takes Idempotency-Key.
type idempotencyMode struct {
	required bool
}

// IdempotencyStore keeps the idempotency keys of each tenant and the responses stored for them.
type IdempotencyStore interface {
	// ClaimIdempotencyKey claims key for a request with fingerprint. It returns the caller's
	// claim and true when the key was free (or expired, or abandoned in flight), and the key as
	// stored and false otherwise. Of concurrent claims of one key exactly one wins.
	ClaimIdempotencyKey(ctx context.Context, sys models.Scope, key, fingerprint string, now time.Time) (*models.IdempotencyKey, bool, error)
	// FinishIdempotencyKey stores the response of the request holding claimID.
	FinishIdempotencyKey(ctx context.Context, sys models.Scope, key, claimID string, resp models.IdempotentResponse) error
	// ReleaseIdempotencyKey gives up the claim claimID so that the key can be used again.
	ReleaseIdempotencyKey(ctx context.Context, sys models.Scope, key, claimID string) error
}

// idempotent makes op accept an Idempotency-Key header: the first request with a key runs, and
// repeats with the same key and body get its response again instead of running twice. With
// required set, requests without a key are refused.
func idempotent(op huma.Operation, required bool) huma.Operation {
	if op.Metadata == nil {
		op.Metadata = map[string]any{}
	}
	op.Metadata[metaIdempotency] = idempotencyMode{required: required}
	minLen, maxLen := 1, maxIdempotencyKeyLen
	desc := "A unique key for this request, chosen by the client (for example a UUID), kept for 24 hours per tenant. " +
		"A repeat with the same key and body gets the first response again, with `Idempotent-Replayed: true`, " +
		"instead of running twice; the same key with another body or operation is 422 `IDEMPOTENCY_KEY_REUSED`; " +
		"a repeat while the first request runs is 409 `IDEMPOTENCY_KEY_IN_FLIGHT`."
	if !required {
		desc += " Optional: without it, every request runs."
	}
	op.Parameters = append(op.Parameters, &huma.Param{
		Name:        HeaderIdempotencyKey,
		In:          "header",
		Description: desc,
		Required:    required,
		Schema: &huma.Schema{
			Type:      "string",
			MinLength: &minLen,
			MaxLength: &maxLen,
			Pattern:   `^[\x20-\x7E]+$`,
			Examples:  []any{"5b0f6c1e-8f4a-4a63-9f55-2f1d3c9e7a10"},
		},
	})
	op.Errors = appendMissing(op.Errors, http.StatusBadRequest, http.StatusConflict, http.StatusUnprocessableEntity)
	return op
}

// validIdempotencyKey accepts 1..255 printable ASCII characters.
func validIdempotencyKey(key string) bool {
	if key == "" || len(key) > maxIdempotencyKeyLen {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return false
		}
	}
	return true
}

// idempotency runs the requests of idempotent operations at most once per key and tenant. It
// acts after authentication: the key belongs to the caller's tenant and the caller is part of
// the request's fingerprint. Anonymous calls and servers without a store pass through.
func (s *Server) idempotency(hctx huma.Context, next func(huma.Context)) {
	op := hctx.Operation()
	mode, ok := op.Metadata[metaIdempotency].(idempotencyMode)
	if !ok || s.deps.Idempotency == nil {
		next(hctx)
		return
	}
	ctx := hctx.Context()
	principal := models.PrincipalFrom(ctx)
	if principal == nil || principal.TenantID == "" {
		next(hctx)
		return
	}
	key := hctx.Header(HeaderIdempotencyKey)
	if key == "" {
		if mode.required {
			s.deny(hctx, codedProblem(ctx, http.StatusBadRequest, CodeIdempotencyKeyRequired,
				"this operation requires an Idempotency-Key header"))
			return
		}
		next(hctx)
		return
	}
	if !validIdempotencyKey(key) {
		s.deny(hctx, codedProblem(ctx, http.StatusBadRequest, CodeIdempotencyKeyInvalid,
			"the Idempotency-Key header must be 1 to 255 printable ASCII characters"))
		return
	}
	body, p := readRequestBody(hctx, op)
	if p != nil {
		s.deny(hctx, p)
		return
	}
	fp := requestFingerprint(hctx, op, principal, body)
	store := s.deps.Idempotency
	tenantID := principal.TenantID
	claim, won, err := store.ClaimIdempotencyKey(ctx, models.System(tenantID), key, fp, time.Now())
	if err != nil {
		s.deny(hctx, s.problem(ctx, err))
		return
	}
	if !won {
		switch {
		case subtle.ConstantTimeCompare([]byte(claim.Fingerprint), []byte(fp)) != 1:
			s.deny(hctx, codedProblem(ctx, http.StatusUnprocessableEntity, CodeIdempotencyKeyReused,
				"the Idempotency-Key was already used for a different request"))
		case claim.Status != models.IdempotencyDone:
			hctx.SetHeader("Retry-After", "1")
			s.deny(hctx, codedProblem(ctx, http.StatusConflict, CodeIdempotencyKeyInFlight,
				"a request with this Idempotency-Key is still being processed"))
		default:
			replay(hctx, claim)
		}
		return
	}

	rec := &recordingContext{innerContext: hctx, body: body}
	// Settling must outlive a client that hung up: the effect may have happened.
	bg := context.WithoutCancel(ctx)
	settled := false
	defer func() {
		if !settled { // the handler panicked: nothing was decided, so the key is free again
			s.releaseKey(bg, tenantID, key, claim.ClaimID)
		}
	}()
	next(rec)
	settled = true
	status := rec.status
	if status == 0 && rec.wrote {
		status = http.StatusOK
	}
	if !storableResponse(status, rec) {
		s.releaseKey(bg, tenantID, key, claim.ClaimID)
		return
	}
	resp := models.IdempotentResponse{Status: status, ContentType: rec.contentType, Body: rec.out.Bytes()}
	if err := store.FinishIdempotencyKey(bg, models.System(tenantID), key, claim.ClaimID, resp); err != nil {
		s.log.ErrorContext(ctx, "storing an idempotent response failed", "request_id", RequestID(ctx), "error", err.Error())
	}
}

func (s *Server) releaseKey(ctx context.Context, tenantID, key, claimID string) {
	if err := s.deps.Idempotency.ReleaseIdempotencyKey(ctx, models.System(tenantID), key, claimID); err != nil {
		s.log.ErrorContext(ctx, "releasing an idempotency key failed", "request_id", RequestID(ctx), "error", err.Error())
	}
}

// storableResponse reports whether a response is the final answer to its request: successes
// and the caller's own mistakes are, while server errors, timeouts, rate limits, refusals of
// the key itself and refusals the caller can lift (an agreement to accept first) leave the
// request to be retried.
func storableResponse(status int, rec *recordingContext) bool {
	code := func() string {
		var p struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(rec.out.Bytes(), &p)
		return p.Code
	}
	switch {
	case status >= 200 && status < 300:
		return true
	case status == http.StatusRequestTimeout, status == http.StatusTooManyRequests, status == 499:
		return false
	case status == http.StatusConflict:
		return !strings.HasPrefix(code(), "IDEMPOTENCY_")
	case status == http.StatusForbidden:
		return code() != "AGREEMENT_REQUIRED"
	case status >= 400 && status < 500:
		return true
	}
	return false
}

// replay answers with the response stored for the key.
func replay(hctx huma.Context, k *models.IdempotencyKey) {
	if k.ResponseContentType != "" {
		hctx.SetHeader("Content-Type", k.ResponseContentType)
	}
	hctx.SetHeader(HeaderIdempotentReplayed, "true")
	hctx.SetStatus(k.ResponseStatus)
	if len(k.ResponseBody) > 0 {
		_, _ = hctx.BodyWriter().Write(k.ResponseBody)
	}
}

// readRequestBody reads the whole body within the operation's limit, answering as huma would
// for a body that is too large or too slow.
func readRequestBody(hctx huma.Context, op *huma.Operation) ([]byte, *Problem) {
	ctx := hctx.Context()
	r := hctx.BodyReader()
	if r == nil {
		return nil, nil
	}
	if op.BodyReadTimeout > 0 {
		_ = hctx.SetReadDeadline(time.Now().Add(op.BodyReadTimeout))
	}
	limit := op.MaxBodyBytes
	if limit > 0 {
		r = io.LimitReader(r, limit)
	}
	body, err := io.ReadAll(r)
	if limit > 0 && int64(len(body)) == limit {
		return nil, newProblem(ctx, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is too large limit=%d bytes", limit))
	}
	if err != nil {
		var nerr net.Error
		if errors.As(err, &nerr) && nerr.Timeout() {
			return nil, newProblem(ctx, http.StatusRequestTimeout, "request body read timeout")
		}
		return nil, newProblem(ctx, http.StatusInternalServerError, "internal error")
	}
	return body, nil
}

// requestFingerprint identifies a request for its idempotency key: the operation, the path and
// query, the caller and the body.
func requestFingerprint(hctx huma.Context, op *huma.Operation, p *models.Principal, body []byte) string {
	h := sha256.New()
	u := hctx.URL()
	for _, part := range []string{op.Method, op.Path, u.Path, u.RawQuery, string(p.Kind), p.TenantID, p.UserID, p.KeyID} {
		writeField(h, []byte(part))
	}
	writeField(h, body)
	return hex.EncodeToString(h.Sum(nil))
}

// writeField writes b with its length, so that no two field lists hash alike.
func writeField(h hash.Hash, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// codedProblem is a problem with a specific code.
func codedProblem(ctx context.Context, status int, code, detail string) *Problem {
	p := newProblem(ctx, status, detail)
	p.Code = code
	p.Type = problemType(code)
	return p
}

// innerContext is huma.Context under a name that does not hide its Context method when embedded.
type innerContext huma.Context

// recordingContext hands the handler the body read already and records the response it writes,
// while writing it through to the client.
type recordingContext struct {
	innerContext
	body        []byte
	status      int
	contentType string
	wrote       bool
	out         bytes.Buffer
}

// BodyReader returns the request body read before the handler ran.
func (c *recordingContext) BodyReader() io.Reader { return bytes.NewReader(c.body) }

// SetStatus records and sets the response status.
func (c *recordingContext) SetStatus(code int) {
	c.status = code
	c.innerContext.SetStatus(code)
}

// SetHeader records the content type and sets the header.
func (c *recordingContext) SetHeader(name, value string) {
	if strings.EqualFold(name, "Content-Type") {
		c.contentType = value
	}
	c.innerContext.SetHeader(name, value)
}

// AppendHeader records the content type and appends to the header.
func (c *recordingContext) AppendHeader(name, value string) {
	if strings.EqualFold(name, "Content-Type") && c.contentType == "" {
		c.contentType = value
	}
	c.innerContext.AppendHeader(name, value)
}

// BodyWriter returns a writer that records the body and writes it to the client.
func (c *recordingContext) BodyWriter() io.Writer { return recordingWriter{c} }

type recordingWriter struct{ c *recordingContext }

func (w recordingWriter) Write(p []byte) (int, error) {
	w.c.wrote = true
	w.c.out.Write(p)
	return w.c.innerContext.BodyWriter().Write(p)
}
