package telegramtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/go-telegram/bot"

	"github.com/ryo-bot/ryo/telegramtest"
)

// testToken starts with the bot's id, as a real token does.
const (
	testToken = "7012345678:AAE-test-token"
	botID     = 7012345678
)

func newServer(t *testing.T) *telegramtest.Server {
	t.Helper()
	s := telegramtest.NewServer(telegramtest.Options{
		Token: testToken,
		Bot:   telegramtest.User{ID: botID, FirstName: "Ryo", Username: "ryo_bot"},
	})
	t.Cleanup(s.Close)
	return s
}

func newBot(t *testing.T, s *telegramtest.Server) *bot.Bot {
	t.Helper()
	b, err := bot.New(testToken, bot.WithServerURL(s.URL()), bot.WithSkipGetMe())
	if err != nil {
		t.Fatalf("bot.New: %v", err)
	}
	return b
}

// timeout returns a context that ends the test's waiting after half a
// minute: long enough for a loaded machine running the race detector.
func timeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func alice() telegramtest.User {
	u := telegramtest.NewUser("Alice", "alice")
	u.LanguageCode = "en"
	return u
}

func aliceChat() telegramtest.Chat { return telegramtest.PrivateChat(alice()) }

// aliceID is alice's private chat id as a form value.
func aliceID() string { return chatID(aliceChat().ID) }

func groupChat() telegramtest.Chat { return telegramtest.NewSupergroup("Ryo fans") }

// reply is the Bot API response envelope.
type reply struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
	status int
}

// postJSON calls method with a JSON body, like ryo's own poller.
func postJSON(ctx context.Context, t *testing.T, s *telegramtest.Server, method string, body any) reply {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return post(ctx, t, s.URL()+"/bot"+testToken+"/"+method, "application/json", data)
}

// postForm calls method with an application/x-www-form-urlencoded body.
func postForm(ctx context.Context, t *testing.T, s *telegramtest.Server, method string, form url.Values) reply {
	t.Helper()
	return post(ctx, t, s.URL()+"/bot"+testToken+"/"+method, "application/x-www-form-urlencoded", []byte(form.Encode()))
}

func post(ctx context.Context, t *testing.T, u, contentType string, body []byte) reply {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	var r reply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("decode response (status %d): %v", resp.StatusCode, err)
	}
	r.status = resp.StatusCode
	return r
}

// updates decodes a getUpdates result.
func updates(t *testing.T, r reply) []map[string]json.RawMessage {
	t.Helper()
	if !r.OK {
		t.Fatalf("getUpdates failed: %d %s", r.ErrorCode, r.Description)
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(r.Result, &list); err != nil {
		t.Fatalf("decode updates %s: %v", r.Result, err)
	}
	return list
}
