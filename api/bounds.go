package api

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/models"
)

// MaxJSONDepth is how deeply a request body may nest arrays and objects, free-form payloads
// included.
const MaxJSONDepth = 32

// metaTooManyItems names, in an operation's metadata, the code of the 413 it answers when an
// array of its body holds more items than its schema allows (instead of 422).
const metaTooManyItems = "partnerd.tooManyItems"

// bounds refuses, before any other work is spent on it, a request whose path or query
// parameters or JSON body break the text rules (models.TextProblem), whose body nests deeper
// than MaxJSONDepth, or whose body holds an array longer than its schema's maxItems or a
// string longer than its maxLength. The body it read is handed on to the operation.
func (s *Server) bounds(hctx huma.Context, next func(huma.Context)) {
	op := hctx.Operation()
	ctx := hctx.Context()
	problems := paramProblems(hctx, op)
	if op.Metadata[metaStreamBody] != nil {
		s.streamBody(hctx, op, problems, next)
		return
	}
	if op.RequestBody == nil {
		if len(problems) > 0 {
			s.deny(hctx, boundsProblem(ctx, problems))
			return
		}
		next(hctx)
		return
	}
	body, p := readRequestBody(hctx, op)
	if p != nil {
		s.deny(hctx, p)
		return
	}
	scan := scanJSON(body, s.api.OpenAPI().Components.Schemas, bodySchema(op))
	problems = append(problems, scan.problems...)
	switch {
	case scan.tooManyItems && op.Metadata[metaTooManyItems] != nil:
		code, _ := op.Metadata[metaTooManyItems].(string)
		s.deny(hctx, codedProblem(ctx, http.StatusRequestEntityTooLarge, code, scan.problems[0].Location+": "+scan.problems[0].Message))
		return
	case len(problems) > 0:
		s.deny(hctx, boundsProblem(ctx, problems))
		return
	}
	next(&bufferedBody{innerContext: hctx, body: body})
}

// streamBody hands a stream-body operation (an upload) its request body unread, limited to the
// operation's MaxBodyBytes: a declared length above it is refused at once with 413, a longer
// body fails while the handler reads it.
func (s *Server) streamBody(hctx huma.Context, op *huma.Operation, problems []*huma.ErrorDetail, next func(huma.Context)) {
	ctx := hctx.Context()
	if len(problems) > 0 {
		s.deny(hctx, boundsProblem(ctx, problems))
		return
	}
	n, err := strconv.ParseInt(hctx.Header("Content-Length"), 10, 64)
	if c := ginOf(hctx); c != nil && c.Request.ContentLength >= 0 {
		n, err = c.Request.ContentLength, nil
	}
	if err == nil && n > op.MaxBodyBytes {
		s.deny(hctx, codedProblem(ctx, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE",
			"request body is too large limit="+strconv.FormatInt(op.MaxBodyBytes, 10)+" bytes"))
		return
	}
	body := io.LimitReader(hctx.BodyReader(), op.MaxBodyBytes+1)
	next(huma.WithValue(hctx, streamBodyKey{}, body))
}

// bufferedBody hands the operation a body read already.
type bufferedBody struct {
	innerContext
	body []byte
}

// BodyReader returns the body read before.
func (c *bufferedBody) BodyReader() io.Reader { return bytes.NewReader(c.body) }

func boundsProblem(ctx context.Context, problems []*huma.ErrorDetail) *Problem {
	p := newProblem(ctx, http.StatusUnprocessableEntity, "validation failed")
	p.Errors = problems
	p.bound()
	return p
}

// bodySchema is the schema of an operation's JSON body, or nil.
func bodySchema(op *huma.Operation) *huma.Schema {
	if op.RequestBody == nil {
		return nil
	}
	if mt := op.RequestBody.Content["application/json"]; mt != nil {
		return mt.Schema
	}
	return nil
}

// paramProblems applies the text rules to the path and query parameters an operation declares.
// Headers it reads have rules of their own (tokens, keys, Idempotency-Key).
func paramProblems(hctx huma.Context, op *huma.Operation) []*huma.ErrorDetail {
	var problems []*huma.ErrorDetail
	var query map[string][]string
	for _, p := range op.Parameters {
		switch p.In {
		case "path":
			if msg := models.TextProblem(hctx.Param(p.Name)); msg != "" {
				problems = append(problems, &huma.ErrorDetail{Location: "path." + p.Name, Message: msg})
			}
		case "query":
			if query == nil {
				u := hctx.URL()
				query = u.Query()
			}
			for _, v := range query[p.Name] {
				if msg := models.TextProblem(v); msg != "" {
					problems = append(problems, &huma.ErrorDetail{Location: "query." + p.Name, Message: msg})
					break
				}
			}
		}
	}
	return problems
}

// jsonScan is one pass over a JSON body that checks the bounds and text rules without
// decoding it. Malformed JSON is left to the decoder, which answers 400.
type jsonScan struct {
	data []byte
	pos  int
	reg  huma.Registry
	// path is the location being scanned, as huma writes it (body.a[0].b).
	path []byte
	// problems found; the scan stops after MaxProblemErrors+1 of them.
	problems []*huma.ErrorDetail
	// stop is set by a problem that ends the scan: too deep, too many items, malformed.
	stop bool
	// tooManyItems is set when an array exceeded its maxItems.
	tooManyItems bool
	// key collects an object key with escapes.
	key []byte
}

// scanJSON checks body against the bounds of schema (resolved in reg) and the text rules.
func scanJSON(body []byte, reg huma.Registry, schema *huma.Schema) *jsonScan {
	sc := &jsonScan{data: body, reg: reg, path: append(make([]byte, 0, 64), "body"...)}
	sc.skipSpace()
	if sc.pos < len(sc.data) {
		sc.value(sc.resolve(schema), 0)
	}
	return sc
}

func (sc *jsonScan) resolve(s *huma.Schema) *huma.Schema {
	for s != nil && s.Ref != "" && sc.reg != nil {
		s = sc.reg.SchemaFromRef(s.Ref)
	}
	return s
}

func (sc *jsonScan) add(msg string, fatal bool) {
	sc.problems = append(sc.problems, &huma.ErrorDetail{Location: string(sc.path), Message: msg})
	if fatal || len(sc.problems) > MaxProblemErrors {
		sc.stop = true
	}
}

// malformed ends the scan without a problem: the decoder reports the syntax error.
func (sc *jsonScan) malformed() { sc.stop = true }

func (sc *jsonScan) skipSpace() {
	for sc.pos < len(sc.data) {
		switch sc.data[sc.pos] {
		case ' ', '\t', '\n', '\r':
			sc.pos++
		default:
			return
		}
	}
}

func (sc *jsonScan) value(s *huma.Schema, depth int) {
	if sc.pos >= len(sc.data) {
		sc.malformed()
		return
	}
	switch sc.data[sc.pos] {
	case '{':
		sc.object(s, depth+1)
	case '[':
		sc.array(s, depth+1)
	case '"':
		maxLen := -1
		if s != nil && s.MaxLength != nil {
			maxLen = *s.MaxLength
		}
		sc.str(maxLen, false)
	default:
		start := sc.pos
		for sc.pos < len(sc.data) && strings.IndexByte("+-.0123456789eEtrufalsn", sc.data[sc.pos]) >= 0 {
			sc.pos++
		}
		if sc.pos == start {
			sc.malformed()
		}
	}
}

func (sc *jsonScan) object(s *huma.Schema, depth int) {
	if depth > MaxJSONDepth {
		sc.add("must not nest arrays and objects more than "+strconv.Itoa(MaxJSONDepth)+" deep", true)
		return
	}
	sc.pos++ // {
	sc.skipSpace()
	if sc.pos < len(sc.data) && sc.data[sc.pos] == '}' {
		sc.pos++
		return
	}
	for !sc.stop {
		sc.skipSpace()
		if sc.pos >= len(sc.data) || sc.data[sc.pos] != '"' {
			sc.malformed()
			return
		}
		key := sc.str(-1, true)
		if sc.stop {
			return
		}
		sc.skipSpace()
		if sc.pos >= len(sc.data) || sc.data[sc.pos] != ':' {
			sc.malformed()
			return
		}
		sc.pos++
		sc.skipSpace()
		mark := len(sc.path)
		sc.path = append(append(sc.path, '.'), key...)
		sc.value(sc.property(s, key), depth)
		sc.path = sc.path[:mark]
		if sc.stop {
			return
		}
		if !sc.separator('}') {
			return
		}
	}
}

// separator reads what follows a member or an element: a comma (true: another follows) or
// closer (false: the container ends); anything else is malformed.
func (sc *jsonScan) separator(closer byte) bool {
	sc.skipSpace()
	if sc.pos >= len(sc.data) {
		sc.malformed()
		return false
	}
	switch sc.data[sc.pos] {
	case ',':
		sc.pos++
		return true
	case closer:
		sc.pos++
		return false
	default:
		sc.malformed()
		return false
	}
}

// property is the schema of key in object schema s, matched as the decoder matches fields
// (exactly, else ignoring case), else the schema of additional properties, else nil.
func (sc *jsonScan) property(s *huma.Schema, key []byte) *huma.Schema {
	if s == nil {
		return nil
	}
	if p, ok := s.Properties[string(key)]; ok {
		return sc.resolve(p)
	}
	for name, p := range s.Properties {
		if strings.EqualFold(name, string(key)) {
			return sc.resolve(p)
		}
	}
	if ap, ok := s.AdditionalProperties.(*huma.Schema); ok {
		return sc.resolve(ap)
	}
	return nil
}

func (sc *jsonScan) array(s *huma.Schema, depth int) {
	if depth > MaxJSONDepth {
		sc.add("must not nest arrays and objects more than "+strconv.Itoa(MaxJSONDepth)+" deep", true)
		return
	}
	maxItems := -1
	var items *huma.Schema
	if s != nil {
		if s.MaxItems != nil {
			maxItems = *s.MaxItems
		}
		items = sc.resolve(s.Items)
	}
	sc.pos++ // [
	sc.skipSpace()
	if sc.pos < len(sc.data) && sc.data[sc.pos] == ']' {
		sc.pos++
		return
	}
	for i := 0; !sc.stop; i++ {
		if maxItems >= 0 && i >= maxItems {
			sc.tooManyItems = true
			sc.add("expected at most "+strconv.Itoa(maxItems)+" items", true)
			return
		}
		sc.skipSpace()
		mark := len(sc.path)
		sc.path = append(strconv.AppendInt(append(sc.path, '['), int64(i), 10), ']')
		sc.value(items, depth)
		sc.path = sc.path[:mark]
		if sc.stop {
			return
		}
		if !sc.separator(']') {
			return
		}
	}
}

// str scans the string at pos, checking every character against the text rules and the
// length against maxLen (characters; -1 for none). For a key it returns the decoded text,
// valid until the next key is scanned.
func (sc *jsonScan) str(maxLen int, isKey bool) []byte {
	sc.pos++ // opening quote
	start := sc.pos
	escaped := false
	count := 0
	problem := ""
	for sc.pos < len(sc.data) {
		c := sc.data[sc.pos]
		var r rune
		switch {
		case c == '"':
			sc.pos++
			if problem != "" {
				sc.add(problem, false)
			} else if maxLen >= 0 && count > maxLen {
				sc.add("expected length <= "+strconv.Itoa(maxLen), false)
			}
			if !isKey {
				return nil
			}
			if !escaped {
				return sc.data[start : sc.pos-1]
			}
			return sc.key
		case c == '\\':
			if !escaped && isKey {
				sc.key = append(sc.key[:0], sc.data[start:sc.pos]...)
			}
			escaped = true
			var ok bool
			if r, ok = sc.escape(); !ok {
				sc.malformed()
				return nil
			}
		case c < 0x20:
			sc.malformed() // raw control characters are not JSON
			return nil
		case c < utf8.RuneSelf:
			r = rune(c)
			sc.pos++
		default:
			var size int
			r, size = utf8.DecodeRune(sc.data[sc.pos:])
			if r == utf8.RuneError && size == 1 && problem == "" {
				problem = models.InvalidUTF8Message
			}
			sc.pos += size
		}
		if !models.AllowedRune(r) && problem == "" {
			problem = models.RuneMessage(r)
		}
		if escaped && isKey {
			sc.key = utf8.AppendRune(sc.key, r)
		}
		count++
	}
	sc.malformed()
	return nil
}

// escape decodes the escape sequence at pos (a backslash) into its character.
func (sc *jsonScan) escape() (rune, bool) {
	if sc.pos+1 >= len(sc.data) {
		return 0, false
	}
	c := sc.data[sc.pos+1]
	sc.pos += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
		r, ok := sc.hex4()
		if !ok {
			return 0, false
		}
		if utf16.IsSurrogate(r) {
			// A pair makes one character; a lone half decodes as U+FFFD.
			if sc.pos+1 < len(sc.data) && sc.data[sc.pos] == '\\' && sc.data[sc.pos+1] == 'u' {
				save := sc.pos
				sc.pos += 2
				r2, ok := sc.hex4()
				if ok {
					if p := utf16.DecodeRune(r, r2); p != utf8.RuneError {
						return p, true
					}
				}
				sc.pos = save
			}
			return utf8.RuneError, true
		}
		return r, true
	}
	return 0, false
}

func (sc *jsonScan) hex4() (rune, bool) {
	if sc.pos+4 > len(sc.data) {
		return 0, false
	}
	var r rune
	for _, c := range sc.data[sc.pos : sc.pos+4] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	sc.pos += 4
	return r, true
}

// AnswerMap is an applicant's answers by question key, each at most 4000 characters.
type AnswerMap map[string]string

// Schema declares AnswerMap as an object of bounded strings.
func (AnswerMap) Schema(huma.Registry) *huma.Schema { return stringMapSchema(4000) }

// PayoutDetails are the fields of a payout method, each at most 200 characters.
type PayoutDetails map[string]string

// Schema declares PayoutDetails as an object of bounded strings.
func (PayoutDetails) Schema(huma.Registry) *huma.Schema { return stringMapSchema(200) }

// AmountMap holds an amount in minor units per currency, each within 0..models.MaxAmountMinor.
type AmountMap map[string]int64

// Schema declares AmountMap as an object of bounded amounts.
func (AmountMap) Schema(huma.Registry) *huma.Schema {
	lo, hi := 0.0, float64(models.MaxAmountMinor)
	item := &huma.Schema{Type: huma.TypeInteger, Format: "int64", Minimum: &lo, Maximum: &hi}
	item.PrecomputeMessages()
	s := &huma.Schema{Type: huma.TypeObject, AdditionalProperties: item}
	s.PrecomputeMessages()
	return s
}

func stringMapSchema(maxLen int) *huma.Schema {
	item := &huma.Schema{Type: huma.TypeString, MaxLength: &maxLen}
	item.PrecomputeMessages()
	s := &huma.Schema{Type: huma.TypeObject, AdditionalProperties: item}
	s.PrecomputeMessages()
	return s
}
