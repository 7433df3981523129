package tools

import (
	"bytes"
	"encoding/json"

	"github.com/ryo-bot/ryo/toolbus"
)

// decodeArgs decodes a tool's arguments into v. The bus has validated them
// already; this only guards against a caller that did not.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{}`)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return toolbus.Errorf(toolbus.CodeInvalidArgs, "the arguments do not fit the tool's schema (%v); send a JSON object with the listed fields", err)
	}
	return nil
}
