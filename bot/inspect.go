package bot

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	tg "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/stages"
)

// The flow of an inspection:
//
//  1. A turn's steps are recorded as they happen and stored with its
//     answer (trace.go). An answer that used tools carries 🔍 on its last
//     message; its data names the turn (its update id) and its chat.
//  2. A press is an update like any other: stored in the inbox, handled
//     once. It is judged on the stored trace alone, so it works after a
//     restart: the data must be in the one form inspectData writes, name a
//     turn whose trace is kept, and be pressed in that turn's chat; the
//     presser must be the person who asked, or an admin (the bot's, or in
//     a group the group's administrators).
//  3. The trace is sent to the presser's private chat, never to a group:
//     one message with every step, and when that would not fit, its start
//     with the whole trace as a text file below it. Someone who never
//     opened a private chat with the bot is told, in an alert, to open it
//     first. The press is answered once. Presses in a row by one person
//     send the trace once a minute (sentTraces).

// inspectPrefix begins an inspector button's data:
// "i1:<update id>:<chat id>", version 1.
const inspectPrefix = "i1:"

// Texts of the inspector.
const (
	inspectButtonText = "🔍"
	inspectSent       = "🔍 Sent to our private chat."
	inspectGone       = "How this answer came about is no longer kept."
	inspectElsewhere  = "This button does not belong to this chat."
	inspectNotYours   = "Only the person who asked, or an admin, can see how this answer came about."
)

// inspectData is the data of the inspector button of turn update in chat.
func inspectData(update, chat int64) string {
	return turnData(inspectPrefix, update, chat)
}

// parseInspect reads an inspector button's data, in the one form
// inspectData writes (parseTurnData).
func parseInspect(data string) (update, chat int64, ok bool) {
	return parseTurnData(inspectPrefix, data)
}

// inspectButton is the 🔍 of turn t's answer when it used tools — or
// went on after a confirmed action, which ran a tool, or was stopped
// while a tool ran, which the answer's tools do not count — and nil when
// it did not.
func inspectButton(t talk, about answerAbout) *stages.Button {
	if len(about.Tools) == 0 && t.prepare == nil && !t.trace.ranTool() {
		return nil
	}
	return &stages.Button{Text: inspectButtonText, Data: inspectData(t.id, t.place.ChatID)}
}

// onInspect handles a press of 🔍.
func (b *Bot) onInspect(ctx context.Context, j *job, q *models.CallbackQuery) error {
	log := b.log.With("update_id", j.id, "user_id", q.From.ID)
	p := b.wordsAt(ctx, q)
	update, chat, ok := parseInspect(q.Data)
	if !ok {
		log.InfoContext(ctx, "inspector press with unreadable data")
		return b.answerPress(ctx, j.w, q, p.Sprintf(staleButton), false)
	}
	if pressedIn(q) != chat {
		log.WarnContext(ctx, "inspector press naming another chat's turn", "turn", update, "named_chat", chat, "chat_id", pressedIn(q))
		return b.answerPress(ctx, j.w, q, p.Sprintf(inspectElsewhere), true)
	}
	tr, found, err := b.db.TraceOf(ctx, update)
	if err != nil {
		return err
	}
	if !found || tr.ChatID != chat {
		log.InfoContext(ctx, "inspector press for a turn whose trace is not kept", "turn", update, "chat_id", chat)
		return b.answerPress(ctx, j.w, q, p.Sprintf(inspectGone), true)
	}
	presser, err := b.db.SaveUser(ctx, pressedBy(q), false)
	if err != nil {
		return err
	}
	if may, err := b.mayInspect(ctx, tr, presser); err != nil || !may {
		if err == nil {
			log.InfoContext(ctx, "inspector press by someone who may not see the trace", "turn", update, "chat_id", chat)
			err = b.answerPress(ctx, j.w, q, p.Sprintf(inspectNotYours), true)
		}
		return err
	}
	text, alert, err := b.sendTrace(ctx, j, p, tr, presser, userOf(&q.From))
	if err != nil {
		return err
	}
	log.InfoContext(ctx, "inspector pressed", "turn", update, "chat_id", chat, "outcome", text)
	return b.answerPress(ctx, j.w, q, text, alert)
}

// mayInspect reports whether presser may see trace tr: the person who
// asked (or someone who speaks for the chat they asked as), an admin of
// the bot, or in a group one of its administrators — as for a stop.
func (b *Bot) mayInspect(ctx context.Context, tr memory.Trace, presser ryo.User) (bool, error) {
	switch {
	case !b.mayTalk(presser):
		return false, nil
	case presser.ID == tr.AskerID, b.isAdmin(presser):
		return true, nil
	case tr.ChatID < 0 && tr.AskerID < 0:
		return b.speaksFor(ctx, presser, tr.AskerID, tr.ChatID)
	case tr.ChatID < 0:
		return b.administers(ctx, tr.ChatID, presser)
	}
	return false, nil
}

// sendTrace sends trace tr to presser's private chat, unless an earlier
// run of the same press did, and says what came of it, and whether it is
// an alert. Someone the bot cannot write to privately is told to open the
// private chat first. The message and its file are each written down as
// they go out: a run cut short between them sends only what is missing.
func (b *Bot) sendTrace(ctx context.Context, j *job, p lang.Printer, tr memory.Trace, presser, from ryo.User) (string, bool, error) {
	prior, err := b.db.Turn(ctx, j.id)
	if err != nil {
		return "", false, err
	}
	msg, file := renderTrace(b.words(ctx, presser.ID, from), tr) // in the private chat's language
	if prior.StatusMessageID != 0 {
		if file == nil || len(prior.Parts) > 0 {
			return p.Sprintf(inspectSent), false, nil
		}
		return p.Sprintf(inspectSent), false, b.sendTraceFile(ctx, j, tr, presser, prior.StatusMessageID, file)
	}
	if !b.traced.claim(tr.UpdateID, presser.ID, b.cfg.Clock.Now()) {
		return p.Sprintf(inspectSent), false, nil // sent a moment ago: presses in a row send it once
	}
	there := ryo.Place{ChatID: presser.ID}
	var id int
	err = j.w.idle(func() error {
		var err error
		id, err = b.tg.Send(ctx, there, 0, msg)
		return err
	})
	if err != nil {
		b.traced.release(tr.UpdateID, presser.ID)
	}
	if cannotWrite(err) {
		return b.openPrivately(p), true, nil
	}
	if err == nil {
		err = b.record(ctx, "remember the trace sent", func(ctx context.Context) error {
			return b.db.SaveTurnStatus(ctx, j.id, there, id)
		})
	}
	if err != nil || file == nil {
		return p.Sprintf(inspectSent), false, err
	}
	return p.Sprintf(inspectSent), false, b.sendTraceFile(ctx, j, tr, presser, id, file)
}

// sendTraceFile sends the whole trace tr as a file below its message,
// msg, in presser's private chat, and writes down that it went.
func (b *Bot) sendTraceFile(ctx context.Context, j *job, tr memory.Trace, presser ryo.User, msg int, file []byte) error {
	var id int
	err := j.w.idle(func() error {
		var err error
		id, err = b.tg.SendFile(ctx, ryo.Place{ChatID: presser.ID}, msg, traceFileName(tr), file, "")
		return err
	})
	if err != nil {
		return err
	}
	return b.record(ctx, "remember the trace's file sent", func(ctx context.Context) error {
		return b.db.SaveTurnParts(ctx, j.id, []int{id})
	})
}

// inspectAgain is how long a trace sent to someone is not sent to them
// again: a hundred presses in a row send it once, not a hundred messages
// at the one a second Telegram allows a chat, ahead of their answers.
const inspectAgain = time.Minute

// sentTraces are the traces sent lately, by turn and presser. Its zero
// value is ready.
type sentTraces struct {
	mu   sync.Mutex
	sent map[[2]int64]time.Time
}

// claim reports whether turn's trace may be sent to presser now — it was
// not sent to them within inspectAgain — and if so holds it as sent.
func (s *sentTraces) claim(turn, presser int64, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, at := range s.sent {
		if now.Sub(at) >= inspectAgain || now.Before(at) {
			delete(s.sent, k)
		}
	}
	key := [2]int64{turn, presser}
	if _, held := s.sent[key]; held {
		return false
	}
	if s.sent == nil {
		s.sent = map[[2]int64]time.Time{}
	}
	s.sent[key] = now
	return true
}

// release lets a trace that could not be sent be sent at the next press.
func (s *sentTraces) release(turn, presser int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sent, [2]int64{turn, presser})
}

// cannotWrite reports whether Telegram refused a message to someone's
// private chat because they never opened it with the bot (403 "bot can't
// initiate conversation with a user"), blocked the bot, or it is not
// known there at all.
func cannotWrite(err error) bool {
	return errors.Is(err, tg.ErrorForbidden) || errors.Is(err, tg.ErrorBadRequest) && strings.Contains(err.Error(), "chat not found")
}

// openPrivately is the alert for a presser the bot cannot write to.
func (b *Bot) openPrivately(p lang.Printer) string {
	return p.Sprintf("I can only show this in our private chat, and you have not opened it yet: open @%s, press Start, then press 🔍 again.",
		b.me.Username)
}

// traceFileName names the file of the whole trace of tr.
func traceFileName(tr memory.Trace) string {
	return "trace-" + strconv.FormatInt(tr.UpdateID, 10) + ".txt"
}
