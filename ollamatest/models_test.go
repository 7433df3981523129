package ollamatest_test

import (
	"slices"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ryo-bot/ryo/ollamatest"
)

// An installed model describes itself in /api/tags and /api/show as told;
// one installed by name alone is a small Llama that only completes.
func TestInstallDescribesTheModel(t *testing.T) {
	s := MustStart(t, "llama3.2")
	s.Install("qwen3:8b", ollamatest.Model{Family: "qwen3", ParameterSize: "8.2B", Quantization: "Q4_K_M", Size: 5225388164,
		Capabilities: []string{"completion", "tools", "thinking"}})
	s.Install("nomic-embed-text", ollamatest.Model{Family: "nomic-bert", ParameterSize: "137M", Quantization: "F16", Size: 274302450,
		Capabilities: []string{"embedding"}})
	s.AddVisionModel("gemma3:4b")
	c := NewClient(t, s)
	list, err := c.List(Context(t))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		name, family, params, quant string
		size                        int64
	}
	var got []row
	for _, m := range list.Models {
		got = append(got, row{m.Name, m.Details.Family, m.Details.ParameterSize, m.Details.QuantizationLevel, m.Size})
	}
	want := []row{
		{"llama3.2:latest", "llama", "3.2B", "Q4_K_M", 2019393189},
		{"qwen3:8b", "qwen3", "8.2B", "Q4_K_M", 5225388164},
		{"nomic-embed-text:latest", "nomic-bert", "137M", "F16", 274302450},
		{"gemma3:4b", "llama", "3.2B", "Q4_K_M", 2019393189},
	}
	if !slices.Equal(got, want) {
		t.Errorf("/api/tags = %+v\nwant %+v", got, want)
	}
	for name, caps := range map[string][]string{
		"llama3.2": {"completion"}, "qwen3:8b": {"completion", "tools", "thinking"},
		"nomic-embed-text": {"embedding"}, "gemma3:4b": {"completion", "vision"},
	} {
		show, err := c.Show(Context(t), &api.ShowRequest{Model: name})
		var got []string
		for _, c := range show.Capabilities {
			got = append(got, string(c))
		}
		if err != nil || !slices.Equal(got, caps) {
			t.Errorf("show %s = %v, %v; want %v", name, show.Capabilities, err, caps)
		}
	}
	show, err := c.Show(Context(t), &api.ShowRequest{Model: "qwen3:8b"})
	if err != nil || show.Details.Family != "qwen3" || show.ModelInfo["general.architecture"] != "qwen3" {
		t.Errorf("show qwen3:8b = %+v, %v; want its family", show, err)
	}
}

// A removed model is gone from /api/tags, and /api/show and /api/chat
// answer 404 for it, as after `ollama rm`.
func TestRemove(t *testing.T) {
	s := MustStart(t, "llama3.2", "qwen3:8b")
	s.AddVisionModel("qwen3:8b")
	s.Remove("qwen3:8b")
	c := NewClient(t, s)
	list, err := c.List(Context(t))
	if err != nil || len(list.Models) != 1 || list.Models[0].Name != "llama3.2:latest" {
		t.Fatalf("/api/tags = %+v, %v; want llama3.2 alone", list, err)
	}
	_, err = c.Show(Context(t), &api.ShowRequest{Model: "qwen3:8b"})
	if se := StatusError(t, err); se.StatusCode != 404 || se.ErrorMessage != "model 'qwen3:8b' not found" {
		t.Errorf("show after remove: %+v; want 404", se)
	}
	_, err = Chat(Context(t), c, User("qwen3:8b", "hi"))
	if se := StatusError(t, err); se.StatusCode != 404 {
		t.Errorf("chat after remove: %+v; want 404", se)
	}
	s.AddModel("qwen3:8b")
	if show, err := c.Show(Context(t), &api.ShowRequest{Model: "qwen3:8b"}); err != nil || slices.Contains(show.Capabilities, "vision") {
		t.Errorf("installed again: %v, %v; want a model that only completes", show.Capabilities, err)
	}
}
