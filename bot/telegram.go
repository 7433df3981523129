package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"time"

	tg "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/stages"
)

// telegram sends the bot's calls to the Bot API, each with a deadline. What
// it retries depends on the call: a call that is safe to repeat (an edit, a
// chat action, getMe) is retried after any passing failure; a call that
// creates something (sendMessage) only when Telegram certainly did not act on
// it — a 429, Telegram's own 5xx answer, a connection that was never made —
// so that a person never sees a message twice. 429s wait exactly the
// retry_after Telegram asks for.
type telegram struct {
	api     *tg.Bot
	token   string // to scrub from errors
	timeout time.Duration
	log     *slog.Logger
}

const callAttempts = 3

func newTelegram(cfg Config, log *slog.Logger) (*telegram, error) {
	api, err := tg.New(cfg.Token.Reveal(),
		tg.WithServerURL(strings.TrimRight(cfg.APIURL, "/")),
		tg.WithSkipGetMe(),
		tg.WithHTTPClient(cfg.CallTimeout, &http.Client{Timeout: cfg.CallTimeout + 5*time.Second}),
		tg.WithErrorsHandler(func(err error) { log.Debug("telegram client", "err", scrub(err, cfg.Token.Reveal())) }),
	)
	if err != nil {
		return nil, fmt.Errorf("telegram client: %w", err)
	}
	return &telegram{api: api, token: cfg.Token.Reveal(), timeout: cfg.CallTimeout, log: log}, nil
}

// callKind says how a call may be retried.
type callKind int

const (
	repeatable callKind = iota // doing it twice is harmless
	creating                   // doing it twice shows the person something twice
	bestEffort                 // one attempt; failure does not matter much
)

// outcome classifies a failed call.
type outcome int

const (
	permanent outcome = iota // retrying will not help
	notDone                  // Telegram certainly did not act on it
	unclear                  // it may or may not have happened
)

// call runs fn with a deadline, retrying failures as kind allows.
func (t *telegram) call(ctx context.Context, method string, kind callKind, fn func(ctx context.Context) error) error {
	var err error
	var out outcome
	for attempt := 1; ; attempt++ {
		callCtx, cancel := context.WithTimeout(ctx, t.timeout)
		err = scrub(fn(callCtx), t.token)
		cancel()
		var wait time.Duration
		out, wait = classify(err, attempt)
		if err == nil || !retryable(kind, out) || kind == bestEffort || attempt == callAttempts || ctx.Err() != nil {
			break
		}
		t.log.Warn("telegram call failed; retrying", "method", method, "wait", wait, "err", err)
		if !sleep(ctx, wait) {
			break
		}
	}
	switch {
	case err == nil:
		return nil
	case retryable(kind, out):
		return fmt.Errorf("telegram %s: %w: %w", method, errTelegramUnavailable, err)
	}
	return fmt.Errorf("telegram %s: %w", method, err)
}

func retryable(kind callKind, out outcome) bool {
	return out == notDone || (out == unclear && kind != creating)
}

// errTelegramUnavailable marks calls that failed for a passing reason after
// their retries, in a way that is safe to try again later. The update that
// made them is tried again rather than given up.
var errTelegramUnavailable = errors.New("telegram unavailable")

var serverError = regexp.MustCompile(`error response from telegram for method \w+, (5\d\d) `)

// classify says what a failed call means, and when to try again.
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
func scrub(err error, token string) error {
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

// sleep waits d or until ctx ends, and reports whether it waited in full.
func sleep(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Send implements stages.Messenger.
func (t *telegram) Send(ctx context.Context, place ryo.Place, replyTo int, text string) (int, error) {
	params := &tg.SendMessageParams{ChatID: place.ChatID, MessageThreadID: place.Thread, Text: text}
	if replyTo != 0 {
		params.ReplyParameters = &models.ReplyParameters{MessageID: replyTo, AllowSendingWithoutReply: true}
	}
	var id int
	err := t.call(ctx, "sendMessage", creating, func(ctx context.Context) error {
		m, err := t.api.SendMessage(ctx, params)
		if err == nil {
			id = m.ID
		}
		return err
	})
	return id, err
}

// Edit implements stages.Messenger.
func (t *telegram) Edit(ctx context.Context, place ryo.Place, id int, text string) error {
	params := &tg.EditMessageTextParams{ChatID: place.ChatID, MessageID: id, Text: text}
	err := t.call(ctx, "editMessageText", repeatable, func(ctx context.Context) error {
		_, err := t.api.EditMessageText(ctx, params)
		return err
	})
	switch {
	case isBadRequest(err, "message is not modified"):
		return nil
	case isBadRequest(err, "message to edit not found"), isBadRequest(err, "message can't be edited"):
		return fmt.Errorf("%w: %w", stages.ErrMessageGone, err)
	}
	return err
}

// Typing implements stages.Messenger.
func (t *telegram) Typing(ctx context.Context, place ryo.Place) error {
	return t.call(ctx, "sendChatAction", bestEffort, func(ctx context.Context) error {
		_, err := t.api.SendChatAction(ctx, &tg.SendChatActionParams{
			ChatID: place.ChatID, MessageThreadID: place.Thread, Action: models.ChatActionTyping})
		return err
	})
}

func isBadRequest(err error, text string) bool {
	return errors.Is(err, tg.ErrorBadRequest) && strings.Contains(err.Error(), text)
}

// me asks Telegram who the bot is.
func (t *telegram) me(ctx context.Context) (*models.User, error) {
	var me *models.User
	err := t.call(ctx, "getMe", repeatable, func(ctx context.Context) error {
		var err error
		me, err = t.api.GetMe(ctx)
		return err
	})
	return me, err
}

func (t *telegram) setCommands(ctx context.Context, cmds []models.BotCommand) error {
	return t.call(ctx, "setMyCommands", repeatable, func(ctx context.Context) error {
		_, err := t.api.SetMyCommands(ctx, &tg.SetMyCommandsParams{Commands: cmds})
		return err
	})
}

func (t *telegram) deleteWebhook(ctx context.Context) error {
	return t.call(ctx, "deleteWebhook", repeatable, func(ctx context.Context) error {
		_, err := t.api.DeleteWebhook(ctx, &tg.DeleteWebhookParams{DropPendingUpdates: false})
		return err
	})
}

func (t *telegram) answerCallback(ctx context.Context, id, text string) error {
	return t.call(ctx, "answerCallbackQuery", repeatable, func(ctx context.Context) error {
		_, err := t.api.AnswerCallbackQuery(ctx, &tg.AnswerCallbackQueryParams{CallbackQueryID: id, Text: text})
		return err
	})
}

func isUnauthorized(err error) bool { return errors.Is(err, tg.ErrorUnauthorized) }
