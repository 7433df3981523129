package main

import (
	"flag"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

var (
	loadChats = flag.Int("load.chats", 1000, "BenchmarkLoad: chats writing at once (every tenth a group)")
	loadTurns = flag.Int("load.turns", 5, "BenchmarkLoad: turns per chat, each asked once the last is answered")
)

// BenchmarkLoad is the load test: -load.chats people write at the same
// moment, each asking -load.turns questions one after the other, against
// the fake Telegram enforcing Telegram's flood limits and a model that
// answers at once. It reports the Telegram calls per turn, the 429s, and
// how long people waited for their answers. It runs once whatever b.N is:
// run it with -benchtime 1x (make load).
func BenchmarkLoad(b *testing.B) {
	run := &loadRun{asked: map[string]time.Time{}, answered: map[string]time.Time{}, calls: map[string]int{},
		waiting: map[string]chan struct{}{}}
	h := newHarness(b, floodControl, func(o *telegramtest.Options) { o.Observe = run.observe })
	h.env["RYO_LOG_LEVEL"] = "warn"
	h.llm.Handle(func(r ollamatest.Request) ollamatest.Reply {
		return ollamatest.Reply{Content: envelope("Answer to " + questionKey.FindString(r.Messages[len(r.Messages)-1].Content))}
	})
	h.start()
	began := time.Now()
	var wg sync.WaitGroup
	for i := range *loadChats {
		wg.Add(1)
		go func() { defer wg.Done(); run.converse(b, h, i) }()
	}
	wg.Wait()
	took := time.Since(began)
	run.report(b, took)
}

// questionKey finds "q<chat>.<turn>" in a question or an answer.
var questionKey = regexp.MustCompile(`q-?\d+\.\d+`)

// loadRun follows every chat through the fake Telegram's Observe hook.
type loadRun struct {
	mu       sync.Mutex
	asked    map[string]time.Time
	answered map[string]time.Time
	waiting  map[string]chan struct{}
	calls    map[string]int
	tooMany  int
}

// converse plays one person: ask, wait for the answer, ask again.
func (r *loadRun) converse(b *testing.B, h *harness, i int) {
	user := telegramtest.NewUser(fmt.Sprintf("P%d", i), "")
	chat := telegramtest.PrivateChat(user)
	mention := ""
	if i%10 == 0 {
		chat = telegramtest.NewSupergroup(fmt.Sprintf("G%d", i))
		mention = "@ryo_test_bot "
	}
	for n := 1; n <= *loadTurns; n++ {
		key := fmt.Sprintf("q%d.%d", chat.ID, n)
		done := r.ask(key)
		h.tg.SendText(chat, user, mention+"please answer "+key)
		select {
		case <-done:
		case <-time.After(30 * time.Minute):
			b.Errorf("%s was never answered", key)
			return
		}
	}
}

func (r *loadRun) ask(key string) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	done := make(chan struct{})
	r.asked[key], r.waiting[key] = time.Now(), done
	return done
}

// observe counts every call the bot makes and notes when each answer
// reached the chat.
func (r *loadRun) observe(c telegramtest.Call) {
	switch c.Method {
	case "getUpdates", "getMe", "deleteWebhook", "setMyCommands":
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[c.Method]++
	if c.Err != nil {
		if c.Err.Code == http.StatusTooManyRequests {
			r.tooMany++
		}
		return
	}
	text := c.Params["text"]
	if !strings.HasPrefix(text, "Answer to ") {
		return
	}
	key := questionKey.FindString(text)
	if done, ok := r.waiting[key]; ok {
		r.answered[key] = c.At
		delete(r.waiting, key)
		close(done)
	}
}

func (r *loadRun) report(b *testing.B, took time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var waits []time.Duration
	for key, at := range r.answered {
		waits = append(waits, at.Sub(r.asked[key]))
	}
	slices.Sort(waits)
	total := 0
	for _, n := range r.calls {
		total += n
	}
	turns := len(waits)
	if turns == 0 {
		b.Fatal("no turn was answered")
	}
	b.ReportMetric(float64(total)/float64(turns), "calls/turn")
	b.ReportMetric(float64(r.tooMany), "429s")
	b.ReportMetric(pct(waits, 50).Seconds(), "p50-wait-s")
	b.ReportMetric(pct(waits, 99).Seconds(), "p99-wait-s")
	b.ReportMetric(float64(turns)/took.Seconds(), "turns/s")
	b.Logf("%d turns in %v; calls by method %v; waits p50 %v p90 %v p99 %v max %v",
		turns, took.Round(time.Second), r.calls, pct(waits, 50), pct(waits, 90), pct(waits, 99), waits[len(waits)-1])
	if r.tooMany > 0 {
		b.Errorf("Telegram answered 429 %d times", r.tooMany)
	}
}

// pct is the p-th percentile of sorted durations.
func pct(sorted []time.Duration, p int) time.Duration {
	return sorted[min(len(sorted)-1, len(sorted)*p/100)].Round(time.Millisecond)
}
