package websearch_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/websearch"
	"github.com/ryo-bot/ryo/websearchtest"
)

func cachedFake(t *testing.T, ttl time.Duration, size int) (*websearch.Cached, *websearchtest.Server, *clocktest.Clock) {
	fake := newFake(t, websearchtest.Options{})
	fake.SetPages(websearchtest.Page{Title: "found", URL: "https://a.example/"})
	clock := clocktest.New(now)
	s := searxng(t, fake)
	s.Clock = clock
	return websearch.NewCached(s, ttl, size, clock), fake, clock
}

// The same query within the TTL — in any case and spacing — is answered
// from memory; after it, the provider is asked again. Another recency or
// count is another query.
func TestCachedKeepsAnswersForTheTTL(t *testing.T) {
	c, fake, clock := cachedFake(t, 5*time.Minute, 0)
	ctx := context.Background()
	for _, text := range []string{"Kernel News", "kernel   news", " KERNEL news "} {
		got, err := c.Search(ctx, websearch.Query{Text: text, Count: 5})
		if err != nil || len(got) != 1 || got[0].Title != "found" {
			t.Fatalf("%q: %v, %v", text, got, err)
		}
	}
	if n := len(fake.Queries()); n != 1 {
		t.Fatalf("the provider was asked %d times; want once", n)
	}
	_, _ = c.Search(ctx, websearch.Query{Text: "kernel news", Count: 5, Recency: "day"})
	_, _ = c.Search(ctx, websearch.Query{Text: "kernel news", Count: 3})
	if n := len(fake.Queries()); n != 3 {
		t.Fatalf("the provider was asked %d times; want 3", n)
	}
	clock.Advance(5*time.Minute - time.Second)
	_, _ = c.Search(ctx, websearch.Query{Text: "kernel news", Count: 5})
	if n := len(fake.Queries()); n != 3 {
		t.Fatalf("asked again within the TTL: %d", n)
	}
	clock.Advance(time.Second)
	_, _ = c.Search(ctx, websearch.Query{Text: "kernel news", Count: 5})
	if n := len(fake.Queries()); n != 4 {
		t.Fatalf("not asked again after the TTL: %d", n)
	}
}

// A failure is not kept: the next ask goes to the provider, and its
// answer is kept.
func TestCachedKeepsNoFailure(t *testing.T) {
	c, fake, _ := cachedFake(t, time.Minute, 0)
	fake.Fail(websearchtest.RateLimited)
	q := websearch.Query{Text: "q", Count: 5}
	var e *websearch.Error
	if _, err := c.Search(context.Background(), q); !errors.As(err, &e) || e.Kind != websearch.RateLimited {
		t.Fatalf("first: %v", err)
	}
	for range 2 {
		if got, err := c.Search(context.Background(), q); err != nil || len(got) != 1 {
			t.Fatalf("after the failure: %v, %v", got, err)
		}
	}
	if n := len(fake.Queries()); n != 2 {
		t.Fatalf("the provider was asked %d times; want 2", n)
	}
}

// Identical queries asked at once share one request, and each asker gets
// its own copy of the results.
func TestCachedSharesConcurrentQueries(t *testing.T) {
	c, fake, _ := cachedFake(t, time.Minute, 0)
	fake.Hold()
	var wg sync.WaitGroup
	results := make([][]websearch.Result, 8)
	errs := make([]error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = c.Search(context.Background(), websearch.Query{Text: "same", Count: 5})
		}()
	}
	<-fake.Arrived()
	fake.Release()
	wg.Wait()
	for i := range 8 {
		if errs[i] != nil || len(results[i]) != 1 {
			t.Fatalf("asker %d: %v, %v", i, results[i], errs[i])
		}
	}
	results[0][0].Title = "changed"
	if results[1][0].Title != "found" {
		t.Fatal("askers share one slice")
	}
	if n := len(fake.Queries()); n != 1 {
		t.Fatalf("the provider was asked %d times; want once", n)
	}
}

// An asker whose turn ends stops waiting at once; the shared request goes
// on, and its answer serves the next asker.
func TestCachedAskerThatGivesUp(t *testing.T) {
	c, fake, _ := cachedFake(t, time.Minute, 0)
	fake.Hold()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := c.Search(ctx, websearch.Query{Text: "q", Count: 5})
		done <- err
	}()
	<-fake.Arrived()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	fake.Release()
	got, err := c.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
	if err != nil || len(got) != 1 {
		t.Fatalf("next: %v, %v", got, err)
	}
	if n := len(fake.Queries()); n != 1 {
		t.Fatalf("the provider was asked %d times; want once", n)
	}
}

// The cache holds at most its size: the least recently used answer goes.
func TestCachedIsBounded(t *testing.T) {
	c, fake, _ := cachedFake(t, time.Hour, 2)
	ask := func(text string) {
		if _, err := c.Search(context.Background(), websearch.Query{Text: text, Count: 5}); err != nil {
			t.Fatal(err)
		}
	}
	ask("a")
	ask("b")
	ask("a") // a is now the most recent
	ask("c") // pushes b out
	if c.Len() != 2 {
		t.Fatalf("len = %d", c.Len())
	}
	ask("a")
	if n := len(fake.Queries()); n != 3 {
		t.Fatalf("asked %d times; want 3 (a, b, c)", n)
	}
	ask("b")
	if n := len(fake.Queries()); n != 4 {
		t.Fatalf("b was kept: asked %d times", n)
	}
}
