package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	tg "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/stages"
)

// telegram sends the bot's calls to the Bot API, each with a deadline,
// retrying what is worth retrying: network failures, server errors, and 429s
// after exactly the retry_after Telegram asks for.
type telegram struct {
	api     *tg.Bot
	timeout time.Duration
	log     *slog.Logger
}

const callAttempts = 3

func newTelegram(cfg Config, log *slog.Logger) (*telegram, error) {
	api, err := tg.New(cfg.Token.Reveal(),
		tg.WithServerURL(strings.TrimRight(cfg.APIURL, "/")),
		tg.WithSkipGetMe(),
		tg.WithHTTPClient(cfg.CallTimeout, &http.Client{Timeout: cfg.CallTimeout + 5*time.Second}),
		tg.WithErrorsHandler(func(err error) { log.Debug("telegram client", "err", err) }),
	)
	if err != nil {
		return nil, fmt.Errorf("telegram client: %w", err)
	}
	return &telegram{api: api, timeout: cfg.CallTimeout, log: log}, nil
}

// call runs fn with a deadline, retrying transient failures.
func (t *telegram) call(ctx context.Context, method string, fn func(ctx context.Context) error) error {
	var err error
	for attempt := 1; attempt <= callAttempts; attempt++ {
		callCtx, cancel := context.WithTimeout(ctx, t.timeout)
		err = fn(callCtx)
		cancel()
		wait, retry := retryAfter(err, attempt)
		if !retry || attempt == callAttempts || ctx.Err() != nil {
			break
		}
		t.log.Warn("telegram call failed; retrying", "method", method, "wait", wait, "err", err)
		if !sleep(ctx, wait) {
			break
		}
	}
	if _, transient := retryAfter(err, 1); transient {
		return fmt.Errorf("telegram %s: %w: %w", method, errTelegramUnavailable, err)
	}
	if err != nil {
		return fmt.Errorf("telegram %s: %w", method, err)
	}
	return nil
}

// errTelegramUnavailable marks calls that failed for a passing reason —
// network, server errors, flood control — after their retries. The update
// that made them is tried again later rather than given up.
var errTelegramUnavailable = errors.New("telegram unavailable")

// retryAfter says whether a failed call is worth another attempt, and when.
func retryAfter(err error, attempt int) (time.Duration, bool) {
	var tooMany *tg.TooManyRequestsError
	var migrate *tg.MigrateError
	switch {
	case err == nil:
		return 0, false
	case errors.As(err, &tooMany):
		return time.Duration(tooMany.RetryAfter) * time.Second, true
	case errors.As(err, &migrate), errors.Is(err, tg.ErrorBadRequest), errors.Is(err, tg.ErrorForbidden),
		errors.Is(err, tg.ErrorUnauthorized), errors.Is(err, tg.ErrorNotFound), errors.Is(err, tg.ErrorConflict):
		return 0, false
	}
	// Network failures, timeouts, 5xx and bodies that are not Telegram's.
	return time.Duration(attempt) * 500 * time.Millisecond, true
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
	err := t.call(ctx, "sendMessage", func(ctx context.Context) error {
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
	err := t.call(ctx, "editMessageText", func(ctx context.Context) error {
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
	return t.call(ctx, "sendChatAction", func(ctx context.Context) error {
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
	err := t.call(ctx, "getMe", func(ctx context.Context) error {
		var err error
		me, err = t.api.GetMe(ctx)
		return err
	})
	return me, err
}

func (t *telegram) setCommands(ctx context.Context, cmds []models.BotCommand) error {
	return t.call(ctx, "setMyCommands", func(ctx context.Context) error {
		_, err := t.api.SetMyCommands(ctx, &tg.SetMyCommandsParams{Commands: cmds})
		return err
	})
}

func (t *telegram) deleteWebhook(ctx context.Context) error {
	return t.call(ctx, "deleteWebhook", func(ctx context.Context) error {
		_, err := t.api.DeleteWebhook(ctx, &tg.DeleteWebhookParams{DropPendingUpdates: false})
		return err
	})
}

func (t *telegram) answerCallback(ctx context.Context, id, text string) error {
	return t.call(ctx, "answerCallbackQuery", func(ctx context.Context) error {
		_, err := t.api.AnswerCallbackQuery(ctx, &tg.AnswerCallbackQueryParams{CallbackQueryID: id, Text: text})
		return err
	})
}

func isUnauthorized(err error) bool { return errors.Is(err, tg.ErrorUnauthorized) }
