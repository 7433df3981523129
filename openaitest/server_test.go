package openaitest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/openaitest"
)

func post(t *testing.T, srv *openaitest.Server, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(srv.URL()+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The fake refuses what OpenAI's API refuses, in its words.
func TestRefusesWhatARealServerRefuses(t *testing.T) {
	tests := []struct{ name, body, says string }{
		{"unknown field", `{"model":"m","messages":[{"role":"user","content":"hi"}],"format":{}}`, "Unrecognized request argument supplied: format"},
		{"no model", `{"messages":[{"role":"user","content":"hi"}]}`, "you must provide a model parameter"},
		{"no messages", `{"model":"m","messages":[]}`, "empty array"},
		{"odd role", `{"model":"m","messages":[{"role":"robot","content":"hi"}]}`, "Invalid value: 'robot'"},
		{"usage without stream", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream_options":{"include_usage":true}}`, "only allowed when 'stream' is enabled"},
		{"format field unknown", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","schema":{}}}`, "unknown field"},
		{"schema field unknown", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{},"format":"y"}}}`, "unknown field"},
		{"schema nameless", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"schema":{}}}}`, "name"},
		{"strict and open", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","strict":true,"schema":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}}}}`, "Missing 'a'"},
		{"picture not data", `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:text/plain,hi"}}]}]}`, "data URL"},
		{"too hot", `{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":2.5}`, "temperature"},
		{"not served", `{"model":"other","messages":[{"role":"user","content":"hi"}]}`, "model_not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer("m")
			defer srv.Close()
			status, body := post(t, srv, tt.body)
			if status/100 != 4 || !strings.Contains(body, tt.says) {
				t.Fatalf("answered %d %s; want a refusal saying %q", status, body, tt.says)
			}
			if len(srv.Requests()) != 0 || len(srv.Refusals()) != 1 {
				t.Fatalf("requests %d, refusals %+v; want the refusal recorded alone", len(srv.Requests()), srv.Refusals())
			}
		})
	}
}

// A stream is a role-only chunk, the text, the finish_reason, a usage
// chunk with no choices, and [DONE].
func TestStreamsAsRealServersDo(t *testing.T) {
	srv := openaitest.NewServer("m")
	defer srv.Close()
	srv.Enqueue(openaitest.Reply{Content: "hello"})
	status, body := post(t, srv, `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var events []map[string]any
	lines := strings.Split(strings.TrimSpace(body), "\n\n")
	if lines[len(lines)-1] != "data: [DONE]" {
		t.Fatalf("the stream ends %q; want data: [DONE]", lines[len(lines)-1])
	}
	for _, l := range lines[:len(lines)-1] {
		var ev map[string]any
		if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "data: ")), &ev); err != nil {
			t.Fatalf("event %q: %v", l, err)
		}
		events = append(events, ev)
	}
	choice := func(i int) map[string]any { return events[i]["choices"].([]any)[0].(map[string]any) }
	if d := choice(0)["delta"].(map[string]any); d["role"] != "assistant" || d["content"] != "" {
		t.Fatalf("first delta = %v; want the role alone", d)
	}
	last := events[len(events)-1]
	if c := last["choices"].([]any); len(c) != 0 || last["usage"] == nil {
		t.Fatalf("last event = %v; want usage with empty choices", last)
	}
	if f := choice(len(events) - 2)["finish_reason"]; f != "stop" {
		t.Fatalf("finish_reason = %v", f)
	}
}

// A wait on what the handler counted wakes once the handler ran: the
// request was recorded, and Wait woken, before it did, and the reply it
// chose is held.
func TestWaitSeesWhatTheHandlerDid(t *testing.T) {
	srv := openaitest.NewServer("m")
	defer srv.Close()
	hold := make(chan struct{})
	defer close(hold)
	checkedIn := make(chan struct{})
	var mu sync.Mutex
	asked := 0
	srv.Handle(func(openaitest.Request) openaitest.Reply {
		<-checkedIn // Wait has seen the request and not the count
		mu.Lock()
		defer mu.Unlock()
		asked++
		return openaitest.Reply{Content: "ok", Hold: hold}
	})
	go func() {
		resp, err := http.Post(srv.URL()+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
		if err == nil {
			resp.Body.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var once sync.Once
	err := srv.Wait(ctx, func() bool {
		mu.Lock()
		defer mu.Unlock()
		if len(srv.Requests()) == 1 && asked == 0 {
			once.Do(func() { close(checkedIn) })
		}
		return asked == 1
	})
	if err != nil {
		t.Fatal(err)
	}
}
