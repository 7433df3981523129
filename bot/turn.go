package bot

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	tg "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/stages"
)

// talk is one turn to answer: a person's message, or the conversation
// going on after the person confirmed an action.
type talk struct {
	id      int64   // the update that asked for it, which keys everything the turn does
	w       *worker // the slot it runs in
	chat    ryo.Chat
	place   ryo.Place
	replyTo int      // the message answered: the person's, or the confirmation prompt
	person  ryo.User // who the turn is for: they decide the actions it asks to confirm
	text    string   // what the person wrote; "" when the turn goes on after a confirmation
	message int64    // the stored message the turn answers; 0 when none
	// unstored is the person's message while it is not stored yet: the
	// turn stores it with its first look at the history (memory.OpenTurn),
	// or on its own when it answers without one (storeMessage).
	unstored *ryo.Message
	tools    []string // the tools the person may use (nil: every tool)
	force    string   // the tool the person chose for this turn; "" when none
	// until is when the turn must be done, RYO_TURN_TIMEOUT after it
	// began: looking, listening, reading files and the model share it.
	until time.Time
	// models are the models the turn may ask, the first first: the
	// chat's, the default, RYO_MODEL (modelchoice.go).
	models []string
	// settings are what admins set for the chat and every chat, read once
	// when the turn began; nil until then.
	settings *memory.TurnSettings
	// seen is the history the model is shown, with its pictures, and the
	// model that reads them: set by look before the turn shows itself.
	seen sight
	// prepare, when set, runs once the turn shows itself, before the model
	// is asked: the confirmed action runs there.
	prepare func(ctx context.Context, shown *stages.Turn, observe func(ryo.Step)) error
	// stop is how a stop reaches the turn once it shows itself (stop.go).
	stop *stopper
	// words are ryo's own words to the person, in the chat's language.
	words lang.Printer
	// replaces, when set, is the answer this turn's answer replaces in
	// place: a regenerate (regenerate.go).
	replaces *replacing
	// trace records the turn's steps for the inspector (trace.go).
	trace *tracer
	// hold is the turn's hold on one of its person's answers while it runs
	// (quota.go); nil when they have no quota, or it answers a confirmation.
	hold *quotaHold
	// prior is what earlier runs of the turn left, when whoever began it
	// read that already; nil: converse reads it.
	prior *memory.Turn
	// standing is what decides its person's quota, when whoever began the
	// turn read that already; nil: the quota check reads it.
	standing *memory.QuotaStanding
	// finished, when set, is told that the turn marked its update done
	// with its answer (finishTurn): nothing is left for process to finish.
	finished *bool
}

// turn answers a message meant for the bot: store it, show the turn live
// in a status message, ask the agent and remember the answer, deliver the
// answer, and store it while marking the update done.
//
// A turn interrupted at any point runs again from the inbox; what its
// earlier run got done is reused: the stored message, the status message
// (edited, never posted twice) and the model's answer (delivered, never asked
// for twice).
// start is what the turn found as it began, its sender stored then
// (memory.StartTurn): what earlier runs left, the chat's settings and the
// person's quota standing.
func (b *Bot) turn(ctx context.Context, j *job, m *models.Message, start memory.TurnStart) error {
	id := j.id
	if j.attempt == 1 && !j.queued.IsZero() {
		b.metrics().TurnPhase(PhaseQueue, b.cfg.Clock.Now().Sub(j.queued))
	}
	t := talk{id: id, w: j.w, chat: chatOf(m.Chat), place: placeOf(m), replyTo: m.ID, person: userOf(m.From), prior: &start.Prior,
		standing: &start.Standing, finished: &j.finished}
	t.settings, t.words = &start.Settings, wordsIn(start.Settings.Language, t.person) // words.go
	msg := b.userMessage(id, m)
	t.unstored = &msg
	return b.converse(ctx, t)
}

// storeMessage stores the message of turn t, when it is not yet.
func (b *Bot) storeMessage(ctx context.Context, t *talk) error {
	if t.unstored == nil {
		return nil
	}
	stored, err := b.db.SaveStartedMessage(ctx, t.chat, *t.unstored)
	if err != nil {
		return err
	}
	t.unstored, t.text, t.message = nil, stored.Text, stored.ID
	return nil
}

// priorTurn returns what earlier runs of turn t left.
func (b *Bot) priorTurn(ctx context.Context, t talk) (memory.Turn, error) {
	if t.prior != nil {
		return *t.prior, nil
	}
	return b.db.Turn(ctx, t.id)
}

// converse runs turn t: from here on a turn for a message and one that
// goes on after a confirmation are the same.
func (b *Bot) converse(ctx context.Context, t talk) (err error) {
	ctx = lang.NewContext(ctx, t.words) // for what tools say of the actions they ask to confirm
	var outcome string                  // what the turn came to, when it returns no error
	defer func() { b.turnEnded(ctx, outcome, err) }()
	log := b.log.With("update_id", t.id, "chat_id", t.chat.ID)
	traceTurn(ctx, t) // span.go
	t.until = time.Now().Add(b.cfg.TurnTimeout)
	prior, err := b.priorTurn(ctx, t)
	if err != nil {
		return err
	}
	start := stages.Start{Place: t.place, Private: t.chat.Type == ryo.ChatPrivate, ReplyTo: t.replyTo, Since: prior.CreatedAt,
		Adopt: prior.StatusMessageID, DraftID: t.id, TurnID: t.id, Words: t.words, Record: func(status int) error {
			return b.record(ctx, "remember status message", func(ctx context.Context) error {
				return b.db.SaveTurnStatus(ctx, t.id, t.place, status)
			})
		}}
	start.InPlace = t.replaces != nil
	if prior.Answer != "" {
		if err := b.storeMessage(ctx, &t); err != nil {
			return err
		}
		outcome = answered(prior.AnswerMetadata)
		return b.deliver(ctx, log, t, b.stages.Adopt(start), prior.Answer, prior.AnswerMetadata, prior.Parts)
	}
	if t.models, err = b.modelsFor(ctx, &t); err != nil {
		return err
	}
	if t.prepare == nil { // a turn for a message: the tools of its writer, and the one they chose
		var over string
		over, err = b.overQuota(ctx, log, &t) // quota.go: the message stays kept
		defer func() { b.holds.release(t.hold) }()
		if err != nil || over != "" {
			if over != "" {
				if err := b.storeMessage(ctx, &t); err != nil {
					return err
				}
				outcome = TurnOverQuota
				return b.replyOnce(ctx, t.w, t.id, t.place, t.replyTo, over)
			}
			return err
		}
		if t.tools, err = b.toolsOfID(ctx, t.person.ID); err != nil {
			return err
		}
		// The message is stored, the tool its person chose taken and the
		// history read in one round trip (a turn after a confirmation
		// looks once its action has run).
		var opened memory.OpenedTurn
		opened, err = b.db.OpenTurn(ctx, memory.TurnOpening{Chat: t.chat, Message: t.unstored, Person: t.person.ID,
			Place: t.place, UpdateID: t.id, Limit: b.cfg.HistoryLimit})
		if err != nil {
			return err
		}
		if t.unstored != nil {
			t.unstored, t.text, t.message = nil, opened.Stored.Text, opened.Stored.ID
		}
		if t.force = opened.Forced; !mayUseTool(t.tools, t.force) {
			t.force = ""
		}
		start.Forced = t.force
		if t.seen, err = b.see(ctx, log, t, opened.History); err != nil {
			return err
		}
		if t.seen.refusal == "" {
			t.seen.refusal = b.cannotListen(ctx, log, t) // voice.go
		}
		if t.seen.refusal != "" { // nothing to ask the model: one sentence says why, and the message stays kept
			outcome = TurnFailed
			return b.replyOnce(ctx, t.w, t.id, t.place, t.replyTo, t.seen.refusal)
		}
	}
	start.Stop = stopButton(t)
	shown := b.stages.Begin(ctx, start)
	defer shown.Close() // also when the turn panics: the failure is then shown in the status message
	t.stop = b.running.add(t, shown)
	t.trace = b.tracing(t)
	defer b.running.remove(t.stop)
	if t.prepare == nil {
		// A recording is heard first, shown in the status message.
		heard, unheard := t.stop.during(ctx) // a stop takes effect at once: the model is asked, stopped, and says so
		refusal, err := b.listen(heard, log, &t, shown)
		unheard()
		if err != nil && t.stop.isStopped() && ctx.Err() == nil {
			refusal, err = "", nil
		}
		if err != nil || refusal != "" {
			if refusal != "" {
				outcome = TurnFailed
			}
			return b.notListened(ctx, t, shown, refusal, err)
		}
	}
	if t.prepare != nil {
		err := t.prepare(ctx, shown, t.trace.confirmed(shown.Observe))
		if errors.Is(err, errAskedAgain) {
			outcome = TurnHeld
			return b.askAgain(ctx, log, t, shown)
		}
		if err != nil {
			outcome = TurnFailed
			return b.turnFailed(ctx, log, t, shown, err)
		}
	}
	answer, meta, err := b.ask(ctx, log, t, shown)
	if errors.Is(err, errEdited) { // edit.go: the edit is answered, in this status message
		outcome = TurnEdited
		return nil
	}
	if err != nil {
		outcome = TurnFailed
		return b.turnFailed(ctx, log, t, shown, err)
	}
	outcome = answered(meta)
	return b.deliver(ctx, log, t, shown, answer, meta, nil)
}

// askedAgain is a turn's answer when the action it was to run had been
// cut short, with no way to tell whether it happened: the prompt under it
// asks again.
const askedAgain = "⚠️ I was stopped while doing this, and I cannot tell whether it was done. Please check — then confirm below only if it should still be done."

// askAgain ends a turn whose action was interrupted: it says so, in place
// of the status message, and shows the prompt that asks again.
func (b *Bot) askAgain(ctx context.Context, log *slog.Logger, t talk, shown *stages.Turn) error {
	meta, _ := json.Marshal(answerAbout{Held: true})
	said := t.words.Sprintf(askedAgain)
	err := b.record(ctx, "save answer", func(ctx context.Context) error {
		return b.db.SaveTurnAnswer(ctx, t.id, t.place, said, meta)
	})
	if err != nil {
		return err
	}
	log.InfoContext(ctx, "turn asks again for an interrupted action")
	return b.deliver(ctx, log, t, shown, said, meta, nil)
}

// ask gives the agent the recent history, shows its steps as it goes, and
// remembers its answer — with the action it asks to confirm, if any —
// before anything is delivered.
func (b *Bot) ask(ctx context.Context, log *slog.Logger, t talk, shown *stages.Turn) (string, json.RawMessage, error) {
	known, err := b.memories(ctx, t)
	if err != nil {
		return "", nil, err
	}
	set := t.settings.ChatSettings // the persona and temperature of /settings, as the turn found them
	tools := t.tools
	if t.prepare != nil { // a turn going on after a confirmation: the person's tools and settings now, and the history with the action's result
		if tools, err = b.toolsOfID(ctx, t.person.ID); err != nil {
			return "", nil, err
		}
		if set, err = b.db.ChatSettings(ctx, t.chat.ID); err != nil {
			return "", nil, err
		}
		if t.seen, err = b.look(ctx, log, t); err != nil {
			return "", nil, err
		}
	}
	history := t.seen.history
	var toolsTook time.Duration // told from the agent's goroutine, read once it returns
	ranTools := false
	trace := b.traceOf(t) // trace.go
	observe := t.stop.observing(trace.observing(func(s ryo.Step) {
		if s.Kind == ryo.StepToolDone {
			toolsTook, ranTools = toolsTook+s.Took, true
		}
		shown.Observe(s)
	}))
	started := b.cfg.Clock.Now()
	turnCtx, cancel := t.bounded(ctx)
	defer cancel()
	turnCtx, unwatch := t.stop.watch(turnCtx)
	defer unwatch()
	in := agent.Input{Bot: b.me, Chat: t.chat, Place: t.place, UpdateID: t.id, History: history,
		Person: t.person, Message: t.message, Memories: known, Observe: observe, Tools: tools, Force: t.force,
		Persona: set.Persona, Temperature: set.Temperature}
	out, err := b.answerWith(turnCtx, log, &t, in, &ranTools)
	b.agentPhases(b.cfg.Clock.Now().Sub(started), toolsTook, ranTools)
	if older := t.seen.withoutOlder(); err != nil && older != nil && !ranTools && turnCtx.Err() == nil {
		log.WarnContext(ctx, "the model server refused the turn with older photos shown again; asking without them", "err", err)
		started = b.cfg.Clock.Now()
		in.History = older
		out, err = b.answerWith(turnCtx, log, &t, in, &ranTools)
	}
	stopped, edited := t.stop.settle() // from here a stop is too late (stop.go)
	if edited && ctx.Err() == nil {
		return "", nil, errEdited
	}
	stopped = stopped && ctx.Err() == nil
	if stopped { // what was written so far is the answer
		out, err = t.stop.kept(t.words, out, err == nil), nil
	}
	if err != nil {
		return "", nil, err
	}
	if out.CutOff {
		log.WarnContext(ctx, "the model's answer reached its length limit (RYO_MODEL_NUM_PREDICT) and was cut off; it is delivered as far as it got",
			"reply_tokens", out.Usage.ReplyTokens)
	}
	took := b.cfg.Clock.Now().Sub(started)
	meta := b.answerMetadata(cmp.Or(t.asked(), b.model), out, took)
	if stopped {
		meta = withStopped(meta)
		log.InfoContext(ctx, "turn stopped; the reply written so far is the answer", "tools", out.Tools)
	}
	usage := b.usage(t, cmp.Or(t.asked(), b.model), out, took) // quota.go
	tr := trace.trace(t, out, meta, took)
	answer := memory.TurnAnswer{UpdateID: t.id, Place: t.place, Text: out.Text, Metadata: meta, Usage: &usage, Trace: &tr}
	var held *ryo.Action
	if out.Held != nil {
		a := b.heldAction(ctx, t, out.Held)
		held = &a
	}
	// The answer, what it cost and the trace are kept at once, what it
	// cost counted once and with its person's quota hold let go.
	err = b.record(ctx, "save answer", func(ctx context.Context) error {
		return b.holds.settle(t.hold, func() error {
			if held == nil {
				return b.db.SaveAnswered(ctx, answer)
			}
			_, err := b.db.SaveHeldAnswered(ctx, answer, *held)
			return err
		})
	})
	return out.Text, meta, err
}

// memoriesShown is how many memories a turn shows the model at most.
const memoriesShown = 5

// memories are the memories that may help with the person's message: from
// their own shelf in a private chat, the group's in a group.
func (b *Bot) memories(ctx context.Context, t talk) ([]agent.Memory, error) {
	if t.text == "" {
		return nil, nil
	}
	found, err := b.cfg.Recall.Recall(ctx, ryo.ShelfOf(t.caller()), t.text, memoriesShown)
	if err != nil {
		return nil, err
	}
	out := make([]agent.Memory, len(found))
	for i, m := range found {
		out[i] = agent.Memory{ID: m.ID, Content: m.Content}
	}
	return out, nil
}

// caller is whom and where the turn's tools run for.
func (t talk) caller() ryo.Caller {
	return ryo.Caller{Person: t.person, Chat: t.chat, Place: t.place, Message: t.message}
}

// deliver sends the answer, then the files the turn's tools made (a chart
// as a photo), and the action it asks to confirm, and stores it as done.
// delivered are the messages an interrupted delivery already sent: none is
// sent twice.
func (b *Bot) deliver(ctx context.Context, log *slog.Logger, t talk, shown *stages.Turn,
	answer string, meta json.RawMessage, delivered []int) error {
	var about answerAbout
	_ = json.Unmarshal(meta, &about) // written by answerMetadata; unreadable means no tags or tools
	files, err := b.turnFiles(ctx, t, about)
	if err != nil {
		return err
	}
	record := func(ids []int) error {
		return b.record(ctx, "remember answer parts", func(ctx context.Context) error { return b.db.SaveTurnParts(ctx, t.id, ids) })
	}
	var ids []int
	buttons := b.answerButtons(t, about) // answerbuttons.go
	began := b.cfg.Clock.Now()
	sendCtx, span := b.startDelivery(ctx)
	err = t.w.idle(func() error { // Telegram may make the answer wait its turn: other chats go on meanwhile
		var err error
		if ids, err = shown.Finish(sendCtx, answer, about.Tools, delivered, record, buttons...); err != nil {
			return err
		}
		ids, err = b.sendFiles(sendCtx, t, files, ids, delivered, record)
		return err
	})
	endDelivery(span, len(ids), err)
	b.metrics().TurnPhase(PhaseDelivery, b.cfg.Clock.Now().Sub(began))
	if err != nil {
		if ctx.Err() != nil {
			shown.Pause(ctx)
		}
		return err
	}
	msg := ryo.Message{Place: t.place, Kind: ryo.KindAssistant, Text: answer, TelegramID: ids[0],
		ReplyTo: t.replyTo, UpdateID: t.id, Metadata: withButtons(withMessageIDs(meta, ids), shown.ButtonsOn(), buttons)}
	if about.Held {
		// Stored before its buttons can be pressed: the conversation a yes
		// goes on with must hold the answer before the tool's result.
		err := b.record(ctx, "save held answer", func(ctx context.Context) error {
			_, err := b.db.SaveAnswer(ctx, msg, about.Tags)
			return err
		})
		if err != nil {
			return err
		}
		if err := b.showAction(ctx, t); err != nil {
			return err
		}
	}
	var before ryo.Message
	err = b.record(ctx, "finish turn", func(ctx context.Context) (err error) {
		before, err = b.finishTurn(ctx, t, msg, about.Tags)
		return err
	})
	if err != nil {
		return err
	}
	b.afterAnswer(ctx, t, ids, before) // regenerate.go
	log.InfoContext(ctx, "turn answered", "parts", len(ids), "meta", string(meta))
	return nil
}

// turnFiles are the files the tools of turn t made, to be delivered after
// its answer, which about tells of. Only a tool makes a file: an answer
// that names none has none, and they are not looked for.
func (b *Bot) turnFiles(ctx context.Context, t talk, about answerAbout) ([]ryo.Attachment, error) {
	if len(about.Tools) == 0 {
		return nil, nil
	}
	files, err := b.db.TurnAttachments(ctx, t.id)
	return distinctFiles(files), err
}

// sendFiles sends the files the turn's tools made after the answer's
// messages in ids, as replies to the person's message: a picture as a
// photo, anything else as a file, each with its caption. Those an
// interrupted delivery sent (delivered, past the answer's own) are not
// sent again, and each one sent is recorded before the next.
func (b *Bot) sendFiles(ctx context.Context, t talk, files []ryo.Attachment, ids, delivered []int, record func([]int) error) ([]int, error) {
	for _, f := range files {
		n := len(ids)
		if n < len(delivered) && delivered[n] != 0 {
			ids = append(ids, delivered[n])
			continue
		}
		send := b.tg.SendFile
		if f.IsPicture() {
			send = b.tg.SendPhoto
		}
		id, err := send(ctx, t.place, t.replyTo, f.Name, f.Data, f.Caption)
		if errors.Is(err, tg.ErrorBadRequest) { // the chat will not take it: a line says so in its place
			b.log.WarnContext(ctx, "Telegram refused a file a tool made; saying so instead", "chat_id", t.chat.ID, "file", f.Name, "err", err)
			id, err = b.tg.Send(ctx, t.place, t.replyTo, render.Text(fileRefused(t.words, f.Name, err), render.MaxUnits))
		}
		if err != nil {
			return ids, fmt.Errorf("send %s: %w", f.Name, err)
		}
		ids = append(ids, id)
		if err := record(ids); err != nil {
			return ids, err
		}
	}
	return ids, nil
}

// distinctFiles is files without repeats: a model that asks for the same
// chart again in a later round gets it drawn twice, and the person once.
func distinctFiles(files []ryo.Attachment) []ryo.Attachment {
	var out []ryo.Attachment
	for _, f := range files {
		if !slices.ContainsFunc(out, func(o ryo.Attachment) bool {
			return o.Name == f.Name && o.MimeType == f.MimeType && o.Caption == f.Caption && bytes.Equal(o.Data, f.Data)
		}) {
			out = append(out, f)
		}
	}
	return out
}

// fileRefused is the line sent in place of a file Telegram refused.
func fileRefused(p lang.Printer, name string, err error) string {
	if strings.Contains(err.Error(), "not enough rights") {
		return p.Sprintf("⚠️ %s could not be sent: this chat does not let me post pictures or files.", name)
	}
	return p.Sprintf("⚠️ %s could not be sent: Telegram refused it.", name)
}

// answerAbout is what delivery reads back from the answer's metadata.
type answerAbout struct {
	Tags  []string `json:"tags"`
	Tools []string `json:"tools"`
	Held  bool     `json:"held"` // the answer asks the person to confirm an action
	// Stopped: someone stopped the turn; the answer is what was written
	Stopped bool `json:"stopped"`
	// ButtonsOn is the message that carries the answer's Buttons; 0 when
	// none or not known.
	ButtonsOn int           `json:"buttons_on"`
	Buttons   []shownButton `json:"buttons"`
}

// turnFailed tells the person why there is no answer, where the answer would
// have been, and marks the update failed. Shutdown and a lost database are
// not the turn's failure: the status message shows the turn paused and the
// update is left to be resumed.
func (b *Bot) turnFailed(ctx context.Context, log *slog.Logger, t talk, shown *stages.Turn, err error) error {
	id := t.id
	if ctx.Err() != nil || ryo.IsUnavailable(err, ryo.Database) {
		shown.Pause(ctx)
		return err
	}
	log.ErrorContext(ctx, "turn failed; the update is kept in the dead letter for an admin to retry (/deadletter)", "code", ryo.ErrorCode(err), "err", err)
	if ferr := t.w.idle(func() error { return shown.Fail(ctx, t.words.Message(ryo.ErrorMessage(err))) }); ferr != nil {
		return ferr
	}
	return b.record(ctx, "finish failed turn", func(ctx context.Context) error {
		return b.db.FailUpdate(ctx, id, ryo.ErrorCode(err)+": "+err.Error())
	})
}

// answerMetadata records which model answered, and what the answer cost.
func (b *Bot) answerMetadata(model string, out agent.Output, took time.Duration) json.RawMessage {
	meta, _ := json.Marshal(map[string]any{
		"model":          model,
		"duration_ms":    ms(took),
		"tags":           out.Tags,
		"rounds":         out.Rounds,
		"repairs":        out.Repairs,
		"tools":          out.Tools,
		"claimed_action": out.ClaimedAction,
		"cut_off":        out.CutOff,
		"held":           out.Held != nil,
		"usage": map[string]any{
			"prompt_tokens":  out.Usage.PromptTokens,
			"reply_tokens":   out.Usage.ReplyTokens,
			"load_ms":        ms(out.Usage.LoadDuration),
			"prompt_ms":      ms(out.Usage.PromptDuration),
			"reply_ms":       ms(out.Usage.ReplyDuration),
			"model_total_ms": ms(out.Usage.TotalDuration),
		},
	})
	return meta
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// withMessageIDs adds the ids of the Telegram messages that carry the answer.
func withMessageIDs(meta json.RawMessage, ids []int) json.RawMessage {
	fields := map[string]any{}
	_ = json.Unmarshal(meta, &fields) // stored by answerMetadata; an unreadable one is replaced
	fields["message_ids"] = ids
	out, _ := json.Marshal(fields)
	return out
}

// bounded is ctx with the turn's deadline.
func (t talk) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithDeadline(ctx, t.until)
}
