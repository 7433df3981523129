package telegramtest

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// verbatim is a result already encoded as JSON; it is written byte for byte,
// even when it is not valid JSON (see PushRawUpdate).
type verbatim []byte

type errorBody struct {
	OK          bool             `json:"ok"`
	ErrorCode   int              `json:"error_code"`
	Description string           `json:"description"`
	Parameters  *errorParameters `json:"parameters,omitempty"`
}

type errorParameters struct {
	RetryAfter      int   `json:"retry_after,omitempty"`
	MigrateToChatID int64 `json:"migrate_to_chat_id,omitempty"`
}

// writeResult writes {"ok":true,"result":...}.
func writeResult(w http.ResponseWriter, result any) {
	body, ok := result.(verbatim)
	if !ok {
		var err error
		if body, err = json.Marshal(result); err != nil {
			writeError(w, APIError{Code: http.StatusInternalServerError, Description: "Internal Server Error: " + err.Error()})
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+len(`{"ok":true,"result":}`)))
	w.Write([]byte(`{"ok":true,"result":`))
	w.Write(body)
	w.Write([]byte(`}`))
}

// writeError writes a Telegram-shaped error with the HTTP status equal to
// its error_code.
func writeError(w http.ResponseWriter, e APIError) {
	body := errorBody{ErrorCode: e.Code, Description: e.Description}
	if e.RetryAfter != 0 || e.MigrateToChatID != 0 {
		body.Parameters = &errorParameters{RetryAfter: e.RetryAfter, MigrateToChatID: e.MigrateToChatID}
	}
	data, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpStatus(e.Code))
	w.Write(data)
}

// writeBadGateway answers like a broken reverse proxy: 502 and no JSON.
func writeBadGateway(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusBadGateway)
	w.Write([]byte("<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>\n"))
}

func httpStatus(code int) int {
	if code < 100 || code > 599 {
		return http.StatusInternalServerError
	}
	return code
}
