package ollamatest

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// Content types Ollama sends. Plain answers come from gin's c.JSON, streams
// from streamResponse in Ollama's server/routes.go.
const (
	contentJSON   = "application/json; charset=utf-8"
	contentNDJSON = "application/x-ndjson"
)

// writeJSON answers with one compact JSON object, as gin's c.JSON does.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("ollamatest: marshal response: " + err.Error())
	}
	w.Header().Set("Content-Type", contentJSON)
	w.WriteHeader(status)
	_, _ = w.Write(b) // a write error means the client has gone
}

// errorBody is Ollama's error object, {"error":"..."}.
type errorBody struct {
	Error string `json:"error"`
}

// writeError answers status with {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{Error: msg})
}

// decodeBody reads the JSON request body into v. On failure it answers 400
// with Ollama's message and returns false.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	err := json.NewDecoder(r.Body).Decode(v)
	switch {
	case errors.Is(err, io.EOF):
		writeError(w, http.StatusBadRequest, "missing request body")
		return false
	case err != nil:
		writeError(w, http.StatusBadRequest, err.Error())
		return false
	}
	return true
}
