package ollama_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/ollama"
	"github.com/ryo-bot/ryo/ollamatest"
)

// The vision model is RYO_VISION_MODEL when set, else the chat model,
// when /api/show reports it reads pictures, asked once; else none.
func TestVisionModel(t *testing.T) {
	srv := ollamatest.NewServer("llama3.2")
	defer srv.Close()
	srv.AddVisionModel("gemma3:4b")
	ctx := context.Background()
	cases := []struct {
		model, vision, want string
		shows               int
	}{
		{model: "llama3.2", vision: "gemma3:4b", want: "gemma3:4b", shows: 1},
		{model: "gemma3:4b", vision: "llama3.2", want: "", shows: 1},
		{model: "gemma3:4b", want: "gemma3:4b", shows: 1},
		{model: "llama3.2", want: "", shows: 1},
	}
	for _, tc := range cases {
		before := srv.Shows()
		c := client(t, srv.URL(), func(c *ollama.Config) { c.Model, c.VisionModel = tc.model, tc.vision })
		for range 3 {
			if got, err := c.VisionModel(ctx); got != tc.want || err != nil {
				t.Errorf("%s/%q: VisionModel = %q, %v; want %q", tc.model, tc.vision, got, err, tc.want)
			}
		}
		if n := srv.Shows() - before; n != tc.shows {
			t.Errorf("%s/%q: asked the server %d times; want %d", tc.model, tc.vision, n, tc.shows)
		}
	}
}

// A server that cannot say is an error, and is asked again next time.
func TestVisionModelUnreachable(t *testing.T) {
	c := client(t, "http://127.0.0.1:1", nil)
	if got, err := c.VisionModel(context.Background()); got != "" || err == nil {
		t.Fatalf("VisionModel = %q, %v; want an error", got, err)
	}
}

// A request's model and pictures go to the server as sent: the pictures
// as base64, which the fake decodes back to the same bytes.
func TestChatSendsImagesToTheVisionModel(t *testing.T) {
	srv := ollamatest.NewServer("llama3.2")
	defer srv.Close()
	srv.AddVisionModel("gemma3:4b")
	c := client(t, srv.URL(), nil)
	picture := []byte("\xff\xd8\xff a receipt")
	_, err := c.Chat(context.Background(), ryo.ModelRequest{Model: "gemma3:4b", Messages: []ryo.ModelMessage{
		{Role: ryo.ModelUser, Content: "what did I spend?", Images: [][]byte{picture}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if got := r.Images(); r.Model != "gemma3:4b" || len(got) != 1 || !bytes.Equal(got[0], picture) {
		t.Fatalf("request to %q with images %q; want the picture to gemma3:4b", r.Model, got)
	}
}

// A turn waiting while another asks the server whether the model reads
// pictures waits no longer than its own deadline.
func TestVisionModelWaitKeepsItsDeadline(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"capabilities":["completion","vision"]}`))
	}))
	defer srv.Close()
	defer close(release)
	// The first question could take an hour: only the waiting turn's own
	// deadline can end its wait.
	c := client(t, srv.URL, func(c *ollama.Config) { c.ConnectTimeout = time.Hour })
	first := make(chan error, 1)
	go func() { _, err := c.VisionModel(context.Background()); first <- err }()
	<-arrived
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := c.VisionModel(ctx); got != "" || !errors.Is(err, context.Canceled) {
		t.Fatalf("VisionModel while the server is asked, past the deadline = %q, %v; want context.Canceled", got, err)
	}
}
