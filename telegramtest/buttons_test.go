package telegramtest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/telegramtest"
)

// A press on a real button arrives as Telegram sends it, is answered once,
// and a keyboard removed by an edit cannot be pressed any more.
func TestPressAndAnswerOnce(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	ctx := timeout(t)
	s.SendText(aliceChat(), alice(), "hi")
	kb := &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{
		{Text: "✅ Yes", CallbackData: "act:1:y"}, {Text: "❌ No", CallbackData: "act:1:n"}}}}
	m, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: aliceChat().ID, Text: "Sure?", ReplyMarkup: kb})
	if err != nil {
		t.Fatal(err)
	}
	stored := s.BotMessages(aliceChat().ID)[0]
	if got := stored.Buttons(); len(got) != 1 || got[0][1] != (telegramtest.Button{Text: "❌ No", Data: "act:1:n"}) {
		t.Fatalf("Buttons = %+v", got)
	}
	if _, err := s.Press(aliceChat().ID, alice(), m.ID, "act:1:maybe"); err == nil {
		t.Fatal("Press with data no button has succeeded")
	}
	id, err := s.Press(aliceChat().ID, alice(), m.ID, "act:1:y")
	if err != nil {
		t.Fatal(err)
	}
	ups := updates(t, postJSON(ctx, t, s, "getUpdates", poll(0, 0)))
	var u models.Update
	if err := json.Unmarshal(mustJSON(t, ups[len(ups)-1]), &u); err != nil {
		t.Fatal(err)
	}
	q := u.CallbackQuery
	if q == nil || q.ID != id || q.Data != "act:1:y" || q.From.ID != alice().ID || q.Message.Message == nil ||
		q.Message.Message.ID != m.ID || q.Message.Message.Chat.ID != aliceChat().ID || q.ChatInstance == "" {
		t.Fatalf("update = %+v", u)
	}
	if _, ok := s.CallbackAnswer(id); ok {
		t.Fatal("answered before the bot answered")
	}
	if ok, err := b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: id, Text: "Done", ShowAlert: true}); !ok || err != nil {
		t.Fatalf("answerCallbackQuery: %v, %v", ok, err)
	}
	if a, ok := s.CallbackAnswer(id); !ok || a.Text != "Done" || !a.ShowAlert || a.At.IsZero() {
		t.Fatalf("CallbackAnswer = %+v, %v", a, ok)
	}
	if _, err := b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: id}); err == nil || !strings.Contains(err.Error(), "query is too old") {
		t.Fatalf("second answer: %v; want refused", err)
	}
	if _, err := b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: "never-delivered"}); err == nil {
		t.Fatal("answer to a query never delivered accepted")
	}
	if _, err := b.EditMessageText(ctx, &bot.EditMessageTextParams{ChatID: aliceChat().ID, MessageID: m.ID, Text: "Done."}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Press(aliceChat().ID, alice(), m.ID, "act:1:y"); err == nil {
		t.Fatal("a button an edit removed was pressed")
	}
}

func TestPressForgedAndPushedQueries(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	ctx := timeout(t)
	forged := s.PressForged(aliceChat().ID, alice(), 99, "anything at all")
	ups := updates(t, postJSON(ctx, t, s, "getUpdates", poll(0, 0)))
	var u models.Update
	if err := json.Unmarshal(mustJSON(t, ups[0]), &u); err != nil {
		t.Fatal(err)
	}
	if u.CallbackQuery == nil || u.CallbackQuery.Data != "anything at all" || u.CallbackQuery.Message.Message != nil ||
		u.CallbackQuery.Message.InaccessibleMessage == nil {
		t.Fatalf("forged press = %+v; want an inaccessible message", u.CallbackQuery)
	}
	s.PushUpdate(map[string]any{"callback_query": map[string]any{"id": "pushed", "from": map[string]any{"id": alice().ID, "is_bot": false, "first_name": "A"},
		"chat_instance": "x", "data": "d"}})
	for _, id := range []string{forged, "pushed"} {
		if ok, err := b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: id}); !ok || err != nil {
			t.Errorf("answer %s: %v, %v", id, ok, err)
		}
	}
	if _, err := b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: "pushed", Text: strings.Repeat("x", 201)}); err == nil {
		t.Error("201-character callback answer accepted")
	}
}

// A press needs a live bot message showing the button; a forged one does
// not, and still carries the message while it exists.
func TestPressNeedsALiveBotMessage(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	ctx := timeout(t)
	own := s.SendText(aliceChat(), alice(), "hi")
	kb := &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{{Text: "Go", CallbackData: "go"}}}}
	kept, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: aliceChat().ID, Text: "Go?", ReplyMarkup: kb})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: aliceChat().ID, Text: "Gone?", ReplyMarkup: kb})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.DeleteMessage(ctx, &bot.DeleteMessageParams{ChatID: aliceChat().ID, MessageID: gone.ID}); err != nil {
		t.Fatal(err)
	}
	for name, press := range map[string]struct {
		chat int64
		id   int
	}{"unknown chat": {7, kept.ID}, "user's message": {aliceChat().ID, own.ID}, "deleted": {aliceChat().ID, gone.ID}, "missing": {aliceChat().ID, 99}} {
		if _, err := s.Press(press.chat, alice(), press.id, "go"); err == nil {
			t.Errorf("%s: Press succeeded", name)
		}
	}
	s.PressForged(aliceChat().ID, alice(), kept.ID, "stop")
	ups := updates(t, postJSON(ctx, t, s, "getUpdates", poll(0, 0)))
	var u models.Update
	if err := json.Unmarshal(mustJSON(t, ups[len(ups)-1]), &u); err != nil {
		t.Fatal(err)
	}
	if m := u.CallbackQuery.Message.Message; m == nil || m.ID != kept.ID || m.Date == 0 || m.ReplyMarkup == nil || u.CallbackQuery.Data != "stop" {
		t.Fatalf("forged press on a live message = %+v", u.CallbackQuery)
	}
}

// Queries pushed by hand become answerable, and the server's own ids never
// reuse one of theirs.
func TestPushedQueriesAreDelivered(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	ctx := timeout(t)
	s.PushUpdate(map[string]any{"callback_query": map[string]any{"id": "7012345678-2"}})
	first := s.PressForged(aliceChat().ID, alice(), 1, "a")
	s.PushRawUpdate(json.RawMessage(`{"update_id":5,"callback_query":{"id":"raw","from":{"id":7123456789,"is_bot":false,"first_name":"A"},"chat_instance":"x"}}`))
	second := s.PressForged(aliceChat().ID, alice(), 1, "b")
	if first == second || first == "7012345678-2" || second == "7012345678-2" {
		t.Fatalf("press ids %q and %q; want new ones", first, second)
	}
	for _, id := range []string{"raw", "7012345678-2", first, second} {
		if ok, err := b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: id}); !ok || err != nil {
			t.Errorf("answer %s: %v, %v", id, ok, err)
		}
	}
}

func TestSendDocument(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	ctx := timeout(t)
	q := s.SendText(aliceChat(), alice(), "send me the file")
	kb := &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{{Text: "OK", CallbackData: "ok"}}}}
	m, err := b.SendDocument(ctx, &bot.SendDocumentParams{ChatID: aliceChat().ID, Caption: "<b>the</b> file", ParseMode: models.ParseModeHTML,
		Document:        &models.InputFileUpload{Filename: "args.json", Data: strings.NewReader(`{"a": 1}`)},
		ReplyParameters: &models.ReplyParameters{MessageID: q.ID}, ReplyMarkup: kb})
	if err != nil {
		t.Fatal(err)
	}
	if m.Document == nil || m.Document.FileName != "args.json" || m.Document.FileSize != 8 || m.Caption != "the file" ||
		len(m.CaptionEntities) != 1 || m.Text != "" {
		t.Fatalf("returned message = %+v", m)
	}
	got := s.BotMessages(aliceChat().ID)[0]
	if got.Document == nil || string(got.Document.Data) != `{"a": 1}` || got.ReplyTo != q.ID || len(got.Buttons()) != 1 {
		t.Fatalf("stored message = %+v", got)
	}
	for name, params := range map[string]*bot.SendDocumentParams{
		"no file":       {ChatID: aliceChat().ID, Caption: "x"},
		"empty file":    {ChatID: aliceChat().ID, Document: &models.InputFileUpload{Filename: "e", Data: strings.NewReader("")}},
		"long caption":  {ChatID: aliceChat().ID, Caption: strings.Repeat("x", 1025), Document: &models.InputFileUpload{Filename: "f", Data: strings.NewReader("x")}},
		"unknown chat":  {ChatID: 7, Document: &models.InputFileUpload{Filename: "f", Data: strings.NewReader("x")}},
		"bad reply ref": {ChatID: aliceChat().ID, Document: &models.InputFileUpload{Filename: "f", Data: strings.NewReader("x")}, ReplyParameters: &models.ReplyParameters{MessageID: 999}},
	} {
		if _, err := b.SendDocument(ctx, params); err == nil {
			t.Errorf("%s: sendDocument accepted", name)
		}
	}
	if n := len(s.BotMessages(aliceChat().ID)); n != 1 {
		t.Fatalf("%d bot messages; want the one document", n)
	}
}

// A document may go without a caption, and its caption is not text an
// editMessageText can change; its keyboard can be.
func TestDocumentWithoutCaption(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	ctx := timeout(t)
	s.SendText(aliceChat(), alice(), "hi")
	m, err := b.SendDocument(ctx, &bot.SendDocumentParams{ChatID: aliceChat().ID,
		Document: &models.InputFileUpload{Filename: "notes.txt", Data: strings.NewReader("notes")}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Caption != "" || m.Document == nil || m.Document.FileID == "" || m.Document.FileUniqueID == "" {
		t.Fatalf("returned message = %+v", m)
	}
	_, err = b.EditMessageText(ctx, &bot.EditMessageTextParams{ChatID: aliceChat().ID, MessageID: m.ID, Text: "new"})
	if err == nil || !strings.Contains(err.Error(), "there is no text in the message to edit") {
		t.Fatalf("editMessageText on a document: %v", err)
	}
	kb := &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{{Text: "OK", CallbackData: "ok"}}}}
	if _, err := b.EditMessageReplyMarkup(ctx, &bot.EditMessageReplyMarkupParams{ChatID: aliceChat().ID, MessageID: m.ID, ReplyMarkup: kb}); err != nil {
		t.Fatal(err)
	}
	if got := s.BotMessages(aliceChat().ID)[0]; got.Text != "" || len(got.Buttons()) != 1 || string(got.Document.Data) != "notes" {
		t.Fatalf("stored message = %+v", got)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
