package openai_test

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/openai"
	"github.com/ryo-bot/ryo/openaitest"
)

const hostileKey = "sk-proj-HOSTILE-77aa88bb99cc"

// Answers as proxies, gateways and odd servers send them, byte for byte.
func TestChatHostileServers(t *testing.T) {
	const answer = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	tests := []struct {
		name    string
		serve   http.HandlerFunc
		content string
		code    string
		missing bool
		inMsg   string
		notIn   []string // in neither the message nor the error
	}{
		{name: "proxy's HTML page", serve: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n")
		}, code: ryo.EUNAVAILABLE, inMsg: "502 Bad Gateway", notIn: []string{"<", "nginx"}},
		{name: "error event quoting the key", serve: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"error\":{\"message\":\"upstream refused header Authorization: %s\"}}\n\n", r.Header.Get("Authorization"))
		}, code: ryo.EUNAVAILABLE, inMsg: "failed while answering", notIn: []string{hostileKey}},
		{name: "error with 200 quoting the key", serve: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, "{\"error\":{\"message\":\"quota exceeded for %s\"}}", r.Header.Get("Authorization"))
		}, code: ryo.EUNAVAILABLE, notIn: []string{hostileKey}},
		{name: "stream labelled JSON", serve: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, answer)
		}, content: "Hi"},
		{name: "stream without a type", serve: func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = nil
			io.WriteString(w, ": hello\n\n"+answer)
		}, content: "Hi"},
		{name: "gzip stream", serve: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Encoding", "gzip")
			z := gzip.NewWriter(w)
			io.WriteString(z, answer)
			z.Close()
		}, content: "Hi"},
		{name: "gateway's model not found (400, param model)", serve: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"Invalid model name passed in model=`+model+`. Call /v1/models to view available models for your key.","type":"invalid_request_error","param":"model","code":"400"}}`)
		}, code: ryo.ENOTFOUND, missing: true},
		{name: "model_not_found code without the name", serve: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"message":"The requested model does not exist.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`)
		}, code: ryo.ENOTFOUND, missing: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.serve)
			defer srv.Close()
			c := client(t, srv.URL, func(c *openai.Config) { c.APIKey = ryo.Secret(hostileKey) })
			reply, err := c.Chat(context.Background(), hello())
			if tt.code == "" && err != nil || ryo.ErrorCode(err) != tt.code || !strings.Contains(ryo.ErrorMessage(err), tt.inMsg) {
				t.Fatalf("err = %v (code %s, message %q); want code %q with %q", err, ryo.ErrorCode(err), ryo.ErrorMessage(err), tt.code, tt.inMsg)
			}
			if ryo.ModelMissing(err) != tt.missing {
				t.Fatalf("ModelMissing(%v) = %v; want %v", err, !tt.missing, tt.missing)
			}
			if reply.Content != tt.content && err == nil {
				t.Fatalf("content = %q; want %q", reply.Content, tt.content)
			}
			for _, s := range tt.notIn {
				if err != nil && (strings.Contains(err.Error(), s) || strings.Contains(ryo.ErrorMessage(err), s)) {
					t.Fatalf("the error shows %q: %v / %s", s, err, ryo.ErrorMessage(err))
				}
			}
		})
	}
}

// A server that streams empty deltas forever has not begun to answer:
// the first-token deadline holds.
func TestChatEmptyDeltasDoNotStartTheAnswer(t *testing.T) {
	started := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		close(started)
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":null}]}\n\n: keep-alive\n\n"); err != nil {
				return
			}
			rc.Flush()
		}
	}))
	defer srv.Close()
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	clock := clocktest.New(start)
	c := client(t, srv.URL, func(c *openai.Config) { c.Clock, c.FirstTokenTimeout, c.Timeout = clock, 30*time.Second, 5*time.Minute })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		select {
		case <-started:
		case <-ctx.Done():
		}
		clock.WaitArmed(ctx, start.Add(5*time.Minute))
		clock.Advance(30 * time.Second)
	}()
	_, err := c.Chat(ctx, hello())
	if ryo.ErrorCode(err) != ryo.ETIMEOUT || !strings.Contains(ryo.ErrorMessage(err), "did not start answering") {
		t.Fatalf("err = %v (%q); want the first-token deadline", err, ryo.ErrorMessage(err))
	}
}

// A password in the server's address stays out of every error; a key
// that could inject a header is refused without being quoted.
func TestChatKeepsAddressSecretsOut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":{"message":"down for `+r.URL.String()+` `+r.Header.Get("Authorization")+`"}}`)
	}))
	defer srv.Close()
	withPass := strings.Replace(srv.URL, "http://", "http://ryo:hunter2-pass@", 1)
	for _, key := range []string{hostileKey, hostileKey + "\r\nX-Injected: 1"} {
		c := client(t, withPass, func(c *openai.Config) { c.APIKey = ryo.Secret(key) })
		_, err := c.Chat(context.Background(), hello())
		if err == nil {
			t.Fatal("want an error")
		}
		for _, s := range []string{"hunter2-pass", hostileKey, "X-Injected"} {
			if strings.Contains(err.Error(), s) || strings.Contains(ryo.ErrorMessage(err), s) {
				t.Fatalf("the error shows %q: %v / %s", s, err, ryo.ErrorMessage(err))
			}
		}
	}
}

// The address as operators paste it: the endpoint itself, or the models
// list, copied from the server's documentation.
func TestBaseAddressAsPasted(t *testing.T) {
	srv := openaitest.NewServer(model)
	defer srv.Close()
	for _, base := range []string{srv.URL() + "/v1/chat/completions", srv.URL() + "/v1/chat/completions/", srv.URL() + "/v1/models"} {
		if _, err := client(t, base, nil).Chat(context.Background(), hello()); err != nil {
			t.Errorf("with %s: %v", base, err)
		}
		if _, err := client(t, base, nil).Models(context.Background()); err != nil {
			t.Errorf("models with %s: %v", base, err)
		}
	}
}

// A server that never answers the list of its models: /model, the
// fallback and ryo doctor are told so in words, on the configured clock.
func TestModelsFromAServerThatHangs(t *testing.T) {
	asked := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked <- struct{}{}
		<-r.Context().Done()
	}))
	defer srv.Close()
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	clock := clocktest.New(start)
	c := client(t, srv.URL, func(c *openai.Config) { c.Clock = clock })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		select {
		case <-asked:
		case <-ctx.Done():
		}
		clock.WaitArmed(ctx, start.Add(12*time.Second))
		clock.Advance(12 * time.Second)
	}()
	_, err := c.Models(ctx)
	if ryo.ErrorCode(err) != ryo.EUNAVAILABLE || !strings.Contains(ryo.ErrorMessage(err), "model server") {
		t.Fatalf("err = %v (%q); want the model server unavailable, in words", err, ryo.ErrorMessage(err))
	}
}
