package agent

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// readAll feeds stream to a partialReply in pieces of size n and returns
// every reply it reported, checking that each one extends the last.
func readAll(t testing.TB, stream string, n int) []string {
	var p partialReply
	var seen []string
	for i := 0; i < len(stream); i += n {
		if p.feed(stream[i:min(i+n, len(stream))]) {
			got := p.text()
			if len(seen) > 0 && !strings.HasPrefix(got, seen[len(seen)-1]) {
				t.Fatalf("reply went from %q to %q: it must only grow", seen[len(seen)-1], got)
			}
			seen = append(seen, got)
		}
	}
	return seen
}

func TestPartialReply(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   string
	}{
		{"plain", `{"reply":"Hello there","command":null}`, "Hello there"},
		{"reply not first", `{"tags":["a","reply"],"command":{"intent":"x","slots":{"reply":"no"}},"reply":"yes"}`, "yes"},
		{"escapes", `{"reply":"line\none \"quoted\" back\\slash \/ tab\t"}`, "line\none \"quoted\" back\\slash / tab\t"},
		{"unicode escape", `{"reply":"caf\u00e9 \u041f\u0440\u0438\u0432\u0435\u0442"}`, "café Привет"},
		{"surrogate pair", `{"reply":"smile \ud83d\ude00!"}`, "smile 😀!"},
		{"lone high surrogate", `{"reply":"x\ud83dy"}`, "x\ufffdy"},
		{"raw utf-8", `{"reply":"Привет 👋🏽 世界"}`, "Привет 👋🏽 世界"},
		{"fenced", "```json\n{\"reply\": \"fenced\"}\n```", "fenced"},
		{"leading text", `Sure! {"reply":"after text"}`, "after text"},
		{"key inside nested object ignored", `{"command":{"reply":"inner"},"reply":"outer"}`, "outer"},
		{"value that is not a string", `{"reply":null,"x":"y"}`, ""},
		{"unfinished", `{"reply":"still writ`, "still writ"},
		{"first reply wins", `{"reply":"one","reply":"two"}`, "one"},
		{"spaces around colon", "{ \"reply\" :\n \"spaced\" }", "spaced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, n := range []int{1, 2, 3, 7, len(tt.stream)} {
				seen := readAll(t, tt.stream, n)
				got := ""
				if len(seen) > 0 {
					got = seen[len(seen)-1]
				}
				if got != tt.want {
					t.Fatalf("pieces of %d: reply = %q; want %q", n, got, tt.want)
				}
			}
		})
	}
}

// An escape cut between two pieces is decoded once both have arrived, and
// nothing half-decoded is shown meanwhile.
func TestPartialReplyEscapeAcrossPieces(t *testing.T) {
	var p partialReply
	for _, piece := range []string{`{"reply":"a\`, `u00`, `e9b\`, `nc`} {
		p.feed(piece)
	}
	if got := p.text(); got != "aéb\nc" {
		t.Fatalf("reply = %q", got)
	}
}

func FuzzPartialReply(f *testing.F) {
	f.Add("Hello 😀 \"quoted\" \\ /\n", 3, true)
	f.Add("Привет, мир", 1, false)
	f.Add("\u2028\u0000\x7f", 5, true)
	f.Fuzz(func(t *testing.T, reply string, n int, commandFirst bool) {
		if n < 1 || n > 64 || !utf8.ValidString(reply) {
			t.Skip()
		}
		env := map[string]any{"reply": reply, "command": nil, "tags": []string{"reply"}, "followUpQuestion": nil}
		data, _ := json.Marshal(env) // keys sorted: command, followUpQuestion, reply, tags
		if !commandFirst {
			quoted, _ := json.Marshal(reply)
			data = []byte(`{"reply":` + string(quoted) + `,"command":null,"tags":["reply"]}`)
		}
		seen := readAll(t, string(data), n)
		got := ""
		if len(seen) > 0 {
			got = seen[len(seen)-1]
		}
		if got != reply {
			t.Fatalf("streamed %s in pieces of %d: reply = %q; want %q", data, n, got, reply)
		}
	})
}
