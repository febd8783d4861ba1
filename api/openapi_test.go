package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"

	"github.com/partnerd/partnerd/api/authz"
)

func TestOpenAPIDocumentIsValid31AndEveryOperationIsGuarded(t *testing.T) {
	s, _ := testServer(t, Deps{})
	res := do(t, s.Handler(), http.MethodGet, "/openapi.json", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("GET /openapi.json = %d", res.Status)
	}

	doc, err := libopenapi.NewDocument(res.Body)
	if err != nil {
		t.Fatalf("the document does not parse: %v", err)
	}
	if v := doc.GetSpecInfo().Version; !strings.HasPrefix(v, "3.1") {
		t.Fatalf("openapi version = %q, want 3.1.x", v)
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		t.Fatalf("the document does not build as OpenAPI 3: %v", err)
	}
	schemes := model.Model.Components.SecuritySchemes
	for _, name := range []string{SchemeBearer, SchemeMachineKey} {
		if _, ok := schemes.Get(name); !ok {
			t.Errorf("security scheme %s is not declared", name)
		}
	}

	var raw struct {
		Paths map[string]map[string]struct {
			OperationID string                `json:"operationId"`
			Tags        []string              `json:"tags"`
			Security    []map[string][]string `json:"security"`
			Permission  string                `json:"x-permission"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(res.Body, &raw); err != nil {
		t.Fatal(err)
	}
	count := 0
	for path, ops := range raw.Paths {
		for method, op := range ops {
			count++
			name := strings.ToUpper(method) + " " + path
			if len(op.Tags) == 0 {
				t.Errorf("%s has no tag", name)
			}
			if len(op.Security) == 0 {
				t.Errorf("%s has no security entry", name)
			}
			switch {
			case op.Permission == "":
				t.Errorf("%s has no x-permission", name)
			case op.Permission == PublicPermission:
				if len(op.Security) != 1 || len(op.Security[0]) != 0 {
					t.Errorf("public %s must carry exactly the anonymous requirement {}, has %v", name, op.Security)
				}
			case !authz.Known(authz.Permission(op.Permission)):
				t.Errorf("%s requires %q, which is not catalogued", name, op.Permission)
			default:
				for _, req := range op.Security {
					for scheme := range req {
						if scheme != SchemeBearer && scheme != SchemeMachineKey {
							t.Errorf("%s names unknown scheme %q", name, scheme)
						}
					}
				}
			}
		}
	}
	if count == 0 {
		t.Fatal("the document lists no operation")
	}
}

func TestOpenAPI30VariantIsServed(t *testing.T) {
	s, _ := testServer(t, Deps{})
	res := do(t, s.Handler(), http.MethodGet, "/openapi-3.0.json", nil)
	var doc struct {
		OpenAPI string `json:"openapi"`
	}
	if err := json.Unmarshal(res.Body, &doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.0") {
		t.Fatalf("GET /openapi-3.0.json = %d, openapi %q, err %v", res.Status, doc.OpenAPI, err)
	}
}

func TestDocsAndSwaggerUIAreServedFromTheBinary(t *testing.T) {
	s, _ := testServer(t, Deps{})
	h := s.Handler()

	if res := do(t, h, http.MethodGet, "/docs", nil); res.Status != http.StatusOK || !strings.Contains(string(res.Body), "/openapi.json") {
		t.Fatalf("GET /docs = %d, body does not load /openapi.json", res.Status)
	}
	res := do(t, h, http.MethodGet, "/swagger/", nil)
	if res.Status != http.StatusFound || res.Header.Get("Location") != "/swagger/index.html" {
		t.Fatalf("GET /swagger/ = %d to %q, want a redirect to the index", res.Status, res.Header.Get("Location"))
	}
	if res := do(t, h, http.MethodGet, "/swagger/index.html", nil); res.Status != http.StatusOK || !strings.Contains(string(res.Body), "swagger-ui") {
		t.Fatalf("GET /swagger/index.html = %d", res.Status)
	}
	if res := do(t, h, http.MethodGet, "/swagger/swagger-initializer.js", nil); !strings.Contains(string(res.Body), `"/openapi.json"`) {
		t.Fatalf("the Swagger UI does not load /openapi.json: %s", res.Body)
	}
	if res := do(t, h, http.MethodGet, "/swagger/swagger-ui-bundle.js", nil); res.Status != http.StatusOK || len(res.Body) < 100_000 {
		t.Fatalf("GET swagger-ui-bundle.js = %d with %d bytes; the assets must be embedded", res.Status, len(res.Body))
	}
	if p := do(t, h, http.MethodGet, "/swagger/nope.js", nil).problem(t); p.Status != http.StatusNotFound {
		t.Fatalf("unknown Swagger asset = %d", p.Status)
	}
}

func TestOpenAPISnapshotIsCurrent(t *testing.T) {
	s := New(Config{Version: "dev"}, Deps{})
	live, err := s.OpenAPI().MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	snapshot, err := os.ReadFile("../docs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, live, "", "  "); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(snapshot), bytes.TrimSpace(indented.Bytes())) {
		t.Fatal("docs/openapi.json is out of date: run make openapi and commit the result")
	}
}

// TestEveryRequestValueIsBounded walks every parameter and request body of the live document:
// each string has a maxLength (or an enum, or a date format), each array a maxItems, each map a
// maxProperties, each number a minimum and a maximum. List limits are the exception: larger
// ones are clamped.
func TestEveryRequestValueIsBounded(t *testing.T) {
	s, _ := testServer(t, Deps{})
	var doc map[string]any
	if err := json.Unmarshal(do(t, s.Handler(), http.MethodGet, "/openapi.json", nil).Body, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	var walk func(loc string, schema any, seen map[string]bool)
	walk = func(loc string, schema any, seen map[string]bool) {
		sc, ok := schema.(map[string]any)
		if !ok {
			return
		}
		if ref, ok := sc["$ref"].(string); ok {
			name := ref[strings.LastIndex(ref, "/")+1:]
			if seen[name] {
				return
			}
			next := map[string]bool{name: true}
			for k := range seen {
				next[k] = true
			}
			walk(loc, schemas[name], next)
			return
		}
		typ, _ := sc["type"].(string)
		if list, ok := sc["type"].([]any); ok && len(list) > 0 {
			typ, _ = list[0].(string)
		}
		_, hasMaxLength := sc["maxLength"]
		_, hasEnum := sc["enum"]
		_, hasMaxItems := sc["maxItems"]
		_, hasMin := sc["minimum"]
		_, hasMax := sc["maximum"]
		switch typ {
		case "string":
			if format := sc["format"]; !hasMaxLength && !hasEnum && format != "date-time" && format != "date" {
				t.Errorf("%s: a string without maxLength", loc)
			}
		case "array":
			if !hasMaxItems {
				t.Errorf("%s: an array without maxItems", loc)
			}
			walk(loc+"[]", sc["items"], seen)
		case "integer", "number":
			if (!hasMin || !hasMax) && !strings.HasSuffix(loc, "query.limit") {
				t.Errorf("%s: a number without minimum and maximum", loc)
			}
		case "object":
			for name, p := range asMap(sc["properties"]) {
				walk(loc+"."+name, p, seen)
			}
			if ap, ok := sc["additionalProperties"].(map[string]any); ok {
				if _, has := sc["maxProperties"]; !has {
					t.Errorf("%s: a map without maxProperties", loc)
				}
				walk(loc+".*", ap, seen)
			}
		}
	}
	count := 0
	for path, ops := range doc["paths"].(map[string]any) {
		for method, raw := range ops.(map[string]any) {
			op := raw.(map[string]any)
			name := strings.ToUpper(method) + " " + path
			for _, p := range asSlice(op["parameters"]) {
				pm := p.(map[string]any)
				walk(fmt.Sprintf("%s %s.%s", name, pm["in"], pm["name"]), pm["schema"], nil)
				count++
			}
			if rb, ok := op["requestBody"].(map[string]any); ok {
				for ct, media := range asMap(rb["content"]) {
					walk(name+" body ("+ct+")", asMap(media)["schema"], nil)
					count++
				}
			}
		}
	}
	if count < 100 {
		t.Fatalf("only %d parameters and bodies were walked", count)
	}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asSlice(v any) []any {
	l, _ := v.([]any)
	return l
}
