package delivery

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

const (
	alicePM int64 = 7123456789     // a private chat
	bobPM   int64 = 7198765432     // another
	team    int64 = -1001234567890 // a group
)

// fixture drives a schedule by hand: it queues jobs and records how they
// end.
type fixture struct {
	t     *testing.T
	s     *schedule
	ended map[string]error
}

func newFixture(t *testing.T, l limits) *fixture {
	return &fixture{t: t, s: newSchedule(l), ended: map[string]error{}}
}

func (f *fixture) add(chat int64, c class, name, key string) *apiCall {
	j := &apiCall{chat: chat, class: c, key: key, method: name, ctx: context.Background()}
	j.done = func(err error) { f.ended[name] = err }
	if c == progress {
		j.expires = f.now().Add(progressLife)
	}
	f.s.add(j)
	f.collect()
	return j
}

var clockNow = t0

func (f *fixture) now() time.Time { return clockNow }

func (f *fixture) collect() {
	for _, e := range f.s.takeFinished() {
		e.j.done(e.err)
	}
}

// next returns the name of the job that goes at now and marks it sent, or
// "" and when to look again.
func (f *fixture) next(now time.Time) (string, time.Time) {
	f.t.Helper()
	j, wake := f.s.next(now)
	f.collect()
	if j == nil {
		return "", wake
	}
	f.s.released(j, now, false)
	return j.method, time.Time{}
}

// order returns the names of the jobs that go, taking each as soon as it
// may, until none is left or until `until`.
func (f *fixture) order(from, until time.Time) []string {
	var names []string
	now := from
	for !now.After(until) {
		name, wake := f.next(now)
		if name != "" {
			names = append(names, fmt.Sprintf("%s@%v", name, now.Sub(t0)))
			continue
		}
		if wake.IsZero() {
			break
		}
		now = wake
	}
	return names
}

func TestBucket(t *testing.T) {
	b := newBucket(time.Second, 3)
	for i := 0; i < 3; i++ {
		if at := b.readyAt(t0, 1); !at.Equal(t0) {
			t.Fatalf("call %d waits until %v; a burst of 3 goes at once", i+1, at)
		}
		b.take(t0)
	}
	if at := b.readyAt(t0, 1); !at.Equal(t0.Add(time.Second)) {
		t.Fatalf("the 4th call may go at %v; want after one second", at)
	}
	if at := b.readyAt(t0, 2); !at.Equal(t0.Add(2 * time.Second)) {
		t.Fatalf("two tokens at %v; want after two seconds", at)
	}
	if !b.full(t0.Add(3 * time.Second)) {
		t.Fatal("the bucket did not refill")
	}
}

// A call counts in a window from when it is sent until the window's span
// after its answer: Telegram counted it on arrival, somewhere in between.
func TestWindow(t *testing.T) {
	w := newWindow(2, time.Minute)
	first, second := w.take(), w.take()
	if _, ok := w.readyAt(t0, 1); ok {
		t.Fatal("a third call may go while the window is full of calls on their way")
	}
	w.answered(first, t0)
	if at, ok := w.readyAt(t0.Add(10*time.Second), 1); !ok || !at.Equal(t0.Add(time.Minute)) {
		t.Fatalf("third call at %v, %v; want a minute after the first's answer", at, ok)
	}
	w.answered(second, t0.Add(10*time.Second))
	if at, ok := w.readyAt(t0.Add(20*time.Second), 1); !ok || !at.Equal(t0.Add(time.Minute)) {
		t.Fatalf("third call at %v; want when the first leaves the window", at)
	}
	if at, _ := w.readyAt(t0.Add(20*time.Second), 2); !at.Equal(t0.Add(70 * time.Second)) {
		t.Fatalf("room for two at %v; want when both left", at)
	}
	if at, _ := w.readyAt(t0.Add(time.Minute), 1); !at.Equal(t0.Add(time.Minute)) {
		t.Fatalf("at a minute the first call has left; got %v", at)
	}
}

// Asking about a later moment, for a call that waits out a pause, must not
// make the window forget calls that still count now.
func TestWindowLooksAheadWithoutForgetting(t *testing.T) {
	w := newWindow(1, time.Second)
	w.answered(w.take(), t0)
	if _, ok := w.readyAt(t0.Add(time.Hour), 1); !ok {
		t.Fatal("an hour later the window must have room")
	}
	if at, _ := w.readyAt(t0.Add(100*time.Millisecond), 1); !at.Equal(t0.Add(time.Second)) {
		t.Fatalf("now the window is still full until 1s; got %v", at.Sub(t0))
	}
}

// The time a call spends on its way does not refill the bucket, and costs
// nothing more either.
func TestBucketCountsTheWay(t *testing.T) {
	b := newBucket(time.Second, 1)
	b.take(t0)
	b.answered(t0.Add(400 * time.Millisecond))
	if at := b.readyAt(t0.Add(400*time.Millisecond), 1); !at.Equal(t0.Add(1400 * time.Millisecond)) {
		t.Fatalf("next call at %v; want a second after the answer", at.Sub(t0))
	}
	slow := newBucket(time.Second, 3)
	slow.take(t0)
	slow.answered(t0.Add(10 * time.Second)) // Telegram took ten seconds to answer
	if at := slow.readyAt(t0.Add(10*time.Second), 1); !at.Equal(t0.Add(10 * time.Second)) {
		t.Fatalf("after a slow answer the next call waits until %v; two tokens were left", at.Sub(t0))
	}
}

// A call that must not be dropped and goes again after a failure is never
// taken for superseded; a queued droppable call with its key is.
func TestRequeuedFinalIsNeverSuperseded(t *testing.T) {
	f := newFixture(t, defaultLimits())
	final := f.add(alicePM, urgent, "final", "message:7")
	got, _ := f.s.next(t0)
	if got != final {
		t.Fatal("the final edit did not go")
	}
	f.add(alicePM, progress, "late-progress", "message:7")
	f.s.requeue(final)
	f.s.released(final, t0, false)
	f.collect()
	if err, ended := f.ended["final"]; ended {
		t.Fatalf("the final edit ended with %v", err)
	}
	if !errors.Is(f.ended["late-progress"], errSuperseded) {
		t.Fatalf("the progress edit ended with %v; want superseded by the final one", f.ended["late-progress"])
	}
}

// A final call waiting out a backoff is woken for at its time, even while
// a droppable call of its chat waits for headroom.
func TestBackoffIsWokenForOnTime(t *testing.T) {
	f := newFixture(t, limits{ChatEvery: 10 * time.Second, ChatBurst: 2})
	final := f.add(alicePM, urgent, "final", "")
	f.s.next(t0)
	final.notBefore = t0.Add(500 * time.Millisecond)
	f.s.requeue(final)
	f.s.released(final, t0, false)
	f.add(alicePM, progress, "progress", "message:1")
	if name, wake := f.next(t0); name != "" || !wake.Equal(t0.Add(500*time.Millisecond)) {
		t.Fatalf("next = %q, wake at %v; want a wake-up when the backoff ends", name, wake.Sub(t0))
	}
}

// Calls that belong to no chat do not wait for one another.
func TestCallsOfNoChatGoTogether(t *testing.T) {
	f := newFixture(t, defaultLimits())
	f.add(0, urgent, "answerCallbackQuery1", "")
	f.add(0, urgent, "answerCallbackQuery2", "")
	if a, _ := f.s.next(t0); a == nil {
		t.Fatal("nothing went")
	}
	if b, _ := f.s.next(t0); b == nil {
		t.Fatal("the second call of no chat waited for the first to come back")
	}
}

func TestChatBudget(t *testing.T) {
	f := newFixture(t, limits{ChatEvery: time.Second, ChatBurst: 3})
	for i := 1; i <= 5; i++ {
		f.add(alicePM, urgent, fmt.Sprint("send", i), "")
	}
	got := f.order(t0, t0.Add(time.Minute))
	want := []string{"send1@0s", "send2@0s", "send3@0s", "send4@1s", "send5@2s"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("order = %v; want %v", got, want)
	}
}

func TestGroupMinuteBudget(t *testing.T) {
	f := newFixture(t, limits{ChatEvery: time.Second, ChatBurst: 3, GroupPerMinute: 4})
	for i := 1; i <= 5; i++ {
		f.add(team, urgent, fmt.Sprint("send", i), "")
	}
	got := f.order(t0, t0.Add(2*time.Minute))
	want := []string{"send1@0s", "send2@0s", "send3@0s", "send4@1s", "send5@1m0s"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("order = %v; want %v", got, want)
	}
}

func TestGlobalBudgetAndUrgentFirst(t *testing.T) {
	f := newFixture(t, limits{PerSecond: 10})
	f.add(alicePM, typing, "typing", "typing")
	f.add(alicePM, progress, "progress", "message:1")
	f.add(bobPM, status, "status", "")
	f.add(team, urgent, "answer", "")
	got := f.order(t0, t0)
	// Typing and progress need headroom left for calls never dropped: with
	// ten a second and seven kept back, only three go.
	want := []string{"answer@0s", "status@0s", "progress@0s"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("order = %v; want %v", got, want)
	}
}

func TestProgressMergesTheLatestWins(t *testing.T) {
	f := newFixture(t, defaultLimits())
	first := f.add(alicePM, progress, "edit1", "message:7")
	f.add(alicePM, urgent, "answer-other-chat", "")
	second := f.add(alicePM, progress, "edit2", "message:7")
	if !errors.Is(f.ended["edit1"], errSuperseded) {
		t.Fatalf("the first edit ended with %v; want superseded", f.ended["edit1"])
	}
	if second.seq != first.seq {
		t.Fatal("the merged edit lost its place in line")
	}
	f.add(alicePM, urgent, "final", "message:7")
	if !errors.Is(f.ended["edit2"], errSuperseded) {
		t.Fatalf("the progress edit ended with %v; want superseded by the final edit of the same message", f.ended["edit2"])
	}
	got := f.order(t0, t0.Add(time.Minute))
	if fmt.Sprint(got) != "[answer-other-chat@0s final@0s]" {
		t.Fatalf("order = %v", got)
	}
}

// Under pressure progress goes last and is dropped when it cannot go in
// time; final answers wait as long as it takes and are never dropped.
func TestPressureDropsProgressNeverFinals(t *testing.T) {
	f := newFixture(t, limits{ChatEvery: 10 * time.Second, ChatBurst: 1})
	for i := 1; i <= 3; i++ {
		f.add(alicePM, urgent, fmt.Sprint("part", i), "")
	}
	f.add(alicePM, progress, "progress", "message:1")
	got := f.order(t0, t0.Add(time.Hour))
	if fmt.Sprint(got) != "[part1@0s part2@10s part3@20s]" {
		t.Fatalf("order = %v; want every part, 10 s apart", got)
	}
	if !errors.Is(f.ended["progress"], errExpired) {
		t.Fatalf("progress ended with %v; want dropped", f.ended["progress"])
	}
}

func TestTooManyRequestsPausesTheChatExactly(t *testing.T) {
	f := newFixture(t, defaultLimits())
	j := f.add(alicePM, urgent, "answer", "")
	f.add(bobPM, urgent, "other", "")
	got, _ := f.s.next(t0)
	if got != j {
		t.Fatal("the first job did not go first")
	}
	f.s.tooMany(j, 7*time.Second, t0)
	f.s.requeue(j)
	f.s.released(j, t0, true)
	if name, _ := f.next(t0); name != "other" {
		t.Fatalf("next = %q; another chat must not wait for Alice's 429", name)
	}
	name, wake := f.next(t0)
	if name != "" || !wake.Equal(t0.Add(7*time.Second)) {
		t.Fatalf("next = %q, wake %v; want nothing until exactly 7 s", name, wake.Sub(t0))
	}
	if name, _ := f.next(t0.Add(7*time.Second - time.Nanosecond)); name != "" {
		t.Fatal("sent before retry_after passed")
	}
	if name, _ := f.next(t0.Add(7 * time.Second)); name != "answer" {
		t.Fatalf("at exactly 7 s got %q; want the answer", name)
	}
}

// 429s in two chats within a second that ask for the same wait come from
// the bot-wide limit: everything waits.
func TestTooManyRequestsInTwoChatsPausesEverything(t *testing.T) {
	f := newFixture(t, defaultLimits())
	a := f.add(alicePM, urgent, "a", "")
	b := f.add(bobPM, urgent, "b", "")
	f.add(team, urgent, "c", "")
	for _, j := range []*apiCall{a, b} {
		if got, _ := f.s.next(t0); got != j {
			t.Fatalf("%s did not go in order", j.method)
		}
	}
	f.s.tooMany(a, 5*time.Second, t0)
	f.s.tooMany(b, 5*time.Second, t0.Add(100*time.Millisecond))
	for _, j := range []*apiCall{a, b} {
		f.s.requeue(j)
		f.s.released(j, t0, true)
	}
	if name, wake := f.next(t0.Add(200 * time.Millisecond)); name != "" || !wake.Equal(t0.Add(5100*time.Millisecond)) {
		t.Fatalf("next = %q, wake %v; want everything paused until 5.1 s", name, wake.Sub(t0))
	}
	got := f.order(t0.Add(5100*time.Millisecond), t0.Add(time.Minute))
	if fmt.Sprint(got) != "[a@5.1s b@5.1s c@5.1s]" {
		t.Fatalf("order = %v", got)
	}
}

// Two groups over their own limits, asking for different waits, pause
// only themselves.
func TestTooManyRequestsInTwoGroupsPausesThemOnly(t *testing.T) {
	f := newFixture(t, defaultLimits())
	const other int64 = -1006
	a := f.add(team, urgent, "a", "")
	b := f.add(other, urgent, "b", "")
	f.add(alicePM, urgent, "alice", "")
	for _, j := range []*apiCall{a, b} {
		if got, _ := f.s.next(t0); got != j {
			t.Fatalf("%s did not go in order", j.method)
		}
	}
	f.s.tooMany(a, 40*time.Second, t0)
	f.s.tooMany(b, 25*time.Second, t0.Add(500*time.Millisecond))
	for _, j := range []*apiCall{a, b} {
		f.s.requeue(j)
		f.s.released(j, t0, true)
	}
	got := f.order(t0.Add(time.Second), t0.Add(time.Minute))
	if fmt.Sprint(got) != "[alice@1s b@25.5s a@40s]" {
		t.Fatalf("order = %v; want Alice at once and each group after its own wait", got)
	}
}

func TestTooManyRequestsWithoutChatPausesEverything(t *testing.T) {
	f := newFixture(t, defaultLimits())
	j := f.add(0, urgent, "setMyCommands", "")
	f.add(alicePM, urgent, "answer", "")
	f.s.next(t0)
	f.s.tooMany(j, 2*time.Second, t0)
	f.s.released(j, t0, true)
	if name, wake := f.next(t0); name != "" || !wake.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("next = %q, wake %v; want everything paused 2 s", name, wake.Sub(t0))
	}
}

// A chat that queued many calls at once does not hold up a chat that
// queued one just after: each chat's next call takes its turn.
func TestFairnessBetweenChats(t *testing.T) {
	f := newFixture(t, limits{PerSecond: 1})
	for i := 1; i <= 5; i++ {
		f.add(alicePM, urgent, fmt.Sprint("alice", i), "")
	}
	f.add(bobPM, urgent, "bob", "")
	got := f.order(t0, t0.Add(time.Minute))
	want := "[alice1@0s bob@1s alice2@2s alice3@3s alice4@4s alice5@5s]"
	if fmt.Sprint(got) != want {
		t.Fatalf("order = %v; want %v", got, want)
	}
}

func TestOneCallInFlightPerChat(t *testing.T) {
	f := newFixture(t, defaultLimits())
	f.add(alicePM, urgent, "part1", "")
	f.add(alicePM, urgent, "part2", "")
	j, _ := f.s.next(t0)
	if next, wake := f.s.next(t0); next != nil || !wake.IsZero() {
		t.Fatal("a second call of the chat went while the first was in flight")
	}
	f.s.released(j, t0, false)
	if name, _ := f.next(t0); name != "part2" {
		t.Fatalf("after the first call ended got %q", name)
	}
}

func TestWithdrawnAndAbandonedCallsNeverGo(t *testing.T) {
	f := newFixture(t, defaultLimits())
	j := f.add(alicePM, status, "status", "")
	if !f.s.withdraw(j) {
		t.Fatal("a queued call could not be withdrawn")
	}
	ctx, cancel := context.WithCancel(context.Background())
	gone := f.add(bobPM, urgent, "gone", "")
	gone.ctx = ctx
	cancel()
	if got := f.order(t0, t0.Add(time.Minute)); len(got) != 0 {
		t.Fatalf("sent %v", got)
	}
	if !errors.Is(f.ended["gone"], context.Canceled) {
		t.Fatalf("the abandoned call ended with %v", f.ended["gone"])
	}
	if f.s.withdraw(j) {
		t.Fatal("withdrew a call twice")
	}
}

func TestIdleChatsAreForgotten(t *testing.T) {
	f := newFixture(t, defaultLimits())
	for i := 0; i < 3; i++ {
		f.add(int64(2000+i), urgent, fmt.Sprint("send", i), "")
	}
	f.order(t0, t0)
	if n := len(f.s.chats); n != 3 {
		t.Fatalf("%d chats remembered; want the 3 whose budget was spent", n)
	}
	f.next(t0.Add(time.Hour))
	if n := len(f.s.chats); n != 0 {
		t.Fatalf("%d chats remembered after an hour idle", n)
	}
}

// Calls of no chat that overlap on the wire, coming back in any order and
// across a sweep, leave the schedule whole.
func TestCallsOfNoChatOverlapInFlight(t *testing.T) {
	f := newFixture(t, defaultLimits())
	f.add(0, urgent, "answerCallbackQuery1", "")
	f.add(0, urgent, "answerCallbackQuery2", "")
	a, _ := f.s.next(t0)
	b, _ := f.s.next(t0)
	f.s.released(b, t0, false)
	f.s.next(t0.Add(time.Hour)) // a sweep while a is still on its way
	f.s.released(a, t0.Add(time.Hour), false)
	f.add(0, urgent, "getMe", "")
	if name, _ := f.next(t0.Add(time.Hour)); name != "getMe" {
		t.Fatalf("next = %q; want the next call of no chat", name)
	}
}

// A progress call is dropped when its time runs out, and the schedule
// wakes for it then, even when nothing else would wake it.
func TestExpiredProgressIsDroppedOnTime(t *testing.T) {
	f := newFixture(t, defaultLimits())
	j := f.add(alicePM, urgent, "answer", "")
	f.s.next(t0)
	f.s.tooMany(j, time.Minute, t0)
	f.s.requeue(j)
	f.s.released(j, t0, true)
	f.add(alicePM, progress, "progress", "message:1")
	name, wake := f.next(t0)
	if name != "" || !wake.Equal(t0.Add(progressLife)) {
		t.Fatalf("next = %q, wake %v; want a wake-up when the progress expires", name, wake.Sub(t0))
	}
	f.next(wake)
	if !errors.Is(f.ended["progress"], errExpired) {
		t.Fatalf("at its expiry the progress ended with %v; want dropped", f.ended["progress"])
	}
}

// Progress for a message whose final edit is queued or on its way is
// superseded at once: it would undo the final text.
func TestProgressNeverFollowsTheFinalEdit(t *testing.T) {
	f := newFixture(t, defaultLimits())
	final := f.add(alicePM, urgent, "final", "message:7")
	f.add(alicePM, progress, "queued-behind", "message:7")
	if !errors.Is(f.ended["queued-behind"], errSuperseded) {
		t.Fatalf("progress queued behind the final edit ended with %v", f.ended["queued-behind"])
	}
	f.s.next(t0)
	f.add(alicePM, progress, "while-flying", "message:7")
	if !errors.Is(f.ended["while-flying"], errSuperseded) {
		t.Fatalf("progress added while the final edit flew ended with %v", f.ended["while-flying"])
	}
	f.s.released(final, t0, false)
	f.add(alicePM, progress, "other-message", "message:8")
	if got := f.order(t0, t0.Add(time.Minute)); fmt.Sprint(got) != "[other-message@0s]" {
		t.Fatalf("order = %v; progress of another message must still go", got)
	}
}

// A call refused with a 429 was not counted by Telegram: it goes again at
// exactly the end of the pause, even when its chat's budget was spent.
func TestTooManyRequestsGivesTheBudgetBack(t *testing.T) {
	f := newFixture(t, limits{ChatEvery: 10 * time.Second, ChatBurst: 1})
	j := f.add(alicePM, urgent, "answer", "")
	f.s.next(t0)
	f.s.tooMany(j, 2*time.Second, t0.Add(100*time.Millisecond))
	f.s.requeue(j)
	f.s.released(j, t0.Add(100*time.Millisecond), true)
	if got := f.order(t0.Add(100*time.Millisecond), t0.Add(time.Minute)); fmt.Sprint(got) != "[answer@2.1s]" {
		t.Fatalf("order = %v; want the answer exactly when retry_after ends", got)
	}
}
