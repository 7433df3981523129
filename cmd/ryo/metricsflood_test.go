package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/metrics"
)

// stuckStore is a database that does not answer: each backlog query says
// it started, then waits for its deadline or the test's release.
type stuckStore struct{ entered, release chan struct{} }

func (s stuckStore) Backlog(ctx context.Context) (memory.Backlog, error) {
	s.entered <- struct{}{}
	select {
	case <-ctx.Done():
	case <-s.release:
	}
	return memory.Backlog{}, ctx.Err()
}

// A flood of scrapes while the database hangs does not become a flood of
// queries holding the pool's connections: while one scrape waits for the
// database, another is turned away at once with 503, without asking it.
func TestScrapeFloodDoesNotReachTheDatabase(t *testing.T) {
	store := stuckStore{entered: make(chan struct{}, 16), release: make(chan struct{})}
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewBacklog(store, time.Minute, slog.New(slog.NewTextHandler(io.Discard, nil))))
	srv := httptest.NewServer(metricsHandler(reg, slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer srv.Close()
	ctx := context.Background()
	first := make(chan struct{})
	go func() {
		defer close(first)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-store.entered // the first scrape waits for the database
	done := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- nil
			return
		}
		resp.Body.Close()
		done <- resp
	}()
	select {
	case <-store.entered:
		t.Error("a second scrape asked the database while the first still waited for it")
		close(store.release)
		<-done
	case resp := <-done:
		if resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("the second scrape got %v; want 503", resp)
		}
		close(store.release)
	}
	<-first
}
