package telegramtest_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-telegram/bot"

	"github.com/ryo-bot/ryo/telegramtest"
)

// clock is a fake Options.Now that moves only when the test advances it.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// limitedServer starts a server with flood limits on a fake clock and
// registers alice's private chat and the group.
func limitedServer(t *testing.T, limits *telegramtest.Limits) (*telegramtest.Server, *clock) {
	t.Helper()
	clk := &clock{now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := telegramtest.NewServer(telegramtest.Options{Token: testToken, Now: clk.Now, Limits: limits})
	t.Cleanup(s.Close)
	s.SendText(aliceChat(), alice(), "hi")
	s.SendText(groupChat(), alice(), "hi")
	return s, clk
}

// privateChats registers the private chats of n people and returns their
// ids.
func privateChats(s *telegramtest.Server, n int) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		u := telegramtest.NewUser(fmt.Sprintf("U%d", i), "")
		ids[i] = u.ID
		s.SendText(telegramtest.PrivateChat(u), u, "hi")
	}
	return ids
}

// try calls method as the bot, naming chat, and returns the retry_after of
// a 429, or 0 if the call was not refused (it may still fail otherwise).
func try(t *testing.T, s *telegramtest.Server, method, chat string) int {
	t.Helper()
	r := postForm(timeout(t), t, s, method, callParams(method, chat))
	if r.status != http.StatusTooManyRequests {
		return 0
	}
	want := "Too Many Requests: retry after " + strconv.Itoa(r.Parameters.RetryAfter)
	if r.ErrorCode != 429 || r.Description != want || r.Parameters.RetryAfter < 1 {
		t.Errorf("%s refused with %+v", method, r)
	}
	return r.Parameters.RetryAfter
}

// callParams are the parameters try sends: what method takes, so that the
// call gets past the Bot API's checks to flood control.
func callParams(method, chat string) url.Values {
	all := url.Values{
		"chat_id": {chat}, "text": {"x"}, "action": {"typing"}, "draft_id": {"1"}, "message_id": {"1"},
		"callback_query_id": {"q"}, "commands": {`[{"command":"a","description":"b"}]`},
		"document": {"BQACAgIAAxkBAAIBZ2ZmZmZmZmZmZmZm"}, // a file_id: the fake refuses it, after counting the call
		"photo":    {"AgACAgIAAxkBAAIBZ2ZmZmZmZmZmZmZm"},
	}
	takes := map[string][]string{
		"sendMessage":         {"chat_id", "text"},
		"sendChatAction":      {"chat_id", "action"},
		"editMessageText":     {"chat_id", "message_id", "text"},
		"sendMessageDraft":    {"chat_id", "draft_id", "text"},
		"deleteMessage":       {"chat_id", "message_id"},
		"sendDocument":        {"chat_id", "document"},
		"sendPhoto":           {"chat_id", "photo"},
		"getChat":             {"chat_id"},
		"answerCallbackQuery": {"callback_query_id"},
		"setMyCommands":       {"commands"},
	}
	form := url.Values{}
	for _, name := range takes[method] {
		form[name] = all[name]
	}
	return form
}

// expect calls method in chat and checks its retry_after (0: not refused).
func expect(t *testing.T, s *telegramtest.Server, method, chat string, retryAfter int) {
	t.Helper()
	if got := try(t, s, method, chat); got != retryAfter {
		t.Fatalf("%s to %s: retry_after %d, want %d", method, chat, got, retryAfter)
	}
}

func chatID(id int64) string { return strconv.FormatInt(id, 10) }

func TestChatBurstThenSpacing(t *testing.T) {
	s, clk := limitedServer(t, &telegramtest.Limits{ChatEvery: 5 * time.Second, ChatBurst: 3})
	expect(t, s, "sendMessage", aliceID(), 0)
	expect(t, s, "sendChatAction", aliceID(), 0)
	expect(t, s, "editMessageText", "@alice", 0) // the same chat by username
	expect(t, s, "sendMessageDraft", aliceID(), 5)
	expect(t, s, "sendMessage", chatID(groupChat().ID), 0) // other chats have their own bucket

	clk.advance(2500 * time.Millisecond)
	expect(t, s, "deleteMessage", aliceID(), 3) // 2.5 s left
	clk.advance(2200 * time.Millisecond)
	expect(t, s, "sendMessage", aliceID(), 1) // 0.3 s left
	clk.advance(300 * time.Millisecond)
	expect(t, s, "sendMessage", aliceID(), 0)
	expect(t, s, "sendMessage", aliceID(), 5)

	clk.advance(time.Hour) // the bucket is full again, and no fuller
	for range 3 {
		expect(t, s, "sendMessage", aliceID(), 0)
	}
	expect(t, s, "sendMessage", aliceID(), 5)
	if n := len(s.Refused()); n != 5 {
		t.Errorf("Refused = %d calls, want 5", n)
	}
}

func TestGroupPerMinute(t *testing.T) {
	s, clk := limitedServer(t, new(telegramtest.TelegramLimits()))
	group := chatID(groupChat().ID)
	other := telegramtest.NewGroup("Other")
	s.SendText(other, alice(), "hi")

	for range 20 { // one a second, within the chats' own buckets
		expect(t, s, "sendMessage", group, 0)
		expect(t, s, "sendMessage", aliceID(), 0)
		clk.advance(time.Second)
	}
	expect(t, s, "sendMessage", group, 40) // the first call, at 0 s, leaves at 60 s
	expect(t, s, "sendMessage", chatID(other.ID), 0)
	expect(t, s, "sendMessage", aliceID(), 0) // a private chat has no per-minute limit

	clk.advance(39500 * time.Millisecond)
	expect(t, s, "sendMessage", group, 1)
	clk.advance(500 * time.Millisecond)
	expect(t, s, "sendMessage", group, 0)
	expect(t, s, "sendMessage", group, 1) // the call at 1 s leaves at 61 s
}

func TestPerSecondOverAllChats(t *testing.T) {
	s, clk := limitedServer(t, new(telegramtest.TelegramLimits()))
	chats := privateChats(s, 40)
	next := 0
	call := func() int {
		next++
		return try(t, s, "sendMessage", chatID(chats[next%len(chats)]))
	}
	for i := range 30 {
		if got := call(); got != 0 {
			t.Fatalf("call %d: retry_after %d", i, got)
		}
	}
	for range 10 {
		if got := call(); got != 1 {
			t.Fatalf("call over 30: retry_after %d, want 1", got)
		}
	}

	clk.advance(time.Second)
	for range 20 {
		call()
	}
	clk.advance(600 * time.Millisecond)
	for i := range 10 {
		if got := call(); got != 0 {
			t.Fatalf("at 0.6 s, call %d: retry_after %d", i, got)
		}
	}
	if got := call(); got != 1 { // 0.4 s before the first 20 leave
		t.Fatalf("31st call at 0.6 s: retry_after %d, want 1", got)
	}
	clk.advance(400 * time.Millisecond) // the first 20 leave
	for range 20 {
		if got := call(); got != 0 {
			t.Fatalf("after the first 20 left: retry_after %d", got)
		}
	}
	if got := call(); got != 1 {
		t.Errorf("31st call in the window: retry_after %d, want 1", got)
	}
}

func TestSendDocumentCountsLikeSendMessage(t *testing.T) {
	s, _ := limitedServer(t, &telegramtest.Limits{ChatEvery: time.Hour, ChatBurst: 1})
	expect(t, s, "sendDocument", aliceID(), 0)
	expect(t, s, "sendMessage", aliceID(), 3600)
	expect(t, s, "sendDocument", aliceID(), 3600)
}

func TestUncountedMethods(t *testing.T) {
	s, _ := limitedServer(t, &telegramtest.Limits{ChatEvery: time.Hour, ChatBurst: 1, GroupPerMinute: 1, PerSecond: 1})
	uncounted := []string{"getUpdates", "getMe", "getWebhookInfo", "getChat", "getMyCommands", "deleteWebhook"}
	for range 5 {
		for _, m := range uncounted {
			expect(t, s, m, aliceID(), 0)
		}
	}
	expect(t, s, "sendMessage", aliceID(), 0) // nothing was spent
	expect(t, s, "sendMessage", aliceID(), 3600)
	for _, m := range uncounted {
		expect(t, s, m, aliceID(), 0)
	}
}

func TestGlobalOnlyMethods(t *testing.T) {
	s, clk := limitedServer(t, &telegramtest.Limits{ChatEvery: time.Hour, ChatBurst: 1, PerSecond: 3})
	expect(t, s, "answerCallbackQuery", aliceID(), 0)
	expect(t, s, "setMyCommands", aliceID(), 0)
	expect(t, s, "deleteMyCommands", aliceID(), 0)
	expect(t, s, "answerCallbackQuery", aliceID(), 1)

	clk.advance(time.Second)
	expect(t, s, "sendMessage", aliceID(), 0) // the chat's bucket was untouched
	expect(t, s, "sendMessage", aliceID(), 3600)
	unknown := chatID(telegramtest.NewUser("Nobody", "").ID)
	expect(t, s, "sendMessage", unknown, 0) // an unknown chat has no bucket,
	expect(t, s, "sendMessage", unknown, 0)
	expect(t, s, "sendMessage", unknown, 1) // but counts over all chats
}

func TestRefusedCallsDoNotConsume(t *testing.T) {
	s, clk := limitedServer(t, &telegramtest.Limits{ChatEvery: 10 * time.Second, ChatBurst: 1, PerSecond: 2})
	expect(t, s, "sendMessage", aliceID(), 0)
	for range 5 {
		expect(t, s, "sendMessage", aliceID(), 10)
	}
	expect(t, s, "sendMessage", chatID(groupChat().ID), 0) // the 2 per second are not spent by refusals
	clk.advance(10 * time.Second)
	expect(t, s, "sendMessage", aliceID(), 0)

	refused := s.Refused()
	if len(refused) != 5 {
		t.Fatalf("Refused = %+v", refused)
	}
	for _, c := range refused {
		if c.Method != "sendMessage" || c.Params["chat_id"] != aliceID() || c.Err == nil || c.Err.RetryAfter != 10 {
			t.Errorf("refused call = %+v", c)
		}
	}
	if calls := s.Calls("sendMessage"); calls[1].Err == nil || calls[1].Err.Code != 429 {
		t.Errorf("Calls does not show the refusal: %+v", calls[1])
	}
}

func TestFailNextIsNotFloodControl(t *testing.T) {
	s, _ := limitedServer(t, &telegramtest.Limits{ChatEvery: time.Minute, ChatBurst: 1})
	s.FailNext("sendMessage", 1, telegramtest.TooManyRequests(9))
	expect(t, s, "sendMessage", aliceID(), 9)
	expect(t, s, "sendMessage", aliceID(), 0) // the injected fault consumed nothing
	expect(t, s, "sendMessage", aliceID(), 60)
	if refused := s.Refused(); len(refused) != 1 || refused[0].Err.RetryAfter != 60 {
		t.Errorf("Refused = %+v, want only the flood-control refusal", refused)
	}
}

func TestAcceptedInvalidCallsConsume(t *testing.T) {
	s, _ := limitedServer(t, &telegramtest.Limits{ChatEvery: time.Minute, ChatBurst: 1})
	r := postForm(timeout(t), t, s, "sendChatAction", url.Values{"chat_id": {aliceID()}, "action": {"dancing"}})
	if r.status != http.StatusBadRequest {
		t.Fatalf("invalid action: %+v", r)
	}
	expect(t, s, "sendChatAction", aliceID(), 60)
}

func TestNoLimits(t *testing.T) {
	s := newServer(t)
	s.SendText(aliceChat(), alice(), "hi")
	for range 100 {
		expect(t, s, "sendMessage", aliceID(), 0)
	}
	if refused := s.Refused(); refused != nil {
		t.Errorf("Refused = %+v", refused)
	}
}

func TestZeroLimitIsOff(t *testing.T) {
	tests := []struct {
		field string
		off   func(*telegramtest.Limits)
		group bool          // calls go to the group, else round-robin over 40 private chats
		calls int           // all at once, or spaced by every
		every time.Duration // clock advance after each call
	}{
		{"ChatEvery", func(l *telegramtest.Limits) { l.ChatEvery = 0 }, true, 10, 0},
		{"ChatBurst", func(l *telegramtest.Limits) { l.ChatBurst = 0 }, true, 10, 0},
		{"GroupPerMinute", func(l *telegramtest.Limits) { l.GroupPerMinute = 0 }, true, 25, time.Second},
		{"PerSecond", func(l *telegramtest.Limits) { l.PerSecond = 0 }, false, 40, 0},
	}
	run := func(t *testing.T, limits telegramtest.Limits, group bool, calls int, every time.Duration) int {
		s, clk := limitedServer(t, &limits)
		chats := privateChats(s, 40)
		for i := range calls {
			chat := chatID(chats[i%len(chats)])
			if group {
				chat = chatID(groupChat().ID)
			}
			try(t, s, "sendMessage", chat)
			clk.advance(every)
		}
		return len(s.Refused())
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			if n := run(t, telegramtest.TelegramLimits(), tt.group, tt.calls, tt.every); n == 0 {
				t.Fatal("the scenario stays within Telegram's limits; it tests nothing")
			}
			limits := telegramtest.TelegramLimits()
			tt.off(&limits)
			if n := run(t, limits, tt.group, tt.calls, tt.every); n != 0 {
				t.Errorf("%d calls refused with %s = 0", n, tt.field)
			}
		})
	}
}

func TestLimitsWithGoTelegramClient(t *testing.T) {
	s, clk := limitedServer(t, &telegramtest.Limits{ChatEvery: 3 * time.Second, ChatBurst: 1})
	b, err := bot.New(testToken, bot.WithServerURL(s.URL()), bot.WithSkipGetMe())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: aliceChat().ID, Text: "one"}); err != nil {
		t.Fatal(err)
	}
	_, err = b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: aliceChat().ID, Text: "two"})
	var tmr *bot.TooManyRequestsError
	if !errors.As(err, &tmr) || tmr.RetryAfter != 3 || !strings.Contains(tmr.Message, "Too Many Requests: retry after 3") {
		t.Fatalf("err = %v, want 429 with retry_after 3", err)
	}
	clk.advance(3 * time.Second)
	if _, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: aliceChat().ID, Text: "two"}); err != nil {
		t.Fatalf("after retry_after: %v", err)
	}
	if got := s.BotMessages(aliceChat().ID); len(got) != 2 || got[1].Text != "two" {
		t.Errorf("BotMessages = %+v", got)
	}
}
