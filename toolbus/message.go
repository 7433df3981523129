package toolbus

import (
	"encoding/json"
	"strings"
)

// ResultPrefix starts the text of every tool-result message, which the
// model reads as "__tool_result__ <tool> <json>".
const ResultPrefix = "__tool_result__"

// Text is the tool-result message the model reads: the prefix, the tool, and
// a JSON object with the call id, the status, and the result or the error.
func (res Result) Text() string {
	body := map[string]any{"call_id": res.CallID, "status": res.Status}
	if res.Status == StatusOK {
		body["result"] = res.Output
	} else {
		body["error"] = res.Error
	}
	data, _ := json.Marshal(body)
	return ResultPrefix + " " + res.Tool + " " + string(data)
}

// Metadata is what is stored with the message, for audits and queries.
func (res Result) Metadata() json.RawMessage {
	code := ""
	if res.Error != nil {
		code = res.Error.Code
	}
	args := res.Args
	if !json.Valid(args) {
		args, _ = json.Marshal(string(args))
	}
	fields := map[string]any{
		"tool": res.Tool, "call_id": res.CallID, "idempotency_key": res.Key, "arguments": args,
		"status": res.Status, "latency_ms": float64(res.Latency.Microseconds()) / 1000,
		"truncated": res.Truncated, "error_code": code, "attempts": res.Attempts,
	}
	if len(res.Attachments) > 0 {
		files := make([]map[string]any, len(res.Attachments))
		for i, a := range res.Attachments {
			files[i] = map[string]any{"name": a.Name, "mime_type": a.MimeType, "bytes": len(a.Data)}
		}
		fields["attachments"] = files
	}
	data, _ := json.Marshal(fields)
	return data
}

// LooksLikeResult reports whether text would pass for a tool result, which a
// person's message must never do.
func LooksLikeResult(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), ResultPrefix)
}
