package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// metaAccess is the operation metadata key holding its Access.
const metaAccess = "partnerd.access"

// ExtPermission is the OpenAPI extension naming the permission an operation requires.
const ExtPermission = "x-permission"

// PublicPermission is the x-permission value of operations open to anonymous callers.
const PublicPermission = "public"

// Access is what an operation demands of its caller.
type Access struct {
	permission authz.Permission
	public     bool
}

// Public marks an operation anyone may call without credentials.
func Public() Access { return Access{public: true} }

// Requires marks an operation that needs perm in the caller's tenant.
func Requires(perm authz.Permission) Access { return Access{permission: perm} }

// Security requirements operations choose from.
var (
	// UsersOrKeys accepts a user access token or a machine key.
	UsersOrKeys = []map[string][]string{{SchemeBearer: {}}, {SchemeMachineKey: {}}}
	// UsersOnly accepts only a user access token.
	UsersOnly = []map[string][]string{{SchemeBearer: {}}}
	// KeysOnly accepts only a machine key.
	KeysOnly = []map[string][]string{{SchemeMachineKey: {}}}
)

// register adds one operation. It panics, at start-up, when the operation lacks an id, a tag,
// a security requirement or a catalogued permission, so that no route can escape the guard.
// It lists the error responses that follow from the operation's access and input (inputErrors)
// beside those the operation declares itself (its domain's 404, 409, 422, 429).
func register[I, O any](s *Server, op huma.Operation, access Access, handler func(context.Context, *I) (*O, error)) {
	if err := checkOperation(&op, access); err != nil {
		panic(err)
	}
	op.Errors = appendMissing(op.Errors, inputErrors(reflect.TypeFor[I](), &op)...)
	huma.Register(s.api, op, func(ctx context.Context, in *I) (*O, error) {
		out, err := handler(ctx, in)
		if err != nil {
			return nil, s.problem(ctx, err)
		}
		return out, nil
	})
}

// checkOperation validates op and records its access in metadata and in the OpenAPI document.
func checkOperation(op *huma.Operation, access Access) error {
	name := op.Method + " " + op.Path
	switch {
	case op.OperationID == "":
		return fmt.Errorf("api: operation %s has no operation id", name)
	case len(op.Tags) == 0:
		return fmt.Errorf("api: operation %s has no tag", name)
	case access.public && len(op.Security) > 0:
		return fmt.Errorf("api: public operation %s must not declare a security requirement", name)
	case !access.public && access.permission == "":
		return fmt.Errorf("api: operation %s declares no permission (use Requires or Public)", name)
	case !access.public && !authz.Known(access.permission):
		return fmt.Errorf("api: operation %s requires %q, which is not in the permission catalogue", name, access.permission)
	case !access.public && len(op.Security) == 0:
		return fmt.Errorf("api: operation %s declares no security requirement", name)
	}
	if op.Metadata == nil {
		op.Metadata = map[string]any{}
	}
	op.Metadata[metaAccess] = access
	if op.Extensions == nil {
		op.Extensions = map[string]any{}
	}
	if access.public {
		// An empty requirement object: anonymous callers are allowed (OpenAPI 3.1 §4.8.30).
		op.Security = []map[string][]string{{}}
		op.Extensions[ExtPermission] = PublicPermission
	} else {
		op.Extensions[ExtPermission] = string(access.permission)
		op.Errors = appendMissing(op.Errors, http.StatusUnauthorized, http.StatusForbidden)
	}
	if op.MaxBodyBytes == 0 {
		op.MaxBodyBytes = DefaultMaxBodyBytes
	}
	return nil
}

// inputErrors are the error responses an operation's input alone can cause, whatever its
// handler does: a path id names a row that may not exist or be visible (404); parameters and
// bodies are validated (422, ADR 17); a body can be malformed (400), too large (413) or of
// another media type (415); a list refuses a negative limit or a forged cursor (400).
func inputErrors(in reflect.Type, op *huma.Operation) []int {
	var codes []int
	where := map[string]bool{}
	for _, p := range op.Parameters {
		where[p.In] = true
	}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			switch {
			case f.Anonymous && f.Type.Kind() == reflect.Struct:
				walk(f.Type)
			case f.Name == "Body" || f.Name == "RawBody":
				where["body"] = true
			default:
				for _, in := range []string{"path", "query", "header", "cookie"} {
					if f.Tag.Get(in) != "" {
						where[in] = true
					}
				}
				if f.Tag.Get("query") == "cursor" {
					where["list"] = true
				}
			}
		}
	}
	if in.Kind() == reflect.Struct {
		walk(in)
	}
	if where["path"] {
		codes = append(codes, http.StatusNotFound)
	}
	if where["body"] || where["list"] {
		codes = append(codes, http.StatusBadRequest)
	}
	if where["body"] {
		codes = append(codes, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
	}
	if len(where) > 0 {
		codes = append(codes, http.StatusUnprocessableEntity)
	}
	return codes
}

// requestExample is an operation's request body with json as its example, a realistic request
// that the document's readers copy and that TestEveryOperationHasASummaryAnExampleAndItsErrors
// checks against the body's schema. It panics at start-up when json does not parse.
func requestExample(example string) *huma.RequestBody {
	var v any
	if err := json.Unmarshal([]byte(example), &v); err != nil {
		panic(fmt.Sprintf("api: request example does not parse: %v: %s", err, example))
	}
	return &huma.RequestBody{Content: map[string]*huma.MediaType{"application/json": {Example: v}}}
}

func appendMissing(list []int, codes ...int) []int {
	for _, c := range codes {
		found := false
		for _, have := range list {
			found = found || have == c
		}
		if !found {
			list = append(list, c)
		}
	}
	return list
}

// problem turns a handler's error into the problem the caller sees, logging internal causes
// under the request id so that they can be found without being shown.
func (s *Server) problem(ctx context.Context, err error) *Problem {
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	if d, ok := models.AsError(err); ok && d.Kind != models.KindInternal {
		if d.Code == models.CodeDatabaseUnavailable {
			s.log.WarnContext(ctx, "database unavailable", "request_id", RequestID(ctx), "error", err.Error())
		}
		return problemFromDomain(ctx, d)
	}
	s.log.ErrorContext(ctx, "request failed", "request_id", RequestID(ctx), "error", err.Error())
	return newProblem(ctx, http.StatusInternalServerError, "internal error")
}

// schemesOf lists the security scheme names an operation accepts.
func schemesOf(op *huma.Operation) []string {
	var out []string
	for _, req := range op.Security {
		for name := range req {
			out = append(out, name)
		}
	}
	return out
}
