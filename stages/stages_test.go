package stages_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/stages"
)

// chat is a fake Messenger that keeps what the chat shows.
type chat struct {
	texts   map[int]string
	replyTo map[int]int
	next    int
	typing  int
}

func newChat() *chat { return &chat{texts: map[int]string{}, replyTo: map[int]int{}, next: 100} }

func (c *chat) Send(_ context.Context, _ ryo.Place, replyTo int, text string) (int, error) {
	c.next++
	c.texts[c.next], c.replyTo[c.next] = text, replyTo
	return c.next, nil
}

func (c *chat) Edit(_ context.Context, _ ryo.Place, id int, text string) error {
	if _, ok := c.texts[id]; !ok {
		return fmt.Errorf("edit %d: %w", id, stages.ErrMessageGone)
	}
	c.texts[id] = text
	return nil
}

func (c *chat) Typing(context.Context, ryo.Place) error { c.typing++; return nil }

var place = ryo.Place{ChatID: 7}

func TestStatusBecomesTheAnswer(t *testing.T) {
	c := newChat()
	s, err := stages.Begin(context.Background(), c, place, 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c.texts[s.ID()] != "⏳ Thinking…" || c.replyTo[s.ID()] != 5 || c.typing != 1 {
		t.Fatalf("status = %q replying to %d (typing %d); want Thinking as a reply to 5", c.texts[s.ID()], c.replyTo[s.ID()], c.typing)
	}
	ids, err := s.Finish(context.Background(), "42", nil, nil)
	if err != nil || len(ids) != 1 || ids[0] != s.ID() || c.texts[s.ID()] != "42" || len(c.texts) != 1 {
		t.Fatalf("Finish = %v, %v; chat shows %v; want the status message turned into the answer", ids, err, c.texts)
	}
}

func TestResumedTurnAdoptsItsStatusMessage(t *testing.T) {
	c := newChat()
	old, _ := c.Send(context.Background(), place, 5, "⏳ Thinking…")
	s, err := stages.Begin(context.Background(), c, place, 5, old)
	if err != nil || s.ID() != old || len(c.texts) != 1 || !strings.Contains(c.texts[old], "picked up again") {
		t.Fatalf("Begin(adopt) = %v, %v; chat %v; want the old message reused", s.ID(), err, c.texts)
	}
}

func TestAdoptDeliversWithoutAnotherEdit(t *testing.T) {
	c := newChat()
	old, _ := c.Send(context.Background(), place, 5, "⏳ Thinking…")
	ids, err := stages.Adopt(c, place, 5, old).Finish(context.Background(), "known answer", nil, nil)
	if err != nil || len(ids) != 1 || ids[0] != old || c.texts[old] != "known answer" || len(c.texts) != 1 {
		t.Fatalf("Adopt+Finish = %v, %v; chat %v", ids, err, c.texts)
	}
}

func TestDeletedStatusMessageIsReplaced(t *testing.T) {
	c := newChat()
	s, _ := stages.Begin(context.Background(), c, place, 5, 0)
	delete(c.texts, s.ID()) // the person deleted it
	ids, err := s.Finish(context.Background(), "answer", nil, nil)
	if err != nil || len(c.texts) != 1 || c.texts[ids[0]] != "answer" || c.replyTo[ids[0]] != 5 {
		t.Fatalf("Finish after deletion = %v, %v; chat %v", ids, err, c.texts)
	}
}

func TestFailShowsTheReason(t *testing.T) {
	c := newChat()
	s, _ := stages.Begin(context.Background(), c, place, 5, 0)
	if err := s.Fail(context.Background(), "The model is not installed."); err != nil {
		t.Fatal(err)
	}
	if got := c.texts[s.ID()]; got != "⚠️ The model is not installed." {
		t.Fatalf("failed status = %q", got)
	}
}

func TestLongAnswerIsSplitIntoReplies(t *testing.T) {
	c := newChat()
	s, _ := stages.Begin(context.Background(), c, place, 5, 0)
	answer := strings.Repeat("word ", 2000) // 10,000 characters
	ids, err := s.Finish(context.Background(), answer, nil, nil)
	if err != nil || len(ids) != 3 {
		t.Fatalf("Finish = %v, %v; want 3 parts", ids, err)
	}
	var joined []string
	for _, id := range ids {
		joined = append(joined, c.texts[id])
		if id != s.ID() && c.replyTo[id] != 5 {
			t.Errorf("part %d does not reply to the question", id)
		}
	}
	if strings.Join(joined, " ") != strings.TrimSpace(answer) {
		t.Fatal("the parts do not add up to the answer")
	}
}

// A delivery interrupted after part 2 of 3 sends only part 3 when resumed.
func TestResumedDeliverySendsMissingPartsOnly(t *testing.T) {
	c := newChat()
	answer := strings.Repeat("word ", 2000)
	s, _ := stages.Begin(context.Background(), c, place, 5, 0)
	var recorded []int
	flaky := &failingChat{chat: c, failSend: 1} // part 2 is sent, part 3 fails
	first := stages.Adopt(flaky, place, 5, s.ID())
	if _, err := first.Finish(context.Background(), answer, nil, func(ids []int) error { recorded = ids; return nil }); err == nil {
		t.Fatal("the failing send did not fail")
	}
	if len(recorded) != 2 {
		t.Fatalf("recorded %v; want the status message and part 2", recorded)
	}
	ids, err := stages.Adopt(c, place, 5, s.ID()).Finish(context.Background(), answer, recorded, nil)
	if err != nil || len(ids) != 3 || len(c.texts) != 3 {
		t.Fatalf("resumed Finish = %v, %v; chat has %d messages; want 3 parts, none twice", ids, err, len(c.texts))
	}
}

// failingChat fails the Send after failSend successful ones.
type failingChat struct {
	*chat
	failSend int
}

func (f *failingChat) Send(ctx context.Context, p ryo.Place, replyTo int, text string) (int, error) {
	if f.failSend == 0 {
		return 0, fmt.Errorf("network down")
	}
	f.failSend--
	return f.chat.Send(ctx, p, replyTo, text)
}

func units(s string) int { return len(utf16.Encode([]rune(s))) }

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		text string
		max  int
		want []string
	}{
		{"fits", "hello", 10, []string{"hello"}},
		{"empty", "  ", 10, []string{""}},
		{"paragraphs first", "aaaa bbbb\n\ncccc dddd", 15, []string{"aaaa bbbb", "cccc dddd"}},
		{"then lines", "aaaa bbbb\ncccc dddd", 15, []string{"aaaa bbbb", "cccc dddd"}},
		{"then words", "aaaa bbbb cccc dddd", 12, []string{"aaaa bbbb", "cccc dddd"}},
		{"hard cut", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"emoji count twice", "😀😀😀", 4, []string{"😀😀", "😀"}},
		{"cyrillic", "привет мир", 7, []string{"привет", "мир"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stages.Split(tt.text, tt.max)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("Split(%q, %d) = %q; want %q", tt.text, tt.max, got, tt.want)
			}
		})
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("hello world\n\nsecond paragraph", 8)
	f.Add("😀😀😀 привет", 3)
	f.Fuzz(func(t *testing.T, text string, max int) {
		if max < 2 || max > 5000 {
			t.Skip()
		}
		for _, part := range stages.Split(text, max) {
			if units(part) > max {
				t.Fatalf("part %q is %d units, over %d", part, units(part), max)
			}
		}
	})
}
