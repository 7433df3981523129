package stages_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/stages"
)

// chat is a fake Messenger that keeps what the chat shows and what was
// called, in order.
type chat struct {
	mu       sync.Mutex
	changed  chan struct{}
	texts    map[int]string // message id → what the person sees
	buttons  map[int][]stages.Button
	replyTo  map[int]int
	files    map[int]file // the files sent, by message id
	next     int
	calls    []string
	drafts   []string
	holdPost chan struct{} // when set, Post waits for it (or its ctx)
	draftErr error         // when set, drafts fail with it
	sendErr  error         // when set, the next Send or SendFile fails with it
}

// file is a document the bot sent.
type file struct {
	name, caption string
	data          []byte
}

func newChat() *chat {
	return &chat{changed: make(chan struct{}), texts: map[int]string{}, buttons: map[int][]stages.Button{}, replyTo: map[int]int{}, files: map[int]file{}, next: question + 1}
}

func (c *chat) note(call string) {
	c.calls = append(c.calls, call)
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *chat) Post(ctx context.Context, _ ryo.Place, replyTo int, text render.Part, buttons ...stages.Button) (int, error) {
	c.mu.Lock()
	hold := c.holdPost
	c.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	return c.add("post", replyTo, text, func(id int) { c.buttons[id] = buttons }), nil
}

func (c *chat) Send(_ context.Context, _ ryo.Place, replyTo int, text render.Part, buttons ...stages.Button) (int, error) {
	c.mu.Lock()
	err := c.sendErr
	c.sendErr = nil
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return c.add("send", replyTo, text, func(id int) { c.buttons[id] = buttons }), nil
}

func (c *chat) SendFile(_ context.Context, _ ryo.Place, replyTo int, name string, data []byte, caption string) (int, error) {
	c.mu.Lock()
	err := c.sendErr
	c.sendErr = nil
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return c.add("file", replyTo, render.Part{Plain: caption}, func(id int) {
		c.files[id] = file{name: name, caption: caption, data: append([]byte(nil), data...)}
	}), nil
}

// add stores a new message, and what else comes with it (set, under the
// lock), before it wakes a wait.
func (c *chat) add(call string, replyTo int, text render.Part, set func(id int)) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	c.texts[c.next], c.replyTo[c.next] = text.Plain, replyTo
	set(c.next)
	c.note(call)
	return c.next
}

func (c *chat) Edit(_ context.Context, _ ryo.Place, id int, text render.Part, buttons ...stages.Button) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.texts[id]; !ok {
		return fmt.Errorf("edit %d: %w", id, stages.ErrMessageGone)
	}
	c.texts[id] = text.Plain
	c.buttons[id] = buttons
	c.note("edit")
	return nil
}

func (c *chat) Markup(_ context.Context, _ ryo.Place, id int, buttons ...stages.Button) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.texts[id]; !ok {
		return fmt.Errorf("markup %d: %w", id, stages.ErrMessageGone)
	}
	c.buttons[id] = buttons
	c.note("markup")
	return nil
}

func (c *chat) Delete(_ context.Context, _ ryo.Place, id int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.texts[id]; !ok {
		return stages.ErrMessageGone
	}
	delete(c.texts, id)
	c.note("delete")
	return nil
}

func (c *chat) Progress(_ context.Context, _ ryo.Place, id int, text render.Part, buttons ...stages.Button) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.texts[id]; ok {
		c.texts[id], c.buttons[id] = text.Plain, buttons
	}
	c.note("progress")
}

func (c *chat) Draft(_ context.Context, _ ryo.Place, _ int64, text string, done func(error)) {
	c.mu.Lock()
	err := c.draftErr
	c.drafts = append(c.drafts, text)
	c.note("draft")
	c.mu.Unlock()
	done(err)
}

func (c *chat) Typing(context.Context, ryo.Place) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.note("typing")
}

// count returns how often call was made.
func (c *chat) count(call string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, x := range c.calls {
		if x == call {
			n++
		}
	}
	return n
}

func (c *chat) text(id int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.texts[id]
}

func (c *chat) shown() map[int]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[int]string{}
	for k, v := range c.texts {
		out[k] = v
	}
	return out
}

// wait blocks until cond holds.
func (c *chat) wait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		c.mu.Lock()
		changed := c.changed
		c.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			c.mu.Lock()
			defer c.mu.Unlock()
			t.Fatalf("waiting for %s; calls so far: %v, chat: %v", what, c.calls, c.texts)
		}
	}
}

var (
	place = ryo.Place{ChatID: -1001234567890} // ids of Telegram's size
	t0    = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
)

// question is the id of the message a turn answers, turnID its turn's.
const (
	question = 512_377
	turnID   = 9_876_543_210
)

type fixture struct {
	chat  *chat
	clock *clocktest.Clock
	o     *stages.Orchestrator
}

func setup(drafts bool) *fixture {
	f := &fixture{chat: newChat(), clock: clocktest.New(t0)}
	f.o = stages.New(f.chat, stages.Config{NotifyAfter: 8 * time.Second, Drafts: drafts, Clock: f.clock})
	return f
}

// begin starts a turn answering the question and waits for its status message.
func (f *fixture) begin(t *testing.T, private bool) (*stages.Turn, int) {
	t.Helper()
	posted := make(chan int, 1)
	turn := f.o.Begin(context.Background(), stages.Start{Place: place, Private: private, ReplyTo: question, DraftID: 99, TurnID: turnID,
		Record: func(id int) error { posted <- id; return nil }})
	var recorded int
	select {
	case recorded = <-posted:
	case <-time.After(10 * time.Second):
		t.Fatal("the status message was not posted")
	}
	if recorded != turn.ID() {
		t.Fatalf("recorded status message %d; posted %d", recorded, turn.ID())
	}
	return turn, turn.ID()
}

// until lets time pass, timer by timer as the turn's loop arms them, until
// cond holds.
func (f *fixture) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for !cond() {
		next, err := f.clock.WaitNext(ctx)
		if err != nil {
			t.Fatalf("waiting for %s at %v: %v; calls %v", what, f.clock.Now().Sub(t0), err, f.chat.calls)
		}
		f.clock.Advance(next.Sub(f.clock.Now()))
	}
}

func TestQuickAnswerReplacesTheStatusMessage(t *testing.T) {
	f := setup(false)
	turn, status := f.begin(t, true)
	if got := f.chat.text(status); got != "🤔 Thinking…" || f.chat.replyTo[status] != question {
		t.Fatalf("status = %q replying to %d; want Thinking as a reply to %d", got, f.chat.replyTo[status], question)
	}
	turn.Observe(ryo.Step{Kind: ryo.StepThinking, Call: 1})
	turn.Observe(ryo.Step{Kind: ryo.StepWriting, Reply: "Hel"})
	ids, err := turn.Finish(context.Background(), "Hello, **Alice**!", nil, nil, nil)
	if err != nil || len(ids) != 1 || ids[0] != status {
		t.Fatalf("Finish = %v, %v; want the status message to carry the answer", ids, err)
	}
	if got := f.chat.shown(); len(got) != 1 || got[status] != "Hello, Alice!" {
		t.Fatalf("chat shows %v; want only the answer", got)
	}
	if n := f.chat.count("progress"); n != 0 {
		t.Fatalf("%d progress edits for a quick answer; want none", n)
	}
}

func TestSlowAnswerArrivesAsANewMessageAndTheStatusCollapses(t *testing.T) {
	f := setup(false)
	turn, status := f.begin(t, true)
	turn.Observe(ryo.Step{Kind: ryo.StepTool, Tool: "calculate"})
	turn.Observe(ryo.Step{Kind: ryo.StepToolDone, Tool: "calculate", Status: "ok", Took: 3 * time.Millisecond})
	f.until(t, "the tool shown", func() bool { return strings.Contains(f.chat.text(status), "✅ calculate") })
	f.until(t, "the elapsed time shown", func() bool { return strings.Contains(f.chat.text(status), "· 5s") })
	f.clock.Advance(t0.Add(9 * time.Second).Sub(f.clock.Now()))
	ids, err := turn.Finish(context.Background(), "It is 42.", []string{"calculate"}, nil, nil)
	if err != nil || len(ids) != 1 || ids[0] == status {
		t.Fatalf("Finish = %v, %v; want a new message", ids, err)
	}
	if got := f.chat.text(ids[0]); got != "It is 42." || f.chat.replyTo[ids[0]] != question {
		t.Fatalf("answer = %q replying to %d", got, f.chat.replyTo[ids[0]])
	}
	if got := f.chat.text(status); got != "✅ Answered in 9.0s · used calculate" {
		t.Fatalf("status = %q; want the one-line summary", got)
	}
}

func TestTypingIsKeptAlive(t *testing.T) {
	f := setup(false)
	turn, _ := f.begin(t, true)
	f.until(t, "12 seconds", func() bool { return !f.clock.Now().Before(t0.Add(12 * time.Second)) })
	f.chat.wait(t, "typing every 4 seconds", func() bool { return f.chat.count("typing") == 4 })
	turn.Fail(context.Background(), "stop")
}

func TestProgressIsPacedAndLatestWins(t *testing.T) {
	f := setup(false)
	turn, status := f.begin(t, false) // a group: every 5 s at most
	reply := ""
	for i := 0; i < 100; i++ {
		reply += fmt.Sprintf("word%d ", i)
		turn.Observe(ryo.Step{Kind: ryo.StepWriting, Reply: reply})
		f.clock.Advance(100 * time.Millisecond)
	}
	if n := f.chat.count("progress"); n > 2 {
		t.Fatalf("%d progress edits in the first 10 s in a group; want at most 2 (one per 5 s, none in the first 5)", n)
	}
	f.until(t, "the latest text", func() bool { return strings.Contains(f.chat.text(status), "word99") })
	turn.Fail(context.Background(), "stop")
}

func TestDraftsStreamTheReplyInPrivateChats(t *testing.T) {
	f := setup(true)
	f.o = stages.New(f.chat, stages.Config{NotifyAfter: time.Minute, Drafts: true, Clock: f.clock})
	turn, status := f.begin(t, true)
	turn.Observe(ryo.Step{Kind: ryo.StepWriting, Reply: "Streaming into the draft"})
	f.until(t, "the draft", func() bool { return f.chat.count("draft") == 1 })
	if got := f.chat.text(status); strings.Contains(got, "Streaming") || !strings.Contains(got, "Writing") {
		t.Fatalf("status = %q; want the stage only, the reply being in the draft", got)
	}
	ids, err := turn.Finish(context.Background(), "Streaming into the draft, done.", nil, nil, nil)
	if err != nil || len(ids) != 1 || ids[0] == status {
		t.Fatalf("Finish = %v, %v; want the answer as a real message", ids, err)
	}
	if got := f.chat.shown(); len(got) != 1 || got[ids[0]] != "Streaming into the draft, done." {
		t.Fatalf("chat shows %v; want the answer only (the quick turn's status message deleted)", got)
	}
}

func TestFailingDraftsFallBackToEdits(t *testing.T) {
	f := setup(true)
	f.chat.draftErr = fmt.Errorf("%w: Bad Request: TEXTDRAFT_PEER_INVALID", stages.ErrDraftsUnsupported)
	turn, status := f.begin(t, true)
	turn.Observe(ryo.Step{Kind: ryo.StepWriting, Reply: "Falls back"})
	f.until(t, "the draft attempt", func() bool { return f.chat.count("draft") == 1 })
	f.until(t, "the reply in the status message", func() bool { return strings.Contains(f.chat.text(status), "Falls back") })
	turn.Fail(context.Background(), "stop")

	next, _ := f.begin(t, true)
	next.Observe(ryo.Step{Kind: ryo.StepWriting, Reply: "No more drafts"})
	f.until(t, "the reply in the next status message", func() bool { return strings.Contains(f.chat.text(next.ID()), "No more drafts") })
	if n := f.chat.count("draft"); n != 1 {
		t.Fatalf("%d drafts; want no more after the first failed", n)
	}
	next.Fail(context.Background(), "stop")
}

// When the answer is ready before Telegram had room for the status message,
// the status message is never sent: the answer goes out instead.
func TestAnswerBeforeTheStatusMessageReplacesIt(t *testing.T) {
	f := setup(false)
	f.chat.holdPost = make(chan struct{})
	turn := f.o.Begin(context.Background(), stages.Start{Place: place, Private: true, ReplyTo: question})
	ids, err := turn.Finish(context.Background(), "Right away.", nil, nil, nil)
	if err != nil || len(ids) != 1 {
		t.Fatalf("Finish = %v, %v", ids, err)
	}
	if got := f.chat.shown(); len(got) != 1 || got[ids[0]] != "Right away." || f.chat.count("post") != 0 {
		t.Fatalf("chat shows %v after calls %v; want the answer alone", got, f.chat.calls)
	}
}

func TestFailAndPauseResolveTheStatusMessage(t *testing.T) {
	f := setup(false)
	turn, status := f.begin(t, true)
	if err := turn.Fail(context.Background(), "The model is not installed."); err != nil {
		t.Fatal(err)
	}
	if got := f.chat.text(status); got != "⚠️ The model is not installed." {
		t.Fatalf("failed status = %q", got)
	}
	turn, status = f.begin(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a shutdown
	turn.Pause(ctx)
	if got := f.chat.text(status); !strings.HasPrefix(got, "⏸ Paused") {
		t.Fatalf("paused status = %q", got)
	}
}

func TestResumedTurnReplacesWhatItShowedAtOnce(t *testing.T) {
	f := setup(false)
	old, _ := f.chat.Send(context.Background(), place, question, render.Part{Plain: "🤔 Thinking… · 45s"})
	turn := f.o.Begin(context.Background(), stages.Start{Place: place, Private: true, ReplyTo: question, Adopt: old, Since: t0.Add(-time.Minute)})
	f.chat.wait(t, "the adopted status message edited", func() bool { return strings.Contains(f.chat.text(old), "Picked up again") })
	if turn.ID() != old || f.chat.count("post") != 0 {
		t.Fatalf("status = %d after %v; want %d adopted, nothing posted", turn.ID(), f.chat.calls, old)
	}
	ids, err := turn.Finish(context.Background(), "Late answer.", nil, nil, nil)
	if err != nil || ids[0] == old || !strings.HasPrefix(f.chat.text(old), "✅ Answered in 1m 00s") {
		t.Fatalf("Finish = %v, %v; chat %v; want a new message after a minute's wait", ids, err, f.chat.shown())
	}
}

func TestDeletedStatusMessageIsReplaced(t *testing.T) {
	f := setup(false)
	turn, status := f.begin(t, true)
	f.chat.Delete(context.Background(), place, status) // the person deleted it
	ids, err := turn.Finish(context.Background(), "answer", nil, nil, nil)
	if got := f.chat.shown(); err != nil || len(got) != 1 || got[ids[0]] != "answer" || f.chat.replyTo[ids[0]] != question {
		t.Fatalf("Finish after deletion = %v, %v; chat %v", ids, err, got)
	}
}

func TestLongAnswerIsSplitIntoReplies(t *testing.T) {
	f := setup(false)
	turn, status := f.begin(t, true)
	answer := strings.Repeat("word ", 2000) // 10,000 characters
	var recorded [][]int
	ids, err := turn.Finish(context.Background(), answer, nil, nil, func(ids []int) error {
		recorded = append(recorded, append([]int(nil), ids...))
		return nil
	})
	if err != nil || len(ids) != 3 || ids[0] != status {
		t.Fatalf("Finish = %v, %v; want 3 parts, the first in the status message", ids, err)
	}
	for i, id := range ids {
		if !strings.HasSuffix(f.chat.text(id), fmt.Sprintf("(%d/3)", i+1)) || f.chat.replyTo[id] != question && id != status {
			t.Fatalf("part %d = …%q", i+1, f.chat.text(id)[max(0, len(f.chat.text(id))-20):])
		}
	}
	if len(recorded) != 3 || len(recorded[0]) != 1 || f.chat.count("file") != 0 {
		t.Fatalf("recorded %v, %d files; want the status message first, then each part, and no file", recorded, f.chat.count("file"))
	}
}

// longAnswer is about 20,000 characters of Markdown in several scripts:
// five or six parts, were it sent as messages.
func longAnswer() string {
	var b strings.Builder
	for i := 1; b.Len() < 20_000; i++ {
		fmt.Fprintf(&b, "## Раздел %d 🏔\n\nZürich, **Grüße** and `code %d`: a paragraph long enough to need a few lines of its own.\n\n", i, i)
	}
	return b.String()
}

// An answer of more than three parts comes as one message — its first
// part, saying the rest is in the file — and the whole answer as a
// Markdown file named after the turn, the file recorded after the message.
func TestAnswerTooLongForThreePartsComesAsAFile(t *testing.T) {
	for _, slow := range []bool{false, true} {
		f := setup(false)
		turn, status := f.begin(t, true)
		if slow {
			f.clock.Advance(time.Minute)
		}
		answer := longAnswer()
		var recorded [][]int
		ids, err := turn.Finish(context.Background(), answer, nil, nil, func(ids []int) error {
			recorded = append(recorded, append([]int(nil), ids...))
			return nil
		})
		if err != nil || len(ids) != 2 || (ids[0] == status) == slow {
			t.Fatalf("slow %v: Finish = %v, %v; want the first part (in the status message when quick) and the file", slow, ids, err)
		}
		first := f.chat.text(ids[0])
		if !strings.HasPrefix(first, "Раздел 1 🏔") || !strings.HasSuffix(first, "\n\n… the whole answer is in the file below") ||
			render.Units(first) > render.MaxUnits || render.Units(first) < render.MaxUnits/2 {
			t.Fatalf("slow %v: the message shows %d units: %q…%q", slow, render.Units(first), first[:40], first[len(first)-60:])
		}
		doc, ok := f.chat.files[ids[1]]
		if !ok || doc.name != "answer-9876543210.md" || string(doc.data) != strings.TrimSpace(answer)+"\n" || f.chat.replyTo[ids[1]] != question {
			t.Fatalf("slow %v: file %q of %d bytes replying to %d; want answer-9876543210.md with the whole answer", slow, doc.name, len(doc.data), f.chat.replyTo[ids[1]])
		}
		if len(recorded) != 2 || len(recorded[1]) != 2 || recorded[1][1] != ids[1] || f.chat.count("file") != 1 {
			t.Fatalf("slow %v: recorded %v after calls %v; want the message, then the file", slow, recorded, f.chat.calls)
		}
		if slow && !strings.HasPrefix(f.chat.text(status), "✅ Answered in") {
			t.Fatalf("the status message of a slow answer shows %q; want it collapsed", f.chat.text(status))
		}
	}
}

// A delivery resumed after the file was sent does not send it again; one
// resumed after the message alone sends the file once.
func TestResumedDeliverySendsTheFileOnce(t *testing.T) {
	f := setup(false)
	answer := longAnswer()
	turn, status := f.begin(t, true)
	f.chat.sendErr = nil
	var recorded []int
	_, err := turn.Finish(context.Background(), answer, nil, nil, func(ids []int) error {
		recorded = append(recorded[:0], ids...)
		f.chat.mu.Lock()
		f.chat.sendErr = errors.New("network down") // the file fails
		f.chat.mu.Unlock()
		return nil
	})
	if err == nil || len(recorded) != 1 || recorded[0] != status || f.chat.count("file") != 0 {
		t.Fatalf("first delivery = %v, recorded %v; want it to stop before the file", err, recorded)
	}
	f.chat.sendErr = nil
	start := stages.Start{Place: place, Private: true, ReplyTo: question, Adopt: status, Since: t0, TurnID: turnID}
	ids, err := f.o.Adopt(start).Finish(context.Background(), answer, nil, recorded, nil)
	if err != nil || len(ids) != 2 || ids[0] != status || f.chat.count("file") != 1 {
		t.Fatalf("resumed Finish = %v, %v; %d files; want the file sent once", ids, err, f.chat.count("file"))
	}
	again, err := f.o.Adopt(start).Finish(context.Background(), answer, nil, ids, nil)
	if err != nil || !slices.Equal(again, ids) || f.chat.count("file") != 1 || f.chat.count("send") != 0 {
		t.Fatalf("Finish after everything was sent = %v, %v; calls %v; want nothing sent again", again, err, f.chat.calls)
	}
}

// A delivery interrupted after part 2 of 3 sends only part 3 when resumed,
// the way it began, however long the wait was meanwhile.
func TestResumedDeliverySendsMissingPartsOnly(t *testing.T) {
	f := setup(false)
	answer := strings.Repeat("word ", 2000)
	turn, status := f.begin(t, true)
	var recorded []int
	f.chat.sendErr = nil
	first, err := deliverUntilFailure(f, turn, answer, &recorded)
	if err == nil || len(recorded) != 2 || recorded[0] != status {
		t.Fatalf("first delivery = %v, %v, recorded %v; want it to stop after part 2", first, err, recorded)
	}
	f.clock.Advance(time.Hour)
	resumed := f.o.Adopt(stages.Start{Place: place, Private: true, ReplyTo: question, Adopt: status, Since: t0})
	ids, err := resumed.Finish(context.Background(), answer, nil, recorded, nil)
	if err != nil || len(ids) != 3 || len(f.chat.shown()) != 3 || ids[0] != status {
		t.Fatalf("resumed Finish = %v, %v; chat has %d messages; want 3 parts, none twice", ids, err, len(f.chat.shown()))
	}
}

// A turn whose answer began to arrive never has that part overwritten: a
// pause leaves it, a failure is told in a message of its own.
func TestAnswerPartsAreNeverOverwritten(t *testing.T) {
	f := setup(false)
	turn, status := f.begin(t, true)
	var recorded []int
	if _, err := deliverUntilFailure(f, turn, strings.Repeat("word ", 2000), &recorded); err == nil {
		t.Fatal("the delivery did not fail")
	}
	part1 := f.chat.text(status)
	turn.Pause(context.Background())
	if err := turn.Fail(context.Background(), "Telegram is away."); err != nil {
		t.Fatal(err)
	}
	if f.chat.text(status) != part1 || !strings.HasSuffix(part1, "(1/3)") {
		t.Fatalf("the status message that carried part 1 now shows %q", f.chat.text(status))
	}
	if got := f.chat.shown(); len(got) != 3 || !anyText(got, "⚠️ Telegram is away.") {
		t.Fatalf("chat shows %v; want parts 1 and 2 and the failure as a message of its own", got)
	}
}

// A draft that was never shown does not make a quick answer a new message.
func TestUnshownDraftsDoNotCount(t *testing.T) {
	f := setup(true)
	f.o = stages.New(f.chat, stages.Config{NotifyAfter: time.Minute, Drafts: true, Clock: f.clock})
	f.chat.draftErr = errors.New("Bad Gateway")
	turn, status := f.begin(t, true)
	turn.Observe(ryo.Step{Kind: ryo.StepWriting, Reply: "a draft that fails in passing"})
	f.until(t, "the draft attempt", func() bool { return f.chat.count("draft") == 1 })
	ids, err := turn.Finish(context.Background(), "Quick.", nil, nil, nil)
	if err != nil || len(ids) != 1 || ids[0] != status {
		t.Fatalf("Finish = %v, %v; want the answer in the status message", ids, err)
	}
}

func anyText(texts map[int]string, want string) bool {
	for _, s := range texts {
		if s == want {
			return true
		}
	}
	return false
}

// deliverUntilFailure finishes turn with Telegram failing the third part.
func deliverUntilFailure(f *fixture, turn *stages.Turn, answer string, recorded *[]int) ([]int, error) {
	return turn.Finish(context.Background(), answer, nil, nil, func(ids []int) error {
		*recorded = append((*recorded)[:0], ids...)
		if len(ids) == 2 {
			f.chat.mu.Lock()
			f.chat.sendErr = errors.New("network down")
			f.chat.mu.Unlock()
		}
		return nil
	})
}
