package ollama

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// sees remembers whether the client's model reads pictures, once the
// server has said: a model's capabilities do not change while it is
// installed, and a turn with a photo must not wait for /api/show each
// time.
type sees struct {
	asking chan struct{} // one slot, held while the server is asked; it guards known and answer
	known  bool
	answer bool
}

// showTimeout bounds one /api/show, past the connection's own timeout.
const showTimeout = 10 * time.Second

// VisionModel is the model a turn that shows pictures asks:
// Config.VisionModel when set (RYO_VISION_MODEL), else Config.Model, when
// the server reports the "vision" capability for it; else "". A model
// without it would take the pictures without a word and answer about
// pictures it never saw. An error means the server could not say; it is
// asked again next time.
func (c *Client) VisionModel(ctx context.Context) (string, error) {
	name := c.cfg.VisionModel
	if name == "" {
		name = c.cfg.Model
	}
	// A turn waits for another's question to the server no longer than
	// its own deadline.
	select {
	case c.vision.asking <- struct{}{}:
		defer func() { <-c.vision.asking }()
	case <-ctx.Done():
		return "", fmt.Errorf("ollama: whether %q reads pictures: %w", name, ctx.Err())
	}
	if !c.vision.known {
		ctx, cancel := context.WithTimeout(ctx, c.cfg.ConnectTimeout+showTimeout)
		defer cancel()
		show, err := c.api.Show(ctx, &api.ShowRequest{Model: name})
		if err != nil {
			return "", fmt.Errorf("ollama: show model %q: %w", name, err)
		}
		c.vision.known, c.vision.answer = true, slices.Contains(show.Capabilities, model.CapabilityVision)
	}
	if !c.vision.answer {
		return "", nil
	}
	return name, nil
}
