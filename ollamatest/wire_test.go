package ollamatest_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/ollamatest"
)

// Post sends a raw chat body and returns the status, content type and body
// with every created_at replaced by "T" after checking it is RFC 3339.
func Post(tb testing.TB, s *ollamatest.Server, body string) (int, string, string) {
	tb.Helper()
	resp, err := http.Post(s.URL()+"/api/chat", "application/json", strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	createdAt := regexp.MustCompile(`"created_at":"([^"]*)"`)
	for _, m := range createdAt.FindAllStringSubmatch(string(b), -1) {
		if _, err := time.Parse(time.RFC3339Nano, m[1]); err != nil {
			tb.Errorf("created_at: %v", err)
		}
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), createdAt.ReplaceAllString(string(b), `"created_at":"T"`)
}

// fixed gives a reply fixed metrics so the done line is predictable.
func fixed(r ollamatest.Reply) ollamatest.Reply {
	r.PromptEvalCount = 26
	r.LoadDuration, r.PromptEvalDuration, r.EvalDuration = time.Millisecond, 2*time.Millisecond, 3*time.Millisecond
	return r
}

func TestWire(t *testing.T) {
	const (
		chat     = `{"model":"llama3.2","messages":[{"role":"user","content":"hi"}]}`
		noStream = `{"model":"llama3.2","messages":[{"role":"user","content":"hi"}],"stream":false}`
		metrics  = `"total_duration":6000000,"load_duration":1000000,"prompt_eval_count":26,"prompt_eval_duration":2000000,"eval_count":2,"eval_duration":3000000}`
	)
	tests := []struct {
		name, body string
		reply      ollamatest.Reply
		status     int
		ctype      string
		want       string
	}{
		{"Stream", chat, fixed(ollamatest.Reply{Content: "Hello"}), 200, "application/x-ndjson",
			`{"model":"llama3.2","created_at":"T","message":{"role":"assistant","content":"Hell"},"done":false}` + "\n" +
				`{"model":"llama3.2","created_at":"T","message":{"role":"assistant","content":"o"},"done":false}` + "\n" +
				`{"model":"llama3.2","created_at":"T","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop",` + metrics + "\n"},
		{"NoStream", noStream, fixed(ollamatest.Reply{Content: "Hello"}), 200, "application/json; charset=utf-8",
			`{"model":"llama3.2","created_at":"T","message":{"role":"assistant","content":"Hello"},"done":true,"done_reason":"stop",` + metrics},
		{"Status", chat, ollamatest.Reply{Status: 503, Error: "server busy"}, 503, "application/json; charset=utf-8",
			`{"error":"server busy"}`},
		{"MidStreamError", chat, ollamatest.Reply{Chunks: []string{"Hi"}, MidStreamError: true, Error: "runner died"}, 200, "application/x-ndjson",
			`{"model":"llama3.2","created_at":"T","message":{"role":"assistant","content":"Hi"},"done":false}` + "\n" +
				`{"error":"runner died"}` + "\n"},
		{"UnknownModel", `{"model":"nope","messages":[]}`, ollamatest.Reply{}, 404, "application/json; charset=utf-8",
			`{"error":"model 'nope' not found"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := MustStart(t, "llama3.2")
			s.Enqueue(tc.reply)
			status, ctype, body := Post(t, s, tc.body)
			if status != tc.status || ctype != tc.ctype {
				t.Errorf("got %d %q, want %d %q", status, ctype, tc.status, tc.ctype)
			}
			if body != tc.want {
				t.Errorf("body:\n%s\nwant:\n%s", body, tc.want)
			}
		})
	}
}
