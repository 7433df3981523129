package openai

import (
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/ryo-bot/ryo"
)

// Streams a real server, proxy or hostile one may send: each must end in
// the whole answer or an error, never a silently wrong one.
func TestReadHostileStream(t *testing.T) {
	const hi = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}"
	big := strings.Repeat("é", 512<<10) // 1 MB in one line
	tests := []struct {
		name    string
		stream  string
		content string
		tokens  [2]int
		err     string
	}{
		{name: "bare CR line ends", stream: strings.ReplaceAll(hi+"\n\ndata: [DONE]\n\n", "\n", "\r"), content: "Hi"},
		{name: "byte order mark", stream: "\ufeff" + hi + "\n\ndata: [DONE]\n\n", content: "Hi"},
		{name: "event names and ids", stream: "event: message\nid: 7\nretry: 100\n" + hi + "\n\nevent: done\ndata: [DONE]\n\n", content: "Hi"},
		{name: "data split over lines", stream: "data: {\"choices\":[{\"delta\":\ndata: {\"content\":\"Hi\"},\ndata: \"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", content: "Hi"},
		{name: "one MB line", stream: "data: {\"choices\":[{\"delta\":{\"content\":\"" + big + "\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", content: big},
		{name: "garbage after done", stream: hi + "\n\ndata: [DONE]\n\ndata: {not json\n\n\x00\xff", content: "Hi"},
		{name: "usage before finish", stream: "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1}}\n\n" + hi + "\n\ndata: [DONE]\n\n", content: "Hi", tokens: [2]int{5, 1}},
		{name: "invalid UTF-8 and lone surrogates", stream: "data: {\"choices\":[{\"delta\":{\"content\":\"a\xff\\ud800b\"},\"finish_reason\":\"stop\"}]}\n\n", content: "a\uFFFD\uFFFDb"},
		{name: "second choice ignored", stream: "data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"NO\"}},{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n" +
			"data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"NO\"},\"finish_reason\":\"stop\"}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", content: "Hi"},
		{name: "usage in every chunk", stream: "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":1}}\n\n" +
			"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n",
			content: "Hi", tokens: [2]int{9, 2}},
		{name: "enormous usage", stream: hi + "\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":1e300,\"completion_tokens\":12.0}}\n\ndata: [DONE]\n\n",
			content: "Hi", tokens: [2]int{math.MaxInt32, 12}},
		{name: "negative usage", stream: hi + "\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":-5,\"completion_tokens\":-1}}\n\ndata: [DONE]\n\n", content: "Hi"},
		{name: "content filter", stream: "data: {\"choices\":[{\"delta\":{\"content\":\"Half an\"}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"content_filter\"}]}\n\ndata: [DONE]\n\n",
			content: "Half an", err: "content filter"},
	}
	for _, tt := range tests {
		for _, slow := range []bool{false, true} {
			name := tt.name
			if slow {
				name += " one byte at a time"
			}
			t.Run(name, func(t *testing.T) {
				var c Client
				var r io.Reader = strings.NewReader(tt.stream)
				if slow && len(tt.stream) < 64<<10 {
					r = iotest.OneByteReader(r)
				}
				var deltas strings.Builder
				reply, err := c.readStream(r, func(d string) { deltas.WriteString(d) }, func() {})
				if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
					t.Fatalf("err = %v; want %q", err, tt.err)
				}
				if reply.Content != tt.content || deltas.String() != tt.content {
					t.Fatalf("content %.40q, deltas %.40q; want %.40q", reply.Content, deltas.String(), tt.content)
				}
				if reply.Usage.PromptTokens != tt.tokens[0] || reply.Usage.ReplyTokens != tt.tokens[1] {
					t.Fatalf("usage = %d in, %d out; want %v", reply.Usage.PromptTokens, reply.Usage.ReplyTokens, tt.tokens)
				}
			})
		}
	}
}

// endless is a server that writes forever: the same bytes again and
// again, counting what was read.
type endless struct {
	line []byte
	read int
	stop int // reading past this many bytes fails the test's reader
}

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.stop {
		return 0, io.ErrUnexpectedEOF
	}
	n := 0
	for n < len(p) {
		m := copy(p[n:], e.line[e.read%len(e.line):])
		n += m
		e.read += m
	}
	return n, nil
}

// An event that never ends, or an answer that never does, is cut off
// once it is larger than any real one: memory stays bounded.
func TestReadStreamBoundsWhatItHolds(t *testing.T) {
	tests := []struct {
		name string
		line string
	}{
		{name: "data lines without a blank one", line: "data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"},
		{name: "chunks without end", line: "data: {\"choices\":[{\"delta\":{\"content\":\"" + strings.Repeat("x", 1000) + "\"}}]}\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Client
			r := &endless{line: []byte(tt.line), stop: 64 << 20}
			_, err := c.readStream(r, nil, func() {})
			if err == nil || !strings.Contains(err.Error(), "larger than") {
				t.Fatalf("err = %v after %d bytes; want the answer refused as larger than any real one", err, r.read)
			}
			if r.read > 2*maxEvent {
				t.Fatalf("read %d bytes before giving up; want at most %d", r.read, 2*maxEvent)
			}
		})
	}
}

// A server or proxy that keeps the stream open after the answer and its
// usage have come (keep-alive comments, no [DONE]) does not hold the
// answer back until the whole answer's deadline.
func TestReadStreamEndsWithTheAnswer(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() {
		io.WriteString(pw, "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n"+
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\n: keep-alive\n\n")
	}()
	type result struct {
		reply ryo.ModelReply
		err   error
	}
	got := make(chan result, 1)
	go func() {
		var c Client
		reply, err := c.readStream(pr, nil, func() {})
		got <- result{reply, err}
	}()
	var reply ryo.ModelReply
	var err error
	select {
	case r := <-got:
		reply, err = r.reply, r.err
	case <-time.After(10 * time.Second): // a guard: the answer is all there, so it should come at once
		t.Fatal("the answer is held back while the stream stays open")
	}
	if err != nil || reply.Content != "Hi" || reply.Usage.ReplyTokens != 1 {
		t.Fatalf("reply = %+v, %v; want Hi with its usage", reply, err)
	}
}
