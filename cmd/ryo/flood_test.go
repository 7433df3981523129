package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// gate is a model that holds its answers until opened, answering each
// request with the newest question it was asked.
type gate struct {
	open chan struct{}
	once sync.Once
}

func newGate(h *harness) *gate {
	g := &gate{open: make(chan struct{})}
	h.llm.Handle(func(r ollamatest.Request) ollamatest.Reply {
		<-g.open
		last := r.Messages[len(r.Messages)-1].Content
		return ollamatest.Reply{Content: envelope("Answer to " + last[strings.LastIndex(last, "]: ")+3:])}
	})
	return g
}

// bobsTurnAtTheModel starts the bot (with env set) in front of a model
// that holds its answers, and has Bob's first question in the team wait
// there: what Bob sends next waits behind it.
func bobsTurnAtTheModel(t *testing.T, env map[string]string) (*harness, *gate) {
	h := newHarness(t)
	for k, v := range env {
		h.env[k] = v
	}
	g := newGate(h)
	h.start()
	t.Cleanup(g.release) // before the bot stops: a failed test does not leave it waiting on the model
	h.tg.SendText(team, bob, "@ryo_test_bot first question")
	h.waitFor("the first turn at the model", func() bool { return len(h.llm.Requests()) == 1 })
	return h, g
}

func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

// waitStored waits until the fake Telegram has handed over every update up
// to message m, and the bot has stored them (it confirms them only then).
func (h *harness) waitStored(m telegramtest.Message) {
	h.t.Helper()
	h.waitFor("the updates stored", func() bool { return h.tg.ConfirmedUpdateID() >= m.UpdateID })
}

// Thirty messages someone sends while their first is being answered are
// answered together, as one more turn; another member's question, sent in
// the middle of them, waits behind one turn of theirs, not thirty.
func TestABurstIsAnsweredAsOneTurn(t *testing.T) {
	h, g := bobsTurnAtTheModel(t, map[string]string{"RYO_HISTORY_MESSAGES": "100"})
	var last, alices telegramtest.Message
	for i := 2; i <= 31; i++ {
		last = h.tg.SendText(team, bob, fmt.Sprintf("@ryo_test_bot piece %d", i))
		if i == 15 {
			alices = h.tg.SendText(team, alice, "@ryo_test_bot when is lunch?")
		}
	}
	h.waitStored(last)
	g.release()
	h.answer(team, last.ID, "Answer to @ryo_test_bot piece 31")
	h.answer(team, alices.ID, "Answer to @ryo_test_bot when is lunch?")
	reqs := h.llm.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model was asked %d times; want 3: Bob's first, Alice's, Bob's burst as one", len(reqs))
	}
	if who := contents(reqs[1]); !strings.HasSuffix(who, "[Alice (@alice)]: @ryo_test_bot when is lunch?") {
		t.Errorf("the second turn was not Alice's: %s", who)
	}
	burst := contents(reqs[2])
	for _, piece := range []string{"piece 2", "piece 14", "piece 16", "piece 31"} {
		if !strings.Contains(burst, piece) {
			t.Errorf("the turn that answers the burst does not show %q:\n%s", piece, burst)
		}
	}
	for _, m := range h.tg.BotMessages(team.ID) {
		if strings.Contains(m.Text, "piece") && !strings.Contains(m.Text, "piece 31") {
			t.Errorf("a piece of the burst was answered on its own: %q", m.Text)
		}
	}
}

// Past their allowance a person's messages are kept but not answered, and
// they are told to slow down once; others are answered as usual, and an
// admin is never held back.
func TestOnePersonsAllowance(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_PERSON_BURST"] = "2"
	h.env["RYO_PERSON_RATE"] = "1"
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.llm.Handle(func(r ollamatest.Request) ollamatest.Reply {
		return ollamatest.Reply{Content: envelope("ok: " + r.Messages[len(r.Messages)-1].Content)}
	})
	h.start()
	for i := 1; i <= 2; i++ {
		q := h.tg.SendText(bobDM, bob, fmt.Sprintf("question %d", i))
		h.answer(bobDM, q.ID, fmt.Sprintf("question %d", i))
	}
	q := h.tg.SendText(bobDM, bob, "question 3")
	h.answer(bobDM, q.ID, "🐢 You're writing faster than I can answer.")
	help := h.tg.SendText(bobDM, bob, "/help")
	h.waitFor("the /help handled", func() bool {
		state, _, err := h.db().UpdateState(bg(t), help.UpdateID)
		return err == nil && state == memory.StateDone
	})
	for i := 1; i <= 3; i++ { // Alice is an admin: she has no limit
		q = h.tg.SendText(dm, alice, fmt.Sprintf("hello %d", i))
		h.answer(dm, q.ID, fmt.Sprintf("hello %d", i))
	}
	if n := len(h.llm.Requests()); n != 5 {
		t.Fatalf("the model was asked %d times; want Bob's two and Alice's three", n)
	}
	slow := 0
	for _, m := range h.tg.BotMessages(bobDM.ID) {
		if strings.Contains(m.Text, "🐢") {
			slow++
		}
		if strings.Contains(m.Text, "/reset") {
			t.Errorf("a command past the allowance was answered: %q", m.Text)
		}
	}
	if slow != 1 {
		t.Fatalf("Bob was told to slow down %d times; want once a minute", slow)
	}
	history := contents(h.llm.Requests()[1])
	if strings.Contains(history, "question 3") {
		t.Fatalf("an earlier request shows a later message: %s", history)
	}
}

var (
	floodMessages = flag.Int("flood.messages", 100, "BenchmarkFlood: messages the flooder sends")
	floodOver     = flag.Duration("flood.over", 10*time.Second, "BenchmarkFlood: how long the flooder takes to send them")
	floodModel    = flag.Duration("flood.model", 2*time.Second, "BenchmarkFlood: how long the model takes to answer")
)

// BenchmarkFlood is the flood measurement: in a group, Bob sends
// -flood.messages messages mentioning the bot over -flood.over, while the
// model takes -flood.model per answer and Telegram's flood limits are
// enforced. Alice asks once in the quiet group first (her usual time), and
// once in the middle of Bob's flood. It reports how many times the model
// was called for Bob, and Alice's two waits. It runs once whatever b.N is:
// run it with -benchtime 1x (make flood).
func BenchmarkFlood(b *testing.B) {
	h := newHarness(b, floodControl)
	h.env["RYO_LOG_LEVEL"] = "warn"
	var mu sync.Mutex
	calls := map[int64]int{}
	h.llm.Handle(func(r ollamatest.Request) ollamatest.Reply {
		last := r.Messages[len(r.Messages)-1].Content
		mu.Lock()
		if strings.Contains(last, "[Bob") {
			calls[bob.ID]++
		} else {
			calls[alice.ID]++
		}
		mu.Unlock()
		<-time.After(*floodModel)
		return ollamatest.Reply{Content: envelope("Answer to " + last[strings.LastIndex(last, "]: ")+3:])}
	})
	h.start()
	group := telegramtest.NewSupergroup("Flooded")
	ask := func(text string) time.Duration {
		began := time.Now()
		q := h.tg.SendText(group, alice, "@ryo_test_bot "+text)
		h.waitWithin(10*time.Minute, "Alice answered", func() bool {
			return slices.ContainsFunc(h.tg.BotMessages(group.ID), func(m telegramtest.Message) bool {
				return m.ReplyTo == q.ID && strings.Contains(m.Text, text)
			})
		})
		return time.Since(began)
	}
	quiet := ask("what is the quiet time?")
	tick := time.NewTicker(*floodOver / time.Duration(*floodMessages))
	defer tick.Stop()
	var during time.Duration
	var asked sync.WaitGroup
	var last telegramtest.Message
	for i := 1; i <= *floodMessages; i++ {
		<-tick.C
		last = h.tg.SendText(group, bob, fmt.Sprintf("@ryo_test_bot flood %d", i))
		if i == *floodMessages/2 {
			asked.Add(1)
			go func() { defer asked.Done(); during = ask("what is the time in a flood?") }()
		}
	}
	asked.Wait()
	h.waitWithin(10*time.Minute, "the flood handled", func() bool {
		state, _, err := h.db().UpdateState(bg(b), last.UpdateID)
		return err == nil && state == memory.StateDone
	})
	mu.Lock()
	defer mu.Unlock()
	b.ReportMetric(float64(calls[bob.ID]), "flooder-model-calls")
	b.ReportMetric(quiet.Seconds(), "other-quiet-wait-s")
	b.ReportMetric(during.Seconds(), "other-flood-wait-s")
	b.Logf("Bob sent %d messages in %v: the model was called %d times for him; Alice waited %v in a quiet group, %v in the flood (model %v a call)",
		*floodMessages, *floodOver, calls[bob.ID], quiet.Round(time.Millisecond), during.Round(time.Millisecond), *floodModel)
}

// A turn cut short by a stop after the model answered it is finished at
// the next start with the answer it got, even when the same person's next
// message waits behind it: it is not folded into that message's turn,
// which would leave its answer unsent, its status message paused for good
// and the model asked about it again.
func TestAResumedTurnIsNotFoldedIntoTheNext(t *testing.T) {
	h := newHarness(t)
	g := newGate(h)
	h.start()
	defer g.release()
	group := telegramtest.NewSupergroup("Crew")
	first := h.tg.SendText(group, bob, "@ryo_test_bot first question")
	h.waitFor("the first turn at the model", func() bool { return len(h.llm.Requests()) == 1 })
	second := h.tg.SendText(group, bob, "@ryo_test_bot second question")
	h.waitStored(second)
	h.tg.SetDown(true) // the answer is stored, and cannot be delivered
	g.release()
	h.waitFor("the first answer stored", func() bool {
		turn, err := h.db().Turn(bg(t), first.UpdateID)
		return err == nil && turn.Answer != ""
	})
	h.stopMain()
	h.tg.SetDown(false)
	h.start()
	h.answer(group, second.ID, "Answer to @ryo_test_bot second question")
	if !slices.ContainsFunc(h.tg.BotMessages(group.ID), func(m telegramtest.Message) bool {
		return m.ReplyTo == first.ID && strings.Contains(m.Text, "Answer to @ryo_test_bot first question")
	}) {
		t.Errorf("the answer the model gave to the first question before the stop was never sent")
	}
	for _, m := range h.tg.BotMessages(group.ID) {
		if strings.Contains(m.Text, "Paused") {
			t.Errorf("a status message is left paused: %q", m.Text)
		}
	}
	if n := len(h.llm.Requests()); n != 2 {
		t.Errorf("the model was asked %d times; want twice, once for each question", n)
	}
}

// Media the bot cannot read costs a person's allowance like a question:
// a flood of stickers is not answered sticker by sticker.
func TestAFloodOfStickersIsHeldBack(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_PERSON_BURST"] = "2"
	h.env["RYO_PERSON_RATE"] = "1"
	h.start()
	var last int64
	for i := range 6 {
		last = h.tg.PushUpdate(map[string]any{"message": map[string]any{
			"message_id": 700 + i, "date": time.Now().Unix(), "chat": map[string]any{"id": bobDM.ID, "type": "private"},
			"from":    map[string]any{"id": bob.ID, "is_bot": false, "first_name": bob.FirstName},
			"sticker": map[string]any{"file_id": "x", "file_unique_id": "y", "type": "regular", "width": 512, "height": 512},
		}})
	}
	h.waitFor("the stickers handled", func() bool {
		state, _, err := h.db().UpdateState(bg(t), last)
		return err == nil && state == memory.StateDone
	})
	replies, slow := 0, 0
	for _, m := range h.tg.BotMessages(bobDM.ID) {
		switch {
		case strings.Contains(m.Text, "I can't read that kind of message"):
			replies++
		case strings.Contains(m.Text, "🐢"):
			slow++
		}
	}
	if replies > 2 || slow != 1 {
		t.Fatalf("six stickers got %d replies and %d requests to slow down; want at most 2 (the allowance) and one", replies, slow)
	}
}

// A burst longer than the history the model is shown is not answered as
// one turn that shows only its end: every message of it reaches the model
// (RYO_HISTORY_MESSAGES as set by default).
func TestALongBurstIsAllShownToTheModel(t *testing.T) {
	h, g := bobsTurnAtTheModel(t, nil)
	var last telegramtest.Message
	for i := 2; i <= 41; i++ {
		last = h.tg.SendText(team, bob, fmt.Sprintf("@ryo_test_bot piece %d.", i))
	}
	h.waitStored(last)
	g.release()
	h.answer(team, last.ID, "Answer to @ryo_test_bot piece 41.")
	var shown strings.Builder
	for _, r := range h.llm.Requests()[1:] {
		shown.WriteString(contents(r))
	}
	for i := 2; i <= 41; i++ {
		if piece := fmt.Sprintf("piece %d.", i); !strings.Contains(shown.String(), piece) {
			t.Errorf("no turn showed the model %q", piece)
		}
	}
}

// A burst split across a forum's topics: another member who asks after it
// waits behind one turn of the flooder's, as in one topic.
func TestABurstAcrossTopicsKeepsOthersWaitingBehindOneTurn(t *testing.T) {
	h, g := bobsTurnAtTheModel(t, nil)
	for i := range 4 {
		topic := h.tg.CreateTopic(team, bob, fmt.Sprintf("Topic %d", i))
		h.tg.SendText(team, bob, fmt.Sprintf("@ryo_test_bot piece %d", i), telegramtest.InThread(topic.ThreadID))
	}
	alices := h.tg.SendText(team, alice, "@ryo_test_bot when is lunch?")
	h.waitStored(alices)
	g.release()
	h.answer(team, alices.ID, "Answer to @ryo_test_bot when is lunch?")
	for i, r := range h.llm.Requests() {
		if strings.Contains(contents(r), "when is lunch?") {
			if i > 2 {
				t.Fatalf("Alice's question was the model's call %d: she waited behind %d of Bob's turns", i+1, i)
			}
			return
		}
	}
}
