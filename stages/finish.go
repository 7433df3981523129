package stages

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/render"
)

// pauseTimeout bounds the edit that marks a status message paused: it is
// made while the bot shuts down.
const pauseTimeout = 3 * time.Second

// maxParts is the most messages an answer comes in. A longer one would
// fill the chat: its first part comes as a message, ending with fileNote,
// and the whole answer follows as a Markdown file.
const maxParts = 3

const fileNote = "… the whole answer is in the file below"

// Finish delivers the answer and resolves the status message.
//
// A quick answer (under Config.NotifyAfter) replaces the status message:
// one message, no noise. A slower one arrives as a new message, so that
// the person, who has likely turned to something else, is notified; the
// status message is then collapsed to one line — how long it took and the
// tools that ran — which keeps a record of what was done right above the
// answer. (A status message whose reply streamed into a draft is deleted
// instead when the answer was quick: the answer must be a new message
// there, and the line would say nothing the person has not just watched.)
// Parts of a long answer follow as replies to the person's message; an
// answer of more than maxParts parts comes as its first part, which says
// that the whole answer is in the file below, and the whole answer as a
// Markdown file answer-<turn id>.md.
//
// delivered holds the messages an interrupted delivery of the same answer
// already sent, the first part first (the file after it): those are not
// sent again, and the delivery keeps the way it had chosen. record, when
// not nil, is told the ids delivered so far after each message, so that
// they can be remembered. Finish returns the ids of the messages that
// carry the answer, the file's last.
//
// buttons go under the answer's last text message — the one the person
// reads last; with a file, the part that says the file follows. A message
// an earlier delivery sent is given them again, in case it was sent
// before they were known.
func (t *Turn) Finish(ctx context.Context, answer string, tools []string, delivered []int, record func([]int) error, buttons ...Button) ([]int, error) {
	t.stop()
	took := t.o.cfg.Clock.Now().Sub(t.board.began)
	drafted := t.mayHaveDrafted()
	parts, file := layout(t.s.Words, answer)
	if record == nil {
		record = func([]int) error { return nil }
	}
	replaces := t.replaces(took, drafted, delivered)
	var ids []int
	var err error
	out := delivery{parts: parts, delivered: delivered, record: record, buttons: buttons}
	if replaces {
		ids, err = t.replace(ctx, out)
	} else {
		ids, err = t.sendParts(ctx, out, nil)
	}
	if err == nil && file != nil {
		ids, err = t.attach(ctx, file, ids, delivered, record)
	}
	if err != nil || replaces {
		return ids, err
	}
	return ids, t.collapse(ctx, took, drafted, tools)
}

// ButtonsOn is the message that carries the answer's buttons, its last
// text message, once Finish delivered it; 0 before.
func (t *Turn) ButtonsOn() int { return t.buttonsOn }

// layout renders the answer into the messages it comes in, and the file
// that holds it all when there are too many: nil when none.
func layout(w lang.Printer, answer string) ([]render.Part, []byte) {
	if strings.TrimSpace(render.StripThinking(answer)) == "" && strings.TrimSpace(answer) != "" {
		answer = w.Sprintf("(no answer: the model only thought about it)") // thinking is never shown
	}
	parts := render.Markdown(answer, render.MaxUnits)
	if len(parts) <= maxParts {
		return parts, nil
	}
	lead := render.Lead(answer, render.MaxUnits, w.Sprintf(fileNote))
	return []render.Part{lead}, []byte(strings.TrimSpace(render.StripThinking(answer)) + "\n")
}

// attach sends the whole answer as a file after the messages in ids,
// unless an earlier delivery sent it.
func (t *Turn) attach(ctx context.Context, file []byte, ids, delivered []int, record func([]int) error) ([]int, error) {
	if n := len(ids); n < len(delivered) && delivered[n] != 0 {
		return append(ids, delivered[n]), nil
	}
	name := fmt.Sprintf("answer-%d.md", t.s.TurnID)
	id, err := t.o.m.SendFile(ctx, t.s.Place, t.s.ReplyTo, name, file, "")
	if err != nil {
		return ids, fmt.Errorf("send the answer as a file: %w", err)
	}
	ids = append(ids, id)
	return ids, record(ids)
}

// replaces reports whether the answer goes into the status message. After
// a draft it must come as a message of its own, which ends the draft.
func (t *Turn) replaces(took time.Duration, drafted bool, delivered []int) bool {
	if len(delivered) > 0 || t.s.InPlace {
		return t.id != 0 && (len(delivered) == 0 || delivered[0] == t.id)
	}
	return t.id != 0 && took < t.o.cfg.NotifyAfter && !drafted
}

// delivery is the text of an answer on its way: its parts, the messages
// an interrupted delivery sent, and the buttons of its last part.
type delivery struct {
	parts     []render.Part
	delivered []int
	record    func([]int) error
	buttons   []Button
}

// buttonsOf are the buttons of part n: the last part's.
func (d delivery) buttonsOf(n int) []Button {
	if n == len(d.parts)-1 {
		return d.buttons
	}
	return nil
}

// replace turns the status message into the first part, then sends the
// rest.
func (t *Turn) replace(ctx context.Context, d delivery) ([]int, error) {
	if err := t.rewrite(ctx, d.parts[0], d.buttonsOf(0)...); err != nil {
		return nil, err
	}
	t.carries = true
	t.buttonsOn = t.id
	ids := []int{t.id}
	if len(d.delivered) == 0 {
		if err := d.record(ids); err != nil {
			return ids, err
		}
	}
	return t.sendParts(ctx, d, ids)
}

// sendParts sends the parts not in ids as replies to the person's message
// after the messages in ids, reusing those an earlier delivery sent.
func (t *Turn) sendParts(ctx context.Context, d delivery, ids []int) ([]int, error) {
	for n := len(ids); n < len(d.parts); n = len(ids) {
		buttons := d.buttonsOf(n)
		if n < len(d.delivered) && d.delivered[n] != 0 {
			ids = append(ids, d.delivered[n])
			t.buttonsOn = ids[len(ids)-1]
			if err := t.remark(ctx, d.delivered[n], buttons); err != nil {
				return ids, err
			}
			continue
		}
		id, err := t.o.m.Send(ctx, t.s.Place, t.s.ReplyTo, d.parts[n], buttons...)
		if err != nil {
			return ids, fmt.Errorf("send answer part %d: %w", n+1, err)
		}
		ids = append(ids, id)
		t.buttonsOn = id
		if err := d.record(ids); err != nil {
			return ids, err
		}
	}
	return ids, nil
}

// remark gives the last part, sent by an interrupted delivery, its
// buttons again: it may have been sent before they were known.
func (t *Turn) remark(ctx context.Context, id int, buttons []Button) error {
	if len(buttons) == 0 {
		return nil
	}
	if err := t.o.m.Markup(ctx, t.s.Place, id, buttons...); err != nil && !errors.Is(err, ErrMessageGone) {
		return fmt.Errorf("show the answer's buttons: %w", err)
	}
	return nil
}

// collapse resolves the status message of an answer that came as new
// messages: a summary line, or nothing after a quick drafted reply.
func (t *Turn) collapse(ctx context.Context, took time.Duration, drafted bool, tools []string) error {
	if t.id == 0 {
		return nil
	}
	var err error
	if drafted && took < t.o.cfg.NotifyAfter {
		err = t.o.m.Delete(ctx, t.s.Place, t.id)
	} else {
		line := summary(t.s.Words, took, tools)
		if t.wasStopped() {
			line = stoppedSummary(t.s.Words, took, tools)
		}
		err = t.o.m.Edit(ctx, t.s.Place, t.id, render.Part{Plain: line})
	}
	if errors.Is(err, ErrMessageGone) {
		return nil
	}
	return err
}

// Fail turns the status message into a short explanation of why there is
// no answer, or sends one when there is no status message or it carries
// part of the answer already.
func (t *Turn) Fail(ctx context.Context, reason string) error {
	t.stop()
	text := render.Text(failedPrefix+reason, render.MaxUnits)
	if t.carries {
		_, err := t.o.m.Send(ctx, t.s.Place, t.s.ReplyTo, text)
		return err
	}
	return t.rewrite(ctx, text)
}

// Pause marks the status message as paused, for a turn cut short by a
// shutdown or an outage that will be picked up again, so that it does not
// go on showing progress meanwhile. It is best effort and quick.
func (t *Turn) Pause(ctx context.Context) {
	t.stop()
	if t.id == 0 || t.carries {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pauseTimeout)
	defer cancel()
	if err := t.o.m.Edit(ctx, t.s.Place, t.id, render.Part{Plain: t.s.Words.Sprintf(pausedText)}); err != nil && !errors.Is(err, ErrMessageGone) {
		t.o.cfg.Log.WarnContext(ctx, "could not mark the status message paused", "chat_id", t.s.Place.ChatID, "err", err)
	}
}

// rewrite edits the status message into text, or posts text as a new
// reply when there is no status message or the person deleted it.
func (t *Turn) rewrite(ctx context.Context, text render.Part, buttons ...Button) error {
	if t.id != 0 {
		err := t.o.m.Edit(ctx, t.s.Place, t.id, text, buttons...)
		if !errors.Is(err, ErrMessageGone) {
			return err
		}
	}
	id, err := t.o.m.Send(ctx, t.s.Place, t.s.ReplyTo, text, buttons...)
	if err != nil {
		return err
	}
	t.id = id
	return nil
}
