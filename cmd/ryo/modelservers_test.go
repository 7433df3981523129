package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/ollamatest"
)

// With two model servers and the first down, a person's turn is answered
// by the second; /metrics shows each server, and the first as down.
func TestTurnsGoToAnotherModelServerWhenOneIsDown(t *testing.T) {
	h := newHarness(t)
	second := ollamatest.NewServer("llama3.2")
	t.Cleanup(second.Close)
	h.env["OLLAMA_HOST"] = h.llm.URL() + "=2," + second.URL()
	for _, s := range []*ollamatest.Server{h.llm, second} {
		s.Handle(func(ollamatest.Request) ollamatest.Reply {
			return ollamatest.Reply{Content: envelope("hello from a server")}
		})
	}
	h.llm.SetDown(true)
	h.start()
	for i, text := range []string{"first", "second"} {
		q := h.tg.SendText(dm, alice, text)
		h.answer(dm, q.ID, "hello from a server")
		if n := len(second.Requests()); n < i+1 {
			t.Fatalf("the second server got %d requests after %d turns", n, i+1)
		}
	}
	if n := len(h.llm.Requests()); n != 0 {
		t.Fatalf("the server that is down recorded %d requests", n)
	}
	scraped := scrape(t, h)
	first, other := strings.TrimPrefix(h.llm.URL(), "http://"), strings.TrimPrefix(second.URL(), "http://")
	for series, want := range map[string]float64{
		`ryo_model_server_up{server="` + first + `"}`:       0,
		`ryo_model_server_up{server="` + other + `"}`:       1,
		`ryo_model_server_parallel{server="` + first + `"}`: 2,
		`ryo_model_server_parallel{server="` + other + `"}`: 1,
	} {
		if got, ok := sample(scraped, series); !ok || got != want {
			t.Errorf("%s = %v (%v); want %v", series, got, ok, want)
		}
	}
	if got, _ := sample(scraped, `ryo_model_server_requests_total{server="`+other+`"}`); got < 2 {
		t.Errorf("requests to the second server = %v; want at least 2", got)
	}
}

// `ryo doctor` shows each model server on a line of its own, whether it
// is up, and its models.
func TestDoctorShowsEachModelServer(t *testing.T) {
	h := newHarness(t)
	second := ollamatest.NewServer("qwen3:8b")
	t.Cleanup(second.Close)
	third := ollamatest.NewServer("llama3.2")
	third.SetDown(true)
	t.Cleanup(third.Close)
	h.llm.AddModel("nomic-embed-text")
	h.env["OLLAMA_HOST"] = h.llm.URL() + "=4," + second.URL() + "," + third.URL()
	cfg, err := LoadConfig(env(h.env), true)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code := doctor(bg(t), cfg, &out)
	t.Log("\n" + out.String())
	host := func(s *ollamatest.Server) string { return s.URL() }
	for _, want := range []string{
		"✓ ollama " + host(h.llm) + " (4 at once): up, Ollama 0.17.4 has llama3.2; models: ",
		"nomic-embed-text:latest",
		"✓ ollama " + host(second) + ` (1 at once): up, Ollama 0.17.4, but model "llama3.2" is not installed`,
		"models: qwen3:8b",
		"✗ ollama " + host(third) + " (1 at once): ",
		"✓ ollama: 2 of 3 servers up, 1 with llama3.2",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out.String())
		}
	}
	if code != exitFailed {
		t.Errorf("doctor = %d with a server down; want %d", code, exitFailed)
	}
}
