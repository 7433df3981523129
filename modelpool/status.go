package modelpool

import (
	"slices"
)

// Status is what the pool knows of one server now.
type Status struct {
	Name      string
	Healthy   bool
	InFlight  int
	Limit     int
	Models    []string // full names, sorted; nil when the server has not said
	Requests  int64    // requests sent to it
	Failovers int64    // requests that failed on it before their first token and moved on
	Err       string   // why it went down last, if it did
}

// Servers is the state of every server, in the pool's order.
func (p *Pool) Servers() []Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Status, len(p.members))
	for i, m := range p.members {
		out[i] = Status{Name: m.Name, Healthy: m.healthy, InFlight: m.inFlight, Limit: m.limit,
			Requests: m.requests, Failovers: m.failovers, Err: m.lastErr}
		if m.models != nil {
			out[i].Models = make([]string, 0, len(m.models))
			for n := range m.models {
				out[i].Models = append(out[i].Models, n)
			}
			slices.Sort(out[i].Models)
		}
	}
	return out
}
