package modelpool

import (
	"context"
	"sync"

	"github.com/ryo-bot/ryo"
)

// Run reads each server's models now and every Config.Refresh, and probes
// servers that are down until they answer, until ctx ends.
func (p *Pool) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, m := range p.members {
		wg.Go(func() { p.watch(ctx, m) })
	}
	wg.Wait()
}

// watch keeps one server's state fresh: while it is up, its models are
// read every Refresh (and at once when it lacked a model it listed); while
// it is down, it is probed after backoffs of growing length. The backoff
// grows with the server's strikes, which only an answered request clears:
// a server that answers probes but fails every chat is tried less and
// less often, not every half second.
func (p *Pool) watch(ctx context.Context, m *member) {
	for ctx.Err() == nil {
		if p.isHealthy(m) {
			p.refresh(ctx, m)
			fired, stop := p.cfg.Clock.Timer(p.cfg.Refresh)
			select {
			case <-fired:
			case <-m.wake:
			case <-ctx.Done():
			}
			stop()
			continue
		}
		if !ryo.Sleep(ctx, p.cfg.Clock, ryo.Backoff(p.strikes(m))) {
			return
		}
		if err := m.Server.Probe(ctx); err != nil {
			p.log.Debug("model server still down", "server", m.Name, "err", err)
			p.strike(m)
			continue
		}
		p.up(m)
	}
}

// refresh reads the models a server has; a server that cannot say is down.
func (p *Pool) refresh(ctx context.Context, m *member) {
	names, err := m.Server.Models(ctx)
	if err != nil {
		if ctx.Err() == nil {
			p.down(m, err)
		}
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	m.setModels(names)
	p.serveLocked()
}

func (p *Pool) strikes(m *member) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return m.strikes
}

func (p *Pool) strike(m *member) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m.strikes++
}

func (p *Pool) isHealthy(m *member) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return m.healthy
}

// down marks a server down, for its watcher to probe.
func (p *Pool) down(m *member, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m.lastErr = err.Error()
	if !m.healthy {
		return
	}
	m.healthy = false
	m.strikes++
	p.log.Warn("model server down; its requests go to the others", "server", m.Name, "err", err)
	p.serveLocked()
	p.poke(m)
}

// up takes a server that answers a probe back; its watcher reads its
// models next.
func (p *Pool) up(m *member) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m.healthy = true
	p.log.Info("model server back", "server", m.Name)
	p.serveLocked()
}

// lacks notes that a server does not have model after all, and has its
// watcher read its models again.
func (p *Pool) lacks(m *member, model string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if m.models != nil {
		delete(m.models, model)
	}
	p.poke(m)
	p.serveLocked()
}

// poke wakes a server's watcher, without waiting.
func (p *Pool) poke(m *member) {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}
