package main

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/metrics"
)

// backlogTimeout is how long a scrape waits for the database's backlog
// before it goes on without it; Prometheus's own scrape timeout is 10 s by
// default.
const backlogTimeout = 2 * time.Second

// newMetrics makes the bot's metrics, the backlog read from db at each
// scrape, and Go's and the process's own, on a registry of their own.
func newMetrics(db *memory.DB, log *slog.Logger) (*prometheus.Registry, *metrics.Metrics) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		metrics.NewBacklog(db, backlogTimeout, log))
	return reg, metrics.New(reg)
}

// metricsHandler serves reg in Prometheus's text format. A metric that
// cannot be gathered is logged and left out; the others are served. One
// scrape is served at a time, and one that comes meanwhile is answered 503
// at once: each scrape asks the database, and a flood of them must not
// take the connections the turns need.
func metricsHandler(reg *prometheus.Registry, log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:            slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 1,
	})
}
