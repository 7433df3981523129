package bot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/bot"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// outcome is what a person sees come of an update.
type outcome int

const (
	answered         outcome = iota // the model is asked, and its answer replies to the message
	fixedReply                      // a fixed text replies to the message; the model is not asked
	kept                            // stored as group context; no reply
	ignoredOnPurpose                // nothing stored, nothing sent, and the update is done, not failed
	pressAnswered                   // the press's spinner stops with "This button no longer works."
	chatRecorded                    // the bot's membership changed: the chat is stored; nothing sent
	keptAndTold                     // stored, and a fixed text replies to it; the model is not asked
)

// shape is one kind of update as Telegram sends it (a file in
// testdata/updates) and what must come of it.
type shape struct {
	file    string
	verdict string  // what the routing table calls it (bot.Verdict)
	outcome outcome // what the person sees
	says    string  // fixedReply, keptAndTold: part of the reply
	sender  string  // answered, kept: who history names, "from" or "sender_chat"
	partial string  // a field left out because this version cannot read it
}

// shapes is every update shape the bot is tested with, and its fate.
var shapes = []shape{
	// People talking to the bot, and to each other.
	{file: "private_text", verdict: "answer", outcome: answered, sender: "from"},
	{file: "supergroup_mention", verdict: "answer", outcome: answered, sender: "from"},
	{file: "supergroup_reply_to_bot", verdict: "answer", outcome: answered, sender: "from"},
	{file: "supergroup_chatter", verdict: "keep", outcome: kept, sender: "from"},
	{file: "forum_topic_mention", verdict: "answer", outcome: answered, sender: "from"},
	{file: "forum_topic_chatter", verdict: "keep", outcome: kept, sender: "from"},
	// In a topic the bot opened, every message replies to the topic's
	// creation: that is no reply to the bot.
	{file: "forum_topic_opened_by_bot", verdict: "keep", outcome: kept, sender: "from"},
	// A message sent through an inline bot is the person's.
	{file: "via_bot", verdict: "answer", outcome: answered, sender: "from"},
	{file: "via_bot_gif_group", verdict: "ignore", outcome: ignoredOnPurpose},

	// Messages sent on behalf of a chat: the chat is the sender.
	{file: "anonymous_admin_mention", verdict: "answer", outcome: answered, sender: "sender_chat"},
	{file: "anonymous_admin_chatter", verdict: "keep", outcome: kept, sender: "sender_chat"},
	{file: "command_anonymous_admin", verdict: "command", outcome: fixedReply, says: "/help"},
	{file: "channel_sender_mention", verdict: "answer", outcome: answered, sender: "sender_chat"},
	{file: "channel_sender_chatter", verdict: "keep", outcome: kept, sender: "sender_chat"},
	// The linked channel's posts are context, even when they mention the bot.
	{file: "automatic_forward_mentioning_bot", verdict: "keep", outcome: kept, sender: "sender_chat"},

	// Other bots are never answered, so that two bots cannot talk in a loop.
	{file: "other_bot_mention", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "other_bot_reply_to_bot", verdict: "ignore", outcome: ignoredOnPurpose},

	// Edits, channels and business mode are not the bot's business (for now).
	{file: "edited_message", verdict: "edit", outcome: ignoredOnPurpose}, // of a message never stored: nothing changes
	{file: "channel_post", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "edited_channel_post", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "business_connection", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "business_message", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "edited_business_message", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "deleted_business_messages", verdict: "ignore", outcome: ignoredOnPurpose},

	// Service messages have nothing to read.
	{file: "new_chat_members_with_bot", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "left_chat_member", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "new_chat_title", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "pinned_message", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "forum_topic_created", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "forum_topic_closed", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "migrate_to_chat_id", verdict: "migration", outcome: ignoredOnPurpose}, // nothing to carry: the group set nothing
	{file: "migrate_from_chat_id", verdict: "migration", outcome: ignoredOnPurpose},
	{file: "video_chat_started", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "write_access_allowed", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "group_chat_created", verdict: "ignore", outcome: ignoredOnPurpose},

	// Media: meant for the bot, a fixed reply names what it reads;
	// otherwise left alone.
	{file: "story_private", verdict: "unreadable", outcome: fixedReply, says: "I can't read that kind of message"},
	{file: "story_group_reply_to_bot", verdict: "unreadable", outcome: fixedReply, says: "I can't read that kind of message"},
	{file: "story_group_unaddressed", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "sticker_private", verdict: "unreadable", outcome: fixedReply, says: "I can't read that kind of message"},
	{file: "sticker_group", verdict: "ignore", outcome: ignoredOnPurpose},
	// Photos are read by a vision model: without one (as here), one
	// sentence names the setting and the photo is kept; in a group, a
	// photo not meant for the bot is kept as context.
	{file: "photo_caption_mention", verdict: "answer", outcome: keptAndTold, says: "RYO_VISION_MODEL", sender: "from"},
	{file: "photo_group", verdict: "keep", outcome: kept, sender: "from"},
	{file: "photo_caption_group", verdict: "keep", outcome: kept, sender: "from"},
	// Documents meant for the bot are read, of the kinds it reads: one it
	// does not read gets a sentence naming those, and is kept; one whose
	// caption is a command runs the command; in a group, one not meant for
	// the bot is context when it has a caption, and left alone when not.
	{file: "document_private_unsupported", verdict: "answer", outcome: keptAndTold, says: "I can't read “Q3 budget.docx”", sender: "from"},
	{file: "document_caption_command", verdict: "command", outcome: fixedReply, says: "Only admins"},
	{file: "document_caption_group", verdict: "keep", outcome: kept, sender: "from"},
	{file: "document_group", verdict: "ignore", outcome: ignoredOnPurpose},
	// Recordings (voice notes, audio files, video notes) meant for the
	// bot are transcribed: without a transcription server (as here), one
	// sentence names the setting and the message is kept. Not meant for
	// the bot, they are left alone.
	{file: "voice_private", verdict: "answer", outcome: keptAndTold, says: "RYO_STT_URL", sender: "from"},
	{file: "voice_group", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "voice_group_reply_to_bot", verdict: "answer", outcome: keptAndTold, says: "RYO_STT_URL", sender: "from"},
	{file: "audio_caption_mention", verdict: "answer", outcome: keptAndTold, says: "RYO_STT_URL", sender: "from"},
	{file: "audio_group", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "video_note_private", verdict: "answer", outcome: keptAndTold, says: "RYO_STT_URL", sender: "from"},
	{file: "video_note_group", verdict: "ignore", outcome: ignoredOnPurpose},

	// Commands: this bot's are run; another bot's are left to it.
	{file: "command_for_this_bot", verdict: "command", outcome: fixedReply, says: "/help"},
	{file: "command_private_start", verdict: "command", outcome: fixedReply, says: "Hi Mira"},
	{file: "command_for_other_bot", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "bare_unknown_command_group", verdict: "ignore", outcome: ignoredOnPurpose},

	// Button presses are all answered, whatever they carry.
	{file: "callback_inaccessible_message", verdict: "press", outcome: pressAnswered},
	{file: "callback_inline_message", verdict: "press", outcome: pressAnswered},
	{file: "callback_empty_data", verdict: "press", outcome: pressAnswered},
	{file: "callback_64_bytes", verdict: "press", outcome: pressAnswered},
	{file: "callback_game", verdict: "press", outcome: pressAnswered},
	{file: "future_callback_message", verdict: "press", outcome: pressAnswered, partial: "callback_query.message.forward_origin"},

	// The bot's own membership is recorded.
	{file: "my_chat_member_added", verdict: "membership", outcome: chatRecorded},
	{file: "my_chat_member_promoted", verdict: "membership", outcome: chatRecorded},
	{file: "my_chat_member_kicked", verdict: "membership", outcome: chatRecorded},
	{file: "my_chat_member_private_blocked", verdict: "membership", outcome: chatRecorded},
	{file: "chat_member_future_status", verdict: "membership", outcome: chatRecorded, partial: "my_chat_member.new_chat_member"},

	// Everything else Telegram can send is ignored, named by kind.
	{file: "chat_member", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "chat_join_request", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "message_reaction", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "message_reaction_count", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "poll", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "poll_answer", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "inline_query", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "chosen_inline_result", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "shipping_query", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "pre_checkout_query", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "purchased_paid_media", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "chat_boost", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "removed_chat_boost", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "unknown_kind", verdict: "ignore", outcome: ignoredOnPurpose},

	// Broken or newer than this version: read as far as it goes.
	{file: "message_without_from", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "message_without_chat", verdict: "ignore", outcome: ignoredOnPurpose},
	{file: "message_is_not_an_object", verdict: "ignore", outcome: ignoredOnPurpose, partial: "message"},
	{file: "entities_out_of_range", verdict: "keep", outcome: kept, sender: "from"},
	{file: "future_forward_origin", verdict: "answer", outcome: answered, sender: "from", partial: "message.forward_origin"},
	{file: "future_field_type", verdict: "answer", outcome: answered, sender: "from", partial: "message.sender_boost_count"},
	{file: "future_reply_shape", verdict: "answer", outcome: answered, sender: "from", partial: "message.reply_to_message.forward_origin"},
}

// fixture is what the checks read of a shape's file.
type fixture struct {
	UpdateID int64 `json:"update_id"`
	Message  *struct {
		ID         int     `json:"message_id"`
		Thread     int     `json:"message_thread_id"`
		From       *tgUser `json:"from"`
		SenderChat *tgChat `json:"sender_chat"`
		Chat       tgChat  `json:"chat"`
	} `json:"message"`
	CallbackQuery *struct {
		ID string `json:"id"`
	} `json:"callback_query"`
	MyChatMember *struct {
		Chat tgChat `json:"chat"`
	} `json:"my_chat_member"`
}

type tgUser struct {
	ID        int64  `json:"id"`
	FirstName string `json:"first_name"`
}

type tgChat struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
}

// storedMessage is a person's message as the bot stored it.
type storedMessage struct {
	chat, sender int64
	thread       int
	name, text   string
}

// TestUpdateShapes runs every shape through the real bot, against the fake
// Telegram and a scripted model, and checks that each comes to its outcome:
// nothing stalls, nothing fails, nothing is answered that should not be.
func TestUpdateShapes(t *testing.T) {
	t.Parallel() // waits mostly on per-chat pacing, beside the other tests
	tg := newTelegram(t, false)
	url := memorytest.URL(t)
	db := memorytest.OpenURL(t, url)
	var mu sync.Mutex
	asked := map[int64]bool{}
	logs := run(t, tg, db, answerFunc(func(_ context.Context, in agent.Input) (agent.Output, error) {
		mu.Lock()
		defer mu.Unlock()
		asked[in.UpdateID] = true
		return agent.Output{Text: fmt.Sprintf("Answer for update %d.", in.UpdateID)}, nil
	}), 5)
	files := loadShapes(t, tg)
	fixtures := pushShapes(t, tg, db, files)
	waitFor(t, tg, "every update finished", func() bool { return allFinished(db, fixtures) })

	for _, s := range shapes {
		t.Run(s.file, func(t *testing.T) {
			f := fixtures[s.file]
			checkVerdict(t, files[s.file], s)
			if state, _, err := db.UpdateState(context.Background(), f.UpdateID); err != nil || state != memory.StateDone {
				t.Fatalf("update state = %q (%v); want done", state, err)
			}
			mu.Lock()
			wasAsked := asked[f.UpdateID]
			mu.Unlock()
			if wasAsked != (s.outcome == answered) {
				t.Errorf("model asked = %v; want %v", wasAsked, s.outcome == answered)
			}
			checkOutcome(t, tg, url, s, f)
			if s.partial != "" && !strings.Contains(logs.String(), s.partial) {
				t.Errorf("no warning naming %s in the log", s.partial)
			}
		})
	}
	replies := 0
	for _, s := range shapes {
		if s.outcome == answered || s.outcome == fixedReply || s.outcome == keptAndTold {
			replies++
		}
	}
	if n := len(sent(tg, func(map[string]string) bool { return true })); n != replies {
		t.Errorf("the bot sent %d messages; want one reply each for the %d shapes answered", n, replies)
	}
}

// loadShapes reads the fixtures for this bot. Their forum topic is made in
// the fake Telegram first, where the bot can then answer in it.
func loadShapes(t *testing.T, tg *telegramtest.Server) map[string][]byte {
	t.Helper()
	fill := map[string]string{"{{bot_id}}": fmt.Sprint(me.ID), "{{bot}}": me.Username, "{{bot_name}}": me.FirstName}
	var probe fixture
	_ = json.Unmarshal(bot.LoadShapes(t, "testdata/updates", fill)["forum_topic_mention"], &probe) // its topic is not filled in yet
	forum := telegramtest.Chat{ID: probe.Message.Chat.ID, Type: "supergroup", Title: probe.Message.Chat.Title, IsForum: true}
	fill["{{topic}}"] = fmt.Sprint(tg.CreateTopic(forum, alice, "Proxmox").ThreadID)
	return bot.LoadShapes(t, "testdata/updates", fill)
}

// pushShapes checks that every fixture has a row and every row a fixture,
// and queues them all in update_id order.
// pushShapes pushes every shape in update_id order. Each shape that is
// answered (or kept and told) is finished before the next is pushed: one person's messages
// waiting together would be answered together, as one turn.
func pushShapes(t *testing.T, tg *telegramtest.Server, db *memory.DB, files map[string][]byte) map[string]fixture {
	t.Helper()
	fixtures := map[string]fixture{}
	for _, s := range shapes {
		raw, ok := files[s.file]
		if !ok {
			t.Fatalf("no fixture %s.json", s.file)
		}
		var f fixture
		_ = json.Unmarshal(raw, &f) // some are meant to be broken
		fixtures[s.file] = f
	}
	for name := range files {
		if _, ok := fixtures[name]; !ok {
			t.Errorf("fixture %s.json has no row in shapes", name)
		}
	}
	order := slices.Clone(shapes)
	slices.SortFunc(order, func(a, b shape) int { return int(fixtures[a.file].UpdateID - fixtures[b.file].UpdateID) })
	for _, s := range order {
		tg.PushRawUpdate(files[s.file])
		if s.outcome == answered || s.outcome == keptAndTold {
			waitFor(t, tg, s.file+" answered", func() bool { return allFinished(db, map[string]fixture{s.file: fixtures[s.file]}) })
		}
	}
	return fixtures
}

func allFinished(db *memory.DB, fixtures map[string]fixture) bool {
	for _, f := range fixtures {
		state, _, err := db.UpdateState(context.Background(), f.UpdateID)
		if err != nil || state != memory.StateDone && state != memory.StateFailed {
			return false
		}
	}
	return true
}

func checkVerdict(t *testing.T, raw []byte, s shape) {
	t.Helper()
	self := ryo.User{ID: me.ID, Username: me.Username, FirstName: me.FirstName}
	verdict, why, skipped, err := bot.Verdict(self, raw)
	if err != nil || verdict != s.verdict || why == "" {
		t.Errorf("verdict = %q (%q, %v); want %q with a reason", verdict, why, err, s.verdict)
	}
	if s.partial != "" && !slices.Contains(skipped, s.partial) || s.partial == "" && len(skipped) > 0 {
		t.Errorf("fields left out = %q; want %q", skipped, s.partial)
	}
}

// checkOutcome checks what the person sees, and what is stored.
func checkOutcome(t *testing.T, tg *telegramtest.Server, url string, s shape, f fixture) {
	t.Helper()
	stored := storedFor(t, url, f.UpdateID)
	switch s.outcome {
	case answered, kept, keptAndTold:
		checkStored(t, stored, s, f)
	default:
		if len(stored) > 0 {
			t.Errorf("stored %+v; want nothing", stored)
		}
	}
	if f.Message != nil {
		checkReplies(t, tg, s, f)
	}
	switch s.outcome {
	case pressAnswered:
		if a, ok := tg.CallbackAnswer(f.CallbackQuery.ID); !ok || a.Text != "This button no longer works." {
			t.Errorf("press answer = %+v, %v; want the stale button notice", a, ok)
		}
	case chatRecorded:
		if !chatStored(t, url, f.MyChatMember.Chat.ID) {
			t.Errorf("chat %d not stored", f.MyChatMember.Chat.ID)
		}
	}
}

func checkStored(t *testing.T, stored []storedMessage, s shape, f fixture) {
	t.Helper()
	want := storedMessage{chat: f.Message.Chat.ID, thread: f.Message.Thread}
	switch s.sender {
	case "from":
		want.sender, want.name = f.Message.From.ID, f.Message.From.FirstName
	case "sender_chat":
		want.sender, want.name = f.Message.SenderChat.ID, f.Message.SenderChat.Title
	}
	if len(stored) != 1 {
		t.Fatalf("stored %+v; want the one message", stored)
	}
	got := stored[0]
	got.text = ""
	if got != want {
		t.Errorf("stored %+v; want %+v", got, want)
	}
}

// checkReplies checks the bot's replies to the shape's message: one,
// saying what it should, in the message's topic; or none.
func checkReplies(t *testing.T, tg *telegramtest.Server, s shape, f fixture) {
	t.Helper()
	replies := repliesTo(tg, f.Message.Chat.ID, f.Message.ID)
	says := s.says
	switch s.outcome {
	case answered:
		says = fmt.Sprintf("Answer for update %d.", f.UpdateID)
	case fixedReply, keptAndTold:
	default:
		if len(replies) > 0 {
			t.Errorf("the bot replied %v; want no reply", replies)
		}
		return
	}
	if len(replies) != 1 || replies[0]["message_thread_id"] != threadParam(f.Message.Thread) {
		t.Errorf("replies = %v; want one in thread %d", replies, f.Message.Thread)
	}
	if !slices.ContainsFunc(tg.BotMessages(f.Message.Chat.ID), func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, says) && m.ThreadID == f.Message.Thread
	}) {
		t.Errorf("no message in chat %d, thread %d, says %q", f.Message.Chat.ID, f.Message.Thread, says)
	}
}

// repliesTo returns the parameters of the messages the bot sent in reply
// to message id of chat.
func repliesTo(tg *telegramtest.Server, chat int64, id int) []map[string]string {
	return sent(tg, func(p map[string]string) bool {
		var ref struct {
			MessageID int `json:"message_id"`
		}
		_ = json.Unmarshal([]byte(p["reply_parameters"]), &ref)
		return p["chat_id"] == fmt.Sprint(chat) && ref.MessageID == id
	})
}

// sent returns the parameters of the messages the bot sent that match.
func sent(tg *telegramtest.Server, match func(params map[string]string) bool) []map[string]string {
	var out []map[string]string
	for _, c := range tg.Calls("sendMessage") {
		if c.Err == nil && match(c.Params) {
			out = append(out, c.Params)
		}
	}
	return out
}

func threadParam(thread int) string {
	if thread == 0 {
		return ""
	}
	return fmt.Sprint(thread)
}

func storedFor(t *testing.T, url string, update int64) []storedMessage {
	t.Helper()
	conn := connect(t, url)
	rows, err := conn.Query(context.Background(), `select m.chat_id, m.thread_id, coalesce(u.id, 0), coalesce(u.first_name, ''), m.text
		from messages m left join users u on u.id = m.sender_id where m.update_id = $1 and m.kind = 'user'`, update)
	if err != nil {
		t.Fatal(err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storedMessage, error) {
		var m storedMessage
		err := r.Scan(&m.chat, &m.thread, &m.sender, &m.name, &m.text)
		return m, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func chatStored(t *testing.T, url string, id int64) bool {
	t.Helper()
	var n int
	if err := connect(t, url).QueryRow(context.Background(), `select count(*) from chats where id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
