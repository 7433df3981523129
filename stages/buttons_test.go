package stages_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/stages"
)

var again = stages.Button{Text: "🔄", Data: "r1:9876543210:-1001234567890"}

// The answer's buttons go under its last text message on every way
// Finish delivers it, and on no other message.
func TestAnswerButtonsGoUnderTheLastTextMessage(t *testing.T) {
	for _, tt := range []struct {
		name   string
		slow   bool
		answer string
		parts  int // text messages of the answer; a file follows when more than 3
	}{
		{"quick, in the status message", false, "Quick.", 1},
		{"slow, a new message", true, "Slow.", 1},
		{"quick, in three parts", false, strings.Repeat("word ", 2000), 3},
		{"slow, in three parts", true, strings.Repeat("word ", 2000), 3},
		{"quick, with a file", false, longAnswer(), 1},
		{"slow, with a file", true, longAnswer(), 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(false)
			turn, status := f.begin(t, true)
			if tt.slow {
				f.clock.Advance(time.Minute)
			}
			ids, err := turn.Finish(context.Background(), tt.answer, nil, nil, nil, again)
			if err != nil || len(ids) < tt.parts {
				t.Fatalf("Finish = %v, %v", ids, err)
			}
			last := ids[tt.parts-1]
			for _, id := range append(ids, status) {
				want := []stages.Button(nil)
				if id == last {
					want = []stages.Button{again}
				}
				if got := f.chat.buttons[id]; !slices.Equal(got, want) {
					t.Fatalf("message %d carries %v; want %v (answer %v, status %d)", id, got, want, ids, status)
				}
			}
		})
	}
}

// A delivery resumed after its last part was sent gives that part its
// buttons again; one resumed before it sends it with them.
func TestResumedDeliveryKeepsTheButtons(t *testing.T) {
	f := setup(false)
	answer := strings.Repeat("word ", 2000)
	turn, status := f.begin(t, true)
	var recorded []int
	if _, err := deliverUntilFailure(f, turn, answer, &recorded); err == nil {
		t.Fatal("the delivery did not fail")
	}
	start := stages.Start{Place: place, Private: true, ReplyTo: question, Adopt: status, Since: t0, TurnID: turnID}
	ids, err := f.o.Adopt(start).Finish(context.Background(), answer, nil, recorded, nil, again)
	if err != nil || len(ids) != 3 || !slices.Equal(f.chat.buttons[ids[2]], []stages.Button{again}) {
		t.Fatalf("resumed Finish = %v, %v; last part carries %v", ids, err, f.chat.buttons[ids[2]])
	}
	f.chat.buttons[ids[2]] = nil // as sent by a version that gave none
	if _, err := f.o.Adopt(start).Finish(context.Background(), answer, nil, ids, nil, again); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.chat.buttons[ids[2]], []stages.Button{again}) || f.chat.count("markup") != 1 || f.chat.count("send") != 2 {
		t.Fatalf("after a delivery resumed with every part sent, calls %v, last part carries %v", f.chat.calls, f.chat.buttons[ids[2]])
	}
}
