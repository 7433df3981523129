package ollamatest

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// keepAlive is how long Ollama keeps a model loaded after a request by
// default; /api/ps reports it as the expiry.
const keepAlive = 5 * time.Minute

// catalog is the set of installed models and those that have served a
// request ("running"). The Server's mutex guards it.
type catalog struct {
	names    []string             // canonical names, in installation order
	about    map[string]Model     // canonical name -> how it describes itself; a small Llama when absent
	lastUsed map[string]time.Time // canonical name -> time of the last request
}

func newCatalog() *catalog {
	return &catalog{about: make(map[string]Model), lastUsed: make(map[string]time.Time)}
}

// canonical turns a model name into Ollama's full form: lower case, with
// the ":latest" tag when no tag is given.
func canonical(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return ""
	}
	base := name[strings.LastIndex(name, "/")+1:]
	if !strings.Contains(base, ":") {
		name += ":latest"
	}
	return name
}

// add installs a model; adding an installed model again does nothing.
func (c *catalog) add(name string) {
	n := canonical(name)
	if n != "" && !slices.Contains(c.names, n) {
		c.names = append(c.names, n)
	}
}

// remove uninstalls a model; removing one not installed does nothing.
func (c *catalog) remove(name string) {
	n := canonical(name)
	c.names = slices.DeleteFunc(c.names, func(m string) bool { return m == n })
	delete(c.about, n)
	delete(c.lastUsed, n)
}

// lookup returns the canonical name of an installed model.
func (c *catalog) lookup(name string) (string, bool) {
	n := canonical(name)
	return n, n != "" && slices.Contains(c.names, n)
}

// use marks an installed model as loaded at t and reports whether the
// model is installed.
func (c *catalog) use(model string, t time.Time) bool {
	name, ok := c.lookup(model)
	if ok {
		c.lastUsed[name] = t
	}
	return ok
}

// list returns the installed models for /api/tags.
func (c *catalog) list(modified time.Time) []listModel {
	out := make([]listModel, 0, len(c.names))
	for _, n := range c.names {
		m := c.model(n)
		out = append(out, listModel{
			Name: n, Model: n, ModifiedAt: modified,
			Size: m.Size, Digest: digest(n), Details: m.details(),
		})
	}
	return out
}

// running returns the loaded models for /api/ps, the one that expires
// last first, as Ollama orders them.
func (c *catalog) running() []runningModel {
	out := make([]runningModel, 0, len(c.lastUsed))
	for n, t := range c.lastUsed {
		m := c.model(n)
		out = append(out, runningModel{
			Name: n, Model: n, Size: m.Size, Digest: digest(n),
			Details: m.details(), ExpiresAt: t.Add(keepAlive),
			SizeVRAM: 0, ContextLength: contextLength,
		})
	}
	slices.SortFunc(out, func(a, b runningModel) int {
		return cmp.Or(b.ExpiresAt.Compare(a.ExpiresAt), strings.Compare(a.Name, b.Name))
	})
	return out
}

// Plausible figures for a small Llama model (llama3.2:3b, Q4_K_M).
const (
	modelSize     = 2019393189
	contextLength = 4096
)

// digest returns a stable sha256 digest for a model name.
func digest(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])
}

// details are the model's details as /api/tags and /api/show report them.
func (m Model) details() modelDetails {
	return modelDetails{
		Format: "gguf", Family: m.Family, Families: []string{m.Family},
		ParameterSize: m.ParameterSize, QuantizationLevel: m.Quantization,
	}
}

// modelDetails is Ollama's api.ModelDetails on the wire.
type modelDetails struct {
	ParentModel       string   `json:"parent_model"`
	Format            string   `json:"format"`
	Family            string   `json:"family"`
	Families          []string `json:"families"`
	ParameterSize     string   `json:"parameter_size"`
	QuantizationLevel string   `json:"quantization_level"`
}

// listModel is one entry of /api/tags (api.ListModelResponse).
type listModel struct {
	Name       string       `json:"name"`
	Model      string       `json:"model"`
	ModifiedAt time.Time    `json:"modified_at"`
	Size       int64        `json:"size"`
	Digest     string       `json:"digest"`
	Details    modelDetails `json:"details"`
}

// runningModel is one entry of /api/ps (api.ProcessModelResponse).
type runningModel struct {
	Name          string       `json:"name"`
	Model         string       `json:"model"`
	Size          int64        `json:"size"`
	Digest        string       `json:"digest"`
	Details       modelDetails `json:"details"`
	ExpiresAt     time.Time    `json:"expires_at"`
	SizeVRAM      int64        `json:"size_vram"`
	ContextLength int          `json:"context_length"`
}
