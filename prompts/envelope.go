package prompts

import (
	_ "embed"
	"encoding/json"
)

//go:embed envelope.schema.json
var envelopeSchema []byte

// EnvelopeSchema is the JSON schema of the envelope the model answers in,
// sent to Ollama as the request's format.
func EnvelopeSchema() json.RawMessage { return envelopeSchema }
