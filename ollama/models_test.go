package ollama_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/ollama"
	"github.com/ryo-bot/ryo/ollamatest"
)

// Installed lists every model with its details and capabilities; what a
// model can do is asked once for each version of it.
func TestInstalled(t *testing.T) {
	srv := ollamatest.NewServer("llama3.2")
	defer srv.Close()
	srv.Install("qwen3:8b", ollamatest.Model{Family: "qwen3", ParameterSize: "8.2B", Quantization: "Q4_K_M", Size: 5225388164,
		Capabilities: []string{"completion", "tools", "thinking"}})
	srv.Install("nomic-embed-text", ollamatest.Model{Family: "nomic-bert", ParameterSize: "137M", Quantization: "F16", Size: 274302450,
		Capabilities: []string{"embedding"}})
	c := client(t, srv.URL(), nil)
	ctx := context.Background()
	got, err := c.Installed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("Installed = %+v; want three models", got)
	}
	q := got[1]
	if q.Name != "qwen3:8b" || q.Size != 5225388164 || q.Family != "qwen3" || q.ParameterSize != "8.2B" || q.Quantization != "Q4_K_M" ||
		q.Modified.IsZero() || !q.Can(ryo.CanUseTools) || !q.Can(ryo.CanThink) || q.Can(ryo.CanSee) {
		t.Errorf("qwen3 = %+v", q)
	}
	if e := got[2]; !e.Can(ryo.CanEmbed) || e.Can(ryo.CanComplete) {
		t.Errorf("embedding model = %+v; want embedding alone", e)
	}
	shows := srv.Shows()
	if _, err := c.Installed(ctx); err != nil || srv.Shows() != shows {
		t.Errorf("listed again: %v, %d more /api/show; want none", err, srv.Shows()-shows)
	}
	if caps, err := c.Capabilities(ctx, "QWEN3:8b"); err != nil || !slices.Contains(caps, ryo.CanUseTools) || srv.Shows() != shows {
		t.Errorf("Capabilities(QWEN3:8b) = %v, %v after %d more /api/show; want tools, known already", caps, err, srv.Shows()-shows)
	}
	// Removed, then pulled again as another model: asked about afresh.
	srv.Remove("qwen3:8b")
	if _, err := c.Installed(ctx); err != nil {
		t.Fatal(err)
	}
	srv.AddVisionModel("qwen3:8b")
	caps, err := c.Capabilities(ctx, "qwen3:8b")
	if err != nil || !slices.Contains(caps, ryo.CanSee) || slices.Contains(caps, ryo.CanUseTools) {
		t.Errorf("after the model was replaced: %v, %v; want what the new one can do", caps, err)
	}
}

// A model that is not installed is ryo.ModelMissing, whether asked about
// or asked to answer; what it could do is not remembered.
func TestModelMissing(t *testing.T) {
	srv := ollamatest.NewServer("llama3.2", "qwen3:8b")
	defer srv.Close()
	c := client(t, srv.URL(), nil)
	ctx := context.Background()
	if _, err := c.Capabilities(ctx, "qwen3:8b"); err != nil {
		t.Fatal(err)
	}
	srv.Remove("qwen3:8b")
	if _, err := c.Capabilities(ctx, "gone:1b"); !ryo.ModelMissing(err) {
		t.Errorf("Capabilities of a model never installed: %v; want ModelMissing", err)
	}
	req := hello()
	req.Model = "qwen3:8b"
	_, err := c.Chat(ctx, req)
	if !ryo.ModelMissing(err) || ryo.ErrorCode(err) != ryo.ENOTFOUND {
		t.Errorf("Chat with a removed model: %v; want ModelMissing", err)
	}
	if _, err := c.Chat(ctx, hello()); ryo.ModelMissing(err) {
		t.Errorf("Chat with the installed model: %v", err)
	}
	if ryo.ModelMissing(errors.New("model 'x' not found")) {
		t.Error("a plain error is not ModelMissing")
	}
}

// A server that does not answer the list ends it at the caller's
// deadline, and the error says where.
func TestInstalledKeepsItsDeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	c := client(t, srv.URL, func(c *ollama.Config) { c.ConnectTimeout = time.Hour })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := c.Installed(ctx); got != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("Installed past the deadline = %v, %v; want context.Canceled", got, err)
	}
}
