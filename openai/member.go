package openai

import "context"

// Member is a client as one server of a pool of model servers
// (modelpool.Server): its models are named by their ids. Everything else,
// Chat, Probe, Installed and Capabilities, is the client's own.
type Member struct {
	*Client
}

// Models names the models the server serves (GET /models), in its order.
func (m Member) Models(ctx context.Context) ([]string, error) {
	served, err := m.Client.Models(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(served))
	for i, s := range served {
		names[i] = s.ID
	}
	return names, nil
}
