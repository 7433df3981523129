package ollamatest

import (
	"encoding/base64"
	"slices"
)

// AddVisionModel installs a model that reads pictures: /api/show reports
// "vision" among its capabilities. Every model takes images, as Ollama's
// do; a test checks which model they went to.
func (s *Server) AddVisionModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models.add(name)
	n, _ := s.models.lookup(name)
	s.vision = append(s.vision, n)
}

// Shows counts the /api/show requests received so far.
func (s *Server) Shows() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shows
}

// FailShows makes the next n /api/show requests fail with a 500, as a
// server that cannot read a model's metadata for a moment does.
func (s *Server) FailShows(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.showFail = n
}

// capabilities are what /api/show reports for the installed model name:
// its own (see Install), and "vision" when added by AddVisionModel.
func (s *Server) capabilities(name string) []string {
	caps := slices.Clone(s.models.model(name).Capabilities)
	if slices.Contains(s.vision, name) && !slices.Contains(caps, "vision") {
		caps = append(caps, "vision")
	}
	return caps
}

// Images are the pictures of the request's messages, decoded from the
// base64 they came as, in order. A string that is not base64 is left out:
// the fake refuses such a request before it answers it.
func (r Request) Images() [][]byte {
	var out [][]byte
	for _, m := range r.Messages {
		for _, img := range m.Images {
			if data, err := base64.StdEncoding.DecodeString(img); err == nil {
				out = append(out, data)
			}
		}
	}
	return out
}

// imageProblem is Ollama's refusal of req's images, or "": each must be
// base64. A model that does not read pictures takes them without a word,
// as a real Ollama does, and never sees them.
func imageProblem(req Request) string {
	for _, m := range req.Messages {
		for _, img := range m.Images {
			if _, err := base64.StdEncoding.DecodeString(img); err != nil {
				return "illegal base64 data in an image: " + err.Error()
			}
		}
	}
	return ""
}
