package bot_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/bot"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// runWith starts a bot like run does, with cfg changed by change.
func runWith(t *testing.T, tg *telegramtest.Server, db *memory.DB, answerer bot.Answerer, change func(*bot.Config)) {
	t.Helper()
	cfg := bot.Config{Token: token, APIURL: tg.URL(), Workers: 2, PollTimeout: 2 * time.Second,
		CallTimeout: 5 * time.Second, HistoryLimit: 10, MaxAttempts: 5}
	change(&cfg)
	b, err := bot.New(cfg, slog.New(slog.NewTextHandler(&logBuffer{}, nil)), db, answerer, "test-model")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

// echo is a model that answers every message with its text.
func echo() answerFunc {
	return func(_ context.Context, in agent.Input) (agent.Output, error) {
		last := in.History[len(in.History)-1]
		return agent.Output{Text: "You said: " + last.Text}, nil
	}
}

// fixtureMessage is the message of a shape, as a map to change and push
// again as a new update.
func fixtureMessage(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var u map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&u); err != nil {
		t.Fatal(err)
	}
	return u["message"].(map[string]any)
}

// again pushes message m anew, as message id, in a new update.
func again(tg *telegramtest.Server, m map[string]any, id int) {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	c["message_id"] = id
	tg.PushUpdate(map[string]any{"message": c})
}

func chatSays(tg *telegramtest.Server, chat int64, text string) func() bool {
	return func() bool {
		for _, m := range tg.BotMessages(chat) {
			if strings.Contains(m.Text, text) {
				return true
			}
		}
		return false
	}
}

// An anonymous admin and someone writing as their channel are people to the
// bot, known by the chat they write as: with an allowlist they are refused
// and told that chat's id, an admin lets them in by that id (in a private
// chat) or by replying to them, and then they are answered.
func TestChatSendersAndTheAllowlist(t *testing.T) {
	t.Parallel() // waits mostly on per-chat pacing, beside the other tests
	tg, db := newTelegram(t, false), memorytest.Open(t)
	runWith(t, tg, db, echo(), func(c *bot.Config) {
		c.Access, c.AdminIDs = bot.AccessAllowlist, []int64{alice.ID}
	})
	fill := map[string]string{"{{bot_id}}": fmt.Sprint(me.ID), "{{bot}}": me.Username, "{{bot_name}}": me.FirstName}
	files := bot.LoadShapes(t, "testdata/updates", fill)
	anon, channel := fixtureMessage(t, files["anonymous_admin_mention"]), fixtureMessage(t, files["channel_sender_mention"])
	group := chatOf(t, anon["chat"])
	as := chatOf(t, channel["sender_chat"])
	groupID, channelID := group.ID, as.ID

	tg.PushRawUpdate(files["anonymous_admin_mention"])
	waitFor(t, tg, "the anonymous admin refused with the group's id", chatSays(tg, groupID, fmt.Sprint(groupID)))
	tg.SendText(dm, alice, fmt.Sprintf("/allow %d", groupID))
	waitFor(t, tg, "the group let in", chatSays(tg, dm.ID, "✅ "+group.Title))
	again(tg, anon, 99001)
	waitFor(t, tg, "the anonymous admin answered", chatSays(tg, groupID, "You said: @"+me.Username+" please summarise"))

	tg.PushRawUpdate(files["channel_sender_mention"])
	waitFor(t, tg, "the channel refused with its id", chatSays(tg, groupID, fmt.Sprint(channelID)))
	tg.PushUpdate(map[string]any{"message": map[string]any{"message_id": 99002, "from": aliceJSON(), "chat": anon["chat"],
		"date": time.Now().Unix(), "reply_to_message": channel, "text": "/allow",
		"entities": []any{map[string]any{"type": "bot_command", "offset": 0, "length": 6}}}})
	waitFor(t, tg, "the channel let in", chatSays(tg, groupID, "✅ "+as.Title))
	again(tg, channel, 99003)
	waitFor(t, tg, "the channel answered", chatSays(tg, groupID, "You said: @"+me.Username+" what changed"))

	tg.SendText(dm, alice, fmt.Sprintf("/ban %d", channelID))
	waitFor(t, tg, "the channel banned", chatSays(tg, dm.ID, "🚫 "+as.Title))
	if u, found, err := db.FindUser(context.Background(), channelID); err != nil || !found || u.Role != ryo.RoleBanned {
		t.Fatalf("channel as a user = %+v, %v, %v; want banned", u, found, err)
	}
}

func chatOf(t *testing.T, v any) telegramtest.Chat {
	t.Helper()
	c := v.(map[string]any)
	id, err := c["id"].(json.Number).Int64()
	if err != nil {
		t.Fatal(err)
	}
	title, _ := c["title"].(string)
	kind, _ := c["type"].(string)
	return telegramtest.Chat{ID: id, Type: kind, Title: title}
}

func aliceJSON() map[string]any {
	return map[string]any{"id": alice.ID, "is_bot": false, "first_name": alice.FirstName}
}

func countAnswers(tg *telegramtest.Server, chat int64) int {
	answers := 0
	for _, m := range tg.BotMessages(chat) {
		if strings.HasPrefix(m.Text, "You said: ") {
			answers++
		}
	}
	return answers
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// Text that PostgreSQL cannot store as it came (a lone surrogate, the NUL
// escape, bytes that are not UTF-8) neither stalls the inbox nor loses the
// message: each is answered, and so is the message after them.
func TestUnstorableTextIsStillAnswered(t *testing.T) {
	t.Parallel() // waits mostly on per-chat pacing, beside the other tests
	tg, db := newTelegram(t, false), memorytest.Open(t)
	var mu sync.Mutex
	var seen []string
	run(t, tg, db, answerFunc(func(ctx context.Context, in agent.Input) (agent.Output, error) {
		out, err := echo()(ctx, in)
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, in.History[len(in.History)-1].Text)
		return out, err
	}), 5)
	paths, _ := filepath.Glob("testdata/updates/unstorable/*.json")
	// In update_id order, as Telegram hands them over.
	idOf := func(path string) int64 {
		var f fixture
		_ = json.Unmarshal(mustRead(t, path), &f)
		return f.UpdateID
	}
	slices.SortFunc(paths, func(a, b string) int { return cmp.Compare(idOf(a), idOf(b)) })
	var person map[string]any
	var id int64
	for i, p := range paths {
		raw := mustRead(t, p)
		person = fixtureMessage(t, raw)["from"].(map[string]any)
		id, _ = person["id"].(json.Number).Int64()
		tg.PushRawUpdate(raw)
		// One at a time: one person's messages waiting together would be
		// answered together, as one turn.
		waitFor(t, tg, p+" answered", func() bool { return countAnswers(tg, id) == i+1 })
	}
	mira := telegramtest.User{ID: id, FirstName: person["first_name"].(string)}
	tg.SendText(telegramtest.PrivateChat(mira), mira, "and now something plain")
	waitFor(t, tg, "every message answered", func() bool { return countAnswers(tg, id) == len(paths)+1 })
	mu.Lock()
	defer mu.Unlock()
	for _, text := range seen {
		if strings.ContainsRune(text, 0) {
			t.Errorf("the model was shown %q", text)
		}
	}
}
