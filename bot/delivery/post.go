package delivery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	tg "github.com/go-telegram/bot"
)

// post calls method with params, sent as one JSON body, and decodes the
// result into dest (nil: not at all). It is how the calls of every turn
// go out — messages, edits, typing — in place of the library's, which
// builds a multipart form by reflection in a goroutine of its own and
// decodes the whole message Telegram returns, of which ryo keeps the id:
// a twentieth of ryo's CPU time under load. Its errors are the library's,
// word for word (its raw_request.go), so that classify and Outcome read
// them the same.
func (t *Telegram) post(ctx context.Context, method string, params, dest any) error {
	var body bytes.Buffer
	e := json.NewEncoder(&body)
	e.SetEscapeHTML(false)
	if err := e.Encode(params); err != nil {
		return fmt.Errorf("error build request form for method %s, %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.base+method, bytes.NewReader(body.Bytes()))
	if err != nil {
		return fmt.Errorf("error create request for method %s, %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.calls.Do(req)
	if err != nil {
		var netErr *url.Error
		if errors.As(err, &netErr) {
			netErr.URL = strings.ReplaceAll(netErr.URL, t.token, "***")
		}
		return fmt.Errorf("error do request for method %s, %w", method, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("error read response body for method %s, %w", method, err)
	}
	return answer(method, data, dest)
}

// answer reads the Bot API's answer to method, as the library does.
func answer(method string, data []byte, dest any) error {
	var r struct {
		OK          bool            `json:"ok"`
		Result      json.RawMessage `json:"result,omitempty"`
		Description string          `json:"description,omitempty"`
		ErrorCode   int             `json:"error_code,omitempty"`
		Parameters  struct {
			RetryAfter      int `json:"retry_after,omitempty"`
			MigrateToChatID int `json:"migrate_to_chat_id,omitempty"`
		} `json:"parameters,omitempty"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("error decode response body for method %s, %s, %w", method, data, err)
	}
	if !r.OK {
		switch r.ErrorCode {
		case http.StatusForbidden:
			return fmt.Errorf("%w, %s", tg.ErrorForbidden, r.Description)
		case http.StatusBadRequest:
			if r.Parameters.MigrateToChatID != 0 {
				return &tg.MigrateError{Message: fmt.Sprintf("%s: %s", tg.ErrorBadRequest, r.Description), MigrateToChatID: r.Parameters.MigrateToChatID}
			}
			return fmt.Errorf("%w, %s", tg.ErrorBadRequest, r.Description)
		case http.StatusUnauthorized:
			return fmt.Errorf("%w, %s", tg.ErrorUnauthorized, r.Description)
		case http.StatusNotFound:
			return fmt.Errorf("%w, %s", tg.ErrorNotFound, r.Description)
		case http.StatusConflict:
			return fmt.Errorf("%w, %s", tg.ErrorConflict, r.Description)
		case http.StatusTooManyRequests:
			return &tg.TooManyRequestsError{Message: fmt.Sprintf("%s, %s", tg.ErrorTooManyRequests, r.Description), RetryAfter: r.Parameters.RetryAfter}
		default:
			return fmt.Errorf("error response from telegram for method %s, %d %s", method, r.ErrorCode, r.Description)
		}
	}
	if dest != nil {
		if err := json.Unmarshal(r.Result, dest); err != nil {
			return fmt.Errorf("error decode response result for method %s, %w", method, err)
		}
	}
	return nil
}

// sent is what ryo keeps of a message Telegram sent.
type sent struct {
	ID int `json:"message_id"`
}
