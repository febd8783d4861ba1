package models

import (
	"errors"
	"fmt"
)

// Kind classifies a domain error; the HTTP layer maps each kind to one status code.
type Kind int

// The kinds of domain error.
const (
	KindInternal Kind = iota
	KindInvalid
	KindUnauthenticated
	KindForbidden
	KindNotFound
	KindConflict
	KindTooLarge
	KindRateLimited
	KindUnavailable
	// KindUnsupportedType is a file or body of a type the operation does not take (415).
	KindUnsupportedType
)

// FieldError names one problem with one input field.
type FieldError struct {
	// Location is where the bad value sits, e.g. "body.email".
	Location string
	// Message says what is wrong with it.
	Message string
	// Value is the offending value, if it is safe to echo back.
	Value any
}

// Error is the one error type of the domain: a kind, a stable UPPER_SNAKE_CASE code, a message
// safe to show to the caller, and optional field problems.
type Error struct {
	Kind    Kind
	Code    string
	Message string
	Fields  []FieldError
	// Err is the underlying cause; it is never shown to callers.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an Error of the given kind and code with a formatted message.
func Errorf(kind Kind, code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Message: fmt.Sprintf(format, args...)}
}

// NotFound reports that a thing does not exist or lies outside the caller's scope;
// the two are indistinguishable on purpose.
func NotFound(code, what string) *Error {
	return &Error{Kind: KindNotFound, Code: code, Message: what + " not found"}
}

// Invalid reports bad input with one problem per field.
func Invalid(code, message string, fields ...FieldError) *Error {
	return &Error{Kind: KindInvalid, Code: code, Message: message, Fields: fields}
}

// Conflict reports a request that clashes with the current state.
func Conflict(code, message string) *Error {
	return &Error{Kind: KindConflict, Code: code, Message: message}
}

// CodeDatabaseUnavailable is the code of DatabaseUnavailable errors.
const CodeDatabaseUnavailable = "DATABASE_UNAVAILABLE"

// DatabaseUnavailable reports that the database cannot be reached for now, with its cause: a
// condition that passes, so callers may try again shortly.
func DatabaseUnavailable(cause error) *Error {
	return &Error{Kind: KindUnavailable, Code: CodeDatabaseUnavailable, Message: "the database cannot be reached; try again shortly", Err: cause}
}

// AsError returns err as a domain Error if it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// ErrorKind is the kind of err, KindInternal for errors that are not domain errors.
func ErrorKind(err error) Kind {
	if e, ok := AsError(err); ok {
		return e.Kind
	}
	return KindInternal
}
