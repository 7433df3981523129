package ollamatest_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/ryo-bot/ryo/ollamatest"
)

func TestChat_Stream(t *testing.T) {
	s := MustStart(t, "llama3.2")
	const want = "Hello there, how can I help you today?"
	s.Enqueue(ollamatest.Reply{Content: want})

	got, err := Chat(Context(t), NewClient(t, s), User("llama3.2", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 3 {
		t.Fatalf("got %d callbacks, want the content in several chunks and a done line", len(got))
	}
	if c := Content(got); c != want {
		t.Errorf("content = %q, want %q", c, want)
	}
	for _, r := range got[:len(got)-1] {
		if r.Done || r.Message.Role != "assistant" || r.Model != "llama3.2" || r.CreatedAt.IsZero() {
			t.Errorf("chunk = %+v, want an assistant chunk from llama3.2, not done", r)
		}
	}
	last := got[len(got)-1]
	if !last.Done || last.DoneReason != "stop" || last.Message.Content != "" {
		t.Errorf("last = %+v, want done, reason stop, empty content", last)
	}
	if last.EvalCount != len(got)-1 || last.PromptEvalCount < 1 {
		t.Errorf("counts = %d/%d, want eval = %d chunks and a prompt count", last.PromptEvalCount, last.EvalCount, len(got)-1)
	}
	m := last.Metrics
	if m.LoadDuration <= 0 || m.PromptEvalDuration <= 0 || m.EvalDuration <= 0 ||
		m.TotalDuration != m.LoadDuration+m.PromptEvalDuration+m.EvalDuration {
		t.Errorf("metrics = %+v, want non-zero durations summing to the total", m)
	}
}

func TestChat_NoStream(t *testing.T) {
	s := MustStart(t, "llama3.2")
	s.Enqueue(ollamatest.Reply{Content: "The whole answer at once."})
	req := User("llama3.2", "hi")
	req.Stream = new(bool)

	got, err := Chat(Context(t), NewClient(t, s), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].Done || got[0].Message.Content != "The whole answer at once." {
		t.Fatalf("got %+v, want one done response with the whole content", got)
	}
	if got[0].EvalCount == 0 || got[0].TotalDuration == 0 {
		t.Errorf("metrics = %+v, want them filled in", got[0].Metrics)
	}
}

func TestChat_Metrics(t *testing.T) {
	s := MustStart(t, "llama3.2")
	s.Enqueue(ollamatest.Reply{
		Content: "ok", DoneReason: "length",
		PromptEvalCount: 26, EvalCount: 282,
		LoadDuration: time.Millisecond, PromptEvalDuration: 2 * time.Millisecond, EvalDuration: 3 * time.Millisecond,
	})

	got, err := Chat(Context(t), NewClient(t, s), User("llama3.2", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	last := got[len(got)-1]
	want := api.Metrics{
		TotalDuration: 6 * time.Millisecond, LoadDuration: time.Millisecond,
		PromptEvalCount: 26, PromptEvalDuration: 2 * time.Millisecond,
		EvalCount: 282, EvalDuration: 3 * time.Millisecond,
	}
	if last.Metrics != want || last.DoneReason != "length" {
		t.Errorf("done line = %+v %q, want %+v \"length\"", last.Metrics, last.DoneReason, want)
	}
}

func TestChat_Chunks(t *testing.T) {
	t.Run("RuneBoundaries", func(t *testing.T) {
		s := MustStart(t, "llama3.2")
		const want = "Привет, мир 🌍! Ça va? 日本語のテキスト"
		s.Enqueue(ollamatest.Reply{Content: want})
		got, err := Chat(Context(t), NewClient(t, s), User("llama3.2", "hi"))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range got {
			if !utf8.ValidString(r.Message.Content) {
				t.Errorf("chunk %q is not valid UTF-8", r.Message.Content)
			}
		}
		if Content(got) != want {
			t.Errorf("content = %q, want %q", Content(got), want)
		}
	})
	t.Run("Explicit", func(t *testing.T) {
		s := MustStart(t, "llama3.2")
		want := []string{"{\"reply\":", "\"ok\"", "}"}
		s.Enqueue(ollamatest.Reply{Chunks: want, Content: "ignored"})
		got, err := Chat(Context(t), NewClient(t, s), User("llama3.2", "hi"))
		if err != nil {
			t.Fatal(err)
		}
		var chunks []string
		for _, r := range got[:len(got)-1] {
			chunks = append(chunks, r.Message.Content)
		}
		if !slices.Equal(chunks, want) || got[len(got)-1].EvalCount != 3 {
			t.Errorf("chunks = %q (eval %d), want %q (eval 3)", chunks, got[len(got)-1].EvalCount, want)
		}
	})
}

func TestChat_Script(t *testing.T) {
	s := MustStart(t, "llama3.2")
	c := NewClient(t, s)
	s.Enqueue(ollamatest.Reply{Content: "first"}, ollamatest.Reply{Content: "second"})
	s.Handle(func(r ollamatest.Request) ollamatest.Reply {
		return ollamatest.Reply{Content: "echo: " + r.Messages[len(r.Messages)-1].Content}
	})

	for _, tc := range []struct{ send, want string }{
		{"one", "first"},
		{"two", "second"},
		{"three", "echo: three"},
		{"four", "echo: four"},
	} {
		got, err := Chat(Context(t), c, User("llama3.2", tc.send))
		if err != nil {
			t.Fatal(err)
		}
		if Content(got) != tc.want {
			t.Errorf("content = %q, want %q", Content(got), tc.want)
		}
	}
}

func TestChat_DefaultReply(t *testing.T) {
	s := MustStart(t, "llama3.2")
	got, err := Chat(Context(t), NewClient(t, s), User("llama3.2", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	if Content(got) != "ok" || Dones(got) != 1 {
		t.Errorf("got %+v, want \"ok\" and one done line", got)
	}
}

func TestChat_ModelNames(t *testing.T) {
	s := MustStart(t, "llama3.2", "qwen2.5:7b")
	c := NewClient(t, s)
	for _, model := range []string{"llama3.2", "llama3.2:latest", "LLaMA3.2", "qwen2.5:7b"} {
		if _, err := Chat(Context(t), c, User(model, "hi")); err != nil {
			t.Errorf("%s: %v", model, err)
		}
	}
	_, err := Chat(Context(t), c, User("qwen2.5", "hi"))
	if se := StatusError(t, err); se.StatusCode != 404 {
		t.Errorf("qwen2.5 (no :7b) status = %d, want 404", se.StatusCode)
	}
	s.AddModel("mistral")
	if _, err := Chat(Context(t), c, User("mistral:latest", "hi")); err != nil {
		t.Errorf("added model: %v", err)
	}
}

func TestChat_Load(t *testing.T) {
	s := MustStart(t, "llama3.2")
	s.Enqueue(ollamatest.Reply{Content: "kept for the next real chat"})
	c := NewClient(t, s)
	for _, tc := range []struct {
		keepAlive *api.Duration
		want      string
	}{
		{nil, "load"},
		{&api.Duration{Duration: 0}, "unload"},
	} {
		got, err := Chat(Context(t), c, &api.ChatRequest{Model: "llama3.2", KeepAlive: tc.keepAlive})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || !got[0].Done || got[0].DoneReason != tc.want {
			t.Errorf("got %+v, want one done line with reason %q", got, tc.want)
		}
	}
	got, err := Chat(Context(t), c, User("llama3.2", "hi"))
	if err != nil || Content(got) != "kept for the next real chat" {
		t.Errorf("after loading: %q, %v; want the scripted reply", Content(got), err)
	}
}

func TestRequests(t *testing.T) {
	s := MustStart(t, "llama3.2")
	s.AddVisionModel("llama3.2") // it is sent a picture
	c := NewClient(t, s)
	schema := json.RawMessage(`{"type":"object","properties":{"reply":{"type":"string"}},"required":["reply"]}`)
	req := &api.ChatRequest{
		Model: "llama3.2",
		Messages: []api.Message{
			{Role: "system", Content: "Be brief."},
			{Role: "user", Content: "What is this?", Images: []api.ImageData{[]byte("png")}},
		},
		Stream:    new(bool),
		Format:    schema,
		KeepAlive: &api.Duration{Duration: 10 * time.Minute},
		Options:   map[string]any{"temperature": 0.2, "num_ctx": 8192},
		Think:     &api.ThinkValue{Value: false},
	}
	if _, err := Chat(Context(t), c, req); err != nil {
		t.Fatal(err)
	}
	if _, err := Chat(Context(t), c, User("llama3.2", "second")); err != nil {
		t.Fatal(err)
	}

	got := s.Requests()
	if len(got) != 2 {
		t.Fatalf("recorded %d requests, want 2", len(got))
	}
	r := got[0]
	wantMsgs := []ollamatest.Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "What is this?", Images: []string{"cG5n"}},
	}
	if r.Model != "llama3.2" || r.Stream || !slices.EqualFunc(r.Messages, wantMsgs, equalMessage) {
		t.Errorf("request = %+v, want model, messages %+v and stream false", r, wantMsgs)
	}
	if !JSONEqual(t, r.Format, schema) || string(r.KeepAlive) != `"10m0s"` || string(r.Think) != "false" {
		t.Errorf("format/keep_alive/think = %s %s %s", r.Format, r.KeepAlive, r.Think)
	}
	if r.Options["temperature"] != 0.2 || r.Options["num_ctx"] != 8192.0 {
		t.Errorf("options = %v", r.Options)
	}
	if r2 := got[1]; !r2.Stream || r2.Format != nil || r2.KeepAlive != nil || r2.Think != nil || r2.Options != nil {
		t.Errorf("second request = %+v, want stream and nothing else set", r2)
	}
}

// equalMessage compares two recorded messages.
func equalMessage(a, b ollamatest.Message) bool {
	return a.Role == b.Role && a.Content == b.Content && slices.Equal(a.Images, b.Images)
}

// JSONEqual reports whether two JSON texts hold the same value.
func JSONEqual(tb testing.TB, a, b []byte) bool {
	tb.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		tb.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		tb.Fatalf("%s: %v", b, err)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(ja) == string(jb)
}

// A paused stream delivers its first chunks, then the rest once released.
func TestChat_Pause(t *testing.T) {
	s := MustStart(t, "m")
	pause := make(chan struct{})
	s.Enqueue(ollamatest.Reply{Chunks: []string{"one ", "two ", "three"}, Pause: pause, PauseAfter: 2})
	var got []string
	err := NewClient(t, s).Chat(Context(t), User("m", "hi"), func(r api.ChatResponse) error {
		got = append(got, r.Message.Content)
		if len(got) == 2 {
			if joined := strings.Join(got, ""); joined != "one two " {
				t.Errorf("before the pause the client saw %q", joined)
			}
			close(pause)
		}
		return nil
	})
	if err != nil || strings.Join(got, "") != "one two three" {
		t.Fatalf("Chat = %q, %v", got, err)
	}
}

// num_predict stops the answer after that many tokens (chunks), streamed
// or whole, and the done line says "length", as Ollama's runner does; an
// answer within the limit, or with no limit, ends as the script says.
func TestChat_NumPredict(t *testing.T) {
	s := MustStart(t, "m")
	c := NewClient(t, s)
	chunks := []string{"one ", "two ", "three ", "four"}
	for _, tc := range []struct {
		name       string
		options    map[string]any
		whole      bool
		want, done string
		eval       int
	}{
		{"streamed past the limit", map[string]any{"num_predict": 2}, false, "one two ", "length", 2},
		{"whole past the limit", map[string]any{"num_predict": 3}, true, "one two three ", "length", 3},
		{"within the limit", map[string]any{"num_predict": 4}, false, "one two three four", "stop", 4},
		{"no limit", map[string]any{"num_predict": -1}, false, "one two three four", "stop", 4},
		{"no options", nil, false, "one two three four", "stop", 4},
	} {
		s.Enqueue(ollamatest.Reply{Chunks: chunks})
		req := User("m", "count")
		req.Options = tc.options
		if tc.whole {
			req.Stream = new(bool)
		}
		got, err := Chat(Context(t), c, req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		last := got[len(got)-1]
		if Content(got) != tc.want || last.DoneReason != tc.done || last.EvalCount != tc.eval {
			t.Errorf("%s: %q, done_reason %q, eval_count %d; want %q, %q, %d",
				tc.name, Content(got), last.DoneReason, last.EvalCount, tc.want, tc.done, tc.eval)
		}
	}
}
