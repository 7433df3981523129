package stages

import (
	"context"
	"errors"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/render"
)

// Messenger is what stages needs from Telegram. The bot implements it with
// its delivery engine, which keeps every call within Telegram's limits: the
// methods differ in how much the call matters.
type Messenger interface {
	// Post sends the status message of a turn as a reply to message replyTo
	// (0: none) and returns its id. It waits for its turn behind final
	// answers; when ctx ends before it is sent it is withdrawn, never sent,
	// and ctx's error is returned. buttons, when given, are shown under it.
	Post(ctx context.Context, place ryo.Place, replyTo int, text render.Part, buttons ...Button) (int, error)
	// Send sends a message that must arrive — an answer — and returns its
	// id. buttons, when given, are shown under it.
	Send(ctx context.Context, place ryo.Place, replyTo int, text render.Part, buttons ...Button) (int, error)
	// SendFile sends data as a document named name, with a plain caption
	// ("" for none), as a reply to message replyTo (0: none), and returns
	// its id. Like Send, it must arrive.
	SendFile(ctx context.Context, place ryo.Place, replyTo int, name string, data []byte, caption string) (int, error)
	// Edit replaces the text of the bot's message id, and its buttons with
	// buttons (none when none are given), and must arrive. It returns nil
	// when the text and buttons are already those, and ErrMessageGone when
	// the message no longer exists.
	Edit(ctx context.Context, place ryo.Place, id int, text render.Part, buttons ...Button) error
	// Markup replaces only the buttons of the bot's message id (none when
	// none are given), and must arrive; like Edit, nil when they are
	// already those, ErrMessageGone when the message no longer exists.
	Markup(ctx context.Context, place ryo.Place, id int, buttons ...Button) error
	// Delete removes the bot's message id; ErrMessageGone when it is gone.
	Delete(ctx context.Context, place ryo.Place, id int) error
	// Progress edits message id to show progress. It does not wait: a newer
	// Progress of the same message replaces one not yet sent, and it may be
	// dropped when Telegram's budget is short or ctx ends. The message shows
	// buttons afterwards, and none when none are given (as after Edit).
	Progress(ctx context.Context, place ryo.Place, id int, text render.Part, buttons ...Button)
	// Draft streams text into the private chat's draft draftID, like
	// Progress. done is told, once, nil when the draft was shown, an error
	// wrapping ErrDraftsUnsupported when drafts do not work there (the turn
	// then shows its progress by edits), or another error when this draft
	// was not shown.
	Draft(ctx context.Context, place ryo.Place, draftID int64, text string, done func(error))
	// Typing shows "typing…" at place for a few seconds; it may be dropped.
	Typing(ctx context.Context, place ryo.Place)
}

// Button is an inline button under a status message or an answer:
// pressed, Telegram sends Data back to the bot.
type Button struct {
	Text, Data string
}

// ErrMessageGone is returned by Messenger.Edit and Delete for a message
// that was deleted or cannot be edited any more.
var ErrMessageGone = errors.New("message is gone")

// ErrDraftsUnsupported tells a Draft's done that Telegram refuses drafts
// here, as an old Bot API server or a chat without them does.
var ErrDraftsUnsupported = errors.New("drafts are not supported here")
