package bot

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/stages"
)

// The flow of a stop:
//
//  1. While a turn runs, its status message carries ⏹ Stop, whose data
//     names the turn (its update id) and its chat. The turn registers in
//     running, this process's table of turns that can be stopped.
//  2. A press runs on a lane of its own (dispatch), so it is not queued
//     behind the very turn it stops; /stop is sent to such a lane too.
//     The press is stored in the inbox and answered once, like any other.
//  3. The press is judged against the running turn: the data must name a
//     turn running in the chat the button is pressed in; the presser must
//     be the person who asked, or an admin (the bot's, or the group's).
//  4. The stop cancels the transcription of a recording the turn
//     answers (stopper.during): the model is then not asked, and the
//     answer says it stopped before anything was written. It cancels
//     the turn's model call with errStopped; a tool not
//     yet started does not start (the agent checks before each one); a
//     tool running when the stop comes is cancelled through its context,
//     as any tool is at the turn's deadline.
//  5. The reply written so far is the answer, marked ⏹ Stopped, stored
//     with "stopped": true in its metadata and delivered as any answer.
//     A stop that comes as the model's answer is back, before the turn
//     settles (stopper.settle), is told it stops the turn, and it does:
//     the whole answer is kept, marked stopped. After that a stop is told
//     that nothing runs to stop: the answer is on its way, whole.
//
// The table lives in memory: after a restart a turn resumed from the
// inbox registers again under the same update id, so its button works
// again; until then a press says that nothing runs to stop.

// stopPrefix begins a stop button's data: "s1:<update id>:<chat id>",
// version 1.
const stopPrefix = "s1:"

// Texts of stops.
const (
	stopButtonText = "⏹ Stop"
	stopping       = "⏹ Stopping — I'll keep what I wrote so far."
	stopAlready    = "⏹ Already stopping."
	stopNotRunning = "This answer is not running any more, so there is nothing to stop."
	stopElsewhere  = "This button does not belong to this chat."
	stopNothing    = "Nothing is running here right now, so there is nothing to stop."
	stoppedMark    = "⏹ Stopped"
	stoppedEmpty   = "⏹ Stopped before I wrote anything."
)

// errStopped ends a stopped turn's context.
var errStopped = errors.New("the turn was stopped")

// stopData is the data of the stop button of turn update in chat.
func stopData(update, chat int64) string {
	return turnData(stopPrefix, update, chat)
}

// parseStop reads a stop button's data, in the one form stopData writes
// (parseTurnData).
func parseStop(data string) (update, chat int64, ok bool) {
	return parseTurnData(stopPrefix, data)
}

// stopButton is the button of turn t's status message.
func stopButton(t talk) *stages.Button {
	return &stages.Button{Text: t.words.Sprintf(stopButtonText), Data: stopData(t.id, t.place.ChatID)}
}

// running is the table of the turns running in this process.
type running struct {
	mu    sync.Mutex
	turns map[int64]*stopper // by update id
}

// stopper is one running turn, as a stop sees it.
type stopper struct {
	turn    int64
	message int64 // the stored message the turn answers; 0 when none
	place   ryo.Place
	asker   ryo.User
	shown   *stages.Turn

	mu      sync.Mutex
	stopped bool
	edited  bool                    // stopped because its message was edited (edit.go): nothing is kept
	over    bool                    // the model is done: the answer is on its way
	cancel  context.CancelCauseFunc // ends the model call; nil until it is asked
	wrote   string                  // the reply written so far, without thinking
}

// add registers turn t, shown in shown, until remove.
func (r *running) add(t talk, shown *stages.Turn) *stopper {
	s := &stopper{turn: t.id, message: t.message, place: t.place, asker: t.person, shown: shown}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.turns == nil {
		r.turns = map[int64]*stopper{}
	}
	r.turns[t.id] = s
	return s
}

// remove forgets s: its turn is over.
func (r *running) remove(s *stopper) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.turns[s.turn] == s {
		delete(r.turns, s.turn)
	}
}

// byTurn is turn update, when it runs here.
func (r *running) byTurn(update int64) (*stopper, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.turns[update]
	return s, ok
}

// at is the turn running at place, when one does.
func (r *running) at(place ryo.Place) (*stopper, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.turns {
		if s.place == place {
			return s, true
		}
	}
	return nil, false
}

// stopOutcome is what a stop came to.
type stopOutcome int

const (
	stopNow     stopOutcome = iota // this stop stops the turn
	stopTwice                      // another stop came first
	stopTooLate                    // the model was done: the answer is on its way
)

// stop stops the turn, unless it was stopped already or its model is
// done.
func (s *stopper) stop() stopOutcome {
	s.mu.Lock()
	switch {
	case s.over:
		s.mu.Unlock()
		return stopTooLate
	case s.stopped:
		s.mu.Unlock()
		return stopTwice
	}
	s.stopped = true
	cancel := s.cancel
	s.mu.Unlock()
	s.shown.Stopping()
	if cancel != nil {
		cancel(errStopped)
	}
	return stopNow
}

// watch is ctx, ended by a stop: at once when the turn was stopped
// before its model was asked. Its cancel ends it, and after it the turn
// can no longer be stopped: the model is done. A nil stopper never stops.
func (s *stopper) watch(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, end := s.during(ctx)
	if s == nil {
		return ctx, end
	}
	return ctx, func() {
		s.mu.Lock()
		s.over = true
		s.mu.Unlock()
		end()
	}
}

// during is ctx, ended by a stop (or an edit): at once when the turn was
// stopped before. It bounds work that comes before the model is asked,
// like a recording's transcription, so that a stop takes effect at once;
// after its cancel the turn can still be stopped.
func (s *stopper) during(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	if s == nil {
		return ctx, func() { cancel(nil) }
	}
	s.mu.Lock()
	s.cancel = cancel
	stopped, cause := s.stopped, s.cause()
	s.mu.Unlock()
	if stopped {
		cancel(cause)
	}
	return ctx, func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		cancel(nil)
	}
}

// observing wraps observe to remember the reply as it is written: the
// last reply that had words in it, in case the next model call is
// stopped before it writes any.
func (s *stopper) observing(observe func(ryo.Step)) func(ryo.Step) {
	if s == nil {
		return observe
	}
	return func(step ryo.Step) {
		if step.Kind == ryo.StepWriting {
			if text := strings.TrimSpace(render.StripThinking(render.StripThinkingSoFar(step.Reply))); text != "" {
				s.mu.Lock()
				s.wrote = text
				s.mu.Unlock()
			}
		}
		observe(step)
	}
}

// isStopped reports whether the turn was stopped.
func (s *stopper) isStopped() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// settle ends the time in which a stop takes effect: the model's call
// returned. It reports whether the turn was stopped, and whether by an
// edit: a stop that came after the model's answer was back, but before
// settle, was told it stops the turn, and it does.
func (s *stopper) settle() (stopped, edited bool) {
	if s == nil {
		return false, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.over = true
	return s.stopped, s.edited
}

// kept is the output of a stopped turn: what was written so far, marked
// stopped, with the tools that ran before; the whole answer, when the
// model was done (whole) as the stop came.
func (s *stopper) kept(p lang.Printer, out agent.Output, whole bool) agent.Output {
	s.mu.Lock()
	wrote := s.wrote
	s.mu.Unlock()
	if whole && strings.TrimSpace(out.Text) != "" {
		wrote = out.Text
	}
	text := p.Sprintf(stoppedEmpty)
	if wrote != "" {
		text = wrote + "\n\n" + p.Sprintf(stoppedMark)
	}
	return agent.Output{Text: text, Tools: out.Tools, Rounds: out.Rounds, Repairs: out.Repairs, Usage: out.Usage,
		Tags: []string{"action:stopped"}}
}

// withStopped marks an answer's metadata stopped.
func withStopped(meta json.RawMessage) json.RawMessage {
	fields := map[string]any{}
	_ = json.Unmarshal(meta, &fields) // written by answerMetadata
	fields["stopped"] = true
	out, _ := json.Marshal(fields)
	return out
}

// onStop handles a press of a stop button.
func (b *Bot) onStop(ctx context.Context, j *job, q *models.CallbackQuery) error {
	log := b.log.With("update_id", j.id, "user_id", q.From.ID)
	p := b.wordsAt(ctx, q)
	update, chat, ok := parseStop(q.Data)
	if !ok {
		log.InfoContext(ctx, "stop press with unreadable data")
		return b.answerPress(ctx, j.w, q, p.Sprintf(staleButton), false)
	}
	if pressedIn(q) != chat {
		log.WarnContext(ctx, "stop press naming another chat's turn", "turn", update, "named_chat", chat, "chat_id", pressedIn(q))
		return b.answerPress(ctx, j.w, q, p.Sprintf(stopElsewhere), true)
	}
	s, ok := b.running.byTurn(update)
	if !ok || s.place.ChatID != chat {
		log.InfoContext(ctx, "stop press for a turn that is not running", "turn", update, "chat_id", chat)
		return b.answerPress(ctx, j.w, q, p.Sprintf(stopNotRunning), false)
	}
	presser, err := b.db.SaveUser(ctx, pressedBy(q), false)
	if err != nil {
		return err
	}
	text, alert, err := b.stopAs(ctx, p, s, presser)
	if err != nil {
		return err
	}
	log.InfoContext(ctx, "stop pressed", "turn", update, "chat_id", chat, "outcome", text)
	return b.answerPress(ctx, j.w, q, text, alert)
}

// pressedIn is the chat a press was made in; 0 when Telegram does not say.
func pressedIn(q *models.CallbackQuery) int64 {
	switch {
	case q.Message.Message != nil:
		return q.Message.Message.Chat.ID
	case q.Message.InaccessibleMessage != nil:
		return q.Message.InaccessibleMessage.Chat.ID
	}
	return 0
}

// stopAs stops s for presser when they may, and says what came of it, and
// whether it is a refusal (shown as an alert).
func (b *Bot) stopAs(ctx context.Context, p lang.Printer, s *stopper, presser ryo.User) (string, bool, error) {
	may, err := b.mayStop(ctx, s, presser)
	if err != nil || !may {
		return p.Sprintf("Only %s or an admin can stop this answer.", clip(displayName(p, s.asker), maxDeciderName)), true, err
	}
	switch s.stop() {
	case stopTwice:
		return p.Sprintf(stopAlready), false, nil
	case stopTooLate:
		return p.Sprintf(stopNotRunning), false, nil
	}
	return p.Sprintf(stopping), false, nil
}

// mayStop reports whether presser may stop s: the person who asked (or
// someone who speaks for the chat they asked as), an admin of the bot, or
// in a group one of its administrators — an anonymous one too, whose
// /stop comes as the group itself.
func (b *Bot) mayStop(ctx context.Context, s *stopper, presser ryo.User) (bool, error) {
	switch {
	case !b.mayTalk(presser):
		return false, nil
	case presser.ID == s.asker.ID, b.isAdmin(presser), presser.ID == s.place.ChatID && s.place.ChatID < 0:
		return true, nil
	case s.place.ChatID < 0 && s.asker.ID < 0: // asked as a chat: its administrators, then the group's
		return b.speaksFor(ctx, presser, s.asker.ID, s.place.ChatID)
	case s.place.ChatID < 0:
		return b.administers(ctx, s.place.ChatID, presser)
	}
	return false, nil
}

// stopCommand is /stop.
func (b *Bot) stopCommand(p lang.Printer) command {
	return command{name: "stop", help: p.Sprintf("stop the answer I'm writing here, keeping what I wrote so far"), run: b.stopHere}
}

func (b *Bot) stopHere(ctx context.Context, c call) error {
	s, ok := b.running.at(c.place)
	if !ok {
		return b.reply(ctx, c, c.p.Sprintf(stopNothing))
	}
	text, _, err := b.stopAs(ctx, c.p, s, c.user)
	if err != nil {
		return err
	}
	b.log.InfoContext(ctx, "/stop", "update_id", c.update, "turn", s.turn, "chat_id", c.chat.ID, "outcome", text)
	return b.reply(ctx, c, text)
}

// isStopCommand reports whether a stored update is a message that begins
// with the command /stop (its first entity, a bot command, at its start):
// it runs on a lane of its own, not behind the turn it stops. Text that
// only looks like it — /stop set as code, or with no entity — is a
// question, and waits in its chat's queue like any other. Whether the
// command is meant for this bot is decided when it runs; one for another
// bot is ignored there.
func isStopCommand(kind string, raw json.RawMessage) bool {
	if kind != "message" {
		return false
	}
	var upd struct { // only what tells a command: every update goes through here
		Message struct {
			Text     string                 `json:"text"`
			Entities []models.MessageEntity `json:"entities"`
		} `json:"message"`
	}
	if json.Unmarshal(raw, &upd) != nil || !startsWithCommand(&models.Message{Text: upd.Message.Text, Entities: upd.Message.Entities}) {
		return false
	}
	word := entityText(upd.Message.Text, upd.Message.Entities[0])
	name, _, _ := strings.Cut(word, "@")
	return strings.EqualFold(name, "/stop")
}
