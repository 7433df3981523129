package ollama

import (
	"context"
	"fmt"
	"slices"

	"github.com/ryo-bot/ryo"
)

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
	caps, err := c.Capabilities(ctx, name)
	if err != nil {
		return "", fmt.Errorf("ollama: whether %q reads pictures: %w", name, err)
	}
	if !slices.Contains(caps, ryo.CanSee) {
		return "", nil
	}
	return name, nil
}
