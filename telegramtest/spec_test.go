package telegramtest_test

import (
	"bytes"
	"errors"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/telegramtest"
)

// TestCallsAreCheckedAgainstTheBotAPI sends calls the published Bot API
// would refuse, or that the fake cannot answer, and checks each answer.
func TestCallsAreCheckedAgainstTheBotAPI(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	s.SendText(aliceChat(), alice(), "hi")
	pm := aliceID()
	tests := []struct {
		name, method string
		form         url.Values
		status       int
		want         string // the description, or its start for the fake's own texts
	}{
		{"unknown method", "sendPigeon", url.Values{"chat_id": {pm}}, 404, "Not Found"},
		{"unknown method in lower case", "sendpigeon", nil, 404, "Not Found"},
		{"real method the fake lacks", "sendVideo", url.Values{"chat_id": {pm}, "video": {"x"}}, 501,
			"telegramtest: sendVideo is a real Bot API method the fake does not implement"},
		{"real method the fake lacks, any case", "SENDVIDEO", nil, 501,
			"telegramtest: sendVideo is a real Bot API method the fake does not implement"},
		{"missing chat_id", "sendMessage", url.Values{"text": {"x"}}, 400, "Bad Request: chat_id is empty"},
		{"missing text", "sendMessage", url.Values{"chat_id": {pm}}, 400, "Bad Request: message text is empty"},
		{"empty text is missing", "sendMessage", url.Values{"chat_id": {pm}, "text": {""}}, 400, "Bad Request: message text is empty"},
		{"missing message_id", "deleteMessage", url.Values{"chat_id": {pm}}, 400, "Bad Request: message identifier is not specified"},
		{"missing commands", "setMyCommands", nil, 400, `Bad Request: parameter "commands" is required`},
		{"missing draft_id", "sendMessageDraft", url.Values{"chat_id": {pm}, "text": {"x"}}, 400, `Bad Request: parameter "draft_id" is required`},
		{"unknown parameter", "sendMessage", url.Values{"chat_id": {pm}, "text": {"x"}, "reply_to_message_id": {"5"}}, 400,
			`Bad Request: parameter "reply_to_message_id" is not a parameter of sendMessage in Bot API 10.1`},
		{"typo in a parameter", "sendChatAction", url.Values{"chat_id": {pm}, "acton": {"typing"}}, 400,
			`Bad Request: parameter "acton" is not a parameter of sendChatAction`},
		{"parameter of another method", "getMe", url.Values{"chat_id": {pm}}, 400,
			`Bad Request: parameter "chat_id" is not a parameter of getMe`},
		{"Integer that is not a number", "sendMessage", url.Values{"chat_id": {pm}, "text": {"x"}, "message_thread_id": {"abc"}}, 400,
			`Bad Request: field "message_thread_id" must be of type Integer`},
		{"Integer beyond 64 bits", "getUpdates", url.Values{"offset": {"99999999999999999999"}}, 400,
			`Bad Request: field "offset" must be of type Integer`},
		{"Integer with a fraction", "getUpdates", url.Values{"timeout": {"1.5"}}, 400,
			`Bad Request: field "timeout" must be of type Integer`},
		{"chat_id that may only be an Integer", "sendMessageDraft", url.Values{"chat_id": {"@alice"}, "draft_id": {"1"}}, 400,
			`Bad Request: field "chat_id" must be of type Integer`},
		{"Boolean", "sendMessage", url.Values{"chat_id": {pm}, "text": {"x"}, "disable_notification": {"yes"}}, 400,
			`Bad Request: field "disable_notification" must be of type Boolean`},
		{"object", "sendMessage", url.Values{"chat_id": {pm}, "text": {"x"}, "link_preview_options": {"[]"}}, 400,
			`Bad Request: field "link_preview_options" must be of type LinkPreviewOptions`},
		{"keyboard that is not an object", "sendMessage", url.Values{"chat_id": {pm}, "text": {"x"}, "reply_markup": {"[1]"}}, 400,
			"Bad Request: can't parse reply keyboard markup JSON object"},
		{"array that is not one", "getUpdates", url.Values{"allowed_updates": {`"message"`}}, 400,
			"Bad Request: can't parse allowed updates JSON array"},
		{"array of the wrong elements", "getUpdates", url.Values{"allowed_updates": {`[1]`}}, 400,
			"Bad Request: can't parse allowed updates JSON array"},
		{"array of objects holding a string", "setMyCommands", url.Values{"commands": {`["start"]`}}, 400,
			"Bad Request: can't parse commands JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := postForm(ctx, t, s, tt.method, tt.form)
			if r.status != tt.status || r.ErrorCode != tt.status || r.OK || !strings.HasPrefix(r.Description, tt.want) {
				t.Errorf("%s %v: got %d %q, want %d %q", tt.method, tt.form, r.status, r.Description, tt.status, tt.want)
			}
		})
	}
	if n := len(s.BotMessages(aliceChat().ID)); n != 0 {
		t.Errorf("refused calls left %d bot messages", n)
	}
	if calls := s.Calls("sendVideo"); len(calls) != 2 || calls[0].Err == nil || calls[0].Err.Code != 501 {
		t.Errorf("a call of an unimplemented method is not recorded with its name: %+v", calls)
	}
}

func TestUnknownParameterSaysTheFakeIsStricter(t *testing.T) {
	s := newServer(t)
	r := postForm(timeout(t), t, s, "getMe", url.Values{"chat_id": {"1"}})
	if !strings.Contains(r.Description, "Telegram would silently ignore it, the fake refuses it") {
		t.Errorf("description = %q; it must say that Telegram itself would not refuse the call", r.Description)
	}
}

// TestCorrectCallsPass sends calls within the Bot API the ways clients do:
// values Telegram accepts in each type, as a form, as JSON and through
// go-telegram/bot's multipart forms.
func TestCorrectCallsPass(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	in := s.SendText(groupChat(), alice(), "hi")
	group := chatID(groupChat().ID)
	forms := []url.Values{
		{"chat_id": {group}, "text": {"x"}, "disable_notification": {"true"}, "protect_content": {"0"}},
		{"chat_id": {group}, "text": {"x"}, "disable_notification": {"1"}, "link_preview_options": {`{"is_disabled":true}`}},
	}
	for i, form := range forms {
		if r := postForm(ctx, t, s, "sendMessage", form); !r.OK {
			t.Errorf("form %d: %d %s", i, r.ErrorCode, r.Description)
		}
	}
	// chat_id may be a String too: an @username, here of no known chat.
	if r := postForm(ctx, t, s, "sendMessage", url.Values{"chat_id": {"@nobody_here"}, "text": {"x"}}); r.Description != "Bad Request: chat not found" {
		t.Errorf("@username chat_id: %+v, want it past the checks to chat not found", r)
	}
	r := postJSON(ctx, t, s, "sendMessage", map[string]any{"chat_id": groupChat().ID, "text": "json",
		"reply_parameters": map[string]any{"message_id": in.ID}, "entities": []any{map[string]any{"type": "bold", "offset": 0, "length": 4}},
		"disable_notification": false})
	if !r.OK {
		t.Errorf("JSON call: %d %s", r.ErrorCode, r.Description)
	}
	if r := postJSON(ctx, t, s, "getUpdates", map[string]any{"offset": -1, "timeout": 0, "allowed_updates": []string{"message"}}); !r.OK {
		t.Errorf("getUpdates: %d %s", r.ErrorCode, r.Description)
	}

	b := newBot(t, s)
	kb := &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{{Text: "Yes", CallbackData: "yes"}}}}
	if _, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: groupChat().ID, Text: "<b>hi</b>", ParseMode: models.ParseModeHTML,
		ReplyParameters: &models.ReplyParameters{MessageID: in.ID, AllowSendingWithoutReply: true}, ReplyMarkup: kb,
		LinkPreviewOptions: &models.LinkPreviewOptions{IsDisabled: bot.True()}, DisableNotification: true}); err != nil {
		t.Errorf("go-telegram sendMessage (every button has copy_text {\"text\":\"\"}): %v", err)
	}
	for _, c := range s.Calls("") {
		if c.Err != nil && c.Params["chat_id"] != "@nobody_here" {
			t.Errorf("%s %v refused: %s", c.Method, c.Params, c.Err.Description)
		}
	}
}

// TestInputFile checks that a file parameter takes an uploaded part, or a
// string where the Bot API also allows one, and that a part is no value
// for a parameter that is not a file.
func TestInputFile(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	s.SendText(aliceChat(), alice(), "hi")
	b := newBot(t, s)
	if _, err := b.SendDocument(ctx, &bot.SendDocumentParams{ChatID: aliceChat().ID,
		Document: &models.InputFileUpload{Filename: "a.txt", Data: strings.NewReader("x")}}); err != nil {
		t.Errorf("upload: %v", err)
	}
	_, err := b.SendDocument(ctx, &bot.SendDocumentParams{ChatID: aliceChat().ID, Document: &models.InputFileString{Data: "BQACAgIAAxkBAAIB"}})
	if !errors.Is(err, bot.ErrorBadRequest) || !strings.Contains(err.Error(), "wrong remote file identifier specified") {
		t.Errorf("file_id: %v, want it past the checks to the fake's refusal of remote files", err)
	}
	r := postMultipart(t, s, "sendMessage", map[string]string{"chat_id": aliceID()}, "text")
	if r.status != 400 || r.Description != `Bad Request: field "text" must be of type String` {
		t.Errorf("a file as text: %d %q", r.status, r.Description)
	}
}

// postMultipart calls method with fields and a file part named file.
func postMultipart(t *testing.T, s *telegramtest.Server, method string, fields map[string]string, file string) reply {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	part, _ := w.CreateFormFile(file, "f.txt")
	part.Write([]byte("content"))
	w.Close()
	return post(timeout(t), t, s.URL()+"/bot"+testToken+"/"+method, w.FormDataContentType(), body.Bytes())
}

// TestFailNextComesBeforeTheChecks: an injected fault answers first, as
// FailNext promises, and the checks then refuse the same call.
func TestFailNextComesBeforeTheChecks(t *testing.T) {
	s := newServer(t)
	s.FailNext("sendMessage", 1, telegramtest.TooManyRequests(1))
	r := postForm(timeout(t), t, s, "sendMessage", url.Values{"bogus": {"1"}})
	if r.status != http.StatusTooManyRequests {
		t.Errorf("FailNext did not come first: %+v", r)
	}
	r = postForm(timeout(t), t, s, "sendMessage", url.Values{"bogus": {"1"}})
	if r.status != http.StatusBadRequest || !strings.Contains(r.Description, `"bogus"`) {
		t.Errorf("unknown parameter: %+v", r)
	}
}
