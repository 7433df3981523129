package ollamatest_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/ryo-bot/ryo/ollamatest"
)

// MustStart starts a fake server with the models and closes it when the
// test ends.
func MustStart(tb testing.TB, models ...string) *ollamatest.Server {
	tb.Helper()
	s := ollamatest.NewServer(models...)
	tb.Cleanup(s.Close)
	return s
}

// NewClient returns the real Ollama client pointed at s.
func NewClient(tb testing.TB, s *ollamatest.Server) *api.Client {
	tb.Helper()
	u, err := url.Parse(s.URL())
	if err != nil {
		tb.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient)
}

// Context returns a context that ends with the test or after 10 s, so a
// broken test fails instead of hanging.
func Context(tb testing.TB) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tb.Context(), 10*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

// Chat runs one chat and returns every callback's response.
func Chat(ctx context.Context, c *api.Client, req *api.ChatRequest) ([]api.ChatResponse, error) {
	var got []api.ChatResponse
	err := c.Chat(ctx, req, func(r api.ChatResponse) error {
		got = append(got, r)
		return nil
	})
	return got, err
}

// User is a request with one user message.
func User(model, text string) *api.ChatRequest {
	return &api.ChatRequest{
		Model:    model,
		Messages: []api.Message{{Role: "user", Content: text}},
	}
}

// Content concatenates the message contents of responses.
func Content(rs []api.ChatResponse) string {
	var s string
	for _, r := range rs {
		s += r.Message.Content
	}
	return s
}

// Dones counts the responses with Done set.
func Dones(rs []api.ChatResponse) int {
	n := 0
	for _, r := range rs {
		if r.Done {
			n++
		}
	}
	return n
}
