package stages

import (
	"context"
	"errors"
	"fmt"

	"github.com/ryo-bot/ryo"
)

// Messenger is what stages needs from the chat. The bot implements it.
type Messenger interface {
	// Send posts text at place, replying to message replyTo when it is not 0,
	// and returns the new message's id.
	Send(ctx context.Context, place ryo.Place, replyTo int, text string) (int, error)
	// Edit replaces the text of the bot's message id. It returns nil when the
	// text is already that, and ErrMessageGone when the message no longer
	// exists.
	Edit(ctx context.Context, place ryo.Place, id int, text string) error
	// Typing shows the "typing…" action at place for a few seconds.
	Typing(ctx context.Context, place ryo.Place) error
}

// ErrMessageGone is returned by Messenger.Edit for a message that was
// deleted or cannot be edited any more.
var ErrMessageGone = errors.New("message to edit is gone")

// Texts shown in the status message.
const (
	thinkingText = "⏳ Thinking…"
	resumedText  = "⏳ Thinking… (picked up again after an interruption)"
	failedPrefix = "⚠️ "
)

// Status is the live status message of one turn.
type Status struct {
	m       Messenger
	place   ryo.Place
	replyTo int
	id      int
}

// Begin posts the status message of a turn that answers message replyTo at
// place. When adopt is not 0 the turn was interrupted after posting status
// message adopt, and Begin takes it over instead of posting another.
func Begin(ctx context.Context, m Messenger, place ryo.Place, replyTo, adopt int) (*Status, error) {
	s := &Status{m: m, place: place, replyTo: replyTo, id: adopt}
	_ = m.Typing(ctx, place) // best effort: the status message says the same
	if adopt != 0 {
		err := m.Edit(ctx, place, adopt, resumedText)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, ErrMessageGone) {
			return nil, fmt.Errorf("adopt status message: %w", err)
		}
	}
	id, err := m.Send(ctx, place, replyTo, thinkingText)
	if err != nil {
		return nil, fmt.Errorf("post status message: %w", err)
	}
	s.id = id
	return s, nil
}

// Adopt takes over status message id of an interrupted turn as it is, for a
// turn that already knows its answer and only has to deliver it.
func Adopt(m Messenger, place ryo.Place, replyTo, id int) *Status {
	return &Status{m: m, place: place, replyTo: replyTo, id: id}
}

// ID is the status message's id.
func (s *Status) ID() int { return s.id }

// Finish turns the status message into the answer. Parts of an answer too
// long for one message follow as replies to the person's message. delivered
// holds the messages an earlier, interrupted delivery of the same answer
// already sent (the status message first): those parts are not sent again.
// record, when not nil, is told the ids delivered so far after each new
// part, so that they can be remembered. Finish returns the ids of the
// messages that carry the answer, the status message first.
func (s *Status) Finish(ctx context.Context, answer string, delivered []int, record func([]int) error) ([]int, error) {
	parts := Split(answer, MaxMessageUnits)
	if err := s.replace(ctx, parts[0]); err != nil {
		return nil, err
	}
	ids := []int{s.id}
	for i, part := range parts[1:] {
		if i+1 < len(delivered) && delivered[i+1] != 0 {
			ids = append(ids, delivered[i+1])
			continue
		}
		id, err := s.m.Send(ctx, s.place, s.replyTo, part)
		if err != nil {
			return ids, fmt.Errorf("send answer part %d of %d: %w", i+2, len(parts), err)
		}
		ids = append(ids, id)
		if record != nil {
			if err := record(ids); err != nil {
				return ids, err
			}
		}
	}
	return ids, nil
}

// Fail turns the status message into a short explanation of what went wrong.
func (s *Status) Fail(ctx context.Context, reason string) error {
	return s.replace(ctx, Split(failedPrefix+reason, MaxMessageUnits)[0])
}

// replace edits the status message, or posts a new one when the person
// deleted it meanwhile.
func (s *Status) replace(ctx context.Context, text string) error {
	err := s.m.Edit(ctx, s.place, s.id, text)
	if !errors.Is(err, ErrMessageGone) {
		return err
	}
	id, err := s.m.Send(ctx, s.place, s.replyTo, text)
	if err != nil {
		return err
	}
	s.id = id
	return nil
}
