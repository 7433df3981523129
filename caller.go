package ryo

import "context"

// Caller is whom a tool runs for, and where. Tools that keep something for
// a person — memories — need it; the agent puts it in every tool call's
// context, and the bot does for a confirmed action.
type Caller struct {
	Person  User
	Chat    Chat
	Place   Place
	Message int64 // the stored message the turn answers; 0 when there is none
}

type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerOf returns the caller ctx carries; ok is false when it carries none.
func CallerOf(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}
