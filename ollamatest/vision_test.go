package ollamatest_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// A vision model reports the capability in /api/show and takes images,
// which the fake hands back decoded; a model without it refuses them as
// Ollama does.
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
	var se api.StatusError
	if err := ask("llama3.2"); !errors.As(err, &se) || se.StatusCode != 400 {
		t.Errorf("images to a model without vision: %v; want a 400", err)
	}
}
