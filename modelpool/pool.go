package modelpool

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ryo-bot/ryo"
)

// Server is one model server: it answers chats, names the models it has,
// and says whether it answers at all.
type Server interface {
	Chat(ctx context.Context, req ryo.ModelRequest) (ryo.ModelReply, error)
	Models(ctx context.Context) ([]string, error)
	Probe(ctx context.Context) error
}

// Member is a server in the pool.
type Member struct {
	Name   string // for the log, metrics and `ryo doctor`: host and port, no password
	Server Server
	Limit  int // requests it answers at once; less than 1 is 1
}

// Config says which models a request asks when it names none, and how
// often servers are asked about their models.
type Config struct {
	Model       string        // the chat model (RYO_MODEL)
	VisionModel string        // RYO_VISION_MODEL; "" asks Model when it reads pictures
	EmbedModel  string        // for Embed
	Refresh     time.Duration // how often each server's models are read again; 0 is 30 s
	Clock       ryo.Clock     // nil is the system clock
}

// Pool sends each request to one of its servers. It is safe for
// concurrent use; Run keeps what it knows of the servers fresh.
type Pool struct {
	cfg     Config
	log     *slog.Logger
	members []*member

	mu       sync.Mutex
	line     []*waiter     // requests waiting for a server, first come first
	arrivals uint64        // requests that came so far: the place of the last
	changed  chan struct{} // closed and replaced whenever the line is served
}

// New returns a pool of members, each thought up and holding every model
// until Run has asked it.
func New(cfg Config, log *slog.Logger, members ...Member) *Pool {
	cfg.Refresh = cmp.Or(cfg.Refresh, 30*time.Second)
	if cfg.Clock == nil {
		cfg.Clock = ryo.SystemClock{}
	}
	p := &Pool{cfg: cfg, log: log, changed: make(chan struct{})}
	for _, m := range members {
		p.members = append(p.members, &member{Member: m, limit: max(m.Limit, 1), healthy: true, wake: make(chan struct{}, 1)})
	}
	return p
}

// Model names the model a request asks when it names none.
func (p *Pool) Model() string { return p.cfg.Model }

// Chat sends req to the least-loaded healthy server that has its model,
// and to the next if that one fails before the answer's first token.
func (p *Pool) Chat(ctx context.Context, req ryo.ModelRequest) (ryo.ModelReply, error) {
	var reply ryo.ModelReply
	err := p.do(ctx, cmp.Or(req.Model, p.cfg.Model), func(s Server) (bool, error) {
		started := false
		r := req
		r.OnDelta = func(d string) {
			started = true
			if req.OnDelta != nil {
				req.OnDelta(d)
			}
		}
		var err error
		reply, err = s.Chat(ctx, r)
		return started, err
	})
	return reply, err
}

// errNoServer says that no server is up, or none is left to try.
var errNoServer = errors.New("no model server left to try")

// do runs call on one server after another until one answers, one fails
// after it started answering, or none is left.
func (p *Pool) do(ctx context.Context, model string, call func(Server) (started bool, err error)) error {
	model = ryo.FullModelName(model)
	tried := map[*member]bool{}
	var last error
	var from *member // the server the request failed on last
	place := p.arrive()
	for {
		m, err := p.acquire(ctx, place, model, tried, last != nil)
		if errors.Is(err, errNoServer) {
			if last != nil {
				return last
			}
			return &ryo.Error{Code: ryo.EUNAVAILABLE, Of: ryo.Model, Err: fmt.Errorf("modelpool: all %d servers are down", len(p.members)),
				Message: "I can't reach the model server right now. Please try again in a little while."}
		}
		if err != nil {
			return err
		}
		if from != nil {
			p.failedOver(from)
		}
		started, err := call(m.Server)
		moveOn := err != nil && !started && ctx.Err() == nil
		switch {
		case moveOn && ryo.ModelMissing(err):
			p.lacks(m, model)
		case moveOn && serverFault(err):
			p.down(m, err) // before its slot frees, so that no one else is sent there
		default:
			moveOn = false
		}
		p.release(m, err == nil)
		if !moveOn {
			return err
		}
		tried[m], last, from = true, err, m
	}
}

// serverFault reports whether err says the server, not the request, is
// at fault: out of reach, failing, or too slow.
func serverFault(err error) bool {
	return ryo.IsUnavailable(err, ryo.Model) || ryo.ErrorCode(err) == ryo.ETIMEOUT
}

// pickLocked returns the least-loaded server with a free slot among the
// candidates, and whether there are candidates at all. A model that only
// servers now down have has no candidate: the request fails as the
// server being out of reach, not as the model missing.
func (p *Pool) pickLocked(model string, tried map[*member]bool, retry bool) (*member, bool) {
	var listing, healthy []*member
	elsewhere := false // a server down, or tried, has it
	for _, m := range p.members {
		switch {
		case !m.healthy || tried[m]:
			elsewhere = elsewhere || m.has(model)
		case m.has(model):
			listing = append(listing, m)
			healthy = append(healthy, m)
		default:
			healthy = append(healthy, m)
		}
	}
	if len(listing) == 0 && !retry && !elsewhere {
		listing = healthy
	}
	var best *member
	for _, m := range listing {
		if m.inFlight < m.limit && (best == nil || m.lighter(best)) {
			best = m
		}
	}
	return best, len(listing) > 0
}

// release hands back a slot on m; answered clears its strikes.
func (p *Pool) release(m *member, answered bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m.inFlight--
	if answered {
		m.strikes = 0
	}
	p.serveLocked()
}

func (p *Pool) failedOver(m *member) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m.failovers++
}

// notifyLocked wakes whoever waits for the pool to change (tests). p.mu must be held.
func (p *Pool) notifyLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}
