package telegramtest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/telegramtest"
)

func TestSendMessageIsStored(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	in := s.SendText(aliceChat(), alice(), "hi")

	kb := &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{{Text: "Yes", CallbackData: "vote:yes"}}}}
	sent, err := b.SendMessage(t.Context(), &bot.SendMessageParams{
		ChatID: aliceChat().ID, Text: "<b>Hello</b>, Alice", ParseMode: models.ParseModeHTML,
		ReplyParameters: &models.ReplyParameters{MessageID: in.ID}, ReplyMarkup: kb,
	})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	if sent.ID != in.ID+1 || sent.Text != "Hello, Alice" || sent.From.ID != botID || sent.Date == 0 {
		t.Errorf("result = id %d text %q from %d date %d", sent.ID, sent.Text, sent.From.ID, sent.Date)
	}
	if sent.ReplyToMessage == nil || sent.ReplyToMessage.Text != "hi" || sent.ReplyToMessage.From.ID != alice().ID {
		t.Errorf("reply_to_message = %+v", sent.ReplyToMessage)
	}
	if len(sent.Entities) != 1 || sent.Entities[0].Type != models.MessageEntityTypeBold || sent.Entities[0].Length != 5 {
		t.Errorf("entities = %+v", sent.Entities)
	}

	msgs := s.BotMessages(aliceChat().ID)
	if len(msgs) != 1 {
		t.Fatalf("BotMessages = %d, want 1", len(msgs))
	}
	m := msgs[0]
	if m.Text != "<b>Hello</b>, Alice" || m.ParseMode != "HTML" || m.ReplyTo != in.ID || !strings.Contains(string(m.ReplyMarkup), "vote:yes") {
		t.Errorf("stored = %+v", m)
	}
	if all := s.Messages(aliceChat().ID); len(all) != 2 || all[0].ID != in.ID || all[1].ID != sent.ID {
		t.Errorf("Messages = %+v", all)
	}
}

func TestEditMessageText(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	s.SendText(aliceChat(), alice(), "hi")
	sent, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: aliceChat().ID, Text: "thinking…"})
	if err != nil {
		t.Fatal(err)
	}
	edit := &bot.EditMessageTextParams{ChatID: aliceChat().ID, MessageID: sent.ID, Text: "done"}

	got, err := b.EditMessageText(t.Context(), edit)
	if err != nil {
		t.Fatalf("EditMessageText: %v", err)
	}
	if got.Text != "done" || got.EditDate == 0 {
		t.Errorf("result text %q edit_date %d", got.Text, got.EditDate)
	}
	if m := s.BotMessages(aliceChat().ID)[0]; m.Text != "done" || m.Edits != 1 {
		t.Errorf("stored text %q edits %d", m.Text, m.Edits)
	}

	_, err = b.EditMessageText(t.Context(), edit)
	if !errors.Is(err, bot.ErrorBadRequest) || !strings.Contains(err.Error(), "message is not modified") {
		t.Errorf("second edit: err = %v, want bad request 'message is not modified'", err)
	}
	if calls := s.Calls("editMessageText"); len(calls) != 2 || calls[1].Err == nil || calls[1].Err.Code != 400 {
		t.Errorf("calls = %+v", calls)
	}
}

func TestEditErrors(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	user := s.SendText(aliceChat(), alice(), "hi")
	tests := []struct {
		name string
		id   int
		text string
		want string
	}{
		{"missing", user.ID + 99, "x", "Bad Request: message to edit not found"},
		{"user's", user.ID, "x", "Bad Request: message can't be edited"},
		{"empty", user.ID, "  \n", "Bad Request: message text is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := b.EditMessageText(t.Context(), &bot.EditMessageTextParams{ChatID: aliceChat().ID, MessageID: tt.id, Text: tt.text})
			if err == nil || !strings.HasSuffix(err.Error(), strings.TrimPrefix(tt.want, "Bad Request: ")) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestEditMessageReplyMarkup(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	s.SendText(aliceChat(), alice(), "hi")
	kb := &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{{Text: "A", CallbackData: "a"}}}}
	sent, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: aliceChat().ID, Text: "pick", ReplyMarkup: kb})
	if err != nil {
		t.Fatal(err)
	}
	params := &bot.EditMessageReplyMarkupParams{ChatID: aliceChat().ID, MessageID: sent.ID, ReplyMarkup: kb}
	if _, err := b.EditMessageReplyMarkup(t.Context(), params); err == nil || !strings.Contains(err.Error(), "message is not modified") {
		t.Errorf("same markup: err = %v", err)
	}
	params.ReplyMarkup = &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{}}
	if _, err := b.EditMessageReplyMarkup(t.Context(), params); err != nil {
		t.Fatalf("remove keyboard: %v", err)
	}
	if m := s.BotMessages(aliceChat().ID)[0]; m.Edits != 1 || strings.Contains(string(m.ReplyMarkup), `"a"`) {
		t.Errorf("stored = %+v", m)
	}
}

func TestSendMessageErrors(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	s.SendText(aliceChat(), alice(), "hi")
	long := strings.Repeat("😀", 2049) // 4098 UTF-16 units, 2049 characters
	tests := []struct {
		name   string
		params bot.SendMessageParams
		want   string
	}{
		{"unknown chat", bot.SendMessageParams{ChatID: telegramtest.NewUser("Stranger", "").ID, Text: "x"}, "chat not found"},
		{"empty", bot.SendMessageParams{ChatID: aliceChat().ID, Text: " \t"}, "message text is empty"},
		{"empty after HTML", bot.SendMessageParams{ChatID: aliceChat().ID, Text: "<b></b>", ParseMode: models.ParseModeHTML}, "message text is empty"},
		{"too long in UTF-16", bot.SendMessageParams{ChatID: aliceChat().ID, Text: long}, "message is too long"},
		{"bad HTML", bot.SendMessageParams{ChatID: aliceChat().ID, Text: "<b>x", ParseMode: models.ParseModeHTML}, `can't parse entities: Can't find end tag corresponding to start tag "b"`},
		{"bad MarkdownV2", bot.SendMessageParams{ChatID: aliceChat().ID, Text: "Done.", ParseMode: models.ParseModeMarkdown}, "can't parse entities: Character '.' is reserved"},
		{"reply not found", bot.SendMessageParams{ChatID: aliceChat().ID, Text: "x", ReplyParameters: &models.ReplyParameters{MessageID: 9}}, "message to be replied not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := b.SendMessage(t.Context(), &tt.params)
			if !errors.Is(err, bot.ErrorBadRequest) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want bad request %q", err, tt.want)
			}
		})
	}
	if n := len(s.BotMessages(aliceChat().ID)); n != 0 {
		t.Errorf("BotMessages = %d after failures, want 0", n)
	}
}

func TestLengthIsMeasuredAfterHTML(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	s.SendText(aliceChat(), alice(), "hi")
	tests := []struct {
		text, mode string
		ok         bool
	}{
		{strings.Repeat("a", 4096), "", true},
		{strings.Repeat("a", 4097), "", false},
		{strings.Repeat("😀", 2048), "", true},
		{strings.Repeat("😀", 4096), "", false},
		{"<b>" + strings.Repeat("a", 4096) + "</b>", "HTML", true},
		{strings.Repeat("&amp;", 4096), "HTML", true},
		{strings.Repeat("&amp;", 4097), "HTML", false},
	}
	for i, tt := range tests {
		_, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: aliceChat().ID, Text: tt.text, ParseMode: models.ParseMode(tt.mode)})
		if (err == nil) != tt.ok {
			t.Errorf("case %d: err = %v, want ok=%v", i, err, tt.ok)
		}
	}
}

func TestReplyWithoutTarget(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	s.SendText(aliceChat(), alice(), "hi")
	sent, err := b.SendMessage(t.Context(), &bot.SendMessageParams{
		ChatID: aliceChat().ID, Text: "x", ReplyParameters: &models.ReplyParameters{MessageID: 77, AllowSendingWithoutReply: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sent.ReplyToMessage != nil || s.BotMessages(aliceChat().ID)[0].ReplyTo != 0 {
		t.Errorf("reply_to_message = %+v", sent.ReplyToMessage)
	}
}

func TestDeleteMessage(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	in := s.SendText(aliceChat(), alice(), "hi")
	ok, err := b.DeleteMessage(t.Context(), &bot.DeleteMessageParams{ChatID: aliceChat().ID, MessageID: in.ID})
	if err != nil || !ok {
		t.Fatalf("DeleteMessage = %v, %v", ok, err)
	}
	if msgs := s.Messages(aliceChat().ID); len(msgs) != 1 || !msgs[0].Deleted {
		t.Errorf("Messages = %+v", msgs)
	}
	_, err = b.DeleteMessage(t.Context(), &bot.DeleteMessageParams{ChatID: aliceChat().ID, MessageID: in.ID})
	if err == nil || !strings.Contains(err.Error(), "message to delete not found") {
		t.Errorf("second delete: %v", err)
	}
}

func TestForumThreads(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	forum := telegramtest.NewForum("Forum")
	topic := s.CreateTopic(forum, alice(), "Questions")
	in := s.SendText(forum, alice(), "question", telegramtest.InThread(topic.ThreadID))
	var raw struct {
		ThreadID int  `json:"message_thread_id"`
		IsTopic  bool `json:"is_topic_message"`
	}
	if err := json.Unmarshal(in.Raw, &raw); err != nil || raw.ThreadID != topic.ThreadID || !raw.IsTopic {
		t.Errorf("raw = %s (%v)", in.Raw, err)
	}
	sent, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: forum.ID, Text: "answer", ReplyParameters: &models.ReplyParameters{MessageID: in.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if sent.MessageThreadID != topic.ThreadID || !sent.IsTopicMessage {
		t.Errorf("bot reply thread = %d topic = %v, want the question's topic", sent.MessageThreadID, sent.IsTopicMessage)
	}
	s.SendText(aliceChat(), alice(), "hi")
	if _, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: aliceChat().ID, Text: "x", MessageThreadID: topic.ThreadID}); err != nil {
		t.Fatalf("thread id in a non-forum chat: %v, want it ignored", err)
	}
	if m := s.BotMessages(aliceChat().ID)[0]; m.ThreadID != 0 {
		t.Errorf("ThreadID = %d in a private chat, want 0", m.ThreadID)
	}
}

func TestRawEncodings(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	in := s.SendText(groupChat(), alice(), "hi")

	group := chatID(groupChat().ID)
	form := url.Values{"chat_id": {group}, "text": {"via form"},
		"reply_parameters": {fmt.Sprintf(`{"message_id":%d}`, in.ID)},
		"reply_markup":     {`{"inline_keyboard":[[{"text":"A","callback_data":"a"}]]}`}}
	if r := postForm(ctx, t, s, "SENDMESSAGE", form); !r.OK {
		t.Fatalf("form sendMessage: %d %s", r.ErrorCode, r.Description)
	}
	r := postJSON(ctx, t, s, "sendMessage", map[string]any{"chat_id": groupChat().ID, "text": "via json",
		"reply_parameters": map[string]any{"message_id": in.ID}})
	if !r.OK {
		t.Fatalf("json sendMessage: %d %s", r.ErrorCode, r.Description)
	}
	msgs := s.BotMessages(groupChat().ID)
	if len(msgs) != 2 || msgs[0].Text != "via form" || msgs[0].ReplyTo != in.ID || msgs[1].ReplyTo != in.ID || msgs[0].ReplyMarkup == nil {
		t.Errorf("BotMessages = %+v", msgs)
	}
	if c := s.Calls("sendmessage"); len(c) != 2 || c[0].Method != "sendMessage" || c[1].Params["chat_id"] != group {
		t.Errorf("Calls = %+v", c)
	}
}

func TestInlineKeyboardRules(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	s.SendText(aliceChat(), alice(), "hi")
	tests := []struct{ markup, want string }{
		{`{"inline_keyboard":[[{"text":"A","callback_data":"` + strings.Repeat("x", 65) + `"}]]}`, "Bad Request: BUTTON_DATA_INVALID"},
		{`{"inline_keyboard":[[{"text":"A","copy_text":{"text":""}}]]}`, "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"},
		{`not json`, "Bad Request: can't parse reply keyboard markup JSON object"},
		{`{"inline_keyboard":[[{"text":"A","url":"happ://add/x"}]]}`, "Bad Request: inline keyboard button URL 'happ://add/x' is invalid: Unsupported URL protocol"},
		{`{"inline_keyboard":[[{"text":"A","url":"http://localhost:8080/x"}]]}`, "Bad Request: inline keyboard button URL 'http://localhost:8080/x' is invalid: Wrong HTTP URL"},
		{`{"inline_keyboard":[[{"text":"A","url":7}]]}`, `Bad Request: can't parse inline keyboard button: Field "url" must be of type String`},
	}
	for _, tt := range tests {
		r := postJSON(ctx, t, s, "sendMessage", map[string]any{"chat_id": aliceChat().ID, "text": "x", "reply_markup": tt.markup})
		if r.OK || r.Description != tt.want || r.status != 400 {
			t.Errorf("markup %s: got %d %q, want 400 %q", tt.markup, r.status, r.Description, tt.want)
		}
	}
	link := `{"inline_keyboard":[[{"text":"Open private chat","url":"https://t.me/ryo_test_bot?start=users","copy_text":{"text":""}}]]}`
	if r := postJSON(ctx, t, s, "sendMessage", map[string]any{"chat_id": aliceChat().ID, "text": "x", "reply_markup": link}); !r.OK {
		t.Fatalf("a url button was refused: %s", r.Description)
	}
	want := telegramtest.Button{Text: "Open private chat", URL: "https://t.me/ryo_test_bot?start=users"}
	if b := s.BotMessages(aliceChat().ID)[0].Buttons(); len(b) != 1 || b[0][0] != want {
		t.Errorf("Buttons = %+v; want %+v", b, want)
	}
}
