package modelpool

import "github.com/ryo-bot/ryo"

// member is a server and what the pool knows of it; its fields after
// Member are guarded by the pool's mu.
type member struct {
	Member
	limit     int
	inFlight  int
	healthy   bool
	models    map[string]bool // full names; nil until the server said
	requests  int64
	failovers int64         // requests that moved on from it
	strikes   int           // times it went down or failed a probe since it last answered a request
	wake      chan struct{} // one slot: tells its watcher it went down
	lastErr   string        // why it went down, for doctor and the log
}

// has reports whether the server has model, or might: its list is not
// known.
func (m *member) has(model string) bool {
	return m.models == nil || m.models[model]
}

// lighter reports whether m is less loaded than o: fewer requests in
// flight for its limit, then fewer answered so far.
func (m *member) lighter(o *member) bool {
	a, b := m.inFlight*o.limit, o.inFlight*m.limit
	if a != b {
		return a < b
	}
	return m.requests < o.requests
}

// setModels remembers the models a server listed.
func (m *member) setModels(names []string) {
	m.models = make(map[string]bool, len(names))
	for _, n := range names {
		m.models[ryo.FullModelName(n)] = true
	}
}
