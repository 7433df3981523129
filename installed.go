package ryo

import (
	"errors"
	"slices"
	"strings"
	"time"
)

// Capability is something a model can do, as the model server says.
type Capability string

// Capabilities Ollama reports.
const (
	CanComplete Capability = "completion" // it answers: it can be asked in a turn
	CanUseTools Capability = "tools"      // trained to call tools natively
	CanSee      Capability = "vision"     // it reads pictures
	CanEmbed    Capability = "embedding"  // it turns text into vectors
	CanThink    Capability = "thinking"   // it reasons before it answers
)

// InstalledModel is a model the model server has installed.
type InstalledModel struct {
	Name          string // as the server names it: "qwen3:8b", "llama3.2:latest"
	Size          int64  // bytes on disk
	Family        string // "llama", "qwen3", …
	ParameterSize string // "8.2B"
	Quantization  string // "Q4_K_M"
	Modified      time.Time
	Capabilities  []Capability // nil when the server could not say
}

// Can reports whether the model has capability c.
func (m InstalledModel) Can(c Capability) bool { return slices.Contains(m.Capabilities, c) }

// SameModel reports whether model names a and b name the same model, as
// the model server reads them: case aside, and a name without a tag is
// the one tagged ":latest".
func SameModel(a, b string) bool {
	return FullModelName(a) == FullModelName(b)
}

// FullModelName is name as the model server lists it: in lower case, with
// its tag (":latest" when it has none).
func FullModelName(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if name != "" && !strings.Contains(name[strings.LastIndex(name, "/")+1:], ":") {
		name += ":latest"
	}
	return name
}

// ModelMissing reports whether err says that the model asked for is not
// installed on the model server.
func ModelMissing(err error) bool {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return false
		}
		if e.Code == ENOTFOUND && e.Of == Model {
			return true
		}
		err = e.Err
	}
	return false
}
