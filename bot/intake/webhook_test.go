package intake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// inbox is a state-based stand-in for the bot's store: it keeps each
// update_id once, and fails while down.
type inbox struct {
	mu         sync.Mutex
	down       bool
	ids        map[int64]int
	unreadable int
}

func (in *inbox) keep(_ context.Context, b Batch) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.down {
		return errors.New("database down")
	}
	for _, u := range b.Updates {
		if in.ids[u.ID] == 0 { // idempotent by update_id, as memory.StoreUpdates
			in.ids[u.ID] = 1
		}
	}
	in.unreadable += len(b.Unreadable)
	return nil
}

const hookSecret = "s3cr3t_Token-xyz"

func post(h http.Handler, method, secret, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "/telegram/hook", strings.NewReader(body))
	if secret != "" {
		r.Header.Set(SecretHeader, secret)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

const hookUpdate = `{"update_id":987654321,"message":{"message_id":4821,"date":1,"chat":{"id":-1001234567890,"type":"supergroup"},"from":{"id":7123456789},"text":"hi"}}`

func TestWebhook(t *testing.T) {
	var logs strings.Builder
	in := &inbox{ids: map[int64]int{}}
	h := NewWebhook(hookSecret, in.keep, slog.New(slog.NewTextHandler(&logs, nil)))
	tests := []struct {
		name, method, secret, body string
		want                       int
	}{
		{"right secret", http.MethodPost, hookSecret, hookUpdate, http.StatusOK},
		{"wrong secret", http.MethodPost, hookSecret + "x", hookUpdate, http.StatusUnauthorized},
		{"missing secret", http.MethodPost, "", hookUpdate, http.StatusUnauthorized},
		{"GET", http.MethodGet, hookSecret, "", http.StatusMethodNotAllowed},
		{"not JSON", http.MethodPost, hookSecret, "<html>", http.StatusBadRequest},
		{"too big", http.MethodPost, hookSecret, `{"update_id":1,"x":"` + strings.Repeat("a", maxWebhookBody) + `"}`, http.StatusRequestEntityTooLarge},
		{"no update_id", http.MethodPost, hookSecret, `{"message":{}}`, http.StatusOK},
	}
	for _, tt := range tests {
		if got := post(h, tt.method, tt.secret, tt.body).Code; got != tt.want {
			t.Errorf("%s: status %d; want %d", tt.name, got, tt.want)
		}
	}
	if in.ids[987654321] != 1 || len(in.ids) != 1 {
		t.Errorf("inbox = %v; want only the update with the right secret", in.ids)
	}
	if in.unreadable != 1 {
		t.Errorf("unreadable = %d; want the update without an id kept for the dead letter", in.unreadable)
	}
	if strings.Contains(logs.String(), hookSecret) {
		t.Errorf("the secret was logged:\n%s", logs.String())
	}
}

func TestWebhookStoreDownIsRetried(t *testing.T) {
	in := &inbox{ids: map[int64]int{}, down: true}
	h := NewWebhook(hookSecret, in.keep, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if got := post(h, http.MethodPost, hookSecret, hookUpdate).Code; got != http.StatusInternalServerError {
		t.Fatalf("store down: status %d; want 500 so that Telegram sends the update again", got)
	}
	in.down = false
	for range 2 { // Telegram's retry, then a replay of the same update
		if got := post(h, http.MethodPost, hookSecret, hookUpdate).Code; got != http.StatusOK {
			t.Fatalf("status %d; want 200", got)
		}
	}
	if in.ids[987654321] != 1 {
		t.Errorf("update kept %d times; want once", in.ids[987654321])
	}
}

func TestValidWebhookSecret(t *testing.T) {
	for s, want := range map[string]bool{
		"": false, "abc_DEF-123": true, strings.Repeat("a", 256): true, strings.Repeat("a", 257): false,
		"has space": false, "ключ": false, "a:b": false,
	} {
		if got := ValidWebhookSecret(s); got != want {
			t.Errorf("ValidWebhookSecret(%q) = %v; want %v", s, got, want)
		}
	}
	s, err := NewWebhookSecret()
	if err != nil || !ValidWebhookSecret(s) || len(s) < 32 {
		t.Errorf("NewWebhookSecret() = %q, %v; want a valid secret of at least 32 characters", s, err)
	}
}

// TestWebhookOddBodies posts what no Telegram update is: only a JSON
// object is taken, and a body of exactly the limit still is.
func TestWebhookOddBodies(t *testing.T) {
	in := &inbox{ids: map[int64]int{}}
	h := NewWebhook(hookSecret, in.keep, slog.New(slog.NewTextHandler(io.Discard, nil)))
	exact := `{"update_id":1,"x":"`
	exact += strings.Repeat("a", maxWebhookBody-len(exact)-2) + `"}`
	for body, want := range map[string]int{
		`null`: http.StatusBadRequest, `[]`: http.StatusBadRequest, `[` + hookUpdate + `]`: http.StatusBadRequest,
		`"x"`: http.StatusBadRequest, `1`: http.StatusBadRequest, ``: http.StatusBadRequest,
		exact: http.StatusOK, exact + " ": http.StatusRequestEntityTooLarge,
	} {
		if got := post(h, http.MethodPost, hookSecret, body).Code; got != want {
			t.Errorf("body %.40q (%d bytes): status %d; want %d", body, len(body), got, want)
		}
	}
	if in.unreadable != 0 || len(in.ids) != 1 {
		t.Errorf("kept %v and %d unreadable; want only the update of exactly the limit", in.ids, in.unreadable)
	}
}

// TestWebhookSlowBodyIsCutOff sends a chunked body that never ends, as a
// stranger holding connections open would: the server must not wait for
// it forever, with or without the secret.
func TestWebhookSlowBodyIsCutOff(t *testing.T) {
	in := &inbox{ids: map[int64]int{}}
	h := NewWebhook(hookSecret, in.keep, slog.New(slog.NewTextHandler(io.Discard, nil)))
	h.readTimeout = 200 * time.Millisecond
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, secret := range []string{"wrong", hookSecret} {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST /telegram/hook HTTP/1.1\r\nHost: x\r\n%s: %s\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n", SecretHeader, secret)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = io.ReadAll(c) // the body never ends: only the server can end this
		c.Close()
		if err != nil {
			t.Errorf("secret %q: the server still waits for a body that never ends: %v", secret, err)
		}
	}
}
