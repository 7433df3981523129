package telegramtest

import (
	"net/http"
	"strings"
)

type fault struct {
	left int
	err  APIError
}

// FailNext makes the next n calls of method (case-insensitive) fail with
// err before any other check, as Telegram's flood control or an outage
// would. Each method counts separately; n <= 0 cancels a pending fault. A
// zero err.Code becomes 500.
func (s *Server) FailNext(method string, n int, err APIError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(method)
	if n <= 0 {
		delete(s.faults, key)
		return
	}
	if err.Code == 0 {
		err.Code = http.StatusInternalServerError
	}
	s.faults[key] = &fault{left: n, err: err}
}

// SetDown makes every request get HTTP 502 with a non-JSON body, like a
// broken proxy in front of Telegram, until SetDown(false). Such requests
// are still recorded, with Err.Code 502.
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
	s.notify()
}

// takeFault consumes one injected failure of method, if any.
func (s *Server) takeFault(method string) error {
	key := strings.ToLower(method)
	f := s.faults[key]
	if f == nil {
		return nil
	}
	if f.left--; f.left <= 0 {
		delete(s.faults, key)
	}
	return f.err
}

// refuseWhileDown records the request and reports whether the server is down.
func (s *Server) refuseWhileDown(path string, p params) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.down {
		return false
	}
	name, _, _ := s.route(path)
	s.finish(s.record(name, p), APIError{Code: http.StatusBadGateway, Description: "Bad Gateway"})
	return true
}
