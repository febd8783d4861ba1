package api

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/models"
)

// boundedSchema is a body with a bounded name, a bounded list of bounded strings and a
// free-form payload.
func boundedSchema() *huma.Schema {
	ten, three, five := 10, 3, 5
	return &huma.Schema{Type: huma.TypeObject, Properties: map[string]*huma.Schema{
		"name":    {Type: huma.TypeString, MaxLength: &ten},
		"tags":    {Type: huma.TypeArray, MaxItems: &three, Items: &huma.Schema{Type: huma.TypeString, MaxLength: &five}},
		"payload": {Type: huma.TypeObject, AdditionalProperties: true},
	}}
}

func TestTheBodyScanFindsWhatBreaksTheBoundsAndTheTextRules(t *testing.T) {
	deep := strings.Repeat(`{"a":`, MaxJSONDepth) + `1` + strings.Repeat(`}`, MaxJSONDepth)
	tooDeep := strings.Repeat(`[`, MaxJSONDepth+1) + strings.Repeat(`]`, MaxJSONDepth+1)
	for _, c := range []struct {
		name, body string
		want       []string // locations of the problems, in order
	}{
		{"a valid body passes", `{"name":"Acme","tags":["a","b"],"payload":{"x":[1,{"y":"z"}],"t":"tab\tand\nline"}}`, nil},
		{"characters count, not bytes", `{"name":"éééééééééé"}`, nil},
		{"an escaped character counts once", `{"name":"\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"}`, nil},
		{"a surrogate pair is one allowed character", `{"name":"\ud83d\ude00"}`, nil},
		{"a string over its maxLength", `{"name":"abcdefghijk"}`, []string{"body.name"}},
		{"an array over its maxItems stops the scan", `{"tags":["a","a","a","a","a"],"name":"abcdefghijklmnop"}`, []string{"body.tags"}},
		{"an item over its maxLength", `{"tags":["a","abcdef"]}`, []string{"body.tags[1]"}},
		{"an escaped NUL in a field", `{"name":"a\u0000"}`, []string{"body.name"}},
		{"an escaped NUL deep in a free-form payload", `{"payload":{"a":[{"b":"\u0000"}]}}`, []string{"body.payload.a[0].b"}},
		{"a NUL in a key of a free-form payload", `{"payload":{"a\u0000":1}}`, []string{"body.payload"}},
		{"a backspace escape", `{"name":"\b"}`, []string{"body.name"}},
		{"a raw DEL", "{\"name\":\"a\x7f\"}", []string{"body.name"}},
		{"a raw right-to-left override", "{\"name\":\"a\u202e\"}", []string{"body.name"}},
		{"an escaped first strong isolate", `{"payload":{"x":"\u2068"}}`, []string{"body.payload.x"}},
		{"invalid UTF-8", "{\"name\":\"a\xff\"}", []string{"body.name"}},
		{"a case-insensitive field name is bounded like the field", `{"NAME":"abcdefghijk"}`, []string{"body.NAME"}},
		{"32 levels pass", deep, nil},
		{"33 levels are refused", tooDeep, []string{"body" + strings.Repeat("[0]", MaxJSONDepth)}},
		{"malformed JSON is left to the decoder", `{"name":`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := scanJSON([]byte(c.body), nil, boundedSchema())
			var got []string
			for _, p := range sc.problems {
				got = append(got, p.Location)
				if strings.Contains(p.Message, "abcdef") {
					t.Errorf("the message repeats the value: %q", p.Message)
				}
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Fatalf("problems at %q, want %q", got, c.want)
			}
		})
	}
}

func TestTheBodyScanStopsAfterTheLargestNumberOfProblemsAResponseShows(t *testing.T) {
	items := make([]string, 1000)
	for i := range items {
		items[i] = "\u0000"
	}
	b, _ := json.Marshal(map[string]any{"payload": map[string]any{"x": items}})
	sc := scanJSON(b, nil, boundedSchema())
	if len(sc.problems) != MaxProblemErrors+1 || !sc.stop {
		t.Fatalf("%d problems, stopped %v; want %d and a stop", len(sc.problems), sc.stop, MaxProblemErrors+1)
	}
}

// FuzzBodyScan checks the scan against the decoder on any input: it never panics, it never
// takes valid JSON for malformed, and on valid JSON it refuses exactly the bodies with a
// string or key that breaks the text rules or a nesting deeper than MaxJSONDepth.
func FuzzBodyScan(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `"x"`, `1`, `null`, `{"name":"Acme","tags":["a"]}`,
		`{"a":"\u0000"}`, `{"\u0007":1}`, `["\ud800"]`, `["\ud83d\ude00"]`, `{"a":"\u202e"}`,
		"[\"\xff\"]", "[\"\u2066\"]", `{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
		`{"a":"\b\f\n\r\t\/\\\""}`, `[1e5,-0.5,true,false,null]`, `{"a":`, `["a\`, `["\u12"]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc := scanJSON(data, nil, boundedSchema())
		if !json.Valid(data) {
			return
		}
		if sc.stop && len(sc.problems) == 0 {
			t.Fatalf("valid JSON %q was taken for malformed", data)
		}
		refused := len(sc.problems) > 0
		if !utf8.Valid(data) {
			if !refused {
				t.Fatalf("invalid UTF-8 in %q passed", data)
			}
			return
		}
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		want := breaksRules(v, 0)
		if want && !refused {
			t.Fatalf("%q breaks a rule but passed the scan", data)
		}
		// The decoder keeps the last of repeated keys; the scan checks every one.
		if refused && !want && !repeatsKeys(data) {
			t.Fatalf("the scan refused %q (%v), which breaks no rule", data, sc.problems[0])
		}
	})
}

// breaksRules walks a decoded value for a text rule broken in a string or key, a nesting
// deeper than MaxJSONDepth or a bound of boundedSchema broken at the top.
func breaksRules(v any, depth int) bool {
	switch x := v.(type) {
	case string:
		return models.TextProblem(x) != ""
	case []any:
		if depth+1 > MaxJSONDepth {
			return true
		}
		for _, e := range x {
			if breaksRules(e, depth+1) {
				return true
			}
		}
	case map[string]any:
		if depth+1 > MaxJSONDepth {
			return true
		}
		for k, e := range x {
			if models.TextProblem(k) != "" || breaksRules(e, depth+1) {
				return true
			}
			if depth == 0 && topLevelBoundBroken(k, e) {
				return true
			}
		}
	}
	return false
}

func topLevelBoundBroken(key string, v any) bool {
	switch strings.ToLower(key) {
	case "name":
		s, ok := v.(string)
		return ok && utf8.RuneCountInString(s) > 10
	case "tags":
		a, ok := v.([]any)
		if !ok {
			return false
		}
		if len(a) > 3 {
			return true
		}
		for _, e := range a {
			if s, ok := e.(string); ok && utf8.RuneCountInString(s) > 5 {
				return true
			}
		}
	}
	return false
}

// repeatsKeys reports whether an object of valid JSON data names a key twice.
func repeatsKeys(data []byte) bool {
	d := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys   map[string]bool
		object bool
		expect bool // the next token of an object is a key
	}
	var stack []*frame
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.expect {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return true
				}
				top.keys[k] = true
				top.expect = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, object: true, expect: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].expect = true
		}
	}
}

// BenchmarkBodyScan measures the scan over an ingest batch of 1 MiB, the largest body it reads.
func BenchmarkBodyScan(b *testing.B) {
	event := map[string]any{"customerEmail": "ada@example.com", "type": "invoice.paid", "eventId": "inv-1001",
		"payload": map[string]any{"amount": 129900, "currency": "EUR", "lines": []any{map[string]any{"sku": "seat", "note": "Zürich office"}}}}
	var events []any
	for n := 0; n < (1<<20)-4096; {
		events = append(events, event)
		raw, _ := json.Marshal(event)
		n += len(raw) + 1
	}
	body, _ := json.Marshal(map[string]any{"events": events})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if sc := scanJSON(body, nil, nil); len(sc.problems) > 0 || sc.stop {
			b.Fatalf("the batch was refused: %v", sc.problems)
		}
	}
}
