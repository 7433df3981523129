package tracing

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/clocktest"
)

// exportOnce starts a provider sending to endpoint, ends one span and
// shuts down, which exports it; it returns what was logged.
func exportOnce(t *testing.T, endpoint string) string {
	t.Helper()
	var out bytes.Buffer
	p, err := Start(Config{Endpoint: endpoint, Timeout: 5 * time.Second}, slog.New(slog.NewTextHandler(&out, nil)))
	if err != nil {
		t.Fatal(err)
	}
	_, span := p.Tracer().Start(context.Background(), "turn")
	span.End()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.Shutdown(ctx)
	return out.String()
}

// A collector that refuses an export is logged as one short line with its
// status: not its answer, which may quote the key it was sent (or be a
// proxy's page of megabytes), nor the endpoint's path, which may hold a key.
func TestARefusedExportIsLoggedWithoutTheCollectorsWords(t *testing.T) {
	const said, path = "bodymarker-key-4f2a", "pathmarker-9c1e"
	for _, status := range []int{http.StatusUnauthorized, http.StatusTooManyRequests, http.StatusInternalServerError} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			w.Write([]byte("invalid api key " + said + "\n" + strings.Repeat("<p>proxy page</p>\n", 50_000)))
		}))
		got := exportOnce(t, srv.URL+"/"+path+"/v1/traces")
		t.Log(strings.TrimSpace(got))
		srv.Close()
		if n := strings.Count(got, "level=WARN"); n != 1 || strings.Count(got, "\n") != 1 {
			t.Errorf("%d: %d warnings; want one line:\n%.500s", status, n, got)
		}
		if strings.Contains(got, said) || strings.Contains(got, path) || strings.Contains(got, "proxy page") || len(got) > 500 {
			t.Errorf("%d: the warning quotes the collector or the path (%d bytes):\n%.500s", status, len(got), got)
		}
		if !strings.Contains(got, strconv.Itoa(status)) {
			t.Errorf("%d: the warning does not say the collector's status:\n%.500s", status, got)
		}
	}
}

// A collector that cannot be reached is logged without the endpoint's path.
func TestAnUnreachableCollectorIsLoggedWithoutThePath(t *testing.T) {
	const path = "pathmarker-77d0"
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	got := exportOnce(t, url+"/"+path+"/v1/traces")
	t.Log(strings.TrimSpace(got))
	if strings.Count(got, "level=WARN") != 1 || strings.Contains(got, path) {
		t.Errorf("the warning quotes the path, or is not one line:\n%s", got)
	}
	if !strings.Contains(got, "refused") {
		t.Errorf("the warning does not say why:\n%s", got)
	}
}

// A collector whose certificate is not trusted is logged as such, once.
func TestACollectorWithAnUntrustedCertificateIsLoggedOnce(t *testing.T) {
	const path = "pathmarker-31ab"
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake the exporter breaks off
	srv.StartTLS()
	defer srv.Close()
	got := exportOnce(t, srv.URL+"/"+path+"/v1/traces")
	if strings.Count(got, "level=WARN") != 1 || strings.Contains(got, path) || !strings.Contains(got, "certificate") {
		t.Errorf("the warning quotes the path, does not say why, or is not one line:\n%s", got)
	}
}

// A collector that fails every other export (one bad instance behind a
// balancer, a memory limiter shedding load) is warned about once in ten
// minutes, not at every batch: an hour of batches every 5 seconds, half
// of them failing, makes at most 7 warnings, each followed by its
// recovery.
func TestAFlappingCollectorIsWarnedAboutOnceInTenMinutes(t *testing.T) {
	var out bytes.Buffer
	clock := clocktest.New(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	inner := &failingExporter{}
	e := &quietExporter{SpanExporter: inner, log: slog.New(slog.NewTextHandler(&out, nil)), clock: clock}
	for i := range 720 {
		inner.err = nil
		if i%2 == 0 {
			inner.err = errors.New("429 Too Many Requests")
		}
		e.ExportSpans(context.Background(), nil)
		clock.Advance(5 * time.Second)
	}
	w, ok := strings.Count(out.String(), "level=WARN"), strings.Count(out.String(), "level=INFO")
	if w == 0 || w > 7 || ok != w {
		t.Fatalf("%d warnings and %d recoveries in an hour; want 1 to 7 of each:\n%.2000s", w, ok, out.String())
	}
}

// A collector that takes exports and never answers holds up no span's
// end (past the queue of maxQueue, spans are dropped), and a shutdown
// gives up at its deadline.
func TestAHungCollectorHoldsUpNothingAndShutdownEnds(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-release
	}))
	defer srv.Close()
	defer close(release)
	var out bytes.Buffer
	p, err := Start(Config{Endpoint: srv.URL + "/v1/traces", Timeout: time.Hour}, slog.New(slog.NewTextHandler(&out, nil)))
	if err != nil {
		t.Fatal(err)
	}
	tr := p.Tracer()
	const ended = 50 * maxQueue
	for range ended { // each End returns: no span waits for the collector
		_, span := tr.Start(context.Background(), "turn")
		span.End()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := p.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("shutdown with a hung collector = %v; want it to give up at its deadline", err)
	}
	t.Logf("%d spans ended with the collector hung", ended)
}

// A collector that redirects the export elsewhere does not get its key
// sent there: exports follow no redirect (the key is often a header HTTP
// would forward, such as x-api-key), and the warning names the status.
func TestAnExportFollowsNoRedirect(t *testing.T) {
	elsewhere := make(chan string, 10)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere <- r.Header.Get("X-Api-Key")
	}))
	defer other.Close()
	to := strings.Replace(other.URL, "127.0.0.1", "localhost", 1) + "/v1/traces" // another host
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, to, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	var out bytes.Buffer
	p, err := Start(Config{Endpoint: srv.URL + "/v1/traces", Headers: map[string]string{"x-api-key": "secretkey"}, Timeout: 5 * time.Second},
		slog.New(slog.NewTextHandler(&out, nil)))
	if err != nil {
		t.Fatal(err)
	}
	_, span := p.Tracer().Start(context.Background(), "turn")
	span.End()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.Shutdown(ctx)
	select {
	case key := <-elsewhere:
		t.Errorf("the export followed the redirect to another host, with x-api-key %q", key)
	default:
	}
	if !strings.Contains(out.String(), "status=307") {
		t.Errorf("the warning does not name the redirect:\n%s", out.String())
	}
}
