package telegramtest

import (
	"maps"
	"strings"
	"time"
)

// Call is one request the server received, successful or not.
type Call struct {
	Method string            // method name as Telegram spells it, e.g. "sendMessage"
	Params map[string]string // parameters, flattened to strings as sent
	At     time.Time         // arrival time by Options.Now
	Err    *APIError         // the error returned, nil if the call succeeded
}

// Calls returns the recorded calls of one method, case-insensitively, in
// arrival order; method "" returns all calls. A long poll still blocked is
// included with Err nil.
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || strings.EqualFold(c.Method, method) {
			c.Params = maps.Clone(c.Params)
			out = append(out, c)
		}
	}
	return out
}

// record appends a call and returns its index for finish.
func (s *Server) record(method string, p params) int {
	s.calls = append(s.calls, Call{Method: method, Params: maps.Clone(p), At: s.opts.Now()})
	s.notify()
	return len(s.calls) - 1
}

// finish stores the outcome of call i.
func (s *Server) finish(i int, err error) {
	if err != nil {
		e := asAPIError(err)
		s.calls[i].Err = &e
	}
	s.notify()
}
