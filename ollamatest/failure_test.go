package ollamatest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ryo-bot/ryo/ollamatest"
)

// StatusError returns err as an api.StatusError or fails the test.
func StatusError(tb testing.TB, err error) api.StatusError {
	tb.Helper()
	var se api.StatusError
	if !errors.As(err, &se) {
		tb.Fatalf("err = %v (%T), want an api.StatusError", err, err)
	}
	return se
}

func TestChat_Status(t *testing.T) {
	for _, stream := range []bool{true, false} {
		s := MustStart(t, "llama3.2")
		s.Enqueue(ollamatest.Reply{Status: http.StatusInternalServerError, Error: "out of memory"})
		req := User("llama3.2", "hi")
		req.Stream = &stream

		got, err := Chat(Context(t), NewClient(t, s), req)
		se := StatusError(t, err)
		if se.StatusCode != 500 || se.ErrorMessage != "out of memory" || len(got) != 0 {
			t.Errorf("stream=%v: %+v after %d callbacks, want 500 \"out of memory\" and none", stream, se, len(got))
		}
	}
}

func TestChat_UnknownModel(t *testing.T) {
	s := MustStart(t, "llama3.2")
	s.Enqueue(ollamatest.Reply{Content: "scripted"})
	c := NewClient(t, s)

	_, err := Chat(Context(t), c, User("nope", "hi"))
	se := StatusError(t, err)
	if se.StatusCode != 404 || se.ErrorMessage != "model 'nope' not found" {
		t.Errorf("got %+v, want 404 model 'nope' not found", se)
	}
	if rs := s.Requests(); len(rs) != 1 || rs[0].Model != "nope" {
		t.Errorf("requests = %+v, want the failed one recorded", rs)
	}
	got, err := Chat(Context(t), c, User("llama3.2", "hi"))
	if err != nil || Content(got) != "scripted" {
		t.Errorf("next chat = %q, %v; want the script untouched", Content(got), err)
	}
}

func TestChat_ModelRequired(t *testing.T) {
	s := MustStart(t, "llama3.2")
	_, err := Chat(Context(t), NewClient(t, s), User("", "hi"))
	if se := StatusError(t, err); se.StatusCode != 400 || se.ErrorMessage != "model is required" {
		t.Errorf("got %+v, want 400 model is required", se)
	}
}

func TestChat_InvalidJSON(t *testing.T) {
	s := MustStart(t, "llama3.2")
	for body, want := range map[string]string{
		"not json": "invalid character",
		"":         "missing request body",
	} {
		resp, err := http.Post(s.URL()+"/api/chat", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.HasPrefix(string(b), `{"error":"`+want) {
			t.Errorf("%q: %d %s, want 400 {\"error\":%q...}", body, resp.StatusCode, b, want)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("recorded %d requests, want none", n)
	}
}

func TestChat_MidStreamError(t *testing.T) {
	s := MustStart(t, "llama3.2")
	s.Enqueue(ollamatest.Reply{Chunks: []string{"Hel", "lo"}, MidStreamError: true, Error: "runner died"})

	got, err := Chat(Context(t), NewClient(t, s), User("llama3.2", "hi"))
	var se api.StatusError
	if err == nil || err.Error() != "runner died" || errors.As(err, &se) {
		t.Fatalf("err = %v (%T), want a plain error \"runner died\"", err, err)
	}
	if Content(got) != "Hello" || Dones(got) != 0 {
		t.Errorf("got %+v, want the two chunks and no done line", got)
	}
}

func TestChat_MidStreamErrorNoStream(t *testing.T) {
	s := MustStart(t, "llama3.2")
	s.Enqueue(ollamatest.Reply{Content: "Hello", MidStreamError: true, Error: "runner died"})
	req := User("llama3.2", "hi")
	req.Stream = new(bool)

	_, err := Chat(Context(t), NewClient(t, s), req)
	if se := StatusError(t, err); se.StatusCode != 500 || se.ErrorMessage != "runner died" {
		t.Errorf("got %+v, want 500 runner died, as Ollama answers a failed non-streaming chat", se)
	}
}

func TestChat_CutOff(t *testing.T) {
	tests := []struct {
		name    string
		reply   ollamatest.Reply
		stream  bool
		wantErr bool
		want    string
	}{
		// The real client ignores a broken stream and returns nil; callers
		// must notice the missing done line themselves.
		{"Chunks", ollamatest.Reply{Chunks: []string{"Hel", "lo"}, CutOff: true}, true, false, "Hello"},
		{"NoChunks", ollamatest.Reply{CutOff: true}, true, false, ""},
		{"NoStream", ollamatest.Reply{Content: "Hello", CutOff: true}, false, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := MustStart(t, "llama3.2")
			s.Enqueue(tc.reply)
			req := User("llama3.2", "hi")
			req.Stream = &tc.stream
			got, err := Chat(Context(t), NewClient(t, s), req)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tc.wantErr)
			}
			if Content(got) != tc.want || Dones(got) != 0 {
				t.Errorf("got %+v, want %q and no done line", got, tc.want)
			}
		})
	}
}

func TestChat_Hold(t *testing.T) {
	s := MustStart(t, "llama3.2")
	hold := make(chan struct{})
	s.Enqueue(ollamatest.Reply{Content: "late", Hold: hold})
	ctx := Context(t)

	result := GoChat(ctx, NewClient(t, s), User("llama3.2", "hi"))
	WaitRequests(t, s, 1)
	select {
	case r := <-result:
		t.Fatalf("chat returned %+v while held", r)
	default:
	}
	close(hold)
	r := <-result
	if r.err != nil || Content(r.got) != "late" || Dones(r.got) != 1 {
		t.Errorf("got %+v, %v; want \"late\" and a done line", r.got, r.err)
	}
}

func TestChat_HoldCancel(t *testing.T) {
	s := MustStart(t, "llama3.2")
	s.Enqueue(ollamatest.Reply{Content: "never", Hold: make(chan struct{})})
	ctx, cancel := context.WithCancel(Context(t))

	result := GoChat(ctx, NewClient(t, s), User("llama3.2", "hi"))
	WaitRequests(t, s, 1)
	cancel()
	if r := <-result; !errors.Is(r.err, context.Canceled) || len(r.got) != 0 {
		t.Errorf("got %+v, %v; want context.Canceled and no callbacks", r.got, r.err)
	}
}

func TestChat_HoldClose(t *testing.T) {
	s := ollamatest.NewServer("llama3.2")
	s.Enqueue(ollamatest.Reply{Content: "never", Hold: make(chan struct{})})

	result := GoChat(Context(t), NewClient(t, s), User("llama3.2", "hi"))
	WaitRequests(t, s, 1)
	s.Close()
	if r := <-result; r.err == nil || len(r.got) != 0 {
		t.Errorf("got %+v, %v; want an error and no callbacks", r.got, r.err)
	}
}

// chatResult is what a chat run in a goroutine returned.
type chatResult struct {
	got []api.ChatResponse
	err error
}

// GoChat runs Chat in a goroutine; the result arrives on the channel.
func GoChat(ctx context.Context, c *api.Client, req *api.ChatRequest) <-chan chatResult {
	ch := make(chan chatResult, 1)
	go func() {
		got, err := Chat(ctx, c, req)
		ch <- chatResult{got, err}
	}()
	return ch
}

// WaitRequests waits until s has recorded n chat requests.
func WaitRequests(tb testing.TB, s *ollamatest.Server, n int) {
	tb.Helper()
	if err := s.Wait(Context(tb), func() bool { return len(s.Requests()) >= n }); err != nil {
		tb.Fatal(err)
	}
}
