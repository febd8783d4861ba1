package playbook

import (
	"encoding/json"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io"
	"strings"
	texttemplate "text/template"
	"time"
)

// MaxTemplateLength is the longest template source accepted, in bytes.
const MaxTemplateLength = 64 << 10

// MaxRenderedLength is the most a template may produce, in bytes.
const MaxRenderedLength = 256 << 10

// errTooLong stops a rendering that produces more than MaxRenderedLength.
var errTooLong = fmt.Errorf("the rendered text is longer than %d bytes", MaxRenderedLength)

// templateFuncs are the functions templates may call besides the built-in ones; none reads the
// clock or the host.
var templateFuncs = map[string]any{
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
	"upper": strings.ToUpper,
	"lower": strings.ToLower,
	"formatTime": func(layout string, t time.Time) string {
		return t.UTC().Format(layout)
	},
}

// Template is a parsed text or HTML template over Env. Missing map keys are errors, so that a
// typo shows up instead of an empty value; templates use `index` for optional fields.
type Template struct {
	source string
	text   *texttemplate.Template
	html   *htmltemplate.Template
}

// Source is the template as written.
func (t *Template) Source() string { return t.source }

// IsStatic reports whether the template renders to its source, having no actions.
func (t *Template) IsStatic() bool { return !strings.Contains(t.source, "{{") }

// ParseText parses a text/template.
func ParseText(source string) (*Template, error) {
	if len(source) > MaxTemplateLength {
		return nil, fmt.Errorf("the template is longer than %d bytes", MaxTemplateLength)
	}
	t, err := texttemplate.New("t").Option("missingkey=error").Funcs(templateFuncs).Parse(source)
	if err != nil {
		return nil, cleanTemplateError(err)
	}
	return &Template{source: source, text: t}, nil
}

// ParseHTML parses an html/template, which escapes data for its place in the HTML.
func ParseHTML(source string) (*Template, error) {
	if len(source) > MaxTemplateLength {
		return nil, fmt.Errorf("the template is longer than %d bytes", MaxTemplateLength)
	}
	t, err := htmltemplate.New("t").Option("missingkey=error").Funcs(templateFuncs).Parse(source)
	if err != nil {
		return nil, cleanTemplateError(err)
	}
	// Escaping is decided on first execution; doing it now reports HTML context errors at save.
	// The writer stops the execution at its first output.
	if err := t.Execute(stopWriter{}, nil); err != nil {
		var escErr *htmltemplate.Error
		if errors.As(err, &escErr) && escErr.ErrorCode != htmltemplate.OK {
			return nil, cleanTemplateError(err)
		}
	}
	return &Template{source: source, html: t}, nil
}

// Render executes the template against env.
func (t *Template) Render(env Env) (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = "", fmt.Errorf("rendering: %v", r)
		}
	}()
	w := &limitedWriter{max: MaxRenderedLength}
	data := env.templateData()
	if t.html != nil {
		err = t.html.Execute(w, data)
	} else {
		err = t.text.Execute(w, data)
	}
	if err != nil {
		if errors.Is(err, errTooLong) {
			return "", errTooLong
		}
		return "", cleanTemplateError(err)
	}
	return w.b.String(), nil
}

// cleanTemplateError drops the internal template name from an error message.
func cleanTemplateError(err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "template: ")
	msg = strings.TrimPrefix(msg, "html/template:")
	msg = strings.TrimPrefix(msg, "t:")
	return errors.New(strings.TrimSpace(msg))
}

type stopWriter struct{}

func (stopWriter) Write([]byte) (int, error) { return 0, io.EOF }

type limitedWriter struct {
	b   strings.Builder
	max int
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.max {
		return 0, errTooLong
	}
	return w.b.Write(p)
}
