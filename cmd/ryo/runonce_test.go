package main

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
	"github.com/ryo-bot/ryo/toolbus"
)

// shredder is a test tool that deletes notes for good and, while block is
// set, does not return until it is stopped: a run cut short after it took
// effect. It can be made to tell whether a call happened.
type shredder struct {
	mu      sync.Mutex
	block   bool
	tells   bool // answers Happened from what it did
	shred   []string
	started chan string
}

func newShredder() *shredder { return &shredder{block: true, started: make(chan string, 8)} }

func (s *shredder) spec() toolbus.Spec {
	spec := toolbus.Spec{Name: "delete_note", Description: "Deletes one of the person's notes for good.",
		Category: toolbus.MathFinance, Examples: []toolbus.Example{{Question: "Delete my diary note.", Arguments: json.RawMessage(`{"title":"diary"}`)}},
		Schema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"],"additionalProperties":false}`),
		Effect: toolbus.Destructive, Timeout: time.Minute,
		Tool: toolbus.ToolFunc(func(ctx context.Context, args json.RawMessage) (any, error) {
			title := s.title(args)
			s.mu.Lock()
			s.shred = append(s.shred, title)
			block := s.block
			s.mu.Unlock()
			s.started <- title
			if block {
				<-ctx.Done() // it took effect; the stop comes before it can say so
				return nil, ctx.Err()
			}
			return map[string]any{"deleted": title}, nil
		})}
	if s.tells {
		spec.Happened = func(_ context.Context, args json.RawMessage) toolbus.Happening {
			if s.did(s.title(args)) {
				return toolbus.Happened
			}
			return toolbus.NotHappened
		}
	}
	return spec
}

func (s *shredder) title(args json.RawMessage) string {
	var a struct{ Title string }
	_ = json.Unmarshal(args, &a)
	return a.Title
}

func (s *shredder) did(title string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.shred {
		if t == title {
			return true
		}
	}
	return false
}

func (s *shredder) runs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.shred)
}

func (s *shredder) unblock() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.block = false
}

// waitStarted waits until the tool runs.
func (s *shredder) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-s.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the tool did not start")
	}
}

// cutShort has Alice confirm deleting a note, and stops ryo while the
// tool runs, after it took effect; then starts ryo again.
func cutShort(t *testing.T, s *shredder) (*harness, telegramtest.Message) {
	h := newHarness(t)
	h.tools = []toolbus.Spec{s.spec()}
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("diary")})
	h.start()
	h.tg.SendText(dm, alice, "delete my diary note")
	p := h.prompt(dm)
	h.pressAnswer(h.press(dm, alice, p, "✅"))
	s.waitStarted(t)
	h.stopMain()
	if a := h.action(p); a.State != ryo.ActionRunning {
		t.Fatalf("after a stop while its tool ran, the action is %s; want running", a.State)
	}
	s.unblock()
	return h, p
}

// A confirmed action cut short while its tool ran, by a tool that cannot
// tell whether it happened, is not run again at the next start: the
// person is told the outcome is unknown and asked again, and only a new
// yes runs it again.
func TestCutShortActionIsAskedAgainNotRerun(t *testing.T) {
	s := newShredder()
	h, old := cutShort(t, s)
	h.start()
	h.answer(dm, old.ID, "I cannot tell whether it was done")
	h.settled(dm, old.ID, "cannot tell whether it was done. I asked again below.")
	var again telegramtest.Message
	h.waitFor("the prompt that asks again", func() bool {
		for _, m := range h.tg.BotMessages(dm.ID) {
			if m.ID != old.ID && hasPrompt(m) {
				again = m
				return true
			}
		}
		return false
	})
	if !strings.Contains(again.Text, "I was stopped while doing this before") || !strings.Contains(again.Text, `"diary"`) {
		t.Errorf("the new prompt does not say why it asks again, or what:\n%s", again.Text)
	}
	if s.runs() != 1 {
		t.Fatalf("the tool ran %d times after the restart; want once, before it", s.runs())
	}
	if a := h.action(old); a.State != ryo.ActionInterrupted {
		t.Errorf("the old action is %s; want interrupted", a.State)
	} else if r, found, _ := h.db().ToolResult(bg(t), a.Key); !found || !strings.Contains(r.Text, `"code":"interrupted"`) {
		t.Errorf("the model was not told the outcome is unknown: %+v", r)
	}
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Deleted your diary note.")})
	h.pressAnswer(h.press(dm, alice, again, "✅"))
	h.answer(dm, again.ID, "Deleted your diary note.")
	if s.runs() != 2 {
		t.Fatalf("the tool ran %d times; want twice: once cut short, once after the new yes", s.runs())
	}
}

// Cancelled when asked again, the action is not run again.
func TestCutShortActionCancelledWhenAskedAgain(t *testing.T) {
	s := newShredder()
	h, old := cutShort(t, s)
	h.start()
	var again telegramtest.Message
	h.waitFor("the prompt that asks again", func() bool {
		for _, m := range h.tg.BotMessages(dm.ID) {
			if m.ID != old.ID && hasPrompt(m) {
				again = m
				return true
			}
		}
		return false
	})
	h.pressAnswer(h.press(dm, alice, again, "❌"))
	h.settled(dm, again.ID, "❌ Cancelled by")
	h.stopMain()
	if s.runs() != 1 {
		t.Fatalf("the tool ran %d times; want once", s.runs())
	}
}

// A tool that can tell it happened is asked instead: the action cut short
// is finished as done, not run again and not asked again, and the
// conversation goes on.
func TestCutShortActionThatHappenedIsFinished(t *testing.T) {
	s := newShredder()
	s.tells = true
	h, old := cutShort(t, s)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Your diary note is gone.")})
	h.start()
	h.answer(dm, old.ID, "Your diary note is gone.")
	h.settled(dm, old.ID, "— done.")
	if s.runs() != 1 {
		t.Fatalf("the tool ran %d times; want once", s.runs())
	}
	for _, m := range h.tg.BotMessages(dm.ID) {
		if m.ID != old.ID && hasPrompt(m) {
			t.Fatalf("asked again although the tool said it happened: %q", m.Text)
		}
	}
	if a := h.action(old); a.State != ryo.ActionExecuted || a.ResultStatus != toolbus.StatusOK {
		t.Fatalf("the action is %s (%s); want executed ok", a.State, a.ResultStatus)
	}
}
