package bot

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/stages"
)

// The flow of a regenerate:
//
//  1. The newest answer at a place (a chat, or a forum topic) carries 🔄
//     (answerbuttons.go), whose data names its turn and chat. When a newer
//     answer is delivered there, the older one's 🔄 is taken off.
//  2. A press is stored in the inbox and runs on a lane of its own, like
//     every press. It is judged against PostgreSQL alone, so it works the
//     same after a restart: the data must name a stored answer of the chat
//     it is pressed in, the newest there, not one that asks to confirm an
//     action; the presser must be the person who asked — for a question
//     asked as the group or as a channel, one who speaks for it
//     (speaksFor), as a press always names a person. It is answered
//     once, and the rest goes on in the chat's queue: one turn at a time.
//  3. The regenerate is a turn keyed by the press's update. Its status
//     shows in the old answer's message (stages.Start.InPlace), with ⏹
//     Stop; the model is asked with the history the old answer's turn had
//     — the old answer, and what came after it, left out. ryo does not fix
//     the model server's seed, so the new answer may differ.
//  4. The new answer is edited into the old answer's first message; more
//     parts are sent, the old answer's other messages deleted. The old
//     answer leaves the history in the transaction that stores the new one
//     (memory.DB.FinishReplacing). A regenerate cut short resumes from the
//     inbox like any turn: its status message is the old answer's, saved
//     before it begins, and a press that began is not judged again.

// Texts of regenerates.
const (
	regenerating        = "🔄 Making a new answer…"
	regenerateOld       = "Only the newest answer here can be made again."
	regenerateGone      = "This answer can no longer be made again."
	regenerateElsewhere = "This button does not belong to this chat."
)

// replacing is the answer a turn replaces in place.
type replacing struct {
	answer ryo.Message
	ids    []int // the messages that carry it, the first first
}

// onRegenerate handles a press of 🔄.
func (b *Bot) onRegenerate(ctx context.Context, j *job, q *models.CallbackQuery) error {
	log := b.log.With("update_id", j.id, "user_id", q.From.ID)
	p := b.wordsAt(ctx, q)
	update, chat, ok := parseRegenerate(q.Data)
	if !ok {
		log.InfoContext(ctx, "regenerate press with unreadable data")
		return b.answerPress(ctx, j.w, q, p.Sprintf(staleButton), false)
	}
	if pressedIn(q) != chat {
		log.WarnContext(ctx, "regenerate press naming another chat's answer", "turn", update, "named_chat", chat, "chat_id", pressedIn(q))
		return b.answerPress(ctx, j.w, q, p.Sprintf(regenerateElsewhere), true)
	}
	prior, err := b.db.Turn(ctx, j.id)
	if err != nil {
		return err
	}
	old, found, err := b.db.AnswerOfTurn(ctx, update)
	if err != nil {
		return err
	}
	begun := prior.StatusMessageID != 0 // this press began before a restart: it was judged then
	if !begun {
		if !found && j.press && b.delivering(ctx, update) { // judged once its answer is stored, in the chat's queue
			return errGoOnInChat
		}
		text, err := b.judgeRegenerate(ctx, q, p, chat, old, found)
		if err != nil {
			return err
		}
		if text != "" {
			log.InfoContext(ctx, "regenerate refused", "turn", update, "chat_id", chat, "outcome", text)
			if j.told { // things changed while it waited in the chat's queue
				return nil
			}
			return b.answerPress(ctx, j.w, q, text, true)
		}
		if !j.told {
			log.InfoContext(ctx, "regenerate pressed", "turn", update, "chat_id", chat)
			if err := b.answerPress(ctx, j.w, q, p.Sprintf(regenerating), false); err != nil {
				return err
			}
			j.told = true
		}
	}
	if j.press {
		return errGoOnInChat
	}
	if !found {
		return nil // replaced by an earlier run, which was done
	}
	return b.regenerate(ctx, j, q, p, old)
}

// delivering reports whether turn update is under way: its answer, once
// stored, may be made again.
func (b *Bot) delivering(ctx context.Context, update int64) bool {
	t, err := b.db.Turn(ctx, update)
	return err == nil && (t.StatusMessageID != 0 || t.Answer != "")
}

// judgeRegenerate says why a press may not make old again; "" when it
// may.
func (b *Bot) judgeRegenerate(ctx context.Context, q *models.CallbackQuery, p lang.Printer, chat int64, old memory.Answered, found bool) (string, error) {
	var about answerAbout
	_ = json.Unmarshal(old.Answer.Metadata, &about) // written by answerMetadata
	if !found || old.Answer.Place.ChatID != chat || about.Held || old.Question.Sender == nil {
		return p.Sprintf(regenerateGone), nil
	}
	newest, _, err := b.db.NewestAnswer(ctx, old.Answer.Place)
	if err != nil {
		return "", err
	}
	if newest.ID != old.Answer.ID {
		b.takeOff(ctx, old.Answer) // its 🔄 stayed: a crash, or Telegram refused
		return p.Sprintf(regenerateOld), nil
	}
	presser, err := b.db.SaveUser(ctx, pressedBy(q), false)
	if err != nil {
		return "", err
	}
	asker := *old.Question.Sender
	may := b.mayTalk(presser)
	if may && presser.ID != asker.ID { // asked as a chat: a press names the person, who may speak for it (access.go)
		if may, err = b.speaksFor(ctx, presser, asker.ID, chat); err != nil {
			return "", err
		}
	}
	if !may {
		return p.Sprintf("Only %s can ask for this answer again.", deciders(p, asker.ID, chat, displayName(p, asker))), nil
	}
	return "", nil
}

// regenerate runs the turn that makes old again, in its chat's queue.
func (b *Bot) regenerate(ctx context.Context, j *job, q *models.CallbackQuery, p lang.Printer, old memory.Answered) error {
	a := old.Answer
	ids := answerIDs(a)
	err := b.record(ctx, "remember status message", func(ctx context.Context) error {
		return b.db.SaveTurnStatus(ctx, j.id, a.Place, ids[0])
	})
	if err != nil {
		return err
	}
	t := talk{id: j.id, w: j.w, chat: chatOfPlace(q, a.Place), place: a.Place, replyTo: a.ReplyTo, person: *old.Question.Sender,
		text: old.Question.Text, message: old.Question.ID, replaces: &replacing{answer: a, ids: ids}, words: p, finished: &j.finished}
	return b.converse(ctx, t)
}

// chatOfPlace is the chat a press came from, as far as it is known.
func chatOfPlace(q *models.CallbackQuery, place ryo.Place) ryo.Chat {
	if q.Message.Message != nil {
		return chatOf(q.Message.Message.Chat)
	}
	c := ryo.Chat{ID: place.ChatID, Type: ryo.ChatSupergroup}
	if c.ID > 0 {
		c.Type = ryo.ChatPrivate
	}
	return c
}

// answerIDs are the messages that carry answer a, the first first.
func answerIDs(a ryo.Message) []int {
	var meta struct {
		IDs []int `json:"message_ids"`
	}
	_ = json.Unmarshal(a.Metadata, &meta) // written by withMessageIDs
	if len(meta.IDs) == 0 {
		return []int{a.TelegramID}
	}
	return meta.IDs
}

// withoutReplaced is the history a turn that replaces an answer shows the
// model: what its turn was shown, without the answer, the tool results
// its turn stored, and anything after it.
func (t talk) withoutReplaced(history []ryo.Message) []ryo.Message {
	if t.replaces == nil || t.replaces.answer.ID == 0 {
		return history
	}
	old := t.replaces.answer
	return slices.DeleteFunc(history, func(m ryo.Message) bool {
		return m.ID >= old.ID || m.Kind == ryo.KindToolResult && m.UpdateID == old.UpdateID
	})
}

// afterAnswer tidies up around a delivered and stored answer, carried by
// ids: the answer it replaced loses its other messages; in a private chat
// the answer before it (before, as finishTurn found it) loses its 🔄.
// Both are best effort: a press on a 🔄 left behind is refused, and takes
// it off. (In a group, whose messages Telegram allows 20 a minute, an
// edit for every answer would slow the answers down by half; there the 🔄
// goes when someone presses it.)
func (b *Bot) afterAnswer(ctx context.Context, t talk, ids []int, before ryo.Message) {
	if r := t.replaces; r != nil {
		for _, id := range r.ids {
			if slices.Contains(ids, id) {
				continue
			}
			err := t.w.idle(func() error { return b.tg.Delete(ctx, t.place, id) })
			if err != nil && !errors.Is(err, stages.ErrMessageGone) {
				b.log.WarnContext(ctx, "could not delete a replaced answer's message", "chat_id", t.chat.ID, "message_id", id, "err", err)
			}
		}
		return
	}
	if t.place.ChatID < 0 || before.ID == 0 || before.UpdateID == t.id { // a group's 20 messages a minute are kept for answers
		return
	}
	b.takeOff(ctx, before)
}

// takeOff takes 🔄 off answer a, keeping its other buttons, when
// Telegram's budget allows: in a busy group it may stay, and a press on it
// is refused.
func (b *Bot) takeOff(ctx context.Context, a ryo.Message) {
	var about answerAbout
	_ = json.Unmarshal(a.Metadata, &about) // written by answerMetadata and withButtons
	kept, had := withoutRegenerate(about.Buttons)
	if !had || about.ButtonsOn == 0 {
		return
	}
	b.tg.MarkupLater(ctx, a.Place, about.ButtonsOn, kept...)
}

// finishTurn stores the delivered answer msg and marks its update done;
// in place of the answer it replaces, when it replaces one. It returns
// the answer stored before msg at its place, when it does not replace one
// (memory.Finished): the one whose 🔄 goes (afterAnswer).
func (b *Bot) finishTurn(ctx context.Context, t talk, msg ryo.Message, tags []string) (ryo.Message, error) {
	var before ryo.Message
	var err error
	if t.replaces != nil {
		_, err = b.db.FinishReplacing(ctx, msg, tags, t.replaces.answer)
	} else {
		var f memory.Finished
		f, err = b.db.FinishAnswer(ctx, msg, tags)
		before = f.Before
	}
	if err == nil && t.finished != nil {
		*t.finished = true
	}
	return before, err
}
