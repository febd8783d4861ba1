package api

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
)

// probeOperations answer 200 (or 503) and take no credentials, parameters or body: no client
// error is theirs. .redocly.lint-ignore.yaml holds the same exceptions.
var probeOperations = map[string]bool{"get-health": true, "get-readiness": true, "get-installation": true}

// TestEveryOperationHasASummaryAnExampleAndItsErrors holds every operation of the live document
// to the contract integrators read (ADR 21) and names each one that breaks it: a summary; a
// request example, valid against the body's schema, where it takes a body; and the error
// responses that follow from its access and input (401 and 403 when it needs credentials, 404
// for a path id, 400, 413, 415 and 422 for a body, 422 for parameters, 400 for a list's cursor),
// at least one 4xx, each as problem+json.
func TestEveryOperationHasASummaryAnExampleAndItsErrors(t *testing.T) {
	s := New(Config{Version: "test"}, Deps{})
	doc := s.OpenAPI()
	registry := doc.Components.Schemas
	var failures []string
	count := 0
	for path, item := range doc.Paths {
		for method, op := range operationsOf(item) {
			count++
			var missing []string
			if strings.TrimSpace(op.Summary) == "" {
				missing = append(missing, "no summary")
			}
			want := []int{}
			if op.Extensions[ExtPermission] != PublicPermission {
				want = append(want, http.StatusUnauthorized, http.StatusForbidden)
			}
			for _, p := range op.Parameters {
				switch {
				case p.In == "path":
					want = append(want, http.StatusNotFound, http.StatusUnprocessableEntity)
				case p.In == "query" && p.Name == "cursor":
					want = append(want, http.StatusBadRequest, http.StatusUnprocessableEntity)
				default:
					want = append(want, http.StatusUnprocessableEntity)
				}
			}
			if op.RequestBody != nil {
				want = append(want, http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity)
				missing = append(missing, exampleProblems(registry, op.RequestBody)...)
			}
			slices.Sort(want)
			for _, code := range slices.Compact(want) {
				if op.Responses[strconv.Itoa(code)] == nil {
					missing = append(missing, fmt.Sprintf("no %d response", code))
				}
			}
			has4xx := false
			for status, res := range op.Responses {
				if status[0] == '4' {
					has4xx = true
				}
				if status[0] == '4' || status[0] == '5' || status == "default" {
					if res.Content[problemContentType] == nil {
						missing = append(missing, status+" is not "+problemContentType)
					}
				}
			}
			if !has4xx && !probeOperations[op.OperationID] {
				missing = append(missing, "no 4xx response")
			}
			if len(missing) > 0 {
				slices.Sort(missing)
				failures = append(failures, fmt.Sprintf("%s (%s %s): %s", op.OperationID, method, path, strings.Join(missing, "; ")))
			}
		}
	}
	slices.Sort(failures)
	for _, f := range failures {
		t.Error(f)
	}
	if count < 100 {
		t.Fatalf("only %d operations were checked", count)
	}
}

// exampleProblems lists what is wrong with a request body's example: none, or one that its
// schema refuses.
func exampleProblems(registry huma.Registry, rb *huma.RequestBody) []string {
	media := rb.Content["application/json"]
	if media == nil {
		return nil
	}
	example := media.Example
	if example == nil {
		for _, e := range media.Examples {
			example = e.Value
			break
		}
	}
	if example == nil {
		return []string{"no request example"}
	}
	res := &huma.ValidateResult{}
	huma.Validate(registry, media.Schema, huma.NewPathBuffer([]byte("body"), 0), huma.ModeWriteToServer, example, res)
	var out []string
	for _, e := range res.Errors {
		out = append(out, "request example: "+e.Error())
	}
	return out
}

// operationsOf is the operations of a path by method.
func operationsOf(item *huma.PathItem) map[string]*huma.Operation {
	ops := map[string]*huma.Operation{}
	for method, op := range map[string]*huma.Operation{
		http.MethodGet: item.Get, http.MethodPost: item.Post, http.MethodPut: item.Put,
		http.MethodPatch: item.Patch, http.MethodDelete: item.Delete, http.MethodHead: item.Head,
	} {
		if op != nil {
			ops[method] = op
		}
	}
	return ops
}

// TestTheDerivedErrorsAreWhatABodyGets sends the body-borne mistakes the document lists for
// every operation with a body, and gets those statuses back as problems.
func TestTheDerivedErrorsAreWhatABodyGets(t *testing.T) {
	s, _ := testServer(t, Deps{})
	h := s.Handler()
	for _, c := range []struct {
		name        string
		contentType string
		body        string
		want        int
	}{
		{"malformed JSON is a 400", "application/json", `{"email":`, http.StatusBadRequest},
		{"another media type is a 415", "application/xml", `<login/>`, http.StatusUnsupportedMediaType},
		{"a body over the limit is a 413", "application/json", `{"email":"` + strings.Repeat("a", DefaultMaxBodyBytes) + `"}`, http.StatusRequestEntityTooLarge},
		{"a body its schema refuses is a 422", "application/json", `{"email":"ada@acme.example"}`, http.StatusUnprocessableEntity},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := do(t, h, http.MethodPost, "/api/auth/login", strings.NewReader(c.body), "Content-Type", c.contentType)
			if p := res.problem(t); p.Status != c.want || res.Status != c.want {
				t.Fatalf("status %d (problem %d), want %d: %s", res.Status, p.Status, c.want, res.Body)
			}
		})
	}
}
