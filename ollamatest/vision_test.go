package ollamatest_test

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// A vision model reports the capability in /api/show; images come back
// decoded, with the model they went to.
func TestVisionModels(t *testing.T) {
	s := MustStart(t, "llama3.2")
	s.AddVisionModel("gemma3:4b")
	c := NewClient(t, s)
	for name, want := range map[string]bool{"llama3.2": false, "gemma3:4b": true} {
		show, err := c.Show(Context(t), &api.ShowRequest{Model: name})
		if err != nil || slices.Contains(show.Capabilities, model.CapabilityVision) != want {
			t.Errorf("show %s = %v, %v; want vision %v", name, show.Capabilities, err, want)
		}
	}
	if s.Shows() != 2 {
		t.Errorf("Shows = %d; want 2", s.Shows())
	}
	picture := []byte("\xff\xd8\xff\xe0 a receipt")
	ask := func(name string) error {
		req := User(name, "what did I spend?")
		req.Messages[0].Images = []api.ImageData{picture}
		_, err := Chat(Context(t), c, req)
		return err
	}
	if err := ask("gemma3:4b"); err != nil {
		t.Fatalf("vision model: %v", err)
	}
	if got := s.Requests()[0].Images(); len(got) != 1 || !bytes.Equal(got[0], picture) {
		t.Errorf("images received = %q; want the picture", got)
	}
	if err := ask("llama3.2"); err != nil {
		t.Errorf("images to a model without vision: %v; want them taken, as Ollama does", err)
	}
	if r := s.Requests()[1]; r.Model != "llama3.2" || len(r.Images()) != 1 {
		t.Errorf("request = %+v; want the picture recorded with the model it went to", r)
	}
}

// An image that is not base64 is refused before any answer, as Ollama
// refuses a body it cannot decode.
func TestImageNotBase64(t *testing.T) {
	s := MustStart(t, "llama3.2")
	body := `{"model":"llama3.2","messages":[{"role":"user","content":"hi","images":["@@not base64@@"]}]}`
	resp, err := http.Post(s.URL()+"/api/chat", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status = %d; want 400", resp.StatusCode)
	}
}
