package delivery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	tg "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"go.opentelemetry.io/otel/trace"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/stages"
)

// Telegram is ryo's side of the Bot API: each method is one kind of call,
// sent through the engine, which knows Telegram's limits. It implements
// stages.Messenger. Run must be running for calls to go out.
type Telegram struct {
	api   *tg.Bot
	calls *http.Client // the library's client, for the calls post makes itself
	base  string       // the URL of the Bot API's methods: …/bot<token>/
	token string
	e     *engine
	log   *slog.Logger
	files *http.Client // downloads; each has its own deadline
}

// Options say which Bot API to call, and how.
type Options struct {
	Token       ryo.Secret
	APIURL      string        // the Bot API server, e.g. https://api.telegram.org
	CallTimeout time.Duration // the deadline of one call
	Clock       ryo.Clock     // the system clock when nil
	// Unpaced lifts Telegram's flood limits: calls go out as fast as they
	// come. Only for a Bot API server that has none, such as a test's;
	// Telegram answers a bot that ignores them with 429s and bans.
	Unpaced bool

	Observer Observer // told of each call on the wire; nil for nobody
	Ledger   Ledger   // shares calls in groups with other ryo processes; nil for none
	// Fence, when set, is asked right before each call for a chat goes
	// out: an error keeps it from going, and is its outcome — this process
	// may no longer be the one that speaks in the chat.
	Fence func(chat int64) error
	// Tracer traces the calls of traced turns (span.go); none when nil.
	Tracer trace.Tracer
}

// New makes a client of the Bot API o names. Calls wait until Run runs.
func New(o Options, log *slog.Logger) (*Telegram, error) {
	// Each call's deadline is the engine's; the client's own only backs it
	// up, after the longest upload's.
	calls := &http.Client{Transport: callTransport(), Timeout: o.CallTimeout + uploadTime(maxUploadBytes) + 5*time.Second}
	server := strings.TrimRight(o.APIURL, "/")
	api, err := tg.New(o.Token.Reveal(),
		tg.WithServerURL(server),
		tg.WithSkipGetMe(),
		tg.WithHTTPClient(o.CallTimeout, sized{calls}),
		tg.WithErrorsHandler(func(err error) { log.Debug("telegram client", "err", Scrub(err, o.Token.Reveal())) }),
	)
	if err != nil {
		return nil, fmt.Errorf("telegram client: %w", err)
	}
	if o.Clock == nil {
		o.Clock = ryo.SystemClock{}
	}
	l := defaultLimits()
	if o.Unpaced {
		l = limits{}
	}
	e := newEngine(l, o.CallTimeout, o.Token.Reveal(), log, o.Clock)
	e.observer, e.ledger, e.tracer, e.fence = o.Observer, o.Ledger, o.Tracer, o.Fence
	return &Telegram{api: api, calls: calls, base: server + "/bot" + o.Token.Reveal() + "/", token: o.Token.Reveal(),
		log: log, e: e, files: &http.Client{}}, nil
}

// idleCalls is how many connections to the Bot API are kept open between
// calls: as many as a busy bot has calls in flight, so that each call
// finds one. The default, 2, closed all others after their call, and the
// next call opened a new one — a TLS handshake, with Telegram.
const idleCalls = 64

// callTransport is the default transport, keeping idleCalls connections.
func callTransport() http.RoundTripper {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultTransport
	}
	t = t.Clone()
	t.MaxIdleConnsPerHost = idleCalls
	return t
}

// Run sends calls until ctx ends, then ends the calls still queued and
// waits for those in flight.
func (t *Telegram) Run(ctx context.Context) { t.e.run(ctx) }

// Post implements stages.Messenger.
func (t *Telegram) Post(ctx context.Context, place ryo.Place, replyTo int, text render.Part, buttons ...stages.Button) (int, error) {
	return t.send(ctx, status, place, replyTo, text, keyboard(statusButtons(buttons)))
}

// Send implements stages.Messenger.
func (t *Telegram) Send(ctx context.Context, place ryo.Place, replyTo int, text render.Part, buttons ...stages.Button) (int, error) {
	return t.send(ctx, urgent, place, replyTo, text, keyboard(statusButtons(buttons)))
}

// Button is an inline keyboard button: pressed, it sends Data back, or
// opens URL when it has one.
type Button struct {
	Text, Data, URL string
	Below           bool // starts a new row of buttons
}

// SendButtons sends a message with a row of buttons, which must arrive.
func (t *Telegram) SendButtons(ctx context.Context, place ryo.Place, replyTo int, text render.Part, buttons ...Button) (int, error) {
	return t.send(ctx, urgent, place, replyTo, text, keyboard(buttons))
}

// keyboard is buttons as Telegram takes them, in rows (a button Below
// starts a new one); none (nil) leaves a message without a keyboard.
func keyboard(buttons []Button) models.ReplyMarkup {
	if len(buttons) == 0 {
		return nil
	}
	var rows [][]models.InlineKeyboardButton
	for i, b := range buttons {
		if i == 0 || b.Below {
			rows = append(rows, nil)
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], models.InlineKeyboardButton{Text: b.Text, CallbackData: b.Data, URL: b.URL})
	}
	return &models.InlineKeyboardMarkup{InlineKeyboard: rows}
}

// statusButtons are a status message's buttons, in one row.
func statusButtons(buttons []stages.Button) []Button {
	var out []Button
	for _, b := range buttons {
		out = append(out, Button{Text: b.Text, Data: b.Data})
	}
	return out
}

// send posts a message. HTML that Telegram refuses is sent again as plain
// text: a refused call certainly showed nothing.
func (t *Telegram) send(ctx context.Context, c class, place ryo.Place, replyTo int, text render.Part, markup models.ReplyMarkup) (int, error) {
	var id int
	err := t.e.do(ctx, &apiCall{chat: place.ChatID, class: c, method: "sendMessage", creating: true, call: func(ctx context.Context) error {
		params := &tg.SendMessageParams{ChatID: place.ChatID, MessageThreadID: place.Thread, ReplyMarkup: markup}
		params.Text, params.ParseMode = content(text)
		if replyTo != 0 {
			params.ReplyParameters = &models.ReplyParameters{MessageID: replyTo, AllowSendingWithoutReply: true}
		}
		var m sent
		err := t.post(ctx, "sendMessage", params, &m)
		if err == nil {
			id = m.ID
		}
		return err
	}})
	if refusedMarkup(err, text) {
		t.log.WarnContext(ctx, "Telegram refused the formatting; sending plain text", "chat_id", place.ChatID, "err", err)
		return t.send(ctx, c, place, replyTo, render.Part{Plain: text.Plain}, markup)
	}
	return id, err
}

// SendFile sends data as a document named name, with a plain caption (one
// too long cut to Telegram's 1,024 characters). It must arrive.
func (t *Telegram) SendFile(ctx context.Context, place ryo.Place, replyTo int, name string, data []byte, caption string) (int, error) {
	if caption != "" {
		caption = render.Text(caption, maxCaption).Plain
	}
	var id int
	err := t.e.do(ctx, &apiCall{chat: place.ChatID, class: urgent, method: "sendDocument", creating: true, upload: len(data), call: func(ctx context.Context) error {
		params := &tg.SendDocumentParams{ChatID: place.ChatID, MessageThreadID: place.Thread, Caption: caption,
			Document: &models.InputFileUpload{Filename: name, Data: bytes.NewReader(data)}}
		if replyTo != 0 {
			params.ReplyParameters = &models.ReplyParameters{MessageID: replyTo, AllowSendingWithoutReply: true}
		}
		m, err := t.api.SendDocument(ctx, params)
		if err == nil {
			id = m.ID
		}
		return err
	}})
	return id, err
}

// maxUploadBytes is the largest file Telegram takes from a bot.
const maxUploadBytes = 50 << 20

// maxCaption is the most UTF-16 units of a caption Telegram takes.
const maxCaption = 1024

// SendPhoto sends a picture, named name, with a plain caption ("" for
// none, one too long cut to Telegram's 1,024 characters) as a reply to
// message replyTo (0: none), and returns its id. It must arrive: a picture
// Telegram will not show as a photo — its size, its format — is sent again
// as a file, since a refused call showed nothing.
func (t *Telegram) SendPhoto(ctx context.Context, place ryo.Place, replyTo int, name string, data []byte, caption string) (int, error) {
	if caption != "" {
		caption = render.Text(caption, maxCaption).Plain
	}
	var id int
	err := t.e.do(ctx, &apiCall{chat: place.ChatID, class: urgent, method: "sendPhoto", creating: true, upload: len(data), call: func(ctx context.Context) error {
		params := &tg.SendPhotoParams{ChatID: place.ChatID, MessageThreadID: place.Thread, Caption: caption,
			Photo: &models.InputFileUpload{Filename: name, Data: bytes.NewReader(data)}}
		if replyTo != 0 {
			params.ReplyParameters = &models.ReplyParameters{MessageID: replyTo, AllowSendingWithoutReply: true}
		}
		m, err := t.api.SendPhoto(ctx, params)
		if err == nil {
			id = m.ID
		}
		return err
	}})
	if refusedPhoto(err) {
		t.log.WarnContext(ctx, "Telegram refused the picture as a photo; sending it as a file", "chat_id", place.ChatID, "err", err)
		return t.SendFile(ctx, place, replyTo, name, data, caption)
	}
	return id, err
}

// refusedPhoto reports whether Telegram refused a picture as a photo —
// too large, of sides it does not take, in a form it cannot read, or in a
// group that does not let members send photos — which it may still take
// as a file.
func refusedPhoto(err error) bool {
	if !errors.Is(err, tg.ErrorBadRequest) {
		return false
	}
	msg := strings.ToUpper(err.Error())
	return strings.Contains(msg, "PHOTO_") || strings.Contains(msg, "IMAGE_PROCESS_FAILED") ||
		strings.Contains(msg, "NOT ENOUGH RIGHTS TO SEND PHOTOS")
}

// Edit implements stages.Messenger.
func (t *Telegram) Edit(ctx context.Context, place ryo.Place, id int, text render.Part, buttons ...stages.Button) error {
	err := t.e.do(ctx, t.editWith(urgent, place, id, text, keyboard(statusButtons(buttons))))
	if refusedMarkup(err, text) {
		t.log.WarnContext(ctx, "Telegram refused the formatting; sending plain text", "chat_id", place.ChatID, "err", err)
		return t.Edit(ctx, place, id, render.Part{Plain: text.Plain}, buttons...)
	}
	return editOutcome(err)
}

// Markup implements stages.Messenger.
func (t *Telegram) Markup(ctx context.Context, place ryo.Place, id int, buttons ...stages.Button) error {
	return editOutcome(t.e.do(ctx, t.markupJob(urgent, place, id, buttons)))
}

// tidyLife is how long a MarkupLater may wait for Telegram's budget.
const tidyLife = time.Minute

// MarkupLater replaces the buttons of message id as Markup does, but only
// when Telegram's budget allows: it does not wait, and it is dropped when
// it cannot go within a minute. It tidies what a person can do without,
// such as an older answer's 🔄, whose press is refused anyway.
func (t *Telegram) MarkupLater(ctx context.Context, place ryo.Place, id int, buttons ...stages.Button) {
	j := t.markupJob(progress, place, id, buttons)
	j.ctx, j.expires = context.WithoutCancel(ctx), t.e.clock.Now().Add(tidyLife)
	j.done = func(err error) {
		if err = editOutcome(err); err != nil && !errors.Is(err, stages.ErrMessageGone) {
			t.log.DebugContext(ctx, "buttons not changed", "chat_id", place.ChatID, "message_id", id, "err", err)
		}
	}
	t.e.submit(j)
}

func (t *Telegram) markupJob(c class, place ryo.Place, id int, buttons []stages.Button) *apiCall {
	markup := keyboard(statusButtons(buttons)) // none (nil, left out of the call) takes them off
	return &apiCall{chat: place.ChatID, class: c, key: messageKey(id), method: "editMessageReplyMarkup",
		call: func(ctx context.Context) error {
			return t.post(ctx, "editMessageReplyMarkup", &tg.EditMessageReplyMarkupParams{ChatID: place.ChatID, MessageID: id, ReplyMarkup: markup}, nil)
		}}
}

// Progress implements stages.Messenger.
func (t *Telegram) Progress(ctx context.Context, place ryo.Place, id int, text render.Part, buttons ...stages.Button) {
	j := t.editWith(progress, place, id, text, keyboard(statusButtons(buttons)))
	j.ctx, j.expires = ctx, t.e.clock.Now().Add(progressLife)
	j.done = func(err error) {
		if err = editOutcome(err); err != nil && !errors.Is(err, errSuperseded) && !errors.Is(err, errExpired) {
			t.log.DebugContext(ctx, "status edit not shown", "chat_id", place.ChatID, "err", err)
		}
	}
	t.e.submit(j)
}

func (t *Telegram) editWith(c class, place ryo.Place, id int, text render.Part, markup models.ReplyMarkup) *apiCall {
	return &apiCall{chat: place.ChatID, class: c, key: messageKey(id), method: "editMessageText", call: func(ctx context.Context) error {
		params := &tg.EditMessageTextParams{ChatID: place.ChatID, MessageID: id, ReplyMarkup: markup}
		params.Text, params.ParseMode = content(text)
		return t.post(ctx, "editMessageText", params, nil)
	}}
}

// EditButtons replaces the text and the row of buttons of message id.
func (t *Telegram) EditButtons(ctx context.Context, place ryo.Place, id int, text render.Part, buttons ...Button) error {
	return editOutcome(t.e.do(ctx, t.editWith(urgent, place, id, text, keyboard(buttons))))
}

// editOutcome reads an edit's error: no change is success, a message that
// is no more is stages.ErrMessageGone.
func editOutcome(err error) error {
	switch {
	case isBadRequest(err, "message is not modified"):
		return nil
	case isBadRequest(err, "message to edit not found"), isBadRequest(err, "message can't be edited"):
		return fmt.Errorf("%w: %w", stages.ErrMessageGone, err)
	}
	return err
}

// Delete implements stages.Messenger.
func (t *Telegram) Delete(ctx context.Context, place ryo.Place, id int) error {
	err := t.e.do(ctx, &apiCall{chat: place.ChatID, class: urgent, key: messageKey(id), method: "deleteMessage",
		call: func(ctx context.Context) error {
			_, err := t.api.DeleteMessage(ctx, &tg.DeleteMessageParams{ChatID: place.ChatID, MessageID: id})
			return err
		}})
	if isBadRequest(err, "message to delete not found") || isBadRequest(err, "message can't be deleted") {
		return fmt.Errorf("%w: %w", stages.ErrMessageGone, err)
	}
	return err
}

// Draft implements stages.Messenger. Telegram refusing the method (400, or
// 404 from a server without it) means drafts do not work there; anything
// else only that this draft was not shown.
func (t *Telegram) Draft(ctx context.Context, place ryo.Place, draftID int64, text string, done func(error)) {
	t.e.submit(&apiCall{chat: place.ChatID, class: progress, key: "draft:" + strconv.FormatInt(draftID, 10),
		method: "sendMessageDraft", ctx: ctx, expires: t.e.clock.Now().Add(progressLife),
		call: func(ctx context.Context) error {
			_, err := t.api.SendMessageDraft(ctx, &tg.SendMessageDraftParams{ChatID: place.ChatID,
				MessageThreadID: place.Thread, DraftID: strconv.FormatInt(draftID, 10), Text: text})
			return err
		},
		done: func(err error) {
			if draftsRefused(err) {
				err = fmt.Errorf("%w: %w", stages.ErrDraftsUnsupported, err)
			}
			done(err)
		}})
}

// draftsRefused reports whether a draft's error means that drafts do not
// work here, rather than that this one draft's text was not accepted.
func draftsRefused(err error) bool {
	if errors.Is(err, tg.ErrorNotFound) {
		return true
	}
	for _, onlyThisDraft := range []string{"message is not modified", "text is too long", "can't parse entities", "text must be non-empty"} {
		if isBadRequest(err, onlyThisDraft) {
			return false
		}
	}
	return errors.Is(err, tg.ErrorBadRequest)
}

// Typing implements stages.Messenger.
func (t *Telegram) Typing(ctx context.Context, place ryo.Place) {
	t.e.submit(&apiCall{chat: place.ChatID, class: typing, key: "typing", method: "sendChatAction", ctx: ctx,
		expires: t.e.clock.Now().Add(typingLife), done: func(error) {},
		call: func(ctx context.Context) error {
			return t.post(ctx, "sendChatAction", &tg.SendChatActionParams{
				ChatID: place.ChatID, MessageThreadID: place.Thread, Action: models.ChatActionTyping}, nil)
		}})
}

func messageKey(id int) string { return "message:" + strconv.Itoa(id) }

// content is the text and parse mode of a part: HTML when it has markup.
func content(p render.Part) (string, models.ParseMode) {
	if p.HTML == "" {
		return p.Plain, ""
	}
	return p.HTML, models.ParseModeHTML
}

// refusedMarkup reports whether Telegram refused a part's HTML — it could
// not parse it, or its entities were too long in all — which is then worth
// sending as plain text.
func refusedMarkup(err error, p render.Part) bool {
	return p.HTML != "" && p.Plain != "" && (isBadRequest(err, "can't parse entities") ||
		errors.Is(err, tg.ErrorBadRequest) && strings.Contains(strings.ToUpper(err.Error()), "ENTITIES_TOO_LONG"))
}

// global runs a call that belongs to no chat.
func (t *Telegram) global(ctx context.Context, method string, call func(ctx context.Context) error) error {
	return t.e.do(ctx, &apiCall{class: urgent, method: method, call: call})
}

// Me asks Telegram who the bot is.
func (t *Telegram) Me(ctx context.Context) (*models.User, error) {
	var me *models.User
	err := t.global(ctx, "getMe", func(ctx context.Context) error {
		var err error
		me, err = t.api.GetMe(ctx)
		return err
	})
	return me, err
}

// SetCommands sets the bot's command menu shown to people whose
// Telegram speaks language (a two-letter code), or to everyone else when
// language is "".
func (t *Telegram) SetCommands(ctx context.Context, language string, cmds []models.BotCommand) error {
	return t.global(ctx, "setMyCommands", func(ctx context.Context) error {
		_, err := t.api.SetMyCommands(ctx, &tg.SetMyCommandsParams{Commands: cmds, LanguageCode: language})
		return err
	})
}

// DeleteWebhook removes a webhook, keeping the updates it holds, so that
// getUpdates is not refused.
func (t *Telegram) DeleteWebhook(ctx context.Context) error {
	return t.global(ctx, "deleteWebhook", func(ctx context.Context) error {
		_, err := t.api.DeleteWebhook(ctx, &tg.DeleteWebhookParams{DropPendingUpdates: false})
		return err
	})
}

// SetWebhook tells Telegram to post updates of the kinds allowed to url,
// with secret in each request's X-Telegram-Bot-Api-Secret-Token header
// and at most maxConnections requests at once.
func (t *Telegram) SetWebhook(ctx context.Context, url string, secret ryo.Secret, allowed []string, maxConnections int) error {
	return t.global(ctx, "setWebhook", func(ctx context.Context) error {
		_, err := t.api.SetWebhook(ctx, &tg.SetWebhookParams{URL: url, SecretToken: secret.Reveal(), AllowedUpdates: allowed,
			MaxConnections: maxConnections})
		return err
	})
}

// WebhookInfo asks Telegram about the bot's webhook.
func (t *Telegram) WebhookInfo(ctx context.Context) (*models.WebhookInfo, error) {
	var info *models.WebhookInfo
	err := t.global(ctx, "getWebhookInfo", func(ctx context.Context) error {
		var err error
		info, err = t.api.GetWebhookInfo(ctx)
		return err
	})
	return info, err
}

// Administers reports whether Telegram lists user as an administrator (or
// the creator) of chat. A chat whose members the bot cannot see, or a user
// who is not in it, administers nothing.
func (t *Telegram) Administers(ctx context.Context, chat, user int64) (bool, error) {
	var m *models.ChatMember
	err := t.global(ctx, "getChatMember", func(ctx context.Context) error {
		var err error
		m, err = t.api.GetChatMember(ctx, &tg.GetChatMemberParams{ChatID: chat, UserID: user})
		return err
	})
	switch {
	case errors.Is(err, tg.ErrorBadRequest), errors.Is(err, tg.ErrorForbidden):
		return false, nil
	case err != nil:
		return false, err
	}
	return m.Type == models.ChatMemberTypeOwner || m.Type == models.ChatMemberTypeAdministrator, nil
}

// AnswerCallback stops the spinner of a pressed button with a short text,
// shown as an alert the person must close when alert is set.
func (t *Telegram) AnswerCallback(ctx context.Context, id, text string, alert bool) error {
	return t.global(ctx, "answerCallbackQuery", func(ctx context.Context) error {
		_, err := t.api.AnswerCallbackQuery(ctx, &tg.AnswerCallbackQueryParams{CallbackQueryID: id, Text: text, ShowAlert: alert})
		return err
	})
}

func isBadRequest(err error, text string) bool {
	return errors.Is(err, tg.ErrorBadRequest) && strings.Contains(err.Error(), text)
}

// IsUnauthorized reports whether Telegram refused the token: revoked, or
// never valid. Nothing the bot retries will change that.
func IsUnauthorized(err error) bool { return errors.Is(err, tg.ErrorUnauthorized) }

// outcome classifies a failed call.
type outcome int

const (
	permanent outcome = iota // retrying will not help
	notDone                  // Telegram certainly did not act on it
	unclear                  // it may or may not have happened
)

// retryable reports whether a call may be tried again after a failure: a
// call that creates something only when Telegram certainly did not act on
// it, so that a person never sees a message twice.
func retryable(creating bool, out outcome) bool {
	return out == notDone || (out == unclear && !creating)
}

var serverError = regexp.MustCompile(`error response from telegram for method \w+, (5\d\d) `)

// classify says what a failed call means, and how long to wait before the
// attempt-th retry.
func classify(err error, attempt int) (outcome, time.Duration) {
	var tooMany *tg.TooManyRequestsError
	var migrate *tg.MigrateError
	var opErr *net.OpError
	backoff := time.Duration(attempt) * 500 * time.Millisecond
	switch {
	case err == nil:
		return permanent, 0
	case errors.As(err, &tooMany):
		return notDone, time.Duration(tooMany.RetryAfter) * time.Second
	case errors.As(err, &migrate), errors.Is(err, tg.ErrorBadRequest), errors.Is(err, tg.ErrorForbidden),
		errors.Is(err, tg.ErrorUnauthorized), errors.Is(err, tg.ErrorNotFound), errors.Is(err, tg.ErrorConflict):
		return permanent, 0
	case serverError.MatchString(err.Error()):
		return notDone, backoff // Telegram answered, with an error of its own
	case strings.Contains(err.Error(), "error response from telegram"):
		return permanent, 0 // another 4xx
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return notDone, backoff // the request never left
	}
	// Timeouts, dropped connections, bodies that are not Telegram's.
	return unclear, backoff
}

// scrubbed is an error whose text had the bot token removed.
type scrubbed struct {
	err error
	msg string
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// scrub removes the bot token from err's text: a proxy or a wrong
// TELEGRAM_API_URL may echo the request path, token and all, in its answer.
func Scrub(err error, token string) error {
	if err == nil || token == "" {
		return err
	}
	msg := err.Error()
	secret := token[strings.IndexByte(token, ':')+1:]
	if !strings.Contains(msg, secret) {
		return err
	}
	return &scrubbed{err: err, msg: strings.ReplaceAll(strings.ReplaceAll(msg, token, "***"), secret, "***")}
}

// ShareBudget divides the bot-wide budget of calls a second among
// replicas processes sending for the same bot; 1 gives this one all of it.
func (t *Telegram) ShareBudget(replicas int) {
	t.e.mu.Lock()
	t.e.s.share(replicas)
	t.e.mu.Unlock()
	t.e.poke()
}

// Inherit starts chat's budget as spent idle ago: another process wrote
// in it until then, as much as the budget allowed.
func (t *Telegram) Inherit(chat int64, idle time.Duration) {
	t.e.mu.Lock()
	t.e.s.inherit(chat, t.e.clock.Now(), idle)
	t.e.mu.Unlock()
}
