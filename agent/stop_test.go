package agent_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
)

// errStop is the cause a stopped turn's context ends with.
var errStop = errors.New("stopped by the person")

// A turn stopped while the model answers with a command ends there: the
// tool it asked for does not start, and the stop is the error.
func TestStoppedTurnStartsNoTool(t *testing.T) {
	f := newFixture(t, add("6", "36"), reply("6 + 36 = 42"))
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	ctx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	in := private("what is 6+36?")
	in.Observe = func(s ryo.Step) {
		if s.Kind == ryo.StepThinking { // the model is asked; it answers with a command all the same
			cancel(errStop)
		}
	}
	_, err := f.agent.Run(ctx, in)
	if !errors.Is(err, errStop) {
		t.Fatalf("Run error %v; want the stop", err)
	}
	if f.runs != 0 || len(f.model.requests) != 1 {
		t.Fatalf("after the stop the tool ran %d times and the model was asked %d times; want 0 and 1", f.runs, len(f.model.requests))
	}
}
