package ollamatest

import "slices"

// Model is how an installed model describes itself: its details in
// /api/tags and /api/show, and its capabilities in /api/show. A field left
// zero takes a small Llama's (llama3.2:3b, Q4_K_M, "completion" alone).
type Model struct {
	Family        string // "llama", "qwen3", "gemma3", "nomic-bert", …
	ParameterSize string // "3.2B", "137M", …
	Quantization  string // "Q4_K_M", "F16", …
	Size          int64  // bytes on disk
	// Capabilities are those /api/show lists: "completion", "tools",
	// "vision", "embedding", "thinking", "insert". An embedding model has
	// "embedding" alone.
	Capabilities []string
}

// smallLlama is what a model installed by name alone describes itself as.
var smallLlama = Model{Family: "llama", ParameterSize: "3.2B", Quantization: "Q4_K_M", Size: modelSize,
	Capabilities: []string{"completion"}}

// orSmallLlama is m with its zero fields filled in.
func (m Model) orSmallLlama() Model {
	m.Family = orDefault(m.Family, smallLlama.Family)
	m.ParameterSize = orDefault(m.ParameterSize, smallLlama.ParameterSize)
	m.Quantization = orDefault(m.Quantization, smallLlama.Quantization)
	m.Size = orDefault(m.Size, smallLlama.Size)
	if len(m.Capabilities) == 0 {
		m.Capabilities = smallLlama.Capabilities
	}
	m.Capabilities = slices.Clone(m.Capabilities)
	return m
}

// Install installs a model that describes itself as m; installed already,
// it describes itself as m from now on.
func (s *Server) Install(name string, m Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models.add(name)
	n, _ := s.models.lookup(name)
	s.models.about[n] = m.orSmallLlama()
	s.notifyLocked()
}

// Remove uninstalls a model, as `ollama rm` does: /api/tags no longer
// lists it, and /api/show and /api/chat answer 404 "model '…' not found".
func (s *Server) Remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := canonical(name)
	s.models.remove(n)
	s.vision = slices.DeleteFunc(s.vision, func(v string) bool { return v == n })
	s.notifyLocked()
}

// model is how the installed model n describes itself.
func (c *catalog) model(n string) Model {
	if m, ok := c.about[n]; ok {
		return m
	}
	return smallLlama
}
