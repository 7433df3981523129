package telegramtest

import (
	"context"
	"errors"
	"fmt"
)

// Wait returns nil as soon as cond() is true. cond is checked now and again
// after every state change (a call, an update, a message, a download),
// never with the server's lock held, so it may call Messages, Calls,
// Downloads and the like. If ctx ends first, Wait returns ctx.Err() wrapped.
func (s *Server) Wait(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("telegramtest: condition still false: %w", ctx.Err())
		case <-s.closed:
			if cond() {
				return nil
			}
			return errors.New("telegramtest: condition still false and the server is closed")
		}
	}
}

// notify wakes everything waiting for a state change. Called with s.mu held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}
