package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ryo-bot/ryo/memory"
)

// BacklogStore counts the work that waits in the store; *memory.DB is one.
type BacklogStore interface {
	Backlog(ctx context.Context) (memory.Backlog, error)
}

// Backlog reads the work that waits in the store each time Prometheus
// scrapes, within a deadline: when the store does not answer in time, the
// scrape goes on without the backlog, says ryo_database_up 0, and the
// failure is logged.
type Backlog struct {
	store   BacklogStore
	timeout time.Duration
	log     *slog.Logger

	up, inbox, actions, dead *prometheus.Desc
}

// NewBacklog returns a collector of store's backlog, which waits at most
// timeout for it.
func NewBacklog(store BacklogStore, timeout time.Duration, log *slog.Logger) *Backlog {
	return &Backlog{store: store, timeout: timeout, log: log,
		up: prometheus.NewDesc("ryo_database_up",
			"Whether the database answered the scrape's backlog query in time (1) or not (0).", nil, nil),
		inbox: prometheus.NewDesc("ryo_inbox_updates",
			"Updates in the inbox not finished yet: waiting for their turn or being answered.", nil, nil),
		actions: prometheus.NewDesc("ryo_pending_actions",
			"Actions waiting for a person's yes that have not expired.", nil, nil),
		dead: prometheus.NewDesc("ryo_dead_letters",
			"Updates in the dead letter that no admin has retried (/deadletter).", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (b *Backlog) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{b.up, b.inbox, b.actions, b.dead} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (b *Backlog) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	got, err := b.store.Backlog(ctx)
	if err != nil {
		b.log.Warn("metrics: the database did not tell the backlog; the scrape goes on without it", "err", err)
		ch <- prometheus.MustNewConstMetric(b.up, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(b.up, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(b.inbox, prometheus.GaugeValue, float64(got.Inbox))
	ch <- prometheus.MustNewConstMetric(b.actions, prometheus.GaugeValue, float64(got.PendingActions))
	ch <- prometheus.MustNewConstMetric(b.dead, prometheus.GaugeValue, float64(got.DeadLetters))
}
