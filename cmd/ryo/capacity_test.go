package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

var (
	capacityChats   = flag.Int("capacity.chats", 1000, "BenchmarkCapacity: chats with a question always waiting (every tenth a group)")
	capacityWarmup  = flag.Duration("capacity.warmup", 10*time.Second, "BenchmarkCapacity: time before measuring")
	capacityFor     = flag.Duration("capacity.for", 30*time.Second, "BenchmarkCapacity: time measured")
	capacityProfile = flag.String("capacity.profile", "", "BenchmarkCapacity: write ryo's CPU profile of the measured time to this file")
)

// BenchmarkCapacity measures ryo itself, with Telegram's pacing lifted: a
// built ryo runs as a process of its own against the fake Telegram, which
// enforces no flood limits, and a model that answers at once, while
// -capacity.chats people each keep one question waiting (ask, wait for the
// answer, ask again). After -capacity.warmup it measures for -capacity.for
// the turns answered a second, ryo's CPU time per turn (user and system,
// from /proc), PostgreSQL's, and ryo's resident memory at the end and at
// its peak. With -capacity.profile it writes ryo's CPU profile of the
// measured time. It runs once whatever b.N is: run it with -benchtime 1x
// (make capacity).
func BenchmarkCapacity(b *testing.B) {
	bin := builtBinary(b)
	run := &loadRun{asked: map[string]time.Time{}, answered: map[string]time.Time{}, calls: map[string]int{},
		waiting: map[string]chan struct{}{}}
	h := newHarness(b, func(o *telegramtest.Options) { o.Observe = run.observe })
	addr := freeAddr(b)
	h.env["RYO_HTTP_ADDR"] = addr
	h.env["RYO_LOG_LEVEL"] = "warn"
	h.env["RYO_TELEGRAM_PACING"] = "off"
	h.env["RYO_PPROF"] = "on"
	dbURL := h.env["DATABASE_URL"]
	h.env["DATABASE_URL"] += "&application_name=" + capacityApp
	// Each person keeps asking: their allowance of turns a minute, a
	// policy and not a cost, is lifted too.
	h.env["RYO_PERSON_RATE"] = "1000000"
	h.env["RYO_PERSON_BURST"] = "1000"
	h.llm.Handle(func(r ollamatest.Request) ollamatest.Reply {
		return ollamatest.Reply{Content: envelope("Answer to " + questionKey.FindString(r.Messages[len(r.Messages)-1].Content))}
	})
	cmd := h.startBinary(bin)
	h.waitWithin(time.Minute, "ryo polling", func() bool { return len(h.tg.Calls("getUpdates")) > 0 })

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range *capacityChats {
		wg.Add(1)
		go func() { defer wg.Done(); run.keepAsking(h, i, stop) }()
	}
	time.Sleep(*capacityWarmup) // the benchmark's own pacing, not a test's wait

	pid := cmd.Process.Pid
	profile := make(chan []byte, 1)
	if *capacityProfile != "" {
		go func() { profile <- fetchProfile(b, addr, *capacityFor) }()
	}
	self := os.Getpid() // the fake Telegram, the fake model and the people asking
	turns0, cpu0, pg0, fakes0, began := run.answeredCount(), cpuTicks(b, pid), postgresTicks(b, dbURL), cpuTicks(b, self), time.Now()
	time.Sleep(*capacityFor)
	turns1, cpu1, pg1, fakes1, took := run.answeredCount(), cpuTicks(b, pid), postgresTicks(b, dbURL), cpuTicks(b, self), time.Since(began)
	rss, peak := memoryKB(b, pid, "VmRSS"), memoryKB(b, pid, "VmHWM")
	close(stop)
	if *capacityProfile != "" {
		if err := os.WriteFile(*capacityProfile, <-profile, 0o644); err != nil {
			b.Error(err)
		}
	}

	turns := turns1 - turns0
	if turns == 0 {
		b.Fatalf("no turn was answered in the measured time; ryo's log:\n%s", h.logs.String())
	}
	tick := time.Second / 100 // Linux's USER_HZ
	cpu := time.Duration(cpu1-cpu0) * tick / time.Duration(turns)
	pg := time.Duration(ticksSince(pg0, pg1)) * tick / time.Duration(turns)
	fakes := time.Duration(fakes1-fakes0) * tick / time.Duration(turns)
	b.ReportMetric(float64(turns)/took.Seconds(), "turns/s")
	// What two cores would answer if they ran only ryo — its PostgreSQL
	// on a machine of its own, as a managed database is — and if they ran
	// ryo and PostgreSQL both: here the fakes of Telegram and of the model
	// server share them.
	b.ReportMetric(float64(2*time.Second)/float64(cpu), "ryo-turns/s-on-2-cores")
	b.ReportMetric(float64(2*time.Second)/float64(cpu+pg), "ryo+pg-turns/s-on-2-cores")
	b.ReportMetric(float64(fakes.Microseconds())/1000, "fakes-cpu-ms/turn")
	b.ReportMetric(float64(cpu.Microseconds())/1000, "ryo-cpu-ms/turn")
	b.ReportMetric(float64(pg.Microseconds())/1000, "pg-cpu-ms/turn")
	b.ReportMetric(float64(rss)/1024, "rss-MB")
	b.ReportMetric(float64(peak)/1024, "peak-rss-MB")
	run.mu.Lock()
	calls := 0 // over the whole run, as the answers counted beside them
	for _, n := range run.calls {
		calls += n
	}
	b.ReportMetric(float64(calls)/float64(len(run.answered)), "calls/turn")
	b.Logf("%d chats; %d turns in %v; calls by method %v over %d answers; 429s %d", *capacityChats, turns,
		took.Round(time.Millisecond), run.calls, len(run.answered), run.tooMany)
	run.mu.Unlock()
	if errs := strings.Count(h.logs.String(), "level=ERROR"); errs > 0 {
		b.Errorf("ryo logged %d errors:\n%s", errs, h.logs.String())
	}
	wg.Wait()
}

// keepAsking plays one person who always has a question waiting, until
// stop closes.
func (r *loadRun) keepAsking(h *harness, i int, stop <-chan struct{}) {
	user := telegramtest.NewUser(fmt.Sprintf("P%d", i), "")
	chat := telegramtest.PrivateChat(user)
	mention := ""
	if i%10 == 0 {
		chat = telegramtest.NewSupergroup(fmt.Sprintf("G%d", i))
		mention = "@ryo_test_bot "
	}
	for n := 1; ; n++ {
		key := fmt.Sprintf("q%d.%d", chat.ID, n)
		done := r.ask(key)
		h.tg.SendText(chat, user, mention+"please answer "+key)
		select {
		case <-done:
		case <-stop:
			return
		}
	}
}

// answeredCount is how many questions were answered so far.
func (r *loadRun) answeredCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.answered)
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// fetchProfile takes ryo's CPU profile for d.
func fetchProfile(t testing.TB, addr string, d time.Duration) []byte {
	ctx, cancel := context.WithTimeout(context.Background(), d+time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet,
		fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(d.Seconds())), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("CPU profile: %v %s", err, resp.Status)
	}
	return body
}

// cpuTicks is the user and system CPU time process pid has used, in clock
// ticks.
func cpuTicks(t testing.TB, pid int) int64 {
	t.Helper()
	n, err := procTicks(pid)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func procTicks(pid int) (int64, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command's name, in parentheses, may hold spaces: the fields
	// counted are after it. utime and stime are fields 14 and 15.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(fields))
	}
	user, err1 := strconv.ParseInt(fields[11], 10, 64)
	sys, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q %q", pid, fields[11], fields[12])
	}
	return user + sys, nil
}

// capacityApp is the application name ryo's connections carry in the
// capacity run, by which PostgreSQL's processes serving it are told from
// those serving anything else on the machine.
const capacityApp = "ryo-capacity"

// postgresTicks is the CPU time, in clock ticks, of each PostgreSQL process
// doing ryo's work: the backends of ryo's connections and PostgreSQL's own
// background processes (the WAL writer, the checkpointer...), by pid.
func postgresTicks(t testing.TB, url string) map[int]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `select pid from pg_stat_activity
		where application_name = $1 or backend_type <> 'client backend'`, capacityApp)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	ticks := map[int]int64{}
	for _, pid := range pids {
		if n, err := procTicks(int(pid)); err == nil {
			ticks[int(pid)] = n
		}
	}
	if len(ticks) == 0 {
		t.Fatal("no PostgreSQL process found to measure")
	}
	return ticks
}

// ticksSince is the CPU time the processes of now used since before: a
// process new since then counts from nothing. (One that ended meanwhile is
// lost: ryo's pool keeps its connections.)
func ticksSince(before, now map[int]int64) int64 {
	var n int64
	for pid, t := range now {
		n += t - before[pid]
	}
	return n
}

// memoryKB reads a line of /proc/<pid>/status, in kB.
func memoryKB(t testing.TB, pid int, name string) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("/proc/%d/status has no %s", pid, name)
	return 0
}
