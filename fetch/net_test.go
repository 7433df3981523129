package fetch

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// Public-looking addresses the tests' names resolve to. Nothing is ever
// sent to them: the test network routes each to a local server.
const (
	publicIP  = "93.184.215.14"
	publicIP2 = "151.101.1.67"
)

// testNet is the network a test's Fetcher sees: names resolve as the test
// says, and a dial of a checked public address reaches a local server.
// Every lookup and dial is recorded, so a test can tell what was checked
// from what was dialled.
type testNet struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr // per name, one answer per lookup; the last repeats
	routes  map[string]string         // "ip:port" → a local server's address
	lookups []string
	dialled []string
}

func newTestNet() *testNet {
	return &testNet{answers: map[string][][]netip.Addr{}, routes: map[string]string{}}
}

// resolve makes host answer addrs, one answer per lookup in order.
func (n *testNet) resolve(host string, answers ...string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, a := range answers {
		var addrs []netip.Addr
		for _, s := range strings.Split(a, ",") {
			addrs = append(addrs, netip.MustParseAddr(s))
		}
		n.answers[host] = append(n.answers[host], addrs)
	}
}

// serve routes ip port 80 to a new local server running h, and returns it.
func (n *testNet) serve(t *testing.T, ip string, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.routes[net.JoinHostPort(ip, "80")] = srv.Listener.Addr().String()
	return srv
}

func (n *testNet) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lookups = append(n.lookups, host)
	answers := n.answers[host]
	if len(answers) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	a := answers[0]
	if len(answers) > 1 {
		n.answers[host] = answers[1:]
	}
	return a, nil
}

func (n *testNet) dial(ctx context.Context, network, address string) (net.Conn, error) {
	n.mu.Lock()
	n.dialled = append(n.dialled, address)
	target, ok := n.routes[address]
	n.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("test network: nothing at %s", address)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, target)
}

func (n *testNet) record() (lookups, dialled []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.lookups...), append([]string(nil), n.dialled...)
}

// fetcher returns a Fetcher on n, its log written to logs.
func (n *testNet) fetcher(cfg Config, logs *bytes.Buffer) *Fetcher {
	cfg.Resolver, cfg.Dial = n, n.dial
	if logs != nil {
		cfg.Log = slog.New(slog.NewTextHandler(&syncWriter{b: logs}, nil))
	}
	return New(cfg)
}

type syncWriter struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// page serves body with content type ct.
func page(ct, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		fmt.Fprint(w, body)
	}
}

func fetchCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
