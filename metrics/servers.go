package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ryo-bot/ryo/modelpool"
)

// ServerPool tells the state of each model server; *modelpool.Pool is one.
type ServerPool interface {
	Servers() []modelpool.Status
}

// Servers reads the state of each model server of a pool at each scrape,
// labelled by server (host and port).
type Servers struct {
	pool                                  ServerPool
	up, inFlight, limit, requests, failed *prometheus.Desc
}

// NewServers returns a collector of pool's servers.
func NewServers(pool ServerPool) *Servers {
	l := []string{"server"}
	return &Servers{pool: pool,
		up: prometheus.NewDesc("ryo_model_server_up",
			"Whether the model server takes requests (1) or is down and probed until it answers (0).", l, nil),
		inFlight: prometheus.NewDesc("ryo_model_server_in_flight",
			"Requests the model server is answering now.", l, nil),
		limit: prometheus.NewDesc("ryo_model_server_parallel",
			"Requests the model server is sent at most at once (OLLAMA_HOST, RYO_OLLAMA_PARALLEL).", l, nil),
		requests: prometheus.NewDesc("ryo_model_server_requests_total",
			"Requests sent to the model server.", l, nil),
		failed: prometheus.NewDesc("ryo_model_server_failovers_total",
			"Requests that failed on the model server before their first token and went on to another.", l, nil),
	}
}

// Describe implements prometheus.Collector.
func (s *Servers) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{s.up, s.inFlight, s.limit, s.requests, s.failed} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (s *Servers) Collect(ch chan<- prometheus.Metric) {
	for _, st := range s.pool.Servers() {
		up := 0.0
		if st.Healthy {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(s.up, prometheus.GaugeValue, up, st.Name)
		ch <- prometheus.MustNewConstMetric(s.inFlight, prometheus.GaugeValue, float64(st.InFlight), st.Name)
		ch <- prometheus.MustNewConstMetric(s.limit, prometheus.GaugeValue, float64(st.Limit), st.Name)
		ch <- prometheus.MustNewConstMetric(s.requests, prometheus.CounterValue, float64(st.Requests), st.Name)
		ch <- prometheus.MustNewConstMetric(s.failed, prometheus.CounterValue, float64(st.Failovers), st.Name)
	}
}
