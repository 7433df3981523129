package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/openai"
	"github.com/ryo-bot/ryo/openaitest"
	"github.com/ryo-bot/ryo/prompts"
)

const model = "Qwen/Qwen2.5-7B-Instruct"

func client(t *testing.T, base string, mod func(*openai.Config)) *openai.Client {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	cfg := openai.Config{URL: u, Model: model, NumPredict: 4096,
		ConnectTimeout: 2 * time.Second, FirstTokenTimeout: 10 * time.Second, Timeout: 20 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	return openai.New(cfg)
}

func hello() ryo.ModelRequest {
	return ryo.ModelRequest{Messages: []ryo.ModelMessage{{Role: ryo.ModelSystem, Content: "be brief"}, {Role: ryo.ModelUser, Content: "hi"}}}
}

func TestChatStreamsDeltasAndReportsUsage(t *testing.T) {
	srv := openaitest.NewServer(model)
	defer srv.Close()
	srv.Enqueue(openaitest.Reply{Chunks: []string{"Hel", "lo ", "there"}, PromptTokens: 12, CompletionTokens: 3})
	var deltas []string
	req := hello()
	warm := 0.3
	req.Temperature = &warm
	req.OnDelta = func(d string) { deltas = append(deltas, d) }
	reply, err := client(t, srv.URL(), nil).Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != "Hello there" || strings.Join(deltas, "|") != "Hel|lo |there" {
		t.Fatalf("Chat = %q with deltas %q; want Hello there in three deltas (the role-only chunk passes nothing on)", reply.Content, deltas)
	}
	if reply.Usage.PromptTokens != 12 || reply.Usage.ReplyTokens != 3 || reply.CutOff {
		t.Fatalf("reply = %+v; want 12 prompt and 3 reply tokens from the usage chunk", reply)
	}
	got := srv.Requests()[0]
	if got.Model != model || !got.Stream || !got.IncludeUsage || len(got.Messages) != 2 || got.Messages[1].Content != "hi" {
		t.Fatalf("request = %+v", got)
	}
	if got.Temperature == nil || *got.Temperature != 0.3 || got.MaxTokens == nil || *got.MaxTokens != 4096 || got.Format != nil {
		t.Fatalf("request = %s; want temperature 0.3, max_tokens 4096, no response_format", got.Body)
	}
}

// The envelope's schema goes as a named json_schema response format, not
// strict: strict mode refuses it, since the slots are any object.
func TestChatSendsTheEnvelopeSchema(t *testing.T) {
	srv := openaitest.NewServer(model)
	defer srv.Close()
	schema, err := prompts.Envelope([]prompts.Tool{{Name: "statistics", Schema: json.RawMessage(`{"type":"object"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	req := hello()
	req.Format = schema
	if _, err := client(t, srv.URL(), nil).Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	f := srv.Requests()[0].Format
	if f == nil || f.Type != "json_schema" || f.JSONSchema.Name != openai.SchemaName || f.JSONSchema.Strict == nil || *f.JSONSchema.Strict {
		t.Fatalf("response_format = %+v; want json_schema named %s, strict false", f, openai.SchemaName)
	}
	if !bytes.Equal(f.JSONSchema.Schema, schema) {
		t.Fatalf("schema sent = %s; want %s", f.JSONSchema.Schema, schema)
	}

	body := fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"ryo_envelope","strict":true,"schema":%s}}}`,
		model, schema)
	resp, err := http.Post(srv.URL()+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("the envelope in strict mode was answered %s; want 400, as OpenAI refuses it", resp.Status)
	}
	if r := srv.Refusals(); len(r) != 1 || !strings.Contains(r[0].Message, "additionalProperties") {
		t.Fatalf("refusals = %+v; want the slots' open object named", r)
	}
}

func TestChatSendsPicturesAsDataURLs(t *testing.T) {
	srv := openaitest.NewServer(model)
	defer srv.Close()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	req := hello()
	req.Messages[1].Images = [][]byte{png}
	if _, err := client(t, srv.URL(), nil).Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	m := srv.Requests()[0].Messages
	if m[0].Parts || !m[1].Parts || m[1].Content != "hi" || len(m[1].Images) != 1 || !strings.HasPrefix(m[1].Images[0], "data:image/png;base64,") {
		t.Fatalf("messages = %+v; want the picture as a PNG data URL beside the text", m)
	}
}

// A request in one piece does not stream and passes the answer on once.
func TestChatWhole(t *testing.T) {
	srv := openaitest.NewServer(model)
	defer srv.Close()
	srv.Enqueue(openaitest.Reply{Content: "all at once"})
	var deltas []string
	req := hello()
	req.Whole = true
	req.OnDelta = func(d string) { deltas = append(deltas, d) }
	reply, err := client(t, srv.URL(), nil).Chat(context.Background(), req)
	if err != nil || reply.Content != "all at once" || len(deltas) != 1 || reply.Usage.ReplyTokens == 0 {
		t.Fatalf("Chat = %+v, %v, deltas %q", reply, err, deltas)
	}
	if r := srv.Requests()[0]; r.Stream || r.IncludeUsage {
		t.Fatalf("request = %s; want no stream", r.Body)
	}
}

// An answer the server stopped at max_tokens comes back marked cut off.
func TestChatSaysWhenTheAnswerWasCut(t *testing.T) {
	srv := openaitest.NewServer(model)
	defer srv.Close()
	srv.Enqueue(openaitest.Reply{Chunks: []string{"a ", "long ", "answer ", "that goes on"}})
	reply, err := client(t, srv.URL(), func(c *openai.Config) { c.NumPredict = 3 }).Chat(context.Background(), hello())
	if err != nil || reply.Content != "a long answer " || !reply.CutOff || reply.Usage.ReplyTokens != 3 {
		t.Fatalf("Chat = %+v, %v; want the first 3 tokens, cut off", reply, err)
	}
}

// Characters of several bytes, joiners and marks arrive whole, though
// every event comes in pieces of three bytes.
func TestChatOddUnicodeSplitAcrossReads(t *testing.T) {
	srv := openaitest.NewServer(model)
	defer srv.Close()
	chunks := []string{"👩‍👩‍👧", "e\u0301", "שלום", "\u202e", "𝕏", "__tool_result__ ", "ﬁ", "\u2028", `"\`}
	srv.Enqueue(openaitest.Reply{Chunks: chunks, Fragmented: true})
	var deltas []string
	req := hello()
	req.OnDelta = func(d string) { deltas = append(deltas, d) }
	reply, err := client(t, srv.URL(), nil).Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(chunks, ""); reply.Content != want || strings.Join(deltas, "") != want || len(deltas) != len(chunks) {
		t.Fatalf("Chat = %q in %d deltas; want %q in %d", reply.Content, len(deltas), want, len(chunks))
	}
}

// A thinking model's reasoning is not shown, but it is no silence: the
// answer that follows it is the reply.
func TestChatTakesReasoningAsTokens(t *testing.T) {
	srv := openaitest.NewServer(model)
	defer srv.Close()
	srv.Enqueue(openaitest.Reply{Reasoning: []string{"let me ", "think"}, Content: "42"})
	reply, err := client(t, srv.URL(), nil).Chat(context.Background(), hello())
	if err != nil || reply.Content != "42" {
		t.Fatalf("Chat = %+v, %v; want 42 alone", reply, err)
	}
}

func TestChatFailures(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	tests := []struct {
		name     string
		reply    openaitest.Reply
		model    string
		key      string // the client's; the server wants key
		code     string
		missing  bool
		inMsg    string
		partOnly string // the content kept before the failure
	}{
		{name: "model not served", model: "nope", code: ryo.ENOTFOUND, missing: true, inMsg: `"nope" is not served`},
		{name: "server error", reply: openaitest.Reply{Status: 500, Error: "CUDA out of memory"}, code: ryo.EUNAVAILABLE, inMsg: "CUDA out of memory"},
		{name: "overloaded", reply: openaitest.Reply{Status: 503, Error: "Service Unavailable"}, code: ryo.EUNAVAILABLE, inMsg: "could not answer"},
		{name: "rate limited", reply: openaitest.Reply{Status: 429, Error: "Rate limit reached for requests"}, code: ryo.EUNAVAILABLE, inMsg: "Rate limit reached"},
		{name: "refused", reply: openaitest.Reply{Status: 400, Error: "This model's maximum context length is 4096 tokens."}, code: ryo.EINVALID,
			inMsg: "refused the request: This model's maximum context length is 4096 tokens."},
		{name: "wrong key", key: "sk-wrong-key-0000", code: ryo.EINVALID, inMsg: "RYO_OPENAI_API_KEY"},
		{name: "no key", key: "-", code: ryo.EINVALID, inMsg: "RYO_OPENAI_API_KEY"},
		{name: "error mid-stream", reply: openaitest.Reply{Chunks: []string{"par", "tial"}, MidStreamError: true, Error: "engine died"},
			code: ryo.EUNAVAILABLE, inMsg: "failed while answering", partOnly: "partial"},
		{name: "stream cut off", reply: openaitest.Reply{Chunks: []string{"par"}, CutOff: true}, code: ryo.EUNAVAILABLE,
			inMsg: "stopped in the middle", partOnly: "par"},
		{name: "cut off before any text", reply: openaitest.Reply{CutOff: true}, code: ryo.EUNAVAILABLE, inMsg: "stopped in the middle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(model)
			defer srv.Close()
			srv.RequireKey(key)
			srv.Enqueue(tt.reply)
			c := client(t, srv.URL(), func(c *openai.Config) {
				c.APIKey = ryo.Secret(key)
				switch tt.key {
				case "-":
					c.APIKey = ""
				case "":
				default:
					c.APIKey = ryo.Secret(tt.key)
				}
				if tt.model != "" {
					c.Model = tt.model
				}
			})
			reply, err := c.Chat(context.Background(), hello())
			if ryo.ErrorCode(err) != tt.code || !strings.Contains(ryo.ErrorMessage(err), tt.inMsg) {
				t.Fatalf("err = %v (code %s, message %q); want code %s with %q", err, ryo.ErrorCode(err), ryo.ErrorMessage(err), tt.code, tt.inMsg)
			}
			if ryo.ModelMissing(err) != tt.missing {
				t.Fatalf("ModelMissing(%v) = %v; want %v", err, !tt.missing, tt.missing)
			}
			if unavailable := ryo.IsUnavailable(err, ryo.Model); unavailable != (tt.code == ryo.EUNAVAILABLE) {
				t.Fatalf("IsUnavailable(%v) = %v", err, unavailable)
			}
			if reply.Content != tt.partOnly {
				t.Fatalf("content = %q; want %q", reply.Content, tt.partOnly)
			}
			for _, k := range []string{key, tt.key} {
				if len(k) > 2 && (strings.Contains(err.Error(), k) || strings.Contains(ryo.ErrorMessage(err), k)) {
					t.Fatalf("the error shows a key: %v", err)
				}
			}
		})
	}
}

// A server that quotes the key back in its error has it blanked out,
// both in what the person is shown and in the log.
func TestChatNeverShowsTheKey(t *testing.T) {
	const key = "sk-live-SECRET-4242"
	srv := openaitest.NewServer(model)
	defer srv.Close()
	srv.RequireKey(key)
	srv.Enqueue(openaitest.Reply{Status: 400, Error: "bad request from key " + key})
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	cfg := openai.Config{APIKey: ryo.Secret(key)}
	c := client(t, srv.URL(), func(c *openai.Config) { c.APIKey = ryo.Secret(key) })
	_, err := c.Chat(context.Background(), hello())
	if err == nil {
		t.Fatal("want the server's refusal")
	}
	if got := srv.Requests()[0].Authorization; got != "Bearer "+key {
		t.Fatalf("Authorization = %q; want the bearer key", got)
	}
	log.Error("turn failed", "err", err, "config", cfg, "key", cfg.APIKey)
	shown := fmt.Sprintf("%v %+v %#v %s", err, cfg, cfg, ryo.ErrorMessage(err)) + logs.String()
	if strings.Contains(shown, key) {
		t.Fatalf("the key shows: %s", shown)
	}
}

func TestChatUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = client(t, "http://"+addr, nil).Chat(context.Background(), hello())
	if ryo.ErrorCode(err) != ryo.EUNAVAILABLE || !ryo.IsUnavailable(err, ryo.Model) || !strings.Contains(ryo.ErrorMessage(err), "can't reach the model server") {
		t.Fatalf("err = %v; want the model server unavailable", err)
	}
	if !strings.Contains(err.Error(), addr) {
		t.Fatalf("err = %v; the log must name the address", err)
	}
}

// The deadlines run on the configured clock: a server that has sent the
// role but no token fails the first-token deadline; one that answers in
// one piece, only the whole answer's.
func TestChatDeadlines(t *testing.T) {
	tests := []struct {
		name      string
		reply     func(hold chan struct{}) openaitest.Reply
		whole     bool
		first     time.Duration
		total     time.Duration
		advance   time.Duration
		inMsg     string
		wantCause error
	}{
		{name: "no first token", reply: func(h chan struct{}) openaitest.Reply { return openaitest.Reply{HoldAfterRole: h} },
			first: 30 * time.Second, total: 5 * time.Minute, advance: 30 * time.Second, inMsg: "did not start answering within 30s"},
		{name: "no headers", reply: func(h chan struct{}) openaitest.Reply { return openaitest.Reply{Hold: h} },
			first: 30 * time.Second, total: 5 * time.Minute, advance: 30 * time.Second, inMsg: "did not start answering within 30s"},
		{name: "stream too long", reply: func(h chan struct{}) openaitest.Reply { return openaitest.Reply{HoldAfterRole: h} },
			first: 10 * time.Minute, total: time.Minute, advance: time.Minute, inMsg: "took longer than 1m0s"},
		{name: "whole too long", reply: func(h chan struct{}) openaitest.Reply { return openaitest.Reply{Hold: h} }, whole: true,
			first: time.Second, total: time.Minute, advance: time.Minute, inMsg: "took longer than 1m0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hold := make(chan struct{})
			defer close(hold)
			srv := openaitest.NewServer(model)
			defer srv.Close()
			srv.Enqueue(tt.reply(hold))
			start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
			clock := clocktest.New(start)
			c := client(t, srv.URL(), func(c *openai.Config) { c.Clock, c.FirstTokenTimeout, c.Timeout = clock, tt.first, tt.total })
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			go func() {
				srv.Wait(ctx, func() bool { return len(srv.Requests()) == 1 })
				clock.WaitArmed(ctx, start.Add(tt.total))
				clock.Advance(tt.advance)
			}()
			req := hello()
			req.Whole = tt.whole
			_, err := c.Chat(ctx, req)
			if ryo.ErrorCode(err) != ryo.ETIMEOUT || !strings.Contains(ryo.ErrorMessage(err), tt.inMsg) {
				t.Fatalf("err = %v (%q); want ETIMEOUT saying %q", err, ryo.ErrorMessage(err), tt.inMsg)
			}
		})
	}
}

func TestChatCancelledByCaller(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	srv := openaitest.NewServer(model)
	defer srv.Close()
	srv.Enqueue(openaitest.Reply{HoldAfterRole: hold})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		srv.Wait(context.Background(), func() bool { return len(srv.Requests()) == 1 })
		cancel()
	}()
	_, err := client(t, srv.URL(), nil).Chat(ctx, hello())
	if !errors.Is(err, context.Canceled) || ryo.ErrorCode(err) != ryo.EINTERNAL {
		t.Fatalf("err = %v; want the caller's cancellation, not a user-facing error", err)
	}
}

// The base address may be the server's or the API's own.
func TestBaseAddress(t *testing.T) {
	srv := openaitest.NewServer(model)
	defer srv.Close()
	for _, base := range []string{srv.URL(), srv.URL() + "/", srv.URL() + "/v1", srv.URL() + "/v1/"} {
		if _, err := client(t, base, nil).Chat(context.Background(), hello()); err != nil {
			t.Errorf("with %s: %v", base, err)
		}
	}
	if r := srv.Refusals(); len(r) != 0 {
		t.Fatalf("refusals = %+v", r)
	}
}

func TestModelsAndCheck(t *testing.T) {
	srv := openaitest.NewServer(model, "llava-hf/llava-1.5-7b-hf")
	defer srv.Close()
	srv.RequireKey("sk-k")
	c := client(t, srv.URL(), func(c *openai.Config) { c.APIKey, c.VisionModel = "sk-k", "llava-hf/llava-1.5-7b-hf" })
	list, err := c.Installed(context.Background())
	if err != nil || len(list) != 2 || list[0].Name != model || list[0].Family != "openaitest" || list[0].Modified.IsZero() {
		t.Fatalf("Installed = %+v, %v", list, err)
	}
	if !list[0].Can(ryo.CanComplete) || list[0].Can(ryo.CanSee) || !list[1].Can(ryo.CanSee) {
		t.Fatalf("capabilities = %v, %v; want both to answer and the vision model to see", list[0].Capabilities, list[1].Capabilities)
	}
	if v, err := c.VisionModel(context.Background()); v != "llava-hf/llava-1.5-7b-hf" || err != nil {
		t.Fatalf("VisionModel = %q, %v", v, err)
	}
	if _, err := c.Capabilities(context.Background(), "gone"); !ryo.ModelMissing(err) {
		t.Fatalf("Capabilities(gone) = %v; want the model missing", err)
	}
	if found, err := c.Check(context.Background()); err != nil || found != "2 models served" {
		t.Fatalf("Check = %q, %v", found, err)
	}
	if err := c.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err = client(t, srv.URL(), func(c *openai.Config) { c.APIKey, c.Model = "sk-k", "absent" }).Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), `"absent" (RYO_MODEL) is not among`) {
		t.Fatalf("Check(absent) = %v", err)
	}
	if err := client(t, srv.URL(), nil).Probe(context.Background()); ryo.ErrorCode(err) != ryo.EINVALID {
		t.Fatalf("Probe without the key = %v; want the key refused", err)
	}
	srv.Close()
	if err := c.Probe(context.Background()); !ryo.IsUnavailable(err, ryo.Model) {
		t.Fatalf("Probe of a closed server = %v; want it unavailable", err)
	}
}

// BenchmarkChatStream reads an answer of 1,000 chunks from the fake over
// loopback: the cost of the stream's parsing and of the deltas.
func BenchmarkChatStream(b *testing.B) {
	srv := openaitest.NewServer(model)
	defer srv.Close()
	chunks := make([]string, 1000)
	for i := range chunks {
		chunks[i] = "слово "
	}
	srv.Handle(func(openaitest.Request) openaitest.Reply { return openaitest.Reply{Chunks: chunks} })
	u, _ := url.Parse(srv.URL())
	c := openai.New(openai.Config{URL: u, Model: model, ConnectTimeout: time.Second, FirstTokenTimeout: time.Minute, Timeout: time.Minute})
	req := hello()
	n := 0
	req.OnDelta = func(string) { n++ }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Chat(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/float64(b.N), "deltas/op")
}

// Without the server's own figures, the durations are the client's, on
// its clock: until the first token, and in all.
func TestChatTimesTheAnswer(t *testing.T) {
	hold := make(chan struct{})
	srv := openaitest.NewServer(model)
	defer srv.Close()
	srv.Enqueue(openaitest.Reply{HoldAfterRole: hold, Content: "late"})
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	clock := clocktest.New(start)
	c := client(t, srv.URL(), func(c *openai.Config) { c.Clock = clock })
	go func() {
		srv.Wait(context.Background(), func() bool { return len(srv.Requests()) == 1 })
		clock.Advance(3 * time.Second)
		close(hold)
	}()
	reply, err := c.Chat(context.Background(), hello())
	if err != nil || reply.Content != "late" {
		t.Fatalf("Chat = %+v, %v", reply, err)
	}
	if u := reply.Usage; u.PromptDuration != 3*time.Second || u.TotalDuration != 3*time.Second || u.ReplyDuration != 0 {
		t.Fatalf("usage = %+v; want 3s to the first token and in all", u)
	}
}

// A 404 that does not name the model is a wrong address, not a model
// missing: a chosen model must not be passed over for it.
func TestWrongAddressIsNoMissingModel(t *testing.T) {
	srv := openaitest.NewServer(model)
	defer srv.Close()
	_, err := client(t, srv.URL()+"/api/openai", nil).Chat(context.Background(), hello())
	if ryo.ModelMissing(err) || !ryo.IsUnavailable(err, ryo.Model) || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("err = %v; want the server unavailable with its 404, not the model missing", err)
	}
}

// A server that answers in one piece though asked to stream is read all
// the same.
func TestChatTakesAnAnswerInOnePiece(t *testing.T) {
	srv := openaitest.NewServer(model)
	defer srv.Close()
	srv.Enqueue(openaitest.Reply{Content: "whole", Unstreamed: true})
	var deltas []string
	req := hello()
	req.OnDelta = func(d string) { deltas = append(deltas, d) }
	reply, err := client(t, srv.URL(), nil).Chat(context.Background(), req)
	if err != nil || reply.Content != "whole" || strings.Join(deltas, "|") != "whole" || reply.Usage.ReplyTokens == 0 {
		t.Fatalf("Chat = %+v, %v, deltas %q", reply, err, deltas)
	}
}
