package shs

import (
	"fmt"
	"net/http"
)

// Error is a request the History Server would refuse: its HTTP status and
// the plain-text message Spark sends with it.
type Error struct {
	Status  int
	Message string
}

// Error returns the message with its status.
func (e *Error) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, http.StatusText(e.Status), e.Message)
}

// notFound is Spark's NotFoundException (404).
func notFound(format string, args ...any) *Error {
	return &Error{Status: http.StatusNotFound, Message: fmt.Sprintf(format, args...)}
}

// badParameter is Spark's BadParameterException (400) for a value of the
// wrong type.
func badParameter(param, expected, actual string) *Error {
	return &Error{Status: http.StatusBadRequest,
		Message: fmt.Sprintf("Bad value for parameter %q.  Expected a %s, got %q", param, expected, actual)}
}

// badRequest is a 400 with a message of its own.
func badRequest(format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

// unavailable is Spark's ServiceUnavailable (503).
func unavailable(format string, args ...any) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Message: fmt.Sprintf(format, args...)}
}

// serverError is the 500 of an exception Spark's resource does not map.
func serverError(format string, args ...any) *Error {
	return &Error{Status: http.StatusInternalServerError, Message: fmt.Sprintf(format, args...)}
}
