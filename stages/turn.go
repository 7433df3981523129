package stages

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/render"
)

// Config is how turns are shown.
type Config struct {
	// NotifyAfter: the answer to a turn that took longer arrives as a new
	// message, which notifies the person; a quicker one replaces the status
	// message. Default 8s.
	NotifyAfter time.Duration
	// Drafts streams the reply into a Telegram draft in private chats
	// (sendMessageDraft). Where Telegram does not support drafts, turns show
	// the reply in the status message instead.
	Drafts bool
	Clock  ryo.Clock // default ryo.SystemClock
	Log    *slog.Logger
}

// typingEvery keeps "typing…" showing: Telegram shows it for 5 seconds.
const typingEvery = 4 * time.Second

// Orchestrator shows turns to people.
type Orchestrator struct {
	m         Messenger
	cfg       Config
	draftsOff atomic.Bool // a draft failed: they do not work with this server
}

// New returns an orchestrator that talks to Telegram through m.
func New(m Messenger, cfg Config) *Orchestrator {
	if cfg.NotifyAfter == 0 {
		cfg.NotifyAfter = 8 * time.Second
	}
	if cfg.Clock == nil {
		cfg.Clock = ryo.SystemClock{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Orchestrator{m: m, cfg: cfg}
}

// Start describes the turn to show.
type Start struct {
	Place   ryo.Place
	Private bool      // a private chat: drafts and a faster pace
	ReplyTo int       // the person's message
	Since   time.Time // when the person began waiting; zero: now
	Adopt   int       // the status message an interrupted run of this turn posted; 0 when none
	DraftID int64     // the turn's draft, non-zero
	TurnID  int64     // the turn: an answer too long for messages comes as the file answer-<TurnID>.md
	Forced  string    // the tool the person chose for this turn, shown from the first status on; "" when none
	// Words prints the status message's own words, in the chat's
	// language; the zero Printer prints English.
	Words lang.Printer
	// Stop, when set, is the button the status message carries while the
	// turn runs, until Stopping; Finish, Fail and Pause remove it.
	Stop *Button
	// InPlace: Adopt is an earlier answer that this turn's answer replaces
	// (a regenerate, an edited question): the turn shows itself in it, not
	// as picked up again, without drafts, and the answer always goes into
	// it, however long it took.
	InPlace bool
	// Record, when set, remembers the status message once it is posted, so
	// that a run interrupted later adopts it instead of posting another.
	Record func(id int) error
}

// Turn is the live status message of one turn, from Begin until Finish,
// Fail or Pause.
type Turn struct {
	o *Orchestrator
	s Start

	mu      sync.Mutex
	board   board
	id      int  // the status message; 0 until posted
	drafts  bool // the reply streams into a draft
	drafted bool // a draft was shown
	pending int  // drafts sent whose outcome is not known yet
	carries bool // the status message carries (the first part of) the answer
	stopped bool // Stopping was called: the stop button is gone
	// buttonsOn is the message Finish gave the answer's buttons: its
	// last text message.
	buttonsOn int

	changed  chan struct{}
	cancel   context.CancelFunc // ends the loop and withdraws its queued calls
	loopDone chan struct{}
}

// Begin shows a turn: it posts the status message at once (or takes over
// s.Adopt), keeps "typing…" alive, and shows each step the turn reports to
// Observe until the turn ends. It does not wait for Telegram.
func (o *Orchestrator) Begin(ctx context.Context, s Start) *Turn {
	t := o.turn(s)
	t.drafts = o.cfg.Drafts && s.Private && s.DraftID != 0 && !s.InPlace && !o.draftsOff.Load()
	ctx, t.cancel = context.WithCancel(ctx)
	t.loopDone = make(chan struct{})
	go t.run(ctx)
	return t
}

// Adopt takes over status message s.Adopt of an interrupted turn as it
// is, for a turn that only has to deliver its known answer or failure.
func (o *Orchestrator) Adopt(s Start) *Turn {
	t := o.turn(s)
	t.cancel, t.loopDone = func() {}, make(chan struct{})
	close(t.loopDone)
	return t
}

func (o *Orchestrator) turn(s Start) *Turn {
	if s.Since.IsZero() {
		s.Since = o.cfg.Clock.Now()
	}
	return &Turn{o: o, s: s, id: s.Adopt, changed: make(chan struct{}, 1),
		board: board{w: s.Words, began: s.Since, resumed: s.Adopt != 0 && !s.InPlace, forced: s.Forced}}
}

// Observe shows a step of the turn. It never blocks.
func (t *Turn) Observe(s ryo.Step) {
	t.mu.Lock()
	t.board.observe(s)
	t.mu.Unlock()
	t.poke()
}

func (t *Turn) poke() {
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

// Stopping shows that the turn is being stopped, without its stop button:
// the answer written so far follows with Finish.
func (t *Turn) Stopping() {
	t.mu.Lock()
	t.stopped, t.board.stopping = true, true
	t.mu.Unlock()
	t.poke()
}

// wasStopped reports whether Stopping was called.
func (t *Turn) wasStopped() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stopped
}

// buttons are those the status message carries now.
func (t *Turn) buttons() []Button {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.s.Stop == nil || t.stopped {
		return nil
	}
	return []Button{*t.s.Stop}
}

// ID is the status message, 0 when there is none.
func (t *Turn) ID() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.id
}

// Close ends the turn's live display if Finish, Fail or Pause did not:
// no progress is sent after it returns, and a status message that was
// posted has been recorded. It is safe to call more than once.
func (t *Turn) Close() { t.stop() }

// stop ends the loop and waits for it.
func (t *Turn) stop() {
	t.cancel()
	<-t.loopDone
}

// run posts the status message, then shows progress until ctx ends.
func (t *Turn) run(ctx context.Context) {
	defer close(t.loopDone)
	clock, m, place := t.o.cfg.Clock, t.o.m, t.s.Place
	now := clock.Now()
	m.Typing(ctx, place)
	typingAt := now.Add(typingEvery)
	pace := newPace(t.s.Private, t.board.began, now)
	shown, drafted := "", ""
	draftNext := false // when both wait, the status message and the draft take turns
	if t.ID() == 0 {
		var ok bool
		if shown, ok = t.post(ctx); !ok {
			return
		}
	} else {
		pace.soon(now)
	}
	for {
		now = clock.Now()
		if !now.Before(typingAt) {
			m.Typing(ctx, place)
			typingAt = now.Add(typingEvery)
		}
		v := t.view(now)
		pace.grew(now, render.Units(v.reply))
		statusDue, draftDue := v.status != shown, v.drafting && v.reply != drafted
		switch {
		case !pace.due(now):
		case draftDue && (draftNext || !statusDue):
			t.mu.Lock()
			t.pending++
			t.mu.Unlock()
			m.Draft(ctx, place, t.s.DraftID, tail(v.reply, render.MaxUnits), t.draftDone)
			drafted, draftNext = v.reply, false
			pace.shown(now, true)
		case statusDue:
			m.Progress(ctx, place, t.ID(), render.Part{Plain: v.status}, t.buttons()...)
			shown, draftNext = v.status, true
			pace.shown(now, v.writing)
		}
		wake := earliest(typingAt, v.tick)
		if v.status != shown || v.drafting && v.reply != drafted {
			wake = earliest(wake, pace.next)
		}
		if !t.sleep(ctx, wake) {
			return
		}
	}
}

// view is what the loop may show at one moment.
type view struct {
	status   string // the status message
	reply    string // the reply so far, without thinking
	writing  bool
	drafting bool      // the reply goes to a draft, not the status message
	tick     time.Time // when the elapsed time shown changes
}

func (t *Turn) view(now time.Time) view {
	t.mu.Lock()
	defer t.mu.Unlock()
	drafting := t.drafts && t.board.writing()
	return view{status: t.board.text(now, !drafting), reply: preview(t.board.reply),
		writing: t.board.writing(), drafting: drafting, tick: t.board.changesAt(now)}
}

// post sends the status message and remembers it. It reports false when
// the message was not posted: withdrawn because the turn ended first, or
// refused.
func (t *Turn) post(ctx context.Context) (string, bool) {
	text := t.view(t.o.cfg.Clock.Now()).status
	id, err := t.o.m.Post(ctx, t.s.Place, t.s.ReplyTo, render.Part{Plain: text}, t.buttons()...)
	if err != nil {
		if ctx.Err() == nil {
			t.o.cfg.Log.WarnContext(ctx, "could not post the status message", "chat_id", t.s.Place.ChatID, "err", err)
		}
		return "", false
	}
	t.mu.Lock()
	t.id = id
	t.mu.Unlock()
	if t.s.Record != nil {
		if err := t.s.Record(id); err != nil {
			t.o.cfg.Log.WarnContext(ctx, "could not remember the status message", "chat_id", t.s.Place.ChatID, "err", err)
		}
	}
	return text, true
}

// sleep waits until wake, a step, or the end of ctx.
func (t *Turn) sleep(ctx context.Context, wake time.Time) bool {
	timer, stop := t.o.cfg.Clock.Timer(wake.Sub(t.o.cfg.Clock.Now()))
	defer stop()
	select {
	case <-t.changed:
	case <-timer:
	case <-ctx.Done():
		return false
	}
	return true
}

// mayHaveDrafted reports whether the person may have seen a draft of the
// reply: one was shown, or one went out and its outcome is not known yet.
func (t *Turn) mayHaveDrafted() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.drafted || t.pending > 0
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// draftDone learns how a draft went. Where drafts are not supported the
// turn, and later turns, switch to status edits.
func (t *Turn) draftDone(err error) {
	t.mu.Lock()
	t.pending--
	t.drafted = t.drafted || err == nil
	t.mu.Unlock()
	if !errors.Is(err, ErrDraftsUnsupported) {
		return // shown, or only this draft was not; the next one may be
	}
	if t.o.draftsOff.CompareAndSwap(false, true) {
		t.o.cfg.Log.Warn("drafts do not work here; showing replies as they are written by editing the status message instead",
			"chat_id", t.s.Place.ChatID, "err", err)
	}
	t.mu.Lock()
	t.drafts = false
	t.mu.Unlock()
	t.poke()
}
