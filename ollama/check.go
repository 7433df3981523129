package ollama

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Check asks the server for its version and whether the model is installed.
// It returns the server's version.
func (c *Client) Check(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ConnectTimeout+10*time.Second)
	defer cancel()
	version, err := c.api.Version(ctx)
	if err != nil {
		return "", fmt.Errorf("ollama at %s: %w", c.cfg.Host.Redacted(), err)
	}
	_, err = c.api.Show(ctx, &api.ShowRequest{Model: c.cfg.Model})
	var status api.StatusError
	if errors.As(err, &status) && status.StatusCode == http.StatusNotFound {
		return version, fmt.Errorf("model %q is not installed (ollama pull %s)", c.cfg.Model, c.cfg.Model)
	}
	if err != nil {
		return version, fmt.Errorf("show model %q: %w", c.cfg.Model, err)
	}
	if v := c.cfg.VisionModel; v != "" {
		show, err := c.api.Show(ctx, &api.ShowRequest{Model: v})
		switch {
		case errors.As(err, &status) && status.StatusCode == http.StatusNotFound:
			return version, fmt.Errorf("vision model %q (RYO_VISION_MODEL) is not installed (ollama pull %s)", v, v)
		case err != nil:
			return version, fmt.Errorf("show vision model %q: %w", v, err)
		case !slices.Contains(show.Capabilities, model.CapabilityVision):
			// Ollama takes a picture for such a model without a word, and the model never sees it.
			return version, fmt.Errorf("vision model %q (RYO_VISION_MODEL) does not read pictures: Ollama reports its capabilities as %v", v, show.Capabilities)
		}
	}
	return version, nil
}
