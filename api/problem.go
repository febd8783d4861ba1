package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/models"
)

// problemContentType is the media type of every error response (RFC 9457).
const problemContentType = "application/problem+json"

// Problem is the body of every 4xx and 5xx response: RFC 9457 problem details plus a stable
// code, the request id and one entry per invalid field.
type Problem struct {
	Type      string              `json:"type" doc:"A URI naming the problem type" example:"https://partnerd.dev/problems/not-found"`
	Title     string              `json:"title" doc:"Short summary of the problem type" example:"Not Found"`
	Status    int                 `json:"status" doc:"HTTP status code" example:"404"`
	Detail    string              `json:"detail,omitempty" doc:"What went wrong in this occurrence" example:"deal not found"`
	Instance  string              `json:"instance,omitempty" doc:"The request path" example:"/api/deals/0193"`
	Code      string              `json:"code" doc:"Stable UPPER_SNAKE_CASE code" example:"DEAL_NOT_FOUND"`
	RequestID string              `json:"requestId,omitempty" doc:"The X-Request-Id of the request" example:"01939f0c-5b1e-7c4a-9d2e-3f9a1c2b4d5e"`
	Errors    []*huma.ErrorDetail `json:"errors,omitempty" doc:"One entry per invalid field"`

	headers http.Header
}

// Error implements error.
func (p *Problem) Error() string { return p.Code + ": " + p.Detail }

// GetStatus implements huma.StatusError.
func (p *Problem) GetStatus() int { return p.Status }

// ContentType makes huma send problem+json instead of plain JSON.
func (p *Problem) ContentType(ct string) string {
	if ct == "application/json" || ct == "" {
		return problemContentType
	}
	return ct
}

// GetHeaders implements huma.HeadersError (e.g. Retry-After on 429).
func (p *Problem) GetHeaders() http.Header { return p.headers }

// statusCodes is the default code of each status.
var statusCodes = map[int]string{
	http.StatusBadRequest:            "BAD_REQUEST",
	http.StatusUnauthorized:          "UNAUTHENTICATED",
	http.StatusForbidden:             "FORBIDDEN",
	http.StatusNotFound:              "NOT_FOUND",
	http.StatusMethodNotAllowed:      "METHOD_NOT_ALLOWED",
	http.StatusNotAcceptable:         "NOT_ACCEPTABLE",
	http.StatusConflict:              "CONFLICT",
	http.StatusRequestEntityTooLarge: "PAYLOAD_TOO_LARGE",
	http.StatusUnsupportedMediaType:  "UNSUPPORTED_MEDIA_TYPE",
	http.StatusUnprocessableEntity:   "VALIDATION_FAILED",
	http.StatusTooManyRequests:       "RATE_LIMITED",
	http.StatusInternalServerError:   "INTERNAL",
	http.StatusServiceUnavailable:    "UNAVAILABLE",
}

// kindStatus maps each kind of domain error to its one status code.
var kindStatus = map[models.Kind]int{
	models.KindInvalid:         http.StatusUnprocessableEntity,
	models.KindUnauthenticated: http.StatusUnauthorized,
	models.KindForbidden:       http.StatusForbidden,
	models.KindNotFound:        http.StatusNotFound,
	models.KindConflict:        http.StatusConflict,
	models.KindTooLarge:        http.StatusRequestEntityTooLarge,
	models.KindRateLimited:     http.StatusTooManyRequests,
	models.KindUnavailable:     http.StatusServiceUnavailable,
	models.KindUnsupportedType: http.StatusUnsupportedMediaType,
	models.KindInternal:        http.StatusInternalServerError,
}

// newProblem builds a problem for status with the default code; details are added by callers.
func newProblem(ctx context.Context, status int, detail string) *Problem {
	code, ok := statusCodes[status]
	if !ok {
		code = strings.ToUpper(strings.ReplaceAll(http.StatusText(status), " ", "_"))
	}
	return &Problem{
		Type:      problemType(code),
		Title:     http.StatusText(status),
		Status:    status,
		Detail:    clipEcho(detail, maxDetailBytes),
		Code:      code,
		RequestID: RequestID(ctx),
		Instance:  clipEcho(requestPath(ctx), maxDetailBytes),
	}
}

func problemType(code string) string {
	return "https://partnerd.dev/problems/" + strings.ReplaceAll(strings.ToLower(code), "_", "-")
}

// problemFromDomain turns a domain error into the problem callers see. Internal errors keep
// their cause out of the response.
func problemFromDomain(ctx context.Context, e *models.Error) *Problem {
	status, ok := kindStatus[e.Kind]
	if !ok {
		status = http.StatusInternalServerError
	}
	p := newProblem(ctx, status, e.Message)
	if status == http.StatusInternalServerError {
		p.Detail = "internal error"
		return p
	}
	if e.Code != "" {
		p.Code = e.Code
		p.Type = problemType(e.Code)
	}
	for _, f := range e.Fields {
		p.Errors = append(p.Errors, &huma.ErrorDetail{Location: f.Location, Message: f.Message, Value: f.Value})
	}
	if e.Code == models.CodeDatabaseUnavailable {
		p.headers = http.Header{"Retry-After": []string{"1"}} // a database restart or failover passes in seconds
	}
	p.bound()
	return p
}

// hookHumaErrors makes huma's own errors (validation, parsing, body size) problems with codes.
// huma keeps this hook in package variables, so it is installed once for the process.
func init() {
	huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
		return humaProblem(context.Background(), status, msg, errs)
	}
	huma.NewErrorWithContext = func(hctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
		ctx := context.Background()
		if hctx != nil {
			ctx = hctx.Context()
		}
		return humaProblem(ctx, status, msg, errs)
	}
}

func humaProblem(ctx context.Context, status int, msg string, errs []error) *Problem {
	for _, err := range errs {
		var p *Problem
		if errors.As(err, &p) {
			return p
		}
		var d *models.Error
		if errors.As(err, &d) {
			return problemFromDomain(ctx, d)
		}
	}
	if status >= 500 {
		msg = "internal error"
		errs = nil
	}
	p := newProblem(ctx, status, msg)
	for _, err := range errs {
		if err == nil {
			continue
		}
		if d, ok := err.(huma.ErrorDetailer); ok {
			p.Errors = append(p.Errors, d.ErrorDetail())
		} else {
			p.Errors = append(p.Errors, &huma.ErrorDetail{Message: err.Error()})
		}
	}
	p.bound()
	return p
}

// Bounds of a problem body: however many fields a request got wrong and however large the
// values it sent, the answer stays a few kilobytes.
const (
	// MaxProblemErrors is how many field problems a response lists; one more entry counts
	// the rest.
	MaxProblemErrors = 20
	// maxEchoBytes caps a string value echoed in a field problem or a detail.
	maxEchoBytes = 120
	// maxEchoItems is the largest array or object echoed whole.
	maxEchoItems = 8
	// maxDetailBytes caps the detail and each message.
	maxDetailBytes = 1024
)

// bound keeps the problem small: at most MaxProblemErrors entries plus one that counts the
// rest, and no echoed value, detail or message larger than a line.
func (p *Problem) bound() {
	p.Detail = clipEcho(p.Detail, maxDetailBytes)
	if n := len(p.Errors); n > MaxProblemErrors {
		rest := &huma.ErrorDetail{Message: fmt.Sprintf("and %d more problems", n-MaxProblemErrors)}
		p.Errors = append(p.Errors[:MaxProblemErrors:MaxProblemErrors], rest)
	}
	for i, e := range p.Errors {
		if e == nil {
			continue
		}
		// Copy: huma's details may be shared with its pooled validation state.
		b := *e
		b.Location = clipEcho(b.Location, maxEchoBytes)
		b.Message = clipEcho(b.Message, maxDetailBytes)
		b.Value = echoValue(b.Value)
		p.Errors[i] = &b
	}
}

// clipEcho shortens s to at most n bytes on a character boundary, marking the cut.
func clipEcho(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return models.ClipBytes(s, n) + "…"
}

// echoValue is what a field problem may show of the value sent: scalars and short strings as
// they are, a long string clipped, a large array or object only by its size.
func echoValue(v any) any {
	switch x := v.(type) {
	case nil, bool, int, int64, float64, json.Number:
		return v
	case string:
		return clipEcho(x, maxEchoBytes)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Len() > maxEchoItems {
			return fmt.Sprintf("(an array of %d items)", rv.Len())
		}
	case reflect.Map:
		if rv.Len() > maxEchoItems {
			return fmt.Sprintf("(an object of %d members)", rv.Len())
		}
	case reflect.String:
		return clipEcho(rv.String(), maxEchoBytes)
	default:
		if rv.CanInt() || rv.CanUint() || rv.CanFloat() || rv.Kind() == reflect.Bool {
			return v
		}
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) > maxEchoBytes {
		return "(a value too large to show)"
	}
	return v
}
