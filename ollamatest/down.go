package ollamatest

import "net/http"

// SetDown makes the server drop every connection unanswered from now on,
// as a crashed or restarting server does (the client sees the connection
// end, or be reset), until SetDown(false). Chat requests that arrive while
// it is down are not recorded and take no scripted reply.
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
	s.notifyLocked()
}

// dropWhenDown drops the connection of any request that arrives while the
// server is down.
func (s *Server) dropWhenDown(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		down := s.down
		s.mu.Unlock()
		if !down {
			next.ServeHTTP(w, r)
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		conn.Close()
	})
}
