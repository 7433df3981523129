package openai_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/ollama/livetest"
	"github.com/ryo-bot/ryo/openai"
	"github.com/ryo-bot/ryo/prompts"
	"github.com/ryo-bot/ryo/schema"
	"github.com/ryo-bot/ryo/tools"
)

// Ollama serves OpenAI's chat completions API beside its own: a real
// server that takes the requests this adapter makes — streamed, with
// usage asked for and the envelope as a json_schema response format —
// and lists its models at /v1/models.
func TestLiveOpenAICompatibleOllama(t *testing.T) {
	srv := livetest.Start(t)
	m := livetest.DefaultTinyModel()
	m.Favour = "n"
	srv.CreateTinyModel(t, "tiny", m)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := openai.New(openai.Config{URL: u, Model: "tiny", NumPredict: 400, ConnectTimeout: 5 * time.Second,
		FirstTokenTimeout: time.Minute, Timeout: 2 * time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// Ollama's /v1 samples at its own default temperature when none is
	// sent: the tiny model answers "ok" only at 0.
	zero := 0.0
	var deltas []string
	req := hello()
	req.Temperature = &zero
	req.OnDelta = func(d string) { deltas = append(deltas, d) }
	reply, err := c.Chat(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != "ok" || strings.Join(deltas, "") != "ok" || reply.Usage.PromptTokens == 0 || reply.Usage.ReplyTokens == 0 {
		t.Fatalf("Chat = %+v, deltas %q; want ok with the server's token counts", reply, deltas)
	}

	var specs []prompts.Tool
	for _, s := range tools.Builtin(time.UTC, nil) {
		specs = append(specs, prompts.Tool{Name: s.Name, Description: s.Description, Schema: s.Schema})
	}
	format, err := prompts.Envelope(specs)
	if err != nil {
		t.Fatal(err)
	}
	req = hello()
	req.Temperature = &zero
	req.Format = format
	reply, err = c.Chat(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	answers, err := schema.Compile(prompts.OpenEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	env, err := agent.ParseEnvelope(reply.Content, answers)
	if err != nil || env.Reply != "ok" {
		t.Fatalf("ParseEnvelope(%q) = %+v, %v; want the envelope with reply ok", reply.Content, env, err)
	}

	if found, err := c.Check(ctx); err != nil {
		t.Fatalf("Check = %q, %v", found, err)
	}
	c = openai.New(openai.Config{URL: u, Model: "absent", ConnectTimeout: 5 * time.Second, FirstTokenTimeout: time.Minute, Timeout: time.Minute})
	if _, err := c.Chat(ctx, hello()); !ryo.ModelMissing(err) {
		t.Fatalf("a model the server lacks: %v; want ryo.ModelMissing", err)
	}
}
