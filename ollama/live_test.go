package ollama_test

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/ollama"
	"github.com/ryo-bot/ryo/ollama/livetest"
	"github.com/ryo-bot/ryo/prompts"
	"github.com/ryo-bot/ryo/schema"
	"github.com/ryo-bot/ryo/tools"
)

// live starts a real Ollama with the tiny model as "tiny" and returns an
// adapter for it.
func live(t *testing.T, mod func(*ollama.Config)) (*livetest.Server, *ollama.Client) {
	t.Helper()
	srv := livetest.Start(t)
	srv.CreateTinyModel(t, "tiny", livetest.DefaultTinyModel())
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg := ollama.Config{Host: u, Model: "tiny", EmbedModel: "tiny", KeepAlive: time.Hour,
		ConnectTimeout: 5 * time.Second, FirstTokenTimeout: 60 * time.Second, Timeout: 2 * time.Minute}
	if mod != nil {
		mod(&cfg)
	}
	return srv, ollama.New(cfg)
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

func TestLiveChat(t *testing.T) {
	_, c := live(t, nil)
	for _, whole := range []bool{false, true} {
		var deltas []string
		req := hello()
		req.Whole = whole
		req.OnDelta = func(d string) { deltas = append(deltas, d) }
		reply, err := c.Chat(ctx(t), req)
		if err != nil {
			t.Fatalf("whole=%v: %v", whole, err)
		}
		if reply.Content != "ok" || strings.Join(deltas, "") != "ok" {
			t.Fatalf("whole=%v: content %q, deltas %q; want ok", whole, reply.Content, deltas)
		}
		if whole != (len(deltas) == 1) {
			t.Errorf("whole=%v: %d deltas; want one piece only when whole", whole, len(deltas))
		}
		u := reply.Usage
		if u.PromptTokens == 0 || u.ReplyTokens == 0 || u.TotalDuration <= 0 || u.ReplyDuration <= 0 {
			t.Fatalf("whole=%v: usage %+v; want the server's figures", whole, u)
		}
	}
}

// The model answers ryo's envelope schema (with the built-in tools), and
// ryo's parser and validator read it.
func TestLiveEnvelopeFormat(t *testing.T) {
	srv := livetest.Start(t)
	m := livetest.DefaultTinyModel()
	m.Favour = "n"
	srv.CreateTinyModel(t, "tiny", m)
	u, _ := url.Parse(srv.URL)
	c := ollama.New(ollama.Config{Host: u, Model: "tiny", ConnectTimeout: 5 * time.Second,
		FirstTokenTimeout: time.Minute, Timeout: 2 * time.Minute})
	var specs []prompts.Tool
	for _, s := range tools.Builtin(time.UTC, nil) {
		specs = append(specs, prompts.Tool{Name: s.Name, Description: s.Description, Schema: s.Schema})
	}
	format, err := prompts.Envelope(specs)
	if err != nil {
		t.Fatal(err)
	}
	req := hello()
	req.Format = format
	reply, err := c.Chat(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	answers, err := schema.Compile(prompts.OpenEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	env, err := agent.ParseEnvelope(reply.Content, answers)
	if err != nil {
		t.Fatalf("ParseEnvelope(%q): %v", reply.Content, err)
	}
	if env.Reply != "ok" {
		t.Fatalf("envelope %+v from %q; want reply ok", env, reply.Content)
	}
	t.Logf("envelope from the real server: %s", reply.Content)
}

// Every built-in tool's own argument schema, as the format of a round
// forced to that tool, is a grammar the real server runs, and it makes the
// model write a command of exactly that tool.
func TestLiveForcedFormat(t *testing.T) {
	srv := livetest.Start(t)
	srv.CreateTinyModel(t, "tiny", livetest.DefaultTinyModel())
	u, _ := url.Parse(srv.URL)
	c := ollama.New(ollama.Config{Host: u, Model: "tiny", ConnectTimeout: 5 * time.Second, NumPredict: 120,
		FirstTokenTimeout: time.Minute, Timeout: 2 * time.Minute})
	generator, _ := url.Parse("http://127.0.0.1:7860/v1")
	for _, s := range append(tools.Builtin(time.UTC, nil), tools.GenerateImage(tools.ImageConfig{URL: generator})) {
		format, err := prompts.Forced(prompts.Tool{Name: s.Name, Schema: s.Schema})
		if err != nil {
			t.Fatal(err)
		}
		req := hello()
		req.Format = format
		reply, err := c.Chat(ctx(t), req)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		intent := regexp.MustCompile(`"command"\s*:\s*\{\s*"intent"\s*:\s*"` + s.Name + `"`)
		if !intent.MatchString(reply.Content) {
			t.Fatalf("%s: the answer %q does not call it", s.Name, reply.Content)
		}
	}
}

func TestLiveKeepAlive(t *testing.T) {
	srv, c := live(t, func(cfg *ollama.Config) { cfg.KeepAlive = 3 * time.Hour })
	if _, err := c.Chat(ctx(t), hello()); err != nil {
		t.Fatal(err)
	}
	expires, ok := srv.Running(t)["tiny:latest"]
	if !ok || time.Until(expires) < 2*time.Hour {
		t.Fatalf("running models = %v; want tiny kept for about 3h", srv.Running(t))
	}
}

func TestLiveMissingModel(t *testing.T) {
	_, c := live(t, func(cfg *ollama.Config) { cfg.Model = "nope" })
	_, err := c.Chat(ctx(t), hello())
	if ryo.ErrorCode(err) != ryo.ENOTFOUND || !strings.Contains(ryo.ErrorMessage(err), "ollama pull nope") {
		t.Fatalf("err = %v; want ENOTFOUND advising ollama pull nope", err)
	}
}

func TestLiveInvalidSchema(t *testing.T) {
	_, c := live(t, nil)
	req := hello()
	req.Format = json.RawMessage(`{"type":"objectx"}`)
	_, err := c.Chat(ctx(t), req)
	if ryo.ErrorCode(err) != ryo.EUNAVAILABLE || !strings.Contains(err.Error(), "HTTP 500") ||
		!strings.Contains(ryo.ErrorMessage(err), "invalid JSON schema") {
		t.Fatalf("err = %v; want the server's 500 explained", err)
	}
}

// A server that dies in the middle of an answer gives an error, never a
// silently short answer.
func TestLiveServerKilledMidStream(t *testing.T) {
	srv, c := live(t, nil)
	req := hello()
	// A schema that takes thousands of tokens to satisfy keeps the stream going.
	req.Format = json.RawMessage(`{"type":"array","items":{"type":"string"},"minItems":400}`)
	killed := false
	req.OnDelta = func(string) {
		if !killed {
			killed = true
			srv.Kill()
		}
	}
	reply, err := c.Chat(ctx(t), req)
	if !killed {
		t.Fatalf("no token arrived before the server was to be killed: %q, %v", reply.Content, err)
	}
	if ryo.ErrorCode(err) != ryo.EUNAVAILABLE {
		t.Fatalf("after the kill: content %q, err %v; want EUNAVAILABLE", reply.Content, err)
	}
	t.Logf("user sees: %s", ryo.ErrorMessage(err))
}

func TestLiveEmbed(t *testing.T) {
	_, c := live(t, nil)
	vecs, err := c.Embed(ctx(t), []string{"hello there", "общий привет 👋"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 2 || len(vecs[0]) == 0 || len(vecs[0]) != len(vecs[1]) {
		t.Fatalf("embeddings: %d vectors of %d and %d dims", len(vecs), len(vecs[0]), len(vecs[1]))
	}
	_, c2 := live(t, func(cfg *ollama.Config) { cfg.EmbedModel = "absent" })
	if _, err := c2.Embed(ctx(t), []string{"x"}); ryo.ErrorCode(err) != ryo.ENOTFOUND || !strings.Contains(ryo.ErrorMessage(err), "embedding model") {
		t.Fatalf("Embed with a missing model = %v", err)
	}
}

// A real server obeys num_predict: an answer that would take thousands of
// tokens stops after exactly that many, reported as cut off; one that fits
// is not.
func TestLiveNumPredict(t *testing.T) {
	_, c := live(t, func(cfg *ollama.Config) { cfg.NumPredict = 7 })
	req := hello()
	req.Format = json.RawMessage(`{"type":"array","items":{"type":"string"},"minItems":400}`)
	reply, err := c.Chat(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	if !reply.CutOff || reply.Usage.ReplyTokens != 7 {
		t.Fatalf("answer %.80q: cut off %v after %d tokens; want cut off after 7", reply.Content, reply.CutOff, reply.Usage.ReplyTokens)
	}
	short, err := c.Chat(ctx(t), hello())
	if err != nil || short.Content != "ok" || short.CutOff {
		t.Fatalf("short answer = %+v, %v; want ok, whole", short, err)
	}
}

// A real Ollama reports the tiny model's capabilities without "vision":
// it is no vision model. Sent a picture anyway, the server does not refuse
// it — the model just never sees it — which is why ryo asks /api/show
// before it sends one, and the fake takes it the same way.
func TestLiveVisionModel(t *testing.T) {
	_, c := live(t, nil)
	if got, err := c.VisionModel(ctx(t)); got != "" || err != nil {
		t.Fatalf("VisionModel = %q, %v; want none for a model without vision", got, err)
	}
	_, err := c.Chat(ctx(t), ryo.ModelRequest{Messages: []ryo.ModelMessage{
		{Role: ryo.ModelUser, Content: "what is this?", Images: [][]byte{[]byte("\x89PNG\r\n\x1a\n")}}}})
	if err != nil {
		t.Fatalf("a picture to a model without vision: %v; want it taken without a word", err)
	}
}
