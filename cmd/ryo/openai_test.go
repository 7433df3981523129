package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/imagetest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/openaitest"
)

const (
	servedModel = "Qwen/Qwen2.5-7B-Instruct"
	openAIKey   = "sk-e2e-SECRET-7f3a9c"
)

// openAIHarness has an OpenAI-compatible server answer instead of Ollama,
// behind a proxy a test can cut, with a key it requires.
func openAIHarness(t *testing.T) (*harness, *openaitest.Server, *proxy) {
	h := newHarness(t)
	srv := openaitest.NewServer(servedModel, "llava-hf/llava-1.5-7b-hf")
	t.Cleanup(srv.Close)
	srv.RequireKey(openAIKey)
	p := newProxy(t, strings.TrimPrefix(srv.URL(), "http://"))
	h.env["RYO_OPENAI_URL"] = "http://" + p.addr()
	h.env["RYO_OPENAI_API_KEY"] = openAIKey
	h.env["RYO_MODEL"] = servedModel
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	return h, srv, p
}

// A person asks; the question reaches the OpenAI-compatible server with
// the envelope's schema as a json_schema response format and the key;
// the answer arrives in Telegram; Ollama is not asked; /model lists the
// server's models; the key is nowhere in the log.
func TestOpenAICompatibleServerAnswers(t *testing.T) {
	h, srv, _ := openAIHarness(t)
	srv.Enqueue(openaitest.Reply{Content: envelope("Привет, Alice! 👋")})
	h.start()
	q := h.tg.SendText(dm, alice, "hello there")
	h.answer(dm, q.ID, "Привет, Alice! 👋")
	req := srv.Requests()[0]
	if req.Model != servedModel || !req.Stream || !req.IncludeUsage || req.Authorization != "Bearer "+openAIKey {
		t.Fatalf("request = %s (Authorization %q)", req.Body, req.Authorization)
	}
	if f := req.Format; f == nil || f.Type != "json_schema" || f.JSONSchema.Name != "ryo_envelope" {
		t.Fatalf("response_format = %+v; want the envelope's json_schema", req.Format)
	}
	var schema struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(req.Format.JSONSchema.Schema, &schema); err != nil || strings.Join(schema.Required, ",") != "reply,command,tags,followUpQuestion" {
		t.Fatalf("schema = %s; want the envelope's", req.Format.JSONSchema.Schema)
	}
	if last := req.Messages[len(req.Messages)-1]; last.Role != "user" || !strings.Contains(last.Content, "hello there") {
		t.Fatalf("last message = %+v", last)
	}
	if n := len(h.llm.Requests()); n != 0 {
		t.Fatalf("Ollama was asked %d times; want none", n)
	}
	h.waitFor("the usage stored", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })

	q = h.tg.SendText(dm, alice, "/model")
	list := h.reply(dm, q.ID, "Answering here: "+servedModel)
	if !strings.Contains(list.Text, "llava-hf/llava-1.5-7b-hf") {
		t.Fatalf("/model = %s; want the server's models", list.Text)
	}
	if r := srv.Refusals(); len(r) != 0 {
		t.Fatalf("the server refused %+v", r)
	}
	if strings.Contains(h.logs.String(), openAIKey) {
		t.Fatal("the key is in the log")
	}
}

// The server down: the person is told the model server cannot be reached,
// the turn ends failed, never retried; once the server is back, the next
// question is answered with the first still in the conversation.
func TestOpenAICompatibleServerDown(t *testing.T) {
	h, srv, p := openAIHarness(t)
	h.start()
	p.cut()
	q := h.tg.SendText(dm, alice, "what is the capital of Mongolia?")
	msgs := h.answer(dm, q.ID, "can't reach the model server")
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0].Text, "⚠️") {
		t.Fatalf("bot messages = %+v; want the status message turned into the explanation", msgs)
	}
	h.waitFor("the update marked failed", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateFailed })
	if !strings.Contains(h.logs.String(), "turn failed") || strings.Contains(h.logs.String(), openAIKey) {
		t.Fatal("the log does not say the turn failed, or shows the key")
	}

	p.restore()
	srv.Enqueue(openaitest.Reply{Content: envelope("Ulaanbaatar.")})
	q = h.tg.SendText(dm, alice, "and now?")
	h.answer(dm, q.ID, "Ulaanbaatar.")
	var asked []string
	for _, m := range srv.Requests()[0].Messages {
		asked = append(asked, m.Content)
	}
	if all := strings.Join(asked, "|"); !strings.Contains(all, "what is the capital of Mongolia?") {
		t.Fatalf("the model was asked %q; want the first question kept in the conversation", all)
	}
}

// ryo doctor asks the OpenAI-compatible server for its models, and Ollama
// only for the embedding model.
func TestDoctorOpenAICompatibleServer(t *testing.T) {
	h, _, _ := openAIHarness(t)
	h.env["RYO_EMBED_MODEL"] = "llama3.2"
	cfg, err := LoadConfig(env(h.env), true)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := doctor(bg(t), cfg, &out); code != exitOK {
		t.Fatalf("doctor = %d:\n%s", code, out.String())
	}
	for _, want := range []string{"✓ openai: 2 models served, " + servedModel + " among them", "✓ ollama (embeddings): Ollama 0.17.4 has llama3.2"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out.String())
		}
	}
	h.env["RYO_MODEL"] = "absent"
	h.env["RYO_OPENAI_API_KEY"] = "sk-wrong-key-123"
	cfg, _ = LoadConfig(env(h.env), true)
	out.Reset()
	if code := doctor(bg(t), cfg, &out); code != exitFailed || !strings.Contains(out.String(), "✗ openai:") || strings.Contains(out.String(), "sk-wrong-key-123") {
		t.Fatalf("doctor with a wrong key = %d:\n%s", code, out.String())
	}
}

// A photo goes to the vision model RYO_VISION_MODEL names on the
// OpenAI-compatible server, as a data: URL beside the question.
func TestOpenAICompatibleServerReadsPhotos(t *testing.T) {
	h, srv, _ := openAIHarness(t)
	h.env["RYO_VISION_MODEL"] = "llava-hf/llava-1.5-7b-hf"
	h.env["RYO_DRAFTS"] = "off"
	srv.Enqueue(openaitest.Reply{Content: envelope("A receipt for 42.50.")})
	h.start()
	receipt := imagetest.Picture(640, 480, "jpeg")
	q := h.tg.SendPhoto(dm, alice, receipt, "what is this?")
	h.answer(dm, q.ID, "A receipt for 42.50.")
	req := srv.Requests()[0]
	var shown []string
	text := ""
	for _, m := range req.Messages {
		if len(m.Images) > 0 {
			shown, text = m.Images, m.Content
		}
	}
	want := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(receipt)
	if req.Model != "llava-hf/llava-1.5-7b-hf" || len(shown) != 1 || shown[0] != want || !strings.Contains(text, "what is this?") {
		t.Fatalf("the model %q was shown %d pictures with %q; want the photo as a JPEG data URL to the vision model", req.Model, len(shown), text)
	}
}
