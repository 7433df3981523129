package stages_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/stages"
)

func (c *chat) buttonsOf(id int) []stages.Button {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.buttons[id])
}

// A running turn's status message carries its stop button on every edit;
// once stopping it shows so, without the button, and the answer kept
// replaces it without one.
func TestStopButtonWhileTheTurnRuns(t *testing.T) {
	f := setup(false)
	stop := stages.Button{Text: "⏹ Stop", Data: "s1:9876543210:-1001234567890"}
	posted := make(chan int, 1)
	turn := f.o.Begin(context.Background(), stages.Start{Place: place, ReplyTo: question, TurnID: turnID, Stop: &stop,
		Record: func(id int) error { posted <- id; return nil }})
	var id int
	select {
	case id = <-posted:
	case <-time.After(10 * time.Second):
		t.Fatal("the status message was not posted")
	}
	if got := f.chat.buttonsOf(id); len(got) != 1 || got[0] != stop {
		t.Fatalf("posted with buttons %v, want the stop button", got)
	}
	turn.Observe(ryo.Step{Kind: ryo.StepWriting, Reply: "The first half of"})
	f.until(t, "the reply shown", func() bool { return strings.Contains(f.chat.text(id), "The first half of") })
	if got := f.chat.buttonsOf(id); len(got) != 1 || got[0] != stop {
		t.Fatalf("a progress edit left buttons %v, want the stop button kept", got)
	}
	turn.Stopping()
	f.until(t, "stopping shown", func() bool { return strings.Contains(f.chat.text(id), "⏹ Stopping…") })
	if got := f.chat.buttonsOf(id); len(got) != 0 {
		t.Fatalf("stopping still shows buttons %v", got)
	}
	f.clock.Advance(10 * time.Second) // a slow answer: it comes as a new message
	if _, err := turn.Finish(context.Background(), "The first half of\n\n⏹ Stopped", []string{"web_search"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := f.chat.text(id); !strings.HasPrefix(got, "⏹ Stopped after ") || !strings.HasSuffix(got, " · used web_search") {
		t.Fatalf("the status message of a stopped turn says %q", got)
	}
	for mid, text := range f.chat.shown() {
		if b := f.chat.buttonsOf(mid); len(b) != 0 {
			t.Errorf("message %d %q keeps buttons %v after the turn ended", mid, text, b)
		}
	}
}
