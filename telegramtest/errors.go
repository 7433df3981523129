package telegramtest

import (
	"errors"
	"fmt"
	"net/http"
)

// APIError is an error as the Bot API reports it:
// {"ok":false,"error_code":Code,"description":Description,"parameters":{...}}.
// The HTTP status of the response equals Code.
type APIError struct {
	Code            int    // error_code, e.g. 400, 429
	Description     string // e.g. "Bad Request: chat not found"
	RetryAfter      int    // parameters.retry_after in seconds, 0 if absent
	MigrateToChatID int64  // parameters.migrate_to_chat_id, 0 if absent
}

// Error returns the code and description.
func (e APIError) Error() string {
	return fmt.Sprintf("telegram: %d %s", e.Code, e.Description)
}

// TooManyRequests is Telegram's flood-control error: 429 "Too Many
// Requests: retry after N" with parameters.retry_after = N.
func TooManyRequests(retryAfter int) APIError {
	return APIError{
		Code:        http.StatusTooManyRequests,
		Description: fmt.Sprintf("Too Many Requests: retry after %d", retryAfter),
		RetryAfter:  retryAfter,
	}
}

func badRequest(format string, args ...any) APIError {
	return APIError{Code: http.StatusBadRequest, Description: "Bad Request: " + fmt.Sprintf(format, args...)}
}

// cannotInitiate is Telegram's answer to a message for someone who never
// opened a private chat with the bot.
func cannotInitiate() APIError {
	return APIError{Code: http.StatusForbidden, Description: "Forbidden: bot can't initiate conversation with a user"}
}

func unauthorized() APIError {
	return APIError{Code: http.StatusUnauthorized, Description: "Unauthorized"}
}

func notFound() APIError {
	return APIError{Code: http.StatusNotFound, Description: "Not Found"}
}

func conflict() APIError {
	return APIError{
		Code:        http.StatusConflict,
		Description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
	}
}

// asAPIError returns err's APIError, or a 500 for anything else.
func asAPIError(err error) APIError {
	var e APIError
	if errors.As(err, &e) {
		return e
	}
	return APIError{Code: http.StatusInternalServerError, Description: "Internal Server Error: " + err.Error()}
}
