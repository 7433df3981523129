package ollamatest

import (
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode"
)

// embedDims is the length of every embedding vector.
const embedDims = 64

// Durations reported by /api/embed.
const (
	embedLoad = 1 * time.Millisecond
	embedEval = 5 * time.Millisecond
)

// embedBody is the subset of api.EmbedRequest the fake reads.
type embedBody struct {
	Model      string `json:"model"`
	Input      any    `json:"input"`
	Dimensions int    `json:"dimensions"`
}

// embedResponse is api.EmbedResponse on the wire.
type embedResponse struct {
	Model           string        `json:"model"`
	Embeddings      [][]float32   `json:"embeddings"`
	TotalDuration   time.Duration `json:"total_duration,omitempty"`
	LoadDuration    time.Duration `json:"load_duration,omitempty"`
	PromptEvalCount int           `json:"prompt_eval_count,omitempty"`
}

// serveEmbed answers POST /api/embed with deterministic vectors: texts that
// share words get a higher cosine similarity.
func (s *Server) serveEmbed(w http.ResponseWriter, r *http.Request) {
	var body embedBody
	if !decodeBody(w, r, &body) {
		return
	}
	inputs, ok := embedInputs(body.Input)
	if !ok {
		writeError(w, http.StatusBadRequest, "invalid input type")
		return
	}
	if !s.use(body.Model) {
		writeError(w, http.StatusNotFound, notFound(body.Model))
		return
	}
	writeJSON(w, http.StatusOK, embed(body, inputs))
}

// use marks an installed model as running and reports whether it exists.
func (s *Server) use(model string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.models.use(model, time.Now())
}

// embedInputs reads "input" as Ollama does: a string (empty means none) or
// an array of strings.
func embedInputs(input any) ([]string, bool) {
	switch in := input.(type) {
	case nil:
		return nil, true
	case string:
		if in == "" {
			return nil, true
		}
		return []string{in}, true
	case []any:
		out := make([]string, 0, len(in))
		for _, v := range in {
			s, ok := v.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// embed builds the response for the inputs. With no input Ollama answers
// an empty list and no metrics.
func embed(body embedBody, inputs []string) embedResponse {
	resp := embedResponse{Model: body.Model, Embeddings: [][]float32{}}
	if len(inputs) == 0 {
		return resp
	}
	for _, text := range inputs {
		words := wordsOf(text)
		resp.Embeddings = append(resp.Embeddings, vector(words, body.Dimensions))
		resp.PromptEvalCount += len(words)
	}
	resp.LoadDuration = embedLoad
	resp.TotalDuration = embedLoad + embedEval
	return resp
}

// wordsOf splits text into lower-case words; text with no word counts as
// one word, itself.
func wordsOf(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
	if len(words) == 0 {
		return []string{text}
	}
	return words
}

// vector sums a pseudo-random vector per word and L2-normalises the sum,
// truncated to dims when 0 < dims < embedDims.
func vector(words []string, dims int) []float32 {
	sum := make([]float64, embedDims)
	for _, w := range words {
		addWord(sum, w)
	}
	if dims > 0 && dims < embedDims {
		sum = sum[:dims]
	}
	return normalize(sum)
}

// addWord adds the word's vector, each component in [-1, 1], drawn from a
// splitmix64 sequence seeded with the word's FNV-1a hash.
func addWord(sum []float64, word string) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(word))
	state := h.Sum64()
	for i := range sum {
		state += 0x9e3779b97f4a7c15
		z := state
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		sum[i] += float64(int64(z)) / math.MaxInt64
	}
}

// normalize scales v to unit length.
func normalize(v []float64) []float32 {
	var sq float64
	for _, x := range v {
		sq += x * x
	}
	norm := math.Sqrt(sq)
	out := make([]float32, len(v))
	for i, x := range v {
		if norm > 0 {
			out[i] = float32(x / norm)
		}
	}
	return out
}
