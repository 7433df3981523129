package modelpool

import (
	"log/slog"
	"net/url"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/openai"
	"github.com/ryo-bot/ryo/openaitest"
)

// openaiMember is the OpenAI-compatible adapter for the server at rawURL,
// as a member of a pool.
func openaiMember(t *testing.T, name, rawURL string) Member {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	c := openai.New(openai.Config{URL: u, Model: "llama3.2", VisionModel: "llava", ConnectTimeout: 5 * time.Second,
		FirstTokenTimeout: 30 * time.Second, Timeout: time.Minute})
	return Member{Name: name, Server: openai.Member{Client: c}, Limit: 1}
}

// OpenAI-compatible servers make a pool as Ollama servers do: a request
// goes to one that serves the model, and moves on from one that fails
// before its first token.
func TestOpenAICompatibleServersMakeAPool(t *testing.T) {
	a, b, c := openaitest.NewServer("llama3.2"), openaitest.NewServer("llama3.2", "llava"), openaitest.NewServer("qwen3:8b")
	for _, s := range []*openaitest.Server{a, b, c} {
		t.Cleanup(s.Close)
	}
	a.Handle(func(openaitest.Request) openaitest.Reply { return openaitest.Reply{Status: 503, Error: "overloaded"} })
	b.Handle(func(openaitest.Request) openaitest.Reply { return openaitest.Reply{Content: "from b"} })
	p := New(Config{Model: "llama3.2", VisionModel: "llava", Clock: clocktest.New(time.Unix(0, 0))}, slog.New(slog.DiscardHandler),
		openaiMember(t, "a", a.URL()), openaiMember(t, "b", b.URL()), openaiMember(t, "c", c.URL()))
	running(t, p)
	if s := p.Servers(); len(s[2].Models) != 1 || s[2].Models[0] != ryo.FullModelName("qwen3:8b") {
		t.Fatalf("c's models %v; want qwen3:8b", s[2].Models)
	}
	reply, err := p.Chat(ctxFor(t), hello("hi"))
	if err != nil || reply.Content != "from b" {
		t.Fatalf("reply %q, err %v; want B's answer after A's 503", reply.Content, err)
	}
	if len(c.Requests()) != 0 {
		t.Fatal("C, which does not serve the model, was asked")
	}
	if s := p.Servers(); s[0].Healthy || s[0].Failovers != 1 {
		t.Fatalf("servers %+v; want A down", s)
	}
	if v, err := p.VisionModel(ctxFor(t)); err != nil || v != "llava" {
		t.Fatalf("vision model %q, %v; want llava, which B serves", v, err)
	}
	if got, err := p.Check(ctxFor(t)); err != nil || got != "3 of 3 servers up, 2 with llama3.2" {
		t.Fatalf("Check = %q, %v", got, err)
	}
}
