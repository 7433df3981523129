package telegramtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

func TestWebhook(t *testing.T) {
	ctx := timeout(t)
	s := newServer(t)
	for _, bad := range []map[string]any{
		{"url": "http://bot.example.com/hook"},
		{"url": "https://bot.example.com/hook", "secret_token": "has space"},
		{"url": "https://bot.example.com/hook", "max_connections": 101},
	} {
		if r := postJSON(ctx, t, s, "setWebhook", bad); r.OK || r.ErrorCode != 400 {
			t.Errorf("setWebhook %v = %+v; want 400", bad, r)
		}
	}
	if r := postJSON(ctx, t, s, "setWebhook", map[string]any{"url": "https://bot.example.com/tg/hook", "secret_token": "s3cr3t-_X",
		"allowed_updates": []string{"message"}}); !r.OK {
		t.Fatalf("setWebhook: %+v", r)
	}
	if r := postJSON(ctx, t, s, "getUpdates", poll(0, 0)); r.OK || r.ErrorCode != 409 {
		t.Errorf("getUpdates while a webhook is set = %+v; want 409", r)
	}

	var mu sync.Mutex
	var got []string
	fail := true
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != "/tg/hook" || r.Header.Get("X-Telegram-Bot-Api-Secret-Token") != "s3cr3t-_X" {
			t.Errorf("webhook request %s %s with secret %q", r.Method, r.URL.Path, r.Header.Get("X-Telegram-Bot-Api-Secret-Token"))
		}
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		got = append(got, string(body))
	}))
	defer hook.Close()
	s.SendText(groupChat(), alice(), "one")
	s.SendText(groupChat(), alice(), "two")
	if n, err := s.DeliverWebhook(ctx, hook.URL); n != 0 || err == nil || s.PendingUpdates() != 2 {
		t.Fatalf("a webhook answering 500: delivered %d, %v, %d pending; want none confirmed", n, err, s.PendingUpdates())
	}
	var info struct {
		URL                string `json:"url"`
		PendingUpdateCount int    `json:"pending_update_count"`
		LastErrorMessage   string `json:"last_error_message"`
	}
	if err := json.Unmarshal(postJSON(ctx, t, s, "getWebhookInfo", map[string]any{}).Result, &info); err != nil ||
		info.URL != "https://bot.example.com/tg/hook" || info.PendingUpdateCount != 2 || info.LastErrorMessage == "" {
		t.Errorf("getWebhookInfo = %+v, %v", info, err)
	}
	mu.Lock()
	fail = false
	mu.Unlock()
	if n, err := s.DeliverWebhook(ctx, hook.URL); n != 2 || err != nil || s.PendingUpdates() != 0 || len(got) != 2 {
		t.Fatalf("delivered %d, %v, %d pending, %d received; want both, in order", n, err, s.PendingUpdates(), len(got))
	}
	if r := postJSON(ctx, t, s, "deleteWebhook", map[string]any{}); !r.OK {
		t.Fatalf("deleteWebhook: %+v", r)
	}
	if r := postJSON(ctx, t, s, "getUpdates", poll(0, 0)); !r.OK {
		t.Errorf("getUpdates after deleteWebhook = %+v", r)
	}
}
