package bot

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	tg "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/stages"
	"github.com/ryo-bot/ryo/toolbus"
)

// The flow of an action that waits for the person's yes:
//
//  1. The agent ends a turn with a held command. The turn stores the
//     model's answer with the action (SaveHeldAnswer), delivers the answer,
//     then shows the action in a prompt with ✅ Confirm and ❌ Cancel.
//  2. A press is answered at once. Only the person who asked decides (and
//     admins, with RYO_ADMINS_DECIDE); the decision is one conditional
//     update, so it is taken once however often and by whom the buttons
//     are pressed.
//  3. After the yes the tool runs through the tool bus, its result is
//     stored, and the conversation goes on in a new turn keyed by the
//     press, with live stages. After the no, a cancelled result is stored
//     so that the model knows, and the prompt says so.
//  4. The sweep expires actions nobody decided in time, and edits every
//     decided prompt to show the outcome without buttons.

// Button data: "act:<id>:y" or "act:<id>:n", with an opaque random id.
const (
	pressPrefix = "act:"
	pressYes    = ":y"
	pressNo     = ":n"
)

// maxInlineArgs is how long the arguments may be, in UTF-16 units, to be
// shown in the prompt; longer ones come in full as a file instead, never
// cut.
const maxInlineArgs = 2500

// maxSummary is how much of what an action will do, in words, the prompt
// shows; the arguments below are always shown in full.
const maxSummary = 600

// sweepEvery is how often expired actions are looked for.
const sweepEvery = 30 * time.Second

func pressData(id string, yes bool) string {
	if yes {
		return pressPrefix + id + pressYes
	}
	return pressPrefix + id + pressNo
}

// parsePress reads a button's data; ok is false for data that is not an
// action's.
func parsePress(data string) (id string, yes, ok bool) {
	rest, found := strings.CutPrefix(data, pressPrefix)
	if !found || len(rest) <= len(pressYes) {
		return "", false, false
	}
	id, answer := rest[:len(rest)-len(pressYes)], rest[len(rest)-len(pressYes):]
	if answer != pressYes && answer != pressNo || strings.ContainsAny(id, ": ") {
		return "", false, false
	}
	return id, answer == pressYes, true
}

// newActionID is an opaque id that cannot be guessed: 96 random bits.
func newActionID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// heldAction is the action a turn asks the person to confirm.
func (b *Bot) heldAction(ctx context.Context, t talk, h *agent.Held) ryo.Action {
	return b.newAction(ryo.WithCaller(ctx, t.caller()), t.person, h.Call, h.Reason, ryo.OriginModel)
}

// newAction is call, held for reason, as an action waiting for the yes of
// the person who asked, with what it will do in words when its tool can
// say (ctx carries the caller the tool would run for).
func (b *Bot) newAction(ctx context.Context, by ryo.User, call toolbus.Call, reason string, origin ryo.Origin) ryo.Action {
	return ryo.Action{ID: newActionID(), Requester: by.ID, CallID: call.ID, Tool: call.Tool, Args: call.Args,
		ArgsHash: toolbus.ArgsHash(call.Args), Key: call.Key, Reason: reason, Origin: origin,
		Summary: b.toolsFor(origin).Explain(ctx, call), ExpiresAt: b.cfg.Clock.Now().Add(b.cfg.ConfirmTTL)}
}

// toolsFor is the registry an action of origin runs through: the model's
// tools, or the bot's commands'.
func (b *Bot) toolsFor(o ryo.Origin) *toolbus.Registry {
	if o.Converses() {
		return b.cfg.Tools
	}
	return b.commandTools
}

// showAction sends the prompt of the action turn t asked for, unless an
// earlier run of the turn sent it: arguments too long for a message go
// first, in full, as a file.
func (b *Bot) showAction(ctx context.Context, t talk) error {
	a, ok, err := b.db.TurnAction(ctx, t.id)
	if err != nil || !ok || a.PromptID != 0 {
		return err
	}
	text, file := b.prompt(t.words, a)
	replyTo := t.replyTo
	if file != nil {
		if a.FileID == 0 {
			err := t.w.idle(func() (err error) {
				a.FileID, err = b.tg.SendFile(ctx, a.Place, t.replyTo, a.Tool+"-"+a.ID+".json", file,
					t.words.Sprintf("The full arguments of the action below."))
				return err
			})
			if err != nil {
				return err
			}
			if err := b.record(ctx, "remember action file", func(ctx context.Context) error {
				return b.db.SaveActionPrompt(ctx, a.ID, 0, a.FileID)
			}); err != nil {
				return err
			}
		}
		replyTo = a.FileID
	}
	err = t.w.idle(func() (err error) {
		if !a.Open() { // decided or expired while the turn was interrupted: the prompt shows how
			a.PromptID, err = b.tg.Send(ctx, a.Place, replyTo, text)
			return err
		}
		a.PromptID, err = b.tg.SendButtons(ctx, a.Place, replyTo, text,
			delivery.Button{Text: t.words.Sprintf("✅ Confirm"), Data: pressData(a.ID, true)}, delivery.Button{Text: t.words.Sprintf("❌ Cancel"), Data: pressData(a.ID, false)})
		return err
	})
	if err != nil {
		return err
	}
	return b.record(ctx, "remember action prompt", func(ctx context.Context) error {
		return b.db.SaveActionPrompt(ctx, a.ID, a.PromptID, a.FileID)
	})
}

// prompt is the message that shows an action: the tool, what it does, its
// arguments in full (or, when long, a pointer to the file that holds them,
// returned too), why it waits, and who may decide until when — or, once
// decided, the outcome.
func (b *Bot) prompt(w lang.Printer, a ryo.Action) (render.Part, []byte) {
	var p render.Builder
	p.Text("🔐 ")
	p.Bold(w.Sprintf("Confirm before I do this"))
	p.Text("\n\n")
	p.Code(a.Tool)
	if spec, ok := b.toolsFor(a.Origin).Lookup(a.Tool); ok {
		p.Text(" — " + spec.Description)
	}
	p.Text("\n")
	if a.Summary != "" {
		p.Bold(clip(a.Summary, maxSummary))
		p.Text("\n")
	}
	args := prettyJSON(a.Args)
	var file []byte
	if render.Units(args) <= maxInlineArgs {
		p.Pre(args, "json")
	} else {
		file = []byte(args + "\n")
		p.Italic(w.Sprintf("The arguments are long (%d characters), so they are in the file above, in full. Read them there before you decide.",
			len([]rune(args))))
	}
	p.Text("\n")
	switch a.Reason {
	case toolbus.HoldDestructive:
		p.Text(w.Sprintf("⚠️ This cannot be undone.") + "\n")
	case toolbus.HoldPolicy:
		p.Text(w.Sprintf("This changes something, so I check with you first.") + "\n")
	default:
		p.Text(w.Sprintf("I'd like your yes before I do this.") + "\n")
	}
	if a.RetryOf != "" && a.Open() {
		p.Text(w.Sprintf("⚠️ I was stopped while doing this before, and I cannot tell whether it was done. Check first; confirm only if it should still be done.") + "\n")
	}
	p.Text(b.outcome(w, a))
	return p.Part(), file
}

// outcome is the last line of a prompt: who may decide and until when, or
// what came of it.
func (b *Bot) outcome(p lang.Printer, a ryo.Action) string {
	by := func() string {
		who := a.DeciderName
		if who == "" {
			who = p.Sprintf("you")
		}
		return p.Sprintf("%s at %s", who, b.clock(p, a.DecidedAt))
	}
	switch a.State {
	case ryo.ActionPending:
		line := p.Sprintf("Expires at %s.", b.clock(p, a.ExpiresAt))
		if a.Place.ChatID < 0 { // a group: say whose it is
			line = p.Sprintf("Only %s can confirm or cancel this.", deciders(p, a.Requester, a.Place.ChatID, a.RequesterName)) + " " + line
		}
		return line
	case ryo.ActionConfirmed, ryo.ActionRunning:
		return p.Sprintf("✅ Confirmed by %s — running it…", by())
	case ryo.ActionInterrupted:
		return p.Sprintf("⚠️ Confirmed by %s — but I was stopped while doing it, and cannot tell whether it was done. I asked again below.", by())
	case ryo.ActionExecuted:
		if a.ResultStatus == toolbus.StatusOK {
			return p.Sprintf("✅ Confirmed by %s — done.", by())
		}
		if !a.Origin.Converses() {
			return p.Sprintf("⚠️ Confirmed by %s — but it did not work.", by())
		}
		return p.Sprintf("⚠️ Confirmed by %s — but it did not work; see my answer below.", by())
	case ryo.ActionCancelled:
		return p.Sprintf("❌ Cancelled by %s — nothing was done.", by())
	}
	return p.Sprintf("⌛ Expired at %s — nothing was done.", b.clock(p, a.ExpiresAt))
}

// clock shows a time in the bot's time zone, with the day when it is not
// today.
func (b *Bot) clock(p lang.Printer, t time.Time) string {
	t = t.In(b.cfg.Location)
	now := b.cfg.Clock.Now().In(b.cfg.Location)
	if t.Year() == now.Year() && t.YearDay() == now.YearDay() {
		return t.Format("15:04 MST")
	}
	return p.Date(t, "2 Jan 15:04 MST")
}

// prettyJSON indents a JSON value for people to read, keeping its text
// exactly (no number or character is re-encoded).
func prettyJSON(raw []byte) string {
	var out bytes.Buffer
	if json.Indent(&out, raw, "", "  ") != nil {
		return string(raw)
	}
	return out.String()
}

// Answers to presses.
const (
	pressConfirmed = "✅ Confirmed — doing it now."
	pressCancelled = "❌ Cancelled — nothing was done."
	pressExpired   = "⌛ This request expired, so nothing was done. Ask me again if you still want it."
	pressWaiting   = "⏳ Got it — I'll handle this as soon as I can reach my database again."
	pressChecking  = "⏳ Got it — Telegram is slow to tell me who may decide this; I'll handle it in a moment."
)

// onPress handles a button press.
func (b *Bot) onPress(ctx context.Context, j *job, q *models.CallbackQuery) error {
	update := j.id
	if strings.HasPrefix(q.Data, pagePrefix) {
		return b.onPage(ctx, j, q)
	}
	if strings.HasPrefix(q.Data, stopPrefix) {
		return b.onStop(ctx, j, q)
	}
	if strings.HasPrefix(q.Data, regeneratePrefix) {
		return b.onRegenerate(ctx, j, q)
	}
	if strings.HasPrefix(q.Data, inspectPrefix) {
		return b.onInspect(ctx, j, q)
	}
	id, yes, ok := parsePress(q.Data)
	if !ok {
		b.log.InfoContext(ctx, "button press with unknown data", "update_id", update, "user_id", q.From.ID)
		return b.answerPress(ctx, j.w, q, b.wordsAt(ctx, q).Sprintf(staleButton), false)
	}
	p := b.wordsAt(ctx, q)
	err := b.press(ctx, j, q, p, id, yes)
	// The press stays in the inbox and is handled when the database, or
	// Telegram, is back; meanwhile the spinner stops, once.
	switch {
	case j.told:
	case ryo.IsUnavailable(err, ryo.Database):
		j.told = b.answerPress(ctx, j.w, q, p.Sprintf(pressWaiting), false) == nil
	case ryo.IsUnavailable(err, ryo.Telegram):
		j.told = b.answerPress(ctx, j.w, q, p.Sprintf(pressChecking), false) == nil
	}
	return err
}

// press decides an action as a press asks: load what the press is judged
// on, judge it (judgePress, which reads nothing else), take the decision in
// the database (once, atomically), and go on as the decision says
// (afterDecision).
func (b *Bot) press(ctx context.Context, j *job, q *models.CallbackQuery, p lang.Printer, id string, yes bool) error {
	a, presser, facts, err := b.loadPress(ctx, q, j.id, id)
	if err != nil {
		return err
	}
	log := b.log.With("update_id", j.id, "chat_id", a.Place.ChatID, "action", a.ID, "tool", a.Tool, "user_id", presser.ID)
	switch judgePress(facts) {
	case pressStands: // decided by this very press before: it goes on as decided
		return b.afterDecision(ctx, j, q, p, a, outcomeOf(a, false, j.id), log)
	case pressStale:
		log.WarnContext(ctx, "button press for an unknown action")
		return b.answerPress(ctx, j.w, q, p.Sprintf(staleButton), false)
	case pressMayNotUse: // banned, or no longer let in, since the action was asked for
		log.InfoContext(ctx, "action press refused: may not use the bot")
		if err := b.db.RefuseAction(ctx, a.ID, presser.ID); err != nil {
			return err
		}
		return b.answerPress(ctx, j.w, q, p.Sprintf(refusedBanned), true)
	case pressNotTheirs:
		log.InfoContext(ctx, "action press refused: not the person who asked")
		if err := b.db.RefuseAction(ctx, a.ID, presser.ID); err != nil {
			return err
		}
		return b.answerPress(ctx, j.w, q, p.Sprintf("Only %s can confirm or cancel this.", deciders(p, a.Requester, a.Place.ChatID, a.RequesterName)), true)
	case pressNotAdmin: // asked for as an admin, pressed by someone who no longer is one
		log.InfoContext(ctx, "action press refused: an admin's action, and the presser is not an admin")
		if err := b.db.RefuseAction(ctx, a.ID, presser.ID); err != nil {
			return err
		}
		return b.answerPress(ctx, j.w, q, p.Sprintf("Only an admin can confirm or cancel this."), true)
	}
	a, decided, err := b.db.Decide(ctx, memory.Decision{ID: a.ID, Actor: presser.ID, Update: j.id, Confirm: yes,
		Result: b.resultMessage(a, declined(a), j.id)}, b.resultMessage(a, expired(a), a.UpdateID))
	if err != nil {
		return err
	}
	return b.afterDecision(ctx, j, q, p, a, outcomeOf(a, decided, j.id), log)
}

// pressFacts are what a press on an action is judged on.
type pressFacts struct {
	found bool // the action exists
	// own is true when this very press decided the action already: it went
	// on in its chat's queue, or a crash cut it short. What was decided and
	// announced is carried out, whoever the presser has become since.
	own       bool
	sameChat  bool // it is pressed in the chat its prompt was shown in (or where, Telegram no longer says)
	mayUse    bool // the presser may use the bot now
	mayDecide bool // the presser asked for it, speaks for the chat that did, or is an admin allowed to decide
	// forAdmins is true when only an admin may decide the action (an admin
	// command's), and admin when the presser is one now.
	forAdmins, admin bool
}

// pressVerdict is whether a press may decide its action, and if not, why.
type pressVerdict int

const (
	pressDecides   pressVerdict = iota
	pressStale                  // an unknown action, or one of another chat: "This button no longer works."
	pressMayNotUse              // the presser may not use the bot (banned, or not let in)
	pressNotTheirs              // someone else's action
	pressStands                 // this press decided it before
	pressNotAdmin               // an admin's action, and the presser is no longer one
)

// judgePress decides whether a press may decide its action.
func judgePress(f pressFacts) pressVerdict {
	switch {
	case !f.found || !f.sameChat:
		return pressStale
	case f.own:
		return pressStands
	case !f.mayUse:
		return pressMayNotUse
	case f.forAdmins && !f.admin:
		return pressNotAdmin
	case !f.mayDecide:
		return pressNotTheirs
	}
	return pressDecides
}

// loadPress loads what a press on action id is judged on: the action, the
// presser as the database knows them now, and the facts.
func (b *Bot) loadPress(ctx context.Context, q *models.CallbackQuery, update int64, id string) (ryo.Action, ryo.User, pressFacts, error) {
	a, found, err := b.db.Action(ctx, id)
	if err != nil {
		return a, ryo.User{}, pressFacts{}, err
	}
	f := pressFacts{found: found, own: found && a.DecidedUpdate == update,
		sameChat: q.Message.Message == nil || q.Message.Message.Chat.ID == a.Place.ChatID}
	if !f.found || !f.sameChat || f.own {
		return a, userOf(&q.From), f, nil
	}
	presser, err := b.db.SaveUser(ctx, pressedBy(q), false)
	if err != nil {
		return a, presser, f, err
	}
	if f.mayUse = b.mayTalk(presser); !f.mayUse {
		return a, presser, f, nil
	}
	f.forAdmins, f.admin = a.Origin.ForAdmins(), b.isAdmin(presser)
	f.mayDecide, err = b.speaksFor(ctx, presser, a.Requester, a.Place.ChatID)
	f.mayDecide = f.mayDecide || b.cfg.AdminsDecide && f.admin
	return a, presser, f, err
}

// pressOutcome is what a press's decision came to.
type pressOutcome int

const (
	pressConfirms pressOutcome = iota // this press confirmed it: run it
	pressCancels                      // this press cancelled it
	pressTooLate                      // it expired before this press
	pressAlready                      // another press decided it first
)

// outcomeOf is what the decision of press update came to, for action a as
// it is after the decision; decided is whether this decision was taken
// now. A press run again after a crash finds its own decision taken.
func outcomeOf(a ryo.Action, decided bool, update int64) pressOutcome {
	mine := decided || a.DecidedUpdate == update
	switch {
	case !mine && a.State == ryo.ActionExpired:
		return pressTooLate
	case !mine:
		return pressAlready
	case a.State == ryo.ActionCancelled:
		return pressCancels
	}
	return pressConfirms
}

// afterDecision answers the press as its decision came out, and after a
// yes runs the action: a command's at once; the model's in its chat's
// queue, where the conversation goes on.
func (b *Bot) afterDecision(ctx context.Context, j *job, q *models.CallbackQuery, p lang.Printer, a ryo.Action, out pressOutcome, log *slog.Logger) error {
	switch out {
	case pressTooLate:
		log.InfoContext(ctx, "action press after expiry")
		err := b.answerPress(ctx, j.w, q, p.Sprintf(pressExpired), true)
		b.settle(ctx, j.w, a)
		return err
	case pressAlready:
		said := p.Sprintf("This was already confirmed by %s.", orSomeone(p, a.DeciderName))
		if a.State == ryo.ActionCancelled {
			said = p.Sprintf("This was already cancelled by %s.", orSomeone(p, a.DeciderName))
		}
		return b.answerPress(ctx, j.w, q, said, false)
	case pressCancels:
		log.InfoContext(ctx, "action cancelled")
		err := b.answerPress(ctx, j.w, q, p.Sprintf(pressCancelled), false)
		b.settle(ctx, j.w, a)
		return err
	}
	if j.press { // not yet answered: the rest may wait in the chat's queue
		log.InfoContext(ctx, "action confirmed")
		if err := b.answerPress(ctx, j.w, q, p.Sprintf(pressConfirmed), false); err != nil {
			return err
		}
	}
	if !a.Origin.Converses() {
		return b.executeCommand(ctx, j.w, a, ryo.Caller{Person: ryo.User{ID: a.Requester}, Chat: b.chatOfPress(q, a), Place: a.Place})
	}
	if j.press {
		return errGoOnInChat
	}
	replyTo := a.PromptID
	if q.Message.Message != nil { // the prompt pressed, known even before its turn recorded it
		replyTo = q.Message.Message.ID
	}
	t := talk{id: j.id, w: j.w, chat: b.chatOfPress(q, a), place: a.Place, replyTo: replyTo, person: ryo.User{ID: a.Requester},
		finished: &j.finished}
	t.words = b.wordsOfAction(ctx, a)
	t.prepare = func(ctx context.Context, shown *stages.Turn, observe func(ryo.Step)) error {
		return b.execute(ryo.WithCaller(ctx, t.caller()), t.w, a, observe)
	}
	return b.converse(ctx, t)
}

// chatOfPress is the chat a press came from, as far as it is known.
func (b *Bot) chatOfPress(q *models.CallbackQuery, a ryo.Action) ryo.Chat {
	if q.Message.Message != nil {
		return chatOf(q.Message.Message.Chat)
	}
	c := ryo.Chat{ID: a.Place.ChatID, Type: ryo.ChatSupergroup}
	if c.ID > 0 {
		c.Type = ryo.ChatPrivate
	}
	return c
}

func orSomeone(p lang.Printer, name string) string {
	if name == "" {
		return p.Sprintf("someone")
	}
	return name
}

// maxPressAnswer is the most characters Telegram shows in a press's
// answer; it refuses a longer one.
const maxPressAnswer = 200

// answerPress stops the spinner of a press. A press answered before (by
// an interrupted run) or too old to answer is not an error: nothing spins.
// Its text is cut to the 200 characters Telegram takes, whatever the
// language made of it.
func (b *Bot) answerPress(ctx context.Context, w *worker, q *models.CallbackQuery, text string, alert bool) error {
	text = clip(text, maxPressAnswer)
	err := w.idle(func() error { return b.tg.AnswerCallback(ctx, q.ID, text, alert) })
	if errors.Is(err, tg.ErrorBadRequest) {
		return nil
	}
	return err
}

// settle shows a decided action's outcome in its prompt, without buttons,
// and remembers that it did. When Telegram cannot be reached the sweep
// tries again later.
func (b *Bot) settle(ctx context.Context, w *worker, a ryo.Action) {
	if a.PromptID == 0 || a.Open() || a.Settled {
		return
	}
	text, _ := b.prompt(b.wordsOfAction(ctx, a), a)
	err := w.idle(func() error { return b.tg.Edit(ctx, a.Place, a.PromptID, text) })
	if err != nil && !errors.Is(err, stages.ErrMessageGone) {
		b.log.WarnContext(ctx, "could not show an action's outcome in its prompt; will try again", "action", a.ID, "err", err)
		return
	}
	err = b.record(ctx, "settle action", func(ctx context.Context) error { return b.db.SettleAction(ctx, a.ID) })
	if err != nil {
		b.log.WarnContext(ctx, "could not remember a settled prompt", "action", a.ID, "err", err)
	}
}

// sweep expires the actions nobody decided in time, and shows every
// decided action's outcome in its prompt, now and every sweepEvery until
// ctx ends.
func (b *Bot) sweep(ctx context.Context) {
	for {
		b.sweepOnce(ctx)
		if !ryo.Sleep(ctx, b.cfg.Clock, sweepEvery) {
			return
		}
	}
}

func (b *Bot) sweepOnce(ctx context.Context) {
	expiredNow, err := b.db.ExpireActions(ctx, func(a ryo.Action) ryo.Message { return b.resultMessage(a, expired(a), a.UpdateID) })
	if err != nil {
		if ctx.Err() == nil {
			b.log.WarnContext(ctx, "could not expire actions; will try again", "err", err)
		}
		return
	}
	for _, a := range expiredNow {
		b.log.InfoContext(ctx, "action expired", "action", a.ID, "tool", a.Tool, "chat_id", a.Place.ChatID)
	}
	unsettled, err := b.db.UnsettledActions(ctx)
	if err != nil {
		if ctx.Err() == nil {
			b.log.WarnContext(ctx, "could not list actions to settle; will try again", "err", err)
		}
		return
	}
	for _, a := range unsettled {
		b.settle(ctx, nil, a) // the sweep runs outside the dispatcher
	}
}

// approvalsShown is how many audit entries /approvals shows.
const approvalsShown = 20

// clip cuts s to n characters, marking the cut.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
