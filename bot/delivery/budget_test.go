package delivery

import (
	"fmt"
	"testing"
	"time"
)

// Three replicas sending for one bot each take a third of the bot-wide
// budget: together they never send more than one would.
func TestSharedGlobalBudget(t *testing.T) {
	f := newFixture(t, limits{PerSecond: 28})
	f.s.share(3)
	for i := range 12 {
		f.add(alicePM+int64(i), urgent, fmt.Sprint("send", i), "")
	}
	if got := len(f.order(t0, t0)); got != 9 {
		t.Fatalf("%d calls went at once with the budget shared by 3; want 9 (28/3)", got)
	}
	f.s.share(1) // the others left
	if n := len(f.order(t0, t0)); n != 3 {
		t.Fatalf("%d more calls went once alone; want the 3 left", n)
	}
}

// A chat taken over from a replica that wrote in it a moment ago starts
// with its budget spent then: its next call waits out the spacing.
func TestInheritedChatStartsSpent(t *testing.T) {
	f := newFixture(t, limits{ChatEvery: time.Second, ChatBurst: 3, GroupPerMinute: 4})
	f.s.inherit(alicePM, t0, 0)
	f.s.inherit(bobPM, t0, 10*time.Second) // let go ten seconds ago: full again
	f.s.inherit(team, t0, 500*time.Millisecond)
	f.add(alicePM, urgent, "dm1", "")
	f.add(alicePM, urgent, "dm2", "")
	f.add(bobPM, urgent, "bob", "")
	f.add(team, urgent, "group1", "")
	got := f.order(t0, t0.Add(time.Minute))
	want := []string{"bob@0s", "group1@500ms", "dm1@1s", "dm2@2s"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("order = %v; want %v", got, want)
	}
}

func TestLiftedLimitsStayLiftedWhenShared(t *testing.T) {
	f := newFixture(t, limits{})
	f.s.share(3)
	for i := range 40 {
		f.add(alicePM+int64(i), urgent, fmt.Sprint("send", i), "")
	}
	if got := len(f.order(t0, t0)); got != 40 {
		t.Fatalf("%d calls went at once without limits, shared by 3; want all 40", got)
	}
}
