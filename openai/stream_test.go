package openai

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

// Streams as servers send them, odd ones included.
func TestReadStream(t *testing.T) {
	tests := []struct {
		name    string
		stream  string
		content string
		tokens  [2]int
		cut     bool
		err     string
	}{
		{name: "openai", stream: "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n" +
			"data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n" +
			"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":1}}\n\n" +
			"data: [DONE]\n\n", content: "Hi", tokens: [2]int{9, 1}},
		{name: "crlf and keep-alive comments", stream: ": ping\r\n\r\ndata: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r\n\r\n: OPENROUTER PROCESSING\r\n\r\n" +
			"data: {\"choices\":[{\"delta\":{\"content\":\"b\"},\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\r\n\r\ndata: [DONE]\r\n\r\n",
			content: "ab", tokens: [2]int{3, 2}, cut: true},
		{name: "no space after the colon", stream: "data:{\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}\n\ndata:[DONE]\n\n", content: "x"},
		{name: "finish without done", stream: "data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}\n\n", content: "x"},
		{name: "done without finish", stream: "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\ndata: [DONE]\n\n", content: "x"},
		{name: "llama.cpp timings", stream: "data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}],\"timings\":{\"prompt_ms\":12.5,\"predicted_ms\":40}}\n\ndata: [DONE]\n\n",
			content: "x"},
		{name: "ends early", stream: "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n", content: "x", err: "without a finish_reason"},
		{name: "ends mid-event", stream: "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\ndata: {\"choi", content: "x", err: "unreadable chunk"},
		{name: "openai error object", stream: "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\ndata: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n",
			content: "x", err: "mid-stream error: overloaded"},
		{name: "vllm error object", stream: "data: {\"object\":\"error\",\"message\":\"engine dead\",\"code\":500}\n\n", err: "mid-stream error: engine dead"},
		{name: "error event", stream: "event: error\ndata: {\"message\":\"boom\"}\n\n", err: "mid-stream error: boom"},
		{name: "llama.cpp error line", stream: "error: {\"code\":500,\"message\":\"slot unavailable\"}\n\n", err: "mid-stream error: slot unavailable"},
		{name: "nothing", stream: "", err: "without a finish_reason"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Client
			var deltas strings.Builder
			reply, err := c.readStream(strings.NewReader(tt.stream), func(d string) { deltas.WriteString(d) }, func() {})
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err = %v; want %q", err, tt.err)
			}
			if reply.Content != tt.content || deltas.String() != tt.content || reply.CutOff != tt.cut {
				t.Fatalf("reply = %+v, deltas %q; want %q", reply, deltas.String(), tt.content)
			}
			if tt.tokens != [2]int{} && (reply.Usage.PromptTokens != tt.tokens[0] || reply.Usage.ReplyTokens != tt.tokens[1]) {
				t.Fatalf("usage = %+v; want %v", reply.Usage, tt.tokens)
			}
		})
	}
}

func FuzzReadStream(f *testing.F) {
	f.Add("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	f.Add("event: error\ndata: x\n\n")
	f.Add("data: {\"error\":\"x\"}\r\n\r\n")
	f.Add("\ufeffdata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":\"content_filter\"}],\"usage\":{\"prompt_tokens\":1e400}}\r\rdata: [DONE]\r")
	f.Fuzz(func(t *testing.T, stream string) {
		var c Client
		var deltas strings.Builder
		reply, err := c.readStream(strings.NewReader(stream), func(d string) { deltas.WriteString(d) }, func() {})
		if deltas.String() != reply.Content {
			t.Fatalf("deltas %q, content %q", deltas.String(), reply.Content)
		}
		var slow Client // the same stream in one-byte reads: how it is cut must not matter
		again, errAgain := slow.readStream(iotest.OneByteReader(strings.NewReader(stream)), nil, func() {})
		if again.Content != reply.Content || again.Usage != reply.Usage || (err == nil) != (errAgain == nil) {
			t.Fatalf("read whole: %q, %+v, %v; byte by byte: %q, %+v, %v", reply.Content, reply.Usage, err, again.Content, again.Usage, errAgain)
		}
		var mid errMidStream
		if err != nil && !errors.As(err, &mid) && !errors.Is(err, errNotDone) && !errors.Is(err, errFiltered) && !errors.Is(err, errTooLarge) && !strings.Contains(err.Error(), "unreadable") && !strings.Contains(err.Error(), "too long") {
			t.Fatalf("unexpected kind of error: %v", err)
		}
	})
}
