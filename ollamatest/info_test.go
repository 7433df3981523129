package ollamatest_test

import (
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/ollama/ollama/api"
)

func TestHeartbeat(t *testing.T) {
	s := MustStart(t)
	if err := NewClient(t, s).Heartbeat(Context(t)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != "Ollama is running" {
		t.Errorf("GET / = %d %q, want 200 \"Ollama is running\"", resp.StatusCode, b)
	}
}

func TestVersion(t *testing.T) {
	v, err := NewClient(t, MustStart(t)).Version(Context(t))
	if err != nil || v != "0.17.4" {
		t.Errorf("version = %q, %v; want 0.17.4", v, err)
	}
}

func TestList(t *testing.T) {
	s := MustStart(t, "llama3.2", "qwen2.5:7b", "llama3.2:latest")
	s.AddModel("nomic-embed-text")
	got, err := NewClient(t, s).List(Context(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range got.Models {
		names = append(names, m.Name)
		if m.Model != m.Name || m.Size == 0 || len(m.Digest) != 64 || m.ModifiedAt.IsZero() || m.Details.Family == "" {
			t.Errorf("model = %+v, want every field filled in", m)
		}
	}
	want := []string{"llama3.2:latest", "qwen2.5:7b", "nomic-embed-text:latest"}
	if !slices.Equal(names, want) {
		t.Errorf("names = %q, want %q", names, want)
	}
}

func TestShow(t *testing.T) {
	s := MustStart(t, "llama3.2")
	c := NewClient(t, s)
	got, err := c.Show(Context(t), &api.ShowRequest{Model: "llama3.2"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Modelfile == "" || got.Parameters == "" || got.Template == "" || got.Details.Format != "gguf" ||
		got.ModelInfo["general.architecture"] != "llama" || len(got.Capabilities) != 1 || got.Capabilities[0] != "completion" {
		t.Errorf("show = %+v, want a plausible llama", got)
	}
	_, err = c.Show(Context(t), &api.ShowRequest{Model: "nope"})
	if se := StatusError(t, err); se.StatusCode != 404 || se.ErrorMessage != "model 'nope' not found" {
		t.Errorf("got %+v, want 404 model 'nope' not found", se)
	}
}

func TestListRunning(t *testing.T) {
	s := MustStart(t, "llama3.2", "qwen2.5:7b", "nomic-embed-text")
	c := NewClient(t, s)
	ps, err := c.ListRunning(Context(t))
	if err != nil || len(ps.Models) != 0 {
		t.Fatalf("before any request: %+v, %v; want no models", ps, err)
	}
	if _, err := Chat(Context(t), c, User("llama3.2", "hi")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Embed(Context(t), &api.EmbedRequest{Model: "nomic-embed-text", Input: "hi"}); err != nil {
		t.Fatal(err)
	}
	ps, err = c.ListRunning(Context(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ps.Models {
		names = append(names, m.Name)
		if m.ExpiresAt.IsZero() || m.Size == 0 || m.ContextLength == 0 {
			t.Errorf("running model = %+v, want expiry, size and context", m)
		}
	}
	slices.Sort(names)
	if want := []string{"llama3.2:latest", "nomic-embed-text:latest"}; !slices.Equal(names, want) {
		t.Errorf("running = %q, want %q", names, want)
	}
}
