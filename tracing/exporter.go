package tracing

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/ryo-bot/ryo"
)

// quietExporter logs failed exports once per outage, not once per batch,
// and keeps the failures from the SDK, which would print each of them
// through its process-wide error handler. An outage that begins within
// warnEvery of the last warning is not warned about again, nor its end:
// a collector that fails every other batch makes one warning in ten
// minutes, not one every few seconds. It logs what went wrong in its own
// words (the collector's status, or why it could not be reached): the
// exporter's error quotes the endpoint, whose path may hold a key, and
// the collector's answer, which may quote the key it was sent or be a
// proxy's page of megabytes.
type quietExporter struct {
	sdktrace.SpanExporter
	log   *slog.Logger
	seen  *lastExchange // what the exporter's HTTP client last met
	clock ryo.Clock     // SystemClock when nil

	// Exports run one at a time, on the batch processor's goroutine; the
	// lock is for Shutdown's last export, which may overlap a late one.
	mu       sync.Mutex
	failing  bool      // the last export failed
	warned   bool      // this outage was warned about
	lastWarn time.Time // when the last warning was logged
	failed   int       // exports failed since that warning
}

// warnEvery is the least time between two warnings of failed exports.
const warnEvery = 10 * time.Minute

func (e *quietExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.seen.reset()
	err := e.SpanExporter.ExportSpans(ctx, spans)
	clock := e.clock
	if clock == nil {
		clock = ryo.SystemClock{}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case err != nil:
		e.failed++
		if e.failing {
			break
		}
		e.failing = true
		now := clock.Now()
		if e.warned = e.lastWarn.IsZero() || now.Sub(e.lastWarn) >= warnEvery; e.warned {
			e.log.Warn("cannot send traces to the OTLP collector; they are dropped until it answers again (turns go on)",
				append(e.seen.describe(err), "failed_exports", e.failed)...)
			e.lastWarn, e.failed = now, 0
		}
	case e.failing:
		e.failing = false
		if e.warned {
			e.log.Info("traces reach the OTLP collector again")
		}
	}
	return nil
}

// lastExchange is what the exporter's last request came to: the
// collector's status, or the transport's error. Exports run one at a
// time, on the batch processor's goroutine.
type lastExchange struct {
	mu     sync.Mutex
	status int
	err    error
}

func (l *lastExchange) reset() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.status, l.err = 0, nil
	l.mu.Unlock()
}

// describe is err as log attributes that quote neither the endpoint nor
// the collector's answer.
func (l *lastExchange) describe(err error) []any {
	var status int
	var cause error
	if l != nil {
		l.mu.Lock()
		status, cause = l.status, l.err
		l.mu.Unlock()
	}
	switch {
	case status >= 200 && status <= 299:
		return []any{"status", status, "err", "the collector rejected some of the spans"}
	case status != 0:
		return []any{"status", status, "err", http.StatusText(status)}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(cause, context.DeadlineExceeded):
		return []any{"err", "no answer within OTEL_EXPORTER_OTLP_TIMEOUT"}
	case cause != nil: // a transport's error names the host at most, never the path
		return []any{"err", cause.Error()}
	}
	return []any{"err", "the export failed"}
}

// watchingTransport notes in seen what each request came to.
type watchingTransport struct {
	base http.RoundTripper
	seen *lastExchange
}

func (t watchingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	t.seen.mu.Lock()
	if err != nil {
		t.seen.err = err
	} else {
		t.seen.status = resp.StatusCode
	}
	t.seen.mu.Unlock()
	return resp, err
}
