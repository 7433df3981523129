package delivery

import (
	"context"
	"errors"
	"net"
	"strings"
	"time"

	tg "github.com/go-telegram/bot"
)

// Observer is told of every call that goes to Telegram, for metrics: each
// try on the wire, so a call tried again is told each time. It must be safe
// for concurrent use and must not block.
type Observer interface {
	// TelegramCalled reports one try of method and its outcome (one of the
	// Outcome constants); retryAfter is what a 429 asked to wait, else 0.
	TelegramCalled(method, outcome string, retryAfter time.Duration)
}

// Outcomes of one call to Telegram.
const (
	OutcomeOK              = "ok"
	OutcomeBadRequest      = "bad_request"       // 400
	OutcomeUnauthorized    = "unauthorized"      // 401: the token
	OutcomeForbidden       = "forbidden"         // 403: blocked by the person, or not in the chat
	OutcomeNotFound        = "not_found"         // 404
	OutcomeConflict        = "conflict"          // 409: another poller or a webhook
	OutcomeTooManyRequests = "too_many_requests" // 429: flood control
	OutcomeRefused         = "refused"           // another error of Telegram's
	OutcomeServerError     = "server_error"      // 5xx
	OutcomeTimeout         = "timeout"           // no answer within the call's deadline
	OutcomeNetwork         = "network"           // no usable answer: no connection, a dropped one, a body that is not the Bot API's
)

// Outcome says how a call that returned err went.
func Outcome(err error) string {
	var tooMany *tg.TooManyRequestsError
	var migrate *tg.MigrateError
	var netErr net.Error
	switch {
	case err == nil:
		return OutcomeOK
	case errors.As(err, &tooMany):
		return OutcomeTooManyRequests
	case errors.As(err, &migrate), errors.Is(err, tg.ErrorBadRequest):
		return OutcomeBadRequest
	case errors.Is(err, tg.ErrorUnauthorized):
		return OutcomeUnauthorized
	case errors.Is(err, tg.ErrorForbidden):
		return OutcomeForbidden
	case errors.Is(err, tg.ErrorNotFound):
		return OutcomeNotFound
	case errors.Is(err, tg.ErrorConflict):
		return OutcomeConflict
	case serverError.MatchString(err.Error()):
		return OutcomeServerError
	case strings.Contains(err.Error(), "error response from telegram"):
		return OutcomeRefused
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return OutcomeTimeout
	}
	return OutcomeNetwork
}

// StatusOutcome is the outcome of an error answer with Bot API error code
// (or HTTP status) code.
func StatusOutcome(code int) string {
	switch {
	case code == 400:
		return OutcomeBadRequest
	case code == 401:
		return OutcomeUnauthorized
	case code == 403:
		return OutcomeForbidden
	case code == 404:
		return OutcomeNotFound
	case code == 409:
		return OutcomeConflict
	case code == 429:
		return OutcomeTooManyRequests
	case code >= 500 && code <= 599:
		return OutcomeServerError
	}
	return OutcomeRefused
}

// retryAfter is what a 429 asked to wait; 0 for any other error.
func retryAfter(err error) time.Duration {
	var tooMany *tg.TooManyRequestsError
	if errors.As(err, &tooMany) {
		return time.Duration(tooMany.RetryAfter) * time.Second
	}
	return 0
}

// observe tells the engine's observer of one try of j.
func (e *engine) observe(j *apiCall, err error) {
	if e.observer != nil {
		e.observer.TelegramCalled(j.method, Outcome(err), retryAfter(err))
	}
}
