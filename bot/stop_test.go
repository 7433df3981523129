package bot

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/stages"
)

// Stop data is read only in the form it is written; anything else is
// not a stop.
func TestParseStop(t *testing.T) {
	const update, chat = 987654321987, -1001234567890
	data := stopData(update, chat)
	if len(data) > 64 {
		t.Fatalf("stop data %q is longer than Telegram's 64 bytes", data)
	}
	if u, c, ok := parseStop(data); !ok || u != update || c != chat {
		t.Fatalf("parseStop(%q) = %d, %d, %v", data, u, c, ok)
	}
	if u, c, ok := parseStop(stopData(9223372036854775807, -9223372036854775808)); !ok || u != 9223372036854775807 || c != -9223372036854775808 {
		t.Fatalf("the widest ids read back as %d, %d, %v", u, c, ok)
	}
	for _, bad := range []string{"", "s1:", "s1::", "s1:1", "s1:1:", "s1::5", "s1:0:5", "s1:-1:5", "s1:1:0", "s1:01:5", "s1:1:-05",
		"s1:+1:5", "s1:1:+5", "s1:1:5:6", "s1: 1:5", "s1:1:5 ", "s2:1:5", "S1:1:5", "act:1:5", "s1:9223372036854775808:5",
		"s1:１:5", "s1:1:٥", "s1:0x1:5"} {
		if u, c, ok := parseStop(bad); ok {
			t.Errorf("parseStop(%q) = %d, %d; want refused", bad, u, c)
		}
	}
}

func FuzzParseStop(f *testing.F) {
	f.Add("s1:987654321:-1001234567890")
	f.Add("s1:01:5")
	f.Fuzz(func(t *testing.T, data string) {
		u, c, ok := parseStop(data)
		if ok && (stopData(u, c) != data || u <= 0 || c == 0) {
			t.Fatalf("parseStop(%q) = %d, %d: not the form stopData writes", data, u, c)
		}
	})
}

// /stop goes to a lane of its own however it is written; other messages
// and other commands wait in their chat's queue.
func TestIsStopCommand(t *testing.T) {
	msg := func(text string) json.RawMessage {
		word, _, _ := strings.Cut(text, " ")
		word, _, _ = strings.Cut(word, "\n")
		raw, _ := json.Marshal(map[string]any{"update_id": 1, "message": map[string]any{"text": text,
			"entities": []any{map[string]any{"type": "bot_command", "offset": 0, "length": len(word)}}}})
		return raw
	}
	for text, want := range map[string]bool{"/stop": true, "/STOP": true, "/stop@ryo_bot": true, "/stop now": true, "/stop\nplease": true,
		"/stopwatch": false, "/start": false, "stop": false, " /stop": false, "/sto": false, "": false, "⏹ /stop": false} {
		if got := isStopCommand("message", msg(text)); got != want {
			t.Errorf("isStopCommand(%q) = %v; want %v", text, got, want)
		}
	}
	// Text that begins with /stop but is no command — /stop set as code, or
	// with no entity at all — is a question like any other: it waits in its
	// chat's queue, never beside the turn running there.
	for _, entities := range []any{nil, []any{}, []any{map[string]any{"type": "code", "offset": 0, "length": 5}},
		[]any{map[string]any{"type": "bold", "offset": 0, "length": 5}, map[string]any{"type": "bot_command", "offset": 0, "length": 5}}} {
		raw, _ := json.Marshal(map[string]any{"update_id": 1, "message": map[string]any{"text": "/stop signs: what do they mean?", "entities": entities}})
		if isStopCommand("message", raw) {
			t.Errorf("text beginning with /stop with entities %v runs beside the chat's queue", entities)
		}
	}
	if isStopCommand("edited_message", msg("/stop")) || isStopCommand("message", json.RawMessage(`{"message":`)) {
		t.Error("an edit, or an unreadable update, is not a /stop")
	}
}

// newStopper registers a turn shown by a status message that nobody sees.
func newStopper(r *running, id int64) *stopper {
	shown := stages.New(nopMessenger{}, stages.Config{}).Adopt(stages.Start{Place: ryo.Place{ChatID: -100}})
	return r.add(talk{id: id, place: ryo.Place{ChatID: -100, Thread: 7}, person: ryo.User{ID: 42}}, shown)
}

// Many stops at once stop the turn once; its model call ends with the
// stop; after the model is done, a stop comes too late.
func TestStopsAtOnceStopOnce(t *testing.T) {
	var r running
	s := newStopper(&r, 5)
	ctx, done := s.watch(context.Background())
	var wg sync.WaitGroup
	outcomes := make(chan stopOutcome, 16)
	for range 16 {
		wg.Add(1)
		go func() { defer wg.Done(); outcomes <- s.stop() }()
	}
	wg.Wait()
	close(outcomes)
	now := 0
	for o := range outcomes {
		if o == stopNow {
			now++
		} else if o != stopTwice {
			t.Errorf("a stop came to %d", o)
		}
	}
	if now != 1 || !errors.Is(context.Cause(ctx), errStopped) {
		t.Fatalf("%d stops took effect, the model call ended with %v; want one, and the stop", now, context.Cause(ctx))
	}
	done()
	if got, ok := r.at(ryo.Place{ChatID: -100, Thread: 7}); !ok || got != s {
		t.Fatal("the turn is not found at its place")
	}
	if _, ok := r.at(ryo.Place{ChatID: -100}); ok {
		t.Fatal("a turn in a topic was found in the chat's general thread")
	}
	late := newStopper(&r, 6)
	_, over := late.watch(context.Background())
	over()
	if o := late.stop(); o != stopTooLate || late.isStopped() {
		t.Fatalf("a stop after the model was done came to %d", o)
	}
	r.remove(s)
	if _, ok := r.byTurn(5); ok {
		t.Fatal("a removed turn is still running")
	}
}

// A turn stopped before its model is asked is stopped from the start.
func TestStopBeforeTheModelIsAsked(t *testing.T) {
	var r running
	s := newStopper(&r, 8)
	s.stop()
	ctx, done := s.watch(context.Background())
	defer done()
	if !errors.Is(context.Cause(ctx), errStopped) {
		t.Fatalf("the model call begins with %v; want it stopped", context.Cause(ctx))
	}
	if out := s.kept(lang.Printer{}, agent.Output{}, false); out.Text != stoppedEmpty {
		t.Fatalf("kept %q", out.Text)
	}
}

// What is kept is the last reply that had words in it, without the
// model's thinking, marked stopped.
func TestStopKeepsTheLastReplyWritten(t *testing.T) {
	var r running
	s := newStopper(&r, 9)
	observe := s.observing(func(ryo.Step) {})
	observe(ryo.Step{Kind: ryo.StepWriting, Reply: "<think>hmm</think>Let me look."})
	observe(ryo.Step{Kind: ryo.StepThinking, Call: 2})
	observe(ryo.Step{Kind: ryo.StepWriting, Reply: "<think>still thinking"})
	out := s.kept(lang.Printer{}, agent.Output{Tools: []string{"web_search"}}, false)
	if out.Text != "Let me look.\n\n⏹ Stopped" || len(out.Tools) != 1 || out.Tags[0] != "action:stopped" {
		t.Fatalf("kept %+v", out)
	}
	var meta map[string]any
	if json.Unmarshal(withStopped(json.RawMessage(`{"model":"m"}`)), &meta) != nil || meta["stopped"] != true || meta["model"] != "m" {
		t.Fatalf("metadata %v", meta)
	}
}

// nopMessenger shows nothing.
type nopMessenger struct{}

func (nopMessenger) Post(context.Context, ryo.Place, int, render.Part, ...stages.Button) (int, error) {
	return 1, nil
}
func (nopMessenger) Send(context.Context, ryo.Place, int, render.Part, ...stages.Button) (int, error) {
	return 1, nil
}
func (nopMessenger) SendFile(context.Context, ryo.Place, int, string, []byte, string) (int, error) {
	return 1, nil
}
func (nopMessenger) Edit(context.Context, ryo.Place, int, render.Part, ...stages.Button) error {
	return nil
}
func (nopMessenger) Markup(context.Context, ryo.Place, int, ...stages.Button) error          { return nil }
func (nopMessenger) Delete(context.Context, ryo.Place, int) error                            { return nil }
func (nopMessenger) Progress(context.Context, ryo.Place, int, render.Part, ...stages.Button) {}
func (nopMessenger) Draft(context.Context, ryo.Place, int64, string, func(error))            {}
func (nopMessenger) Typing(context.Context, ryo.Place)                                       {}

// A stop that comes just as the model's answer is back, before the turn
// looked whether it was stopped, is told "Stopping": the turn keeps the
// answer, marked stopped, as it would have been a moment earlier. After
// the turn looked, a stop is too late.
func TestStopJustAsTheModelIsDone(t *testing.T) {
	var r running
	s := newStopper(&r, 11)
	_, done := s.watch(context.Background())
	defer done()
	// the model's answer came back whole
	if o := s.stop(); o != stopNow {
		t.Fatalf("a stop before the turn looked came to %d; want it to stop the turn", o)
	}
	if stopped, edited := s.settle(); !stopped || edited {
		t.Fatalf("the turn sees stopped %v, edited %v; want it stopped, as the person was told", stopped, edited)
	}
	if o := s.stop(); o != stopTooLate {
		t.Fatalf("a stop after the turn looked came to %d; want too late", o)
	}
	out := s.kept(lang.Printer{}, agent.Output{Text: "The whole answer."}, true)
	if out.Text != "The whole answer.\n\n⏹ Stopped" || out.Tags[0] != "action:stopped" {
		t.Fatalf("kept %q", out.Text)
	}
}
