package ryo

import (
	"errors"
	"fmt"
)

// Error codes. A small set of kinds decides what the user sees; the cause is
// logged once, at the edge that talks to the user.
const (
	EINTERNAL    = "internal"    // a bug or an unexpected failure
	EINVALID     = "invalid"     // bad input from the user or a peer
	ENOTFOUND    = "not_found"   // something named does not exist
	EUNAVAILABLE = "unavailable" // a dependency cannot be reached
	ETIMEOUT     = "timeout"     // a deadline passed
)

// Error is an error whose Message may be shown to a user as it is. Err keeps
// the cause for the log.
type Error struct {
	Code    string
	Message string
	Err     error
	// Of is the dependency that failed, for EUNAVAILABLE: what to wait for
	// before trying again; for ENOTFOUND, the one that lacks what was named
	// (Model: the model is not installed, see ModelMissing).
	Of Dependency
}

// Dependency is something ryo needs that can be out of reach for a while.
type Dependency string

// Dependencies.
const (
	Database Dependency = "database"
	Telegram Dependency = "telegram"
	Model    Dependency = "model server"
)

// Unavailable is the one kind of error of a dependency out of reach for
// now: refused or dropped connections, timeouts, a server shutting down.
// What failed with it is worth trying again once d is back.
func Unavailable(d Dependency, err error) *Error {
	return &Error{Code: EUNAVAILABLE, Of: d, Err: err}
}

// IsUnavailable reports whether err is, or wraps, an error of dependency d
// being out of reach (Unavailable, or an Error with code EUNAVAILABLE of d).
func IsUnavailable(err error, d Dependency) bool {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return false
		}
		if e.Code == EUNAVAILABLE && e.Of == d {
			return true
		}
		err = e.Err
	}
	return false
}

// Errorf returns an Error with a formatted user-facing message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string {
	what := e.Message
	if e.Of != "" && what == "" {
		what = string(e.Of) + " unavailable"
	}
	if e.Err == nil {
		return fmt.Sprintf("%s: %s", e.Code, what)
	}
	return fmt.Sprintf("%s: %s: %v", e.Code, what, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the code of the first Error in err's chain, EINTERNAL for
// any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-facing message of the first Error in err's
// chain, or a generic sentence that reveals nothing internal.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return "Something went wrong on my side. Please try again."
}
