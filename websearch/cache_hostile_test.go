package websearch_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/websearch"
)

// searcherFunc is a Searcher in a function.
type searcherFunc func(context.Context, websearch.Query) ([]websearch.Result, error)

func (f searcherFunc) Search(ctx context.Context, q websearch.Query) ([]websearch.Result, error) {
	return f(ctx, q)
}

// One query typed in two Unicode forms — "café" with é as one character
// (NFC, as most keyboards write it) or as e and a combining accent (NFD,
// as macOS file names and some pastes do) — is one query: the provider is
// asked once.
func TestCachedOneQueryInTwoUnicodeForms(t *testing.T) {
	c, fake, _ := cachedFake(t, time.Minute, 0)
	for _, text := range []string{"caf\u00e9 in Zu\u0308rich", "cafe\u0301 in Z\u00fcrich", "CAF\u00c9 in Z\u00dcRICH"} {
		if _, err := c.Search(context.Background(), websearch.Query{Text: text, Count: 5}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(fake.Queries()); n != 1 {
		t.Fatalf("the provider was asked %d times for one query: %+q", n, fake.Queries())
	}
}

// Askers in a crowd — the same few queries and many others at once —
// each get their own query's answer; the provider is asked at most once
// per query at a time, and the cache stays within its size after a
// hundred thousand distinct queries. Run with -race.
func TestCachedUnderACrowd(t *testing.T) {
	var asked atomic.Int64
	s := searcherFunc(func(ctx context.Context, q websearch.Query) ([]websearch.Result, error) {
		asked.Add(1)
		return []websearch.Result{{Title: q.Text, URL: "https://a.example/"}}, nil
	})
	c := websearch.NewCached(s, time.Hour, 64, clocktest.New(now))
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100_000 / 32 {
				text := fmt.Sprintf("q%d", i%8) // shared
				if i%2 == 1 {
					text = fmt.Sprintf("own %d %d", g, i) // distinct
				}
				got, err := c.Search(context.Background(), websearch.Query{Text: text, Count: 5})
				if err != nil || len(got) != 1 || got[0].Title != text {
					errs <- fmt.Errorf("%q: %+v, %v", text, got, err)
					return
				}
				got[0].Title = "changed by its asker" // must not reach the next
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if c.Len() > 64 {
		t.Fatalf("the cache holds %d answers; its size is 64", c.Len())
	}
	t.Logf("%d searches asked the provider %d times", 100_000/32*32, asked.Load())
}

// When the asker that started a shared request gives up, the others
// waiting for it still get its answer, not the first asker's
// cancellation.
func TestCachedLeaderGivesUpFollowersDoNot(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var asked atomic.Int64
	s := searcherFunc(func(ctx context.Context, q websearch.Query) ([]websearch.Result, error) {
		if asked.Add(1) == 1 {
			close(started)
		}
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return []websearch.Result{{Title: "shared", URL: "https://a.example/"}}, nil
	})
	c := websearch.NewCached(s, time.Minute, 0, clocktest.New(now))
	leaderCtx, cancel := context.WithCancel(context.Background())
	leader := make(chan error, 1)
	go func() {
		_, err := c.Search(leaderCtx, websearch.Query{Text: "q", Count: 5})
		leader <- err
	}()
	<-started
	followers := make(chan error, 8)
	var joined sync.WaitGroup
	for range 8 {
		joined.Add(1)
		go func() {
			joined.Done()
			got, err := c.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
			if err == nil && (len(got) != 1 || got[0].Title != "shared") {
				err = fmt.Errorf("got %+v", got)
			}
			followers <- err
		}()
	}
	joined.Wait()
	cancel()
	if err := <-leader; !errors.Is(err, context.Canceled) {
		t.Fatalf("leader: %v", err)
	}
	close(release)
	for range 8 {
		if err := <-followers; err != nil {
			t.Fatalf("a follower: %v", err)
		}
	}
	if n := asked.Load(); n != 1 {
		t.Fatalf("the provider was asked %d times", n)
	}
}
