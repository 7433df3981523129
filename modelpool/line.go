package modelpool

import (
	"context"
	"fmt"
	"slices"
)

// arrive gives a request its place in line.
func (p *Pool) arrive() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.arrivals++
	return p.arrivals
}

// waiter is a request in line for a server.
type waiter struct {
	place uint64 // when the request first came: the line is in this order
	model string
	tried map[*member]bool // servers it failed on
	retry bool             // it failed once: only servers that list its model
	got   chan *member     // one slot: the server it was given, nil when none is left
}

// acquire takes a slot on the least-loaded healthy server, not yet tried,
// that has model. While every such server is full, the request waits in
// line, first come first served, until one has a free slot or ctx ends. A
// request that failed on a server comes back to its place, the one its
// first arrival gave it (place, from arrive), ahead of those that came
// later. Before any failure, a model no server lists goes to any healthy
// server, whose answer says the model is missing.
func (p *Pool) acquire(ctx context.Context, place uint64, model string, tried map[*member]bool, retry bool) (*member, error) {
	w := &waiter{place: place, model: model, tried: tried, retry: retry, got: make(chan *member, 1)}
	p.mu.Lock()
	i := len(p.line)
	for i > 0 && p.line[i-1].place > place {
		i--
	}
	p.line = slices.Insert(p.line, i, w)
	p.serveLocked()
	p.mu.Unlock()
	select {
	case m := <-w.got:
		if m == nil {
			return nil, errNoServer
		}
		return m, nil
	case <-ctx.Done():
		p.leave(w)
		return nil, fmt.Errorf("wait for a free model server: %w", context.Cause(ctx))
	}
}

// leave takes a request that gave up out of the line, and hands back the
// slot it was given meanwhile, if it was.
func (p *Pool) leave(w *waiter) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.line {
		if x == w {
			p.line = append(p.line[:i], p.line[i+1:]...)
			return
		}
	}
	if m := <-w.got; m != nil {
		m.inFlight--
		m.requests--
		p.serveLocked()
	}
}

// serveLocked gives each request in line, in order, the least-loaded
// server with a free slot among its candidates, and tells those with no
// candidate left. A request whose servers are full does not hold up one
// behind it that asks for a model elsewhere. p.mu must be held.
func (p *Pool) serveLocked() {
	kept := p.line[:0]
	for _, w := range p.line {
		switch m, some := p.pickLocked(w.model, w.tried, w.retry); {
		case m != nil:
			m.inFlight++
			m.requests++
			w.got <- m
		case !some:
			w.got <- nil
		default:
			kept = append(kept, w)
		}
	}
	clear(p.line[len(kept):])
	p.line = kept
	p.notifyLocked()
}
