package modelpool_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/modelpool"
	"github.com/ryo-bot/ryo/ollama"
	"github.com/ryo-bot/ryo/ollama/livetest"
)

// liveServers starts n real Ollama servers, each with the tiny model as
// "tiny" and answering one request at a time (OLLAMA_NUM_PARALLEL=1).
func liveServers(tb testing.TB, n int, model livetest.TinyModel) ([]*livetest.Server, []modelpool.Member) {
	tb.Helper()
	var servers []*livetest.Server
	var members []modelpool.Member
	for range n {
		srv := livetest.Start(tb)
		srv.CreateTinyModel(tb, "tiny", model)
		u, err := url.Parse(srv.URL)
		if err != nil {
			tb.Fatal(err)
		}
		c := ollama.New(ollama.Config{Host: u, Model: "tiny", KeepAlive: time.Hour,
			ConnectTimeout: 5 * time.Second, FirstTokenTimeout: time.Minute, Timeout: 2 * time.Minute})
		servers = append(servers, srv)
		members = append(members, modelpool.Member{Name: u.Host, Server: c, Limit: 1})
	}
	return servers, members
}

// livePool makes a pool of members and runs it until the test ends.
func livePool(tb testing.TB, members []modelpool.Member) *modelpool.Pool {
	tb.Helper()
	p := modelpool.New(modelpool.Config{Model: "tiny"}, slog.New(slog.DiscardHandler), members...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	tb.Cleanup(func() { cancel(); <-done })
	return p
}

func liveHello() ryo.ModelRequest {
	return ryo.ModelRequest{Messages: []ryo.ModelMessage{{Role: ryo.ModelUser, Content: "hello bot"}}}
}

// A server killed in the middle of a load loses no request: those in line
// for it, and the one it was answering before its first token, are
// answered by the other. Only a request whose answer had begun may fail,
// as with one server; none is answered twice.
func TestLiveServerKilledMidLoadLosesNoRequest(t *testing.T) {
	servers, members := liveServers(t, 2, livetest.DefaultTinyModel())
	p := livePool(t, members)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const total, workers = 60, 6
	var next, answered, failedLate, failedEarly, twice atomic.Int64
	killed := make(chan struct{})
	var kill sync.Once
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for next.Add(1) <= total {
				deltas := 0
				req := liveHello()
				req.OnDelta = func(string) { deltas++ }
				reply, err := p.Chat(ctx, req)
				switch {
				case err == nil && reply.Content == "ok":
					answered.Add(1)
				case err == nil:
					twice.Add(1) // an answer that is not the model's one "ok"
				case deltas > 0:
					failedLate.Add(1)
				default:
					failedEarly.Add(1)
					t.Errorf("a request failed before its first token: %v", err)
				}
				// A third of the way through, whatever share of the load
				// the first server took: on a busy machine one server may
				// load the model late and take only a few requests.
				if answered.Load() >= total/3 {
					kill.Do(func() { servers[0].Kill(); close(killed) })
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-killed:
	default:
		t.Fatal("the first server was never killed")
	}
	st := p.Servers()
	t.Logf("%d answered, %d failed after their first token, %d before; %d moved on from the killed server, which had %d, the other %d",
		answered.Load(), failedLate.Load(), failedEarly.Load(), st[0].Failovers, st[0].Requests, st[1].Requests)
	if answered.Load()+failedLate.Load() != total || failedLate.Load() > 1 || twice.Load() != 0 {
		t.Fatalf("%d answered, %d failed after their first token, %d answered oddly; want %d answered (one at most cut mid-answer)",
			answered.Load(), failedLate.Load(), twice.Load(), total)
	}
	if st[0].Failovers > 1 {
		t.Errorf("%d requests failed on the killed server; want only the one that found it gone (it answers one at a time)", st[0].Failovers)
	}
	if st[0].Healthy || !st[1].Healthy {
		t.Fatalf("servers %+v; want the killed one down", st)
	}
}

// BenchmarkLiveChat measures answers a second with one real server and
// with two, eight requests at a time; each server answers one at a time
// on one thread. "tiny" is the tests' model, whose answers cost little
// beyond HTTP and scheduling; "heavier" is a model of hidden size 128
// given a prompt of about 100 bytes (tokens), different each time (no
// prompt cache helps), so that the model's own work weighs more, as it
// does with real models.
func BenchmarkLiveChat(b *testing.B) {
	heavier := livetest.DefaultTinyModel()
	heavier.Embd, heavier.Layers, heavier.FF = 128, 2, 512
	for _, model := range []struct {
		name   string
		model  livetest.TinyModel
		prompt string
	}{{"tiny", livetest.DefaultTinyModel(), "hello bot"}, {"heavier", heavier, strings.Repeat("tell me about the weather ", 4)}} {
		for _, n := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/%d_servers", model.name, n), func(b *testing.B) {
				_, members := liveServers(b, n, model.model)
				p := livePool(b, members)
				ctx := context.Background()
				for _, m := range members { // loads the model on each server
					if _, err := m.Server.Chat(ctx, liveHello()); err != nil {
						b.Fatal(err)
					}
				}
				var count atomic.Int64
				b.SetParallelism(4) // 8 requests at a time on 2 cores
				b.ResetTimer()
				start := time.Now()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						req := ryo.ModelRequest{Messages: []ryo.ModelMessage{{Role: ryo.ModelUser,
							Content: fmt.Sprint(count.Add(1), " ", model.prompt)}}}
						if _, err := p.Chat(ctx, req); err != nil {
							b.Error(err)
						}
					}
				})
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "answers/s")
			})
		}
	}
}
