package playbook

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
)

// MaxExpressionLength is the longest expression source accepted, in bytes.
const MaxExpressionLength = 2000

// maxExpressionNodes bounds the size of a compiled expression.
const maxExpressionNodes = 500

// ExpressionKind is what an expression must produce.
type ExpressionKind int

// The kinds of expression.
const (
	// KindBool is a condition: it gives true or false.
	KindBool ExpressionKind = iota
	// KindTime gives a point in time (a wait's until).
	KindTime
	// KindAmount gives a whole number of minor units (a commission amount).
	KindAmount
)

// String names the kind for messages.
func (k ExpressionKind) String() string {
	switch k {
	case KindBool:
		return "a boolean"
	case KindTime:
		return "a time"
	case KindAmount:
		return "a whole number"
	}
	return "a value"
}

// Expression is a compiled, type-checked expression. It is safe for concurrent use.
type Expression struct {
	source  string
	kind    ExpressionKind
	waiting bool
	program *vm.Program
}

// Source is the expression as written.
func (e *Expression) Source() string { return e.source }

// Kind is what the expression produces.
func (e *Expression) Kind() ExpressionKind { return e.kind }

// disabledBuiltins are the library's functions whose results depend on the clock, the host's
// time zone database or map iteration order.
var disabledBuiltins = []string{"now", "date", "timezone", "keys", "values", "toPairs"}

var (
	timeType     = reflect.TypeOf(time.Time{})
	durationType = reflect.TypeOf(time.Duration(0))
)

func compileOptions(env any, kind ExpressionKind) []expr.Option {
	opts := []expr.Option{expr.Env(env), expr.MaxNodes(maxExpressionNodes)}
	for _, name := range disabledBuiltins {
		opts = append(opts, expr.DisableBuiltin(name))
	}
	opts = append(opts,
		expr.Function("date", dateFunc, new(func(string) time.Time)),
		expr.Function("days", daysFunc, new(func(int) time.Duration), new(func(float64) time.Duration)),
	)
	if kind == KindBool {
		opts = append(opts, expr.AsBool())
	}
	return opts
}

// CompileExpression compiles and type-checks source against Env for the given kind. Conditions
// of wait_for_event nodes use CompileEventCondition instead.
func CompileExpression(source string, kind ExpressionKind) (*Expression, error) {
	return compile(source, kind, false)
}

// CompileEventCondition compiles and type-checks a wait_for_event condition, which also reads
// the arriving event as received.
func CompileEventCondition(source string) (*Expression, error) {
	return compile(source, KindBool, true)
}

func compile(source string, kind ExpressionKind, waiting bool) (e *Expression, err error) {
	if strings.TrimSpace(source) == "" {
		return nil, errors.New("the expression is empty")
	}
	if len(source) > MaxExpressionLength {
		return nil, fmt.Errorf("the expression is longer than %d characters", MaxExpressionLength)
	}
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, fmt.Errorf("the expression cannot be compiled: %v", r)
		}
	}()
	var env any = Env{}
	if waiting {
		env = waitEnv{}
	}
	program, err := expr.Compile(source, compileOptions(env, kind)...)
	if err != nil {
		return nil, err
	}
	if t := program.Node().Type(); !fits(t, kind) {
		return nil, fmt.Errorf("the expression gives %s, not %s", t, kind)
	}
	return &Expression{source: source, kind: kind, waiting: waiting, program: program}, nil
}

// fits reports whether a result of static type t can be of kind; values whose type is only
// known at run time (payload fields) are checked when evaluated.
func fits(t reflect.Type, kind ExpressionKind) bool {
	if t == nil || t.Kind() == reflect.Interface {
		return true
	}
	switch kind {
	case KindBool:
		return t.Kind() == reflect.Bool
	case KindTime:
		return t == timeType
	case KindAmount:
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
			return t != durationType
		}
	}
	return false
}

func (e *Expression) run(env any) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("evaluating %q: %v", e.source, r)
		}
	}()
	v, err = expr.Run(e.program, env)
	if err != nil {
		return nil, fmt.Errorf("evaluating %q: %w", e.source, err)
	}
	return v, nil
}

func (e *Expression) eval(env Env) (any, error) {
	if e.waiting {
		return e.run(env.withReceived(EventEnv{}))
	}
	return e.run(env)
}

// EvalCondition evaluates a boolean expression against env.
func EvalCondition(e *Expression, env Env) (bool, error) {
	if e == nil {
		return true, nil
	}
	if e.kind != KindBool {
		return false, fmt.Errorf("%q is not a condition", e.source)
	}
	v, err := e.eval(env)
	if err != nil {
		return false, err
	}
	return asBool(e, v)
}

// EvalEventCondition evaluates a wait_for_event condition against env and the arriving event.
func EvalEventCondition(e *Expression, env Env, received EventEnv) (bool, error) {
	if e == nil {
		return true, nil
	}
	if e.kind != KindBool {
		return false, fmt.Errorf("%q is not a condition", e.source)
	}
	v, err := e.run(env.withReceived(received))
	if err != nil {
		return false, err
	}
	return asBool(e, v)
}

func asBool(e *Expression, v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%q gave %T, not a boolean", e.source, v)
	}
	return b, nil
}

// EvalTime evaluates a time expression against env.
func EvalTime(e *Expression, env Env) (time.Time, error) {
	if e.kind != KindTime {
		return time.Time{}, fmt.Errorf("%q does not give a time", e.source)
	}
	v, err := e.eval(env)
	if err != nil {
		return time.Time{}, err
	}
	t, ok := v.(time.Time)
	if !ok {
		return time.Time{}, fmt.Errorf("%q gave %T, not a time", e.source, v)
	}
	return t, nil
}

// EvalAmount evaluates an amount expression against env: a whole number of minor units.
func EvalAmount(e *Expression, env Env) (int64, error) {
	if e.kind != KindAmount {
		return 0, fmt.Errorf("%q does not give an amount", e.source)
	}
	v, err := e.eval(env)
	if err != nil {
		return 0, err
	}
	n, ok := wholeNumber(v)
	if !ok {
		return 0, fmt.Errorf("%q gave %v, not a whole number of minor units", e.source, v)
	}
	return n, nil
}

// wholeNumber converts v to int64 when it is a number without fraction that fits.
func wholeNumber(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int8:
		return int64(n), true
	case int16:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case uint:
		if uint64(n) > math.MaxInt64 {
			return 0, false
		}
		return int64(n), true
	case uint8:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint32:
		return int64(n), true
	case uint64:
		if n > math.MaxInt64 {
			return 0, false
		}
		return int64(n), true
	case float32:
		return wholeFloat(float64(n))
	case float64:
		return wholeFloat(n)
	}
	return 0, false
}

func wholeFloat(f float64) (int64, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// dateFunc parses an RFC 3339 time or a YYYY-MM-DD date (midnight UTC).
func dateFunc(params ...any) (any, error) {
	s, ok := params[0].(string)
	if !ok {
		return nil, fmt.Errorf("date: %T is not a string", params[0])
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return nil, fmt.Errorf("date: %q is neither an RFC 3339 time nor a YYYY-MM-DD date", s)
}

// daysFunc gives a duration of n days; n may have a fraction.
func daysFunc(params ...any) (any, error) {
	var f float64
	switch n := params[0].(type) {
	case int:
		f = float64(n)
	case float64:
		f = n
	default:
		w, ok := wholeNumber(n)
		if !ok {
			return nil, fmt.Errorf("days: %v is not a number", params[0])
		}
		f = float64(w)
	}
	if math.IsNaN(f) || math.Abs(f) > 100*365 {
		return nil, fmt.Errorf("days: %v is out of range", params[0])
	}
	return time.Duration(f * float64(24*time.Hour)), nil
}
