package main

import (
	"flag"
	"fmt"
	"math"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

var (
	chaosReplicas = flag.Int("chaos.replicas", 3, "BenchmarkChaos: ryo processes sharing the database")
	chaosChats    = flag.Int("chaos.chats", 200, "BenchmarkChaos: chats asking at once (every fifth a group of three people)")
	chaosPatience = flag.Duration("chaos.patience", 5*time.Minute, "BenchmarkChaos: how long a question may wait before it counts as lost")
	chaosPostgres = flag.String("chaos.postgres", "pg_ctlcluster 15 main restart", "BenchmarkChaos: the command that restarts PostgreSQL; empty to leave it alone")
)

// BenchmarkChaos runs -chaos.replicas ryo processes on one database under
// load while things break: people in -chaos.chats chats keep asking (in
// every fifth chat, a group, three people ask at the same moment, and
// their answers must come in the order they asked) for the whole run,
// against the fake
// Telegram enforcing Telegram's flood limits and a model that answers at
// once, while, one after the other,
//
//   - a replica is killed with SIGKILL in the middle of its turns, and
//     started again;
//   - PostgreSQL is restarted (-chaos.postgres);
//   - the model server stalls for 15 seconds;
//   - Telegram answers 429s with retry_after, then 500s to every message
//     sent or edited for 5 seconds;
//   - a replica is stopped gracefully (SIGTERM), and started again.
//
// It prints what was lost (never answered within -chaos.patience),
// answered twice, or answered out of order, the 429s Telegram answered
// beyond those it was told to, and how long people waited. Any loss,
// duplicate, disorder or unasked-for 429 fails it. It restarts the
// machine's PostgreSQL: run it alone (make chaos), with -benchtime 1x.
func BenchmarkChaos(b *testing.B) {
	bin := builtBinary(b)
	run := newChaosRun()
	h := newHarness(b, floodControl, func(o *telegramtest.Options) { o.Observe = run.observe })
	h.env["RYO_LOG_LEVEL"] = "warn"
	h.env["RYO_HTTP_ADDR"] = "127.0.0.1:0"
	h.env["RYO_SHUTDOWN_GRACE"] = "5s"
	// People here ask as fast as they are answered: their allowance of
	// turns a minute, a policy and not a failure, is lifted.
	h.env["RYO_PERSON_RATE"] = "1000000"
	h.env["RYO_PERSON_BURST"] = "1000"
	h.llm.Handle(run.answer)

	replicas := make([]*exec.Cmd, *chaosReplicas)
	for i := range replicas {
		replicas[i] = h.startBinary(bin)
	}
	h.waitWithin(time.Minute, "ryo polling", func() bool { return len(h.tg.Calls("getUpdates")) > 0 })

	began := time.Now()
	var people sync.WaitGroup
	enough := make(chan struct{}) // no new questions after it closes
	for i := range *chaosChats {
		people.Add(1)
		go func() { defer people.Done(); run.converse(h, i, enough) }()
	}

	events := []struct {
		after time.Duration
		what  string
		do    func()
	}{
		{5 * time.Second, "SIGKILL replica 1 mid-turn, started again 2 s later", func() {
			replicas[0].Process.Kill()
			replicas[0].Wait()
			time.Sleep(2 * time.Second)
			replicas[0] = h.startBinary(bin)
		}},
		{15 * time.Second, "restart PostgreSQL", func() {
			if *chaosPostgres == "" {
				return
			}
			args := strings.Fields(*chaosPostgres)
			if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
				b.Errorf("%s: %v\n%s", *chaosPostgres, err, out)
			}
		}},
		{30 * time.Second, "the model server stalls for 15 s", func() {
			run.stall(15 * time.Second)
		}},
		{50 * time.Second, "Telegram answers 40 429s (retry_after 3) to sendMessage", func() {
			run.inject(40)
			h.tg.FailNext("sendMessage", 40, telegramtest.APIError{Code: http.StatusTooManyRequests,
				Description: injected429, RetryAfter: 3})
		}},
		{57 * time.Second, "Telegram answers 500 to every sendMessage and editMessageText for 5 s", func() {
			// An outage lasts a while, not a number of calls: 40 500s
			// left to the few turns editing their status messages fell
			// on one of them, retried ever more slowly for minutes.
			for _, method := range []string{"sendMessage", "editMessageText"} {
				h.tg.FailNext(method, math.MaxInt32, telegramtest.APIError{Code: http.StatusInternalServerError,
					Description: "Internal Server Error"})
				time.AfterFunc(5*time.Second, func() { h.tg.FailNext(method, 0, telegramtest.APIError{}) })
			}
		}},
		{65 * time.Second, "SIGTERM replica 2, started again 2 s later", func() {
			last := replicas[len(replicas)-1]
			last.Process.Signal(syscall.SIGTERM)
			last.Wait()
			time.Sleep(2 * time.Second)
			replicas[len(replicas)-1] = h.startBinary(bin)
		}},
	}
	for _, e := range events {
		time.Sleep(time.Until(began.Add(e.after))) // the run's schedule
		b.Logf("%5.1fs (%s)  %s", time.Since(began).Seconds(), time.Now().Format("15:04:05.000"), e.what)
		e.do()
	}
	time.Sleep(15 * time.Second) // questions asked after the last event, too
	close(enough)
	people.Wait()
	run.report(b, h, time.Since(began))
}

// injected429 tells the 429s the run asks for from those Telegram's flood
// limits answer. (ryo reads only retry_after.)
const injected429 = "Too Many Requests: retry after 3 (asked for by the chaos run)"

// chaosRun follows every question of the chaos run.
type chaosRun struct {
	mu       sync.Mutex
	asked    map[string]time.Time
	answered map[string]time.Time // when its answer first showed
	waiting  map[string]chan struct{}
	order    map[int64][]string // chat: answers in the order they showed
	stallEnd time.Time
	tooMany  int
	injected int      // 429s Telegram was told to answer
	failed   int      // 5xx Telegram answered
	unasked  []string // the 429s of Telegram's flood limits: when, which call
}

func newChaosRun() *chaosRun {
	return &chaosRun{asked: map[string]time.Time{}, answered: map[string]time.Time{},
		waiting: map[string]chan struct{}{}, order: map[int64][]string{}}
}

// answer is the model: at once, or, while it stalls, once the stall ends.
func (r *chaosRun) answer(req ollamatest.Request) ollamatest.Reply {
	reply := ollamatest.Reply{Content: envelope("Answer to " + questionKey.FindString(req.Messages[len(req.Messages)-1].Content))}
	r.mu.Lock()
	wait := time.Until(r.stallEnd)
	r.mu.Unlock()
	if wait > 0 {
		hold := make(chan struct{})
		time.AfterFunc(wait, func() { close(hold) })
		reply.Hold = hold
	}
	return reply
}

func (r *chaosRun) stall(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stallEnd = time.Now().Add(d)
}

func (r *chaosRun) inject(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.injected += n
}

// converse plays chat i until enough closes: a person asking one question
// after the other, or in every fifth chat a group whose three people ask
// at the same moment.
func (r *chaosRun) converse(h *harness, i int, enough <-chan struct{}) {
	people := []telegramtest.User{telegramtest.NewUser(fmt.Sprintf("C%d", i), "")}
	chat := telegramtest.PrivateChat(people[0])
	mention := ""
	if i%5 == 0 {
		chat = telegramtest.NewSupergroup(fmt.Sprintf("Chaos %d", i))
		people = append(people, telegramtest.NewUser(fmt.Sprintf("D%d", i), ""), telegramtest.NewUser(fmt.Sprintf("E%d", i), ""))
		mention = "@ryo_test_bot "
	}
	for n := 1; ; n++ {
		select {
		case <-enough:
			return
		default:
		}
		var answers []chan struct{}
		for p, person := range people {
			key := fmt.Sprintf("q%d.%d", chat.ID, n*10+p)
			answers = append(answers, r.ask(key))
			h.tg.SendText(chat, person, mention+"please answer "+key)
		}
		for _, a := range answers {
			select {
			case <-a:
			case <-time.After(*chaosPatience):
				return // counted as lost
			}
		}
	}
}

func (r *chaosRun) ask(key string) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	done := make(chan struct{})
	r.asked[key], r.waiting[key] = time.Now(), done
	return done
}

// observe notes when each answer first reached its chat, and the 429s.
func (r *chaosRun) observe(c telegramtest.Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.Err != nil {
		if c.Err.Code >= 500 {
			r.failed++
		}
		if c.Err.Code == http.StatusTooManyRequests {
			r.tooMany++
			if c.Err.Description != injected429 {
				r.unasked = append(r.unasked, fmt.Sprintf("%s %s in chat %s", c.At.Format("15:04:05.000"), c.Method, c.Params["chat_id"]))
			}
		}
		return
	}
	text := c.Params["text"]
	if !strings.HasPrefix(text, "Answer to ") {
		return
	}
	key := questionKey.FindString(text)
	done, ok := r.waiting[key]
	if !ok {
		return
	}
	r.answered[key] = c.At
	delete(r.waiting, key)
	close(done)
	chat := c.Params["chat_id"]
	var id int64
	fmt.Sscan(chat, &id)
	r.order[id] = append(r.order[id], key)
}

func (r *chaosRun) report(b *testing.B, h *harness, took time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lost := len(r.asked) - len(r.answered)
	// Twice: more than one message in the chat carries the answer.
	twice := 0
	for chat := range r.order {
		seen := map[string]int{}
		for _, m := range h.tg.BotMessages(chat) {
			if strings.HasPrefix(m.Text, "Answer to ") {
				seen[questionKey.FindString(m.Text)]++
			}
		}
		for key, n := range seen {
			if n <= 1 {
				continue
			}
			twice += n - 1
			var said []string
			for _, m := range h.tg.BotMessages(chat) {
				if strings.Contains(m.Text, key) {
					said = append(said, fmt.Sprintf("%d (reply to %d, %d edits, at %s): %q", m.ID, m.ReplyTo, m.Edits, m.Date.Format("15:04:05"), m.Text))
				}
			}
			b.Logf("answered twice: %s in %s", key, strings.Join(said, "; "))
			b.Logf("ryo's log lines naming chat %d:\n%s", chat, linesNaming(h, chat))
		}
	}
	// Out of order: within a chat, an answer that showed before the answer
	// of a question asked earlier.
	disorder := 0
	for _, keys := range r.order {
		for i := 1; i < len(keys); i++ {
			if r.asked[keys[i]].Before(r.asked[keys[i-1]]) || (r.asked[keys[i]].Equal(r.asked[keys[i-1]]) && keys[i] < keys[i-1]) {
				disorder++
			}
		}
	}
	var waits []time.Duration
	for key, at := range r.answered {
		waits = append(waits, at.Sub(r.asked[key]))
	}
	slices.Sort(waits)
	if len(waits) == 0 {
		b.Fatalf("nothing was answered; ryo's log:\n%s", h.logs.String())
	}
	unasked429 := len(r.unasked)
	b.ReportMetric(float64(lost), "lost")
	b.ReportMetric(float64(twice), "twice")
	b.ReportMetric(float64(disorder), "out-of-order")
	b.ReportMetric(float64(unasked429), "unasked-429s")
	b.ReportMetric(pct(waits, 50).Seconds(), "p50-wait-s")
	b.ReportMetric(pct(waits, 99).Seconds(), "p99-wait-s")
	b.ReportMetric(waits[len(waits)-1].Seconds(), "max-wait-s")
	b.Logf("%d replicas, %d chats: %d questions asked, %d answered in %v; lost %d, answered twice %d, out of order %d; "+
		"429s %d (%d injected), 5xx %d; waits p50 %v p90 %v p99 %v max %v",
		*chaosReplicas, *chaosChats, len(r.asked), len(r.answered), took.Round(time.Second), lost, twice, disorder,
		r.tooMany, r.injected, r.failed, pct(waits, 50), pct(waits, 90), pct(waits, 99), waits[len(waits)-1].Round(time.Millisecond))
	shown := 0
	for key := range r.waiting {
		if shown++; shown > 5 {
			break
		}
		var chat int64
		fmt.Sscanf(key, "q%d.", &chat)
		var said []string
		for _, m := range h.tg.BotMessages(chat) {
			said = append(said, fmt.Sprintf("%d:%q", m.ID, m.Text))
		}
		b.Logf("lost %s; the bot's messages in its chat: %s", key, strings.Join(said[max(0, len(said)-6):], " "))
		b.Logf("ryo's log lines naming chat %d:\n%s", chat, linesNaming(h, chat))
	}
	for _, u := range r.unasked {
		b.Logf("429 of the flood limits: %s", u)
	}
	if lost > 0 || twice > 0 || disorder > 0 || unasked429 > 0 {
		b.Errorf("chaos: lost %d, twice %d, out of order %d, unasked-for 429s %d", lost, twice, disorder, unasked429)
	}
}

// linesNaming returns the last of ryo's log lines that name chat.
func linesNaming(h *harness, chat int64) string {
	var lines []string
	for line := range strings.SplitSeq(h.logs.String(), "\n") {
		if strings.Contains(line, fmt.Sprint(chat)) {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines[max(0, len(lines)-40):], "\n")
}
