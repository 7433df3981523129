package ollamatest_test

import (
	"math"
	"slices"
	"testing"

	"github.com/ollama/ollama/api"
)

func TestEmbed(t *testing.T) {
	s := MustStart(t, "nomic-embed-text")
	c := NewClient(t, s)
	texts := []string{"The cat sat on the mat", "the cat sat on a rug", "Stock prices fell sharply today"}
	got, err := c.Embed(Context(t), &api.EmbedRequest{Model: "nomic-embed-text", Input: texts})
	if err != nil {
		t.Fatal(err)
	}
	if got.Model != "nomic-embed-text" || len(got.Embeddings) != 3 || got.PromptEvalCount == 0 || got.TotalDuration == 0 {
		t.Fatalf("got %+v, want three embeddings and metrics", got)
	}
	for _, v := range got.Embeddings {
		if len(v) != 64 || math.Abs(dot(v, v)-1) > 1e-5 {
			t.Errorf("vector of %d dims and norm² %v, want 64 and 1", len(v), dot(v, v))
		}
	}
	e := got.Embeddings
	if near, far := dot(e[0], e[1]), dot(e[0], e[2]); near <= far+0.3 {
		t.Errorf("cosine(shared words) = %.3f, cosine(no shared words) = %.3f, want the first clearly higher", near, far)
	}

	again, err := c.Embed(Context(t), &api.EmbedRequest{Model: "nomic-embed-text", Input: texts[0]})
	if err != nil || len(again.Embeddings) != 1 || !slices.Equal(again.Embeddings[0], e[0]) {
		t.Errorf("same text again = %v, %v; want the same vector", again, err)
	}
}

func TestEmbed_Dimensions(t *testing.T) {
	s := MustStart(t, "nomic-embed-text")
	got, err := NewClient(t, s).Embed(Context(t), &api.EmbedRequest{Model: "nomic-embed-text", Input: "hello", Dimensions: 16})
	if err != nil {
		t.Fatal(err)
	}
	if v := got.Embeddings[0]; len(v) != 16 || math.Abs(dot(v, v)-1) > 1e-5 {
		t.Errorf("got %d dims, norm² %v; want 16 and 1", len(v), dot(v, v))
	}
}

func TestEmbed_Errors(t *testing.T) {
	s := MustStart(t, "nomic-embed-text")
	c := NewClient(t, s)
	_, err := c.Embed(Context(t), &api.EmbedRequest{Model: "nope", Input: "hi"})
	if se := StatusError(t, err); se.StatusCode != 404 || se.ErrorMessage != "model 'nope' not found" {
		t.Errorf("unknown model: %+v, want 404", se)
	}
	_, err = c.Embed(Context(t), &api.EmbedRequest{Model: "nomic-embed-text", Input: 42})
	if se := StatusError(t, err); se.StatusCode != 400 || se.ErrorMessage != "invalid input type" {
		t.Errorf("number input: %+v, want 400 invalid input type", se)
	}
	got, err := c.Embed(Context(t), &api.EmbedRequest{Model: "nomic-embed-text", Input: ""})
	if err != nil || got.Embeddings == nil || len(got.Embeddings) != 0 {
		t.Errorf("empty input: %+v, %v; want an empty list", got, err)
	}
}

// dot is the dot product; for unit vectors, their cosine similarity.
func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
