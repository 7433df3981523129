package bot

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
)

// The flow of an edited message:
//
//  1. An edit runs on a lane of its own, like a press, so that it is not
//     queued behind the very turn it changes. Only a text message's edit
//     counts; it must come from a person in a chat the bot talks in.
//  2. The stored message takes the edit's text (memory.DB.ApplyEdit):
//     the history, history_search and /export follow. A message never
//     stored changes nothing; neither does an edit that leaves the text
//     as it was, nor one older (by edit_date, then update) than an edit
//     applied before it. An edit that finds nothing, or whose message's
//     turn still waits in the chat's queue, is tried again in that queue,
//     after it: then the message is stored, and answered.
//  3. When the message's turn is running, it is cancelled: not shown as
//     stopped, nothing kept; its status message is the edit's to use.
//     When its answer is the newest answer where it was asked, that answer
//     is replaced in place, as a regenerate replaces it (regenerate.go).
//     When an earlier edit of the message waits in the chat's queue to
//     answer it, a later edit takes over that edit's status message, and
//     the earlier one, once it runs, changes nothing: the last edit is
//     answered, once. Edits are judged on their lanes one at a time, so
//     that of many edits at once each finds what the one before did. In
//     a group the edited message must still be meant for the bot, as the
//     group's answer mode has it. Either
//     way the rest goes on in the chat's queue, as a turn keyed by the
//     edit's update, showing itself in the status message or the answer.
//  4. An edit of an older message changes its stored text alone.

// errEdited ends the context of a turn whose message was edited.
var errEdited = errors.New("the message was edited")

// classifyEdit decides what an edited message is.
func (b *Bot) classifyEdit(m *models.Message) route {
	from := senderOf(m)
	switch {
	case !knownChat(m.Chat) || m.Chat.Type == models.ChatTypeChannel:
		return ignored("an edit in no chat the bot talks in")
	case from == nil || from.IsBot:
		return ignored("an edit by no person: the bot never answers bots")
	case m.Text == "":
		return ignored("an edit of media or a caption: the answer stands")
	}
	return route{what: verdictEdit, why: "an edited message: its stored text follows, and it may be answered again", msg: withSender(m, from)}
}

// onEdit handles an edited message.
func (b *Bot) onEdit(ctx context.Context, j *job, m *models.Message) error {
	if j.press { // edits of one message judged at once would each miss what the other did
		b.editing.Lock()
		defer b.editing.Unlock()
	}
	log := b.log.With("update_id", j.id, "chat_id", m.Chat.ID)
	text, _ := textOf(m)
	e := memory.Edit{Place: placeOf(m), TelegramID: m.ID, Text: text, Date: int64(m.EditDate), Update: j.id}
	stored, newest, earlier, err := b.db.ApplyEdit(ctx, e)
	switch {
	case err != nil:
		return err
	case !newest && j.press: // its message may wait in the chat's queue, not stored yet: tried again after it
		return errGoOnInChat
	case !newest:
		log.DebugContext(ctx, "edit changes nothing: the message is not stored, not changed, or a newer edit came first")
		return nil
	}
	meant, err := b.inAnswerMode(ctx, b.classifyMessage(m)) // in a group, as its answer mode has it (answermode.go)
	if err != nil {
		return err
	}
	if meant.what != verdictAnswer || stored.Sender == nil || !b.mayTalk(*stored.Sender) {
		log.InfoContext(ctx, "edit stored; its message is not one to answer")
		return nil
	}
	if j.press {
		return b.editArrived(ctx, j, stored, earlier)
	}
	return b.answerEdit(ctx, j, m, stored)
}

// editArrived, on the edit's own lane, cancels the edited message's
// running turn, and says whether the edit goes on in the chat's queue.
// earlier is the edit this one replaced, 0 when none.
func (b *Bot) editArrived(ctx context.Context, j *job, stored ryo.Message, earlier int64) error {
	if s, ok := b.running.byMessage(stored.ID); ok {
		status := s.shown.ID() // 0 when not posted yet: the edit posts its own
		if err := b.takeStatus(ctx, j, stored, status); err != nil {
			return err
		}
		s.edit()
		b.log.InfoContext(ctx, "edit of a message being answered: its turn is cancelled", "update_id", j.id, "turn", s.turn)
		return errGoOnInChat
	}
	if status, waits, err := b.waitingEdit(ctx, earlier); err != nil || waits {
		if err == nil {
			err = b.takeStatus(ctx, j, stored, status)
		}
		if err != nil {
			return err
		}
		b.log.InfoContext(ctx, "edit of a message whose earlier edit waits to be answered: this one is answered instead", "update_id", j.id, "earlier", earlier)
		return errGoOnInChat
	}
	state, _, err := b.db.UpdateState(ctx, stored.UpdateID)
	if err != nil {
		return err
	}
	if state != memory.StateDone && state != memory.StateFailed { // its turn waits in the queue: it answers first, then the edit
		return errGoOnInChat
	}
	_, ok, err := b.answerToEdit(ctx, j, stored)
	switch {
	case err != nil:
		return err
	case ok:
		return errGoOnInChat
	}
	b.log.InfoContext(ctx, "edit of an older message: its stored text alone changes", "update_id", j.id, "chat_id", stored.Place.ChatID)
	return nil
}

// takeStatus makes status, the message of a turn an edit cancelled (0
// when none was posted yet), the status message of edit j's turn.
func (b *Bot) takeStatus(ctx context.Context, j *job, stored ryo.Message, status int) error {
	return b.record(ctx, "remember status message", func(ctx context.Context) error {
		return b.db.SaveTurnStatus(ctx, j.id, stored.Place, status)
	})
}

// waitingEdit reports whether the earlier edit of a message waits in its
// chat's queue to answer it in place of the turn it cancelled, and that
// turn's status message: a later edit takes both over, as the earlier
// one, once it runs, finds itself replaced and changes nothing.
func (b *Bot) waitingEdit(ctx context.Context, earlier int64) (status int, waits bool, err error) {
	if earlier == 0 {
		return 0, false, nil
	}
	state, _, err := b.db.UpdateState(ctx, earlier)
	if err != nil || state == memory.StateDone || state == memory.StateFailed {
		return 0, false, err
	}
	prior, err := b.db.Turn(ctx, earlier)
	if err != nil || prior.CreatedAt.IsZero() { // it answers in place of an answer: the later edit finds that answer itself
		return 0, false, err
	}
	return prior.StatusMessageID, true, nil
}

// answerToEdit is what the edit's answer replaces: the newest answer at
// the message's place when it answers the message, or the status message
// of its cancelled turn (nil when that had none yet); ok is false when
// the edit is not to be answered.
func (b *Bot) answerToEdit(ctx context.Context, j *job, stored ryo.Message) (*replacing, bool, error) {
	newest, ok, err := b.db.NewestAnswer(ctx, stored.Place)
	if err != nil {
		return nil, false, err
	}
	var about answerAbout
	_ = json.Unmarshal(newest.Metadata, &about) // written by answerMetadata
	if ok && newest.ReplyTo == stored.TelegramID && newest.UpdateID != j.id && !about.Held {
		return &replacing{answer: newest, ids: answerIDs(newest)}, true, nil
	}
	prior, err := b.db.Turn(ctx, j.id)
	switch {
	case err != nil || prior.CreatedAt.IsZero(): // no turn was cancelled for it
		return nil, false, err
	case prior.StatusMessageID == 0:
		return nil, true, nil
	}
	return &replacing{ids: []int{prior.StatusMessageID}}, true, nil
}

// answerEdit answers the edited message, in its chat's queue, in place of
// its answer or in its cancelled turn's status message.
func (b *Bot) answerEdit(ctx context.Context, j *job, m *models.Message, stored ryo.Message) error {
	r, ok, err := b.answerToEdit(ctx, j, stored)
	if err != nil || !ok {
		return err
	}
	if r != nil {
		err = b.record(ctx, "remember status message", func(ctx context.Context) error {
			return b.db.SaveTurnStatus(ctx, j.id, stored.Place, r.ids[0])
		})
		if err != nil {
			return err
		}
	}
	t := talk{id: j.id, w: j.w, chat: chatOf(m.Chat), place: stored.Place, replyTo: stored.TelegramID, person: *stored.Sender,
		text: stored.Text, message: stored.ID, replaces: r, words: b.wordsOf(ctx, m), finished: &j.finished}
	return b.converse(ctx, t)
}

// edit cancels the turn because its message was edited, unless it was
// stopped already or its model is done; nothing of it is kept or shown.
func (s *stopper) edit() {
	s.mu.Lock()
	if s.over || s.stopped {
		s.mu.Unlock()
		return
	}
	s.stopped, s.edited = true, true
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel(errEdited)
	}
}

// cause is why a stopped turn's context ends. s.mu is held.
func (s *stopper) cause() error {
	if s.edited {
		return errEdited
	}
	return errStopped
}

// byMessage is the turn running for stored message id, when one does.
func (r *running) byMessage(id int64) (*stopper, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.turns {
		if s.message == id && id != 0 {
			return s, true
		}
	}
	return nil, false
}
