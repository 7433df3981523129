package modelpool

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ryo-bot/ryo"
)

// Catalog is a server that lists its models with what each can do; a
// member that is one serves /model and photos.
type Catalog interface {
	Installed(ctx context.Context) ([]ryo.InstalledModel, error)
	Capabilities(ctx context.Context, name string) ([]ryo.Capability, error)
}

// Embedder is a server that turns texts into vectors.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// errNoCatalog says that no server up can list its models.
var errNoCatalog = &ryo.Error{Code: ryo.EUNAVAILABLE, Of: ryo.Model, Err: errors.New("modelpool: no server up lists its models"),
	Message: "I can't reach the model server right now. Please try again in a little while."}

// Installed lists the models of every server that is up, each once, in
// the order of the servers. An error means no server could say.
func (p *Pool) Installed(ctx context.Context) ([]ryo.InstalledModel, error) {
	var out []ryo.InstalledModel
	var last error = errNoCatalog
	answered := false
	for _, m := range p.healthy() {
		c, ok := m.Server.(Catalog)
		if !ok {
			continue
		}
		list, err := c.Installed(ctx)
		if err != nil {
			last = err
			continue
		}
		answered = true
		for _, im := range list {
			if !slices.ContainsFunc(out, func(o ryo.InstalledModel) bool { return ryo.SameModel(o.Name, im.Name) }) {
				out = append(out, im)
			}
		}
	}
	if !answered {
		return nil, last
	}
	return out, nil
}

// Capabilities are what model name can do, as the first server up that
// has it says; ryo.ModelMissing when none has it.
func (p *Pool) Capabilities(ctx context.Context, name string) ([]ryo.Capability, error) {
	var last error = errNoCatalog
	for _, m := range p.holding(name) {
		c, ok := m.Server.(Catalog)
		if !ok {
			continue
		}
		caps, err := c.Capabilities(ctx, name)
		if err == nil {
			return caps, nil
		}
		last = err
	}
	return nil, last
}

// VisionModel is the model a turn that shows pictures asks, as
// ollama.Client.VisionModel says, over all the servers.
func (p *Pool) VisionModel(ctx context.Context) (string, error) {
	name := p.cfg.VisionModel
	if name == "" {
		name = p.cfg.Model
	}
	caps, err := p.Capabilities(ctx, name)
	if err != nil {
		return "", fmt.Errorf("modelpool: whether %q reads pictures: %w", name, err)
	}
	if !slices.Contains(caps, ryo.CanSee) {
		return "", nil
	}
	return name, nil
}

// Embed turns texts into vectors on a server that has the embedding
// model, moving on as Chat does when one fails.
func (p *Pool) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var out [][]float32
	err := p.do(ctx, p.cfg.EmbedModel, func(s Server) (bool, error) {
		e, ok := s.(Embedder)
		if !ok {
			return false, fmt.Errorf("modelpool: a server that cannot embed lists %q", p.cfg.EmbedModel)
		}
		var err error
		out, err = e.Embed(ctx, texts)
		return false, err
	})
	return out, err
}

// healthy is the servers up now, in their order.
func (p *Pool) healthy() []*member {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*member
	for _, m := range p.members {
		if m.healthy {
			out = append(out, m)
		}
	}
	return out
}

// holding is the servers up now that list model name first, then those
// whose list is not known.
func (p *Pool) holding(name string) []*member {
	name = ryo.FullModelName(name)
	p.mu.Lock()
	defer p.mu.Unlock()
	var listing, unknown []*member
	for _, m := range p.members {
		switch {
		case !m.healthy:
		case m.models == nil:
			unknown = append(unknown, m)
		case m.models[name]:
			listing = append(listing, m)
		}
	}
	return append(listing, unknown...)
}

// Check reads every server's models: it says how many servers are up and
// have the model, or why none can answer it.
func (p *Pool) Check(ctx context.Context) (string, error) {
	up, with := 0, 0
	var last error
	for _, m := range p.members {
		names, err := m.Server.Models(ctx)
		if err != nil {
			last = fmt.Errorf("%s: %w", m.Name, err)
			continue
		}
		up++
		if slices.ContainsFunc(names, func(n string) bool { return ryo.SameModel(n, p.cfg.Model) }) {
			with++
		}
	}
	switch {
	case up == 0:
		return "", fmt.Errorf("none of the %d model servers answers; the last said: %w", len(p.members), last)
	case with == 0:
		return "", fmt.Errorf("model %q is not installed on any of the %d servers up (ollama pull %s)", p.cfg.Model, up, p.cfg.Model)
	}
	return fmt.Sprintf("%d of %d servers up, %d with %s", up, len(p.members), with, p.cfg.Model), nil
}
