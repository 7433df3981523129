package tracing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/ryo-bot/ryo"
)

// Config says where traces go. A zero Endpoint switches tracing off.
type Config struct {
	// Endpoint is the collector's full traces URL, such as
	// http://127.0.0.1:4318/v1/traces.
	Endpoint string
	// Headers are sent with every export: often a collector's API key,
	// so they are never logged.
	Headers map[string]string
	// ServiceName names ryo in the traces; "ryo" when empty.
	ServiceName string
	// Sampler decides which turns are traced; every turn when nil.
	Sampler sdktrace.Sampler
	// Timeout bounds one export; DefaultTimeout when zero.
	Timeout time.Duration
	// Clock spaces the warnings of failed exports; the system's when nil.
	Clock ryo.Clock
}

// Enabled reports whether traces are sent anywhere.
func (c Config) Enabled() bool { return c.Endpoint != "" }

// Export limits: a collector that is slow or away costs at most this much
// memory, and never holds up a turn: spans past a full queue are dropped.
const (
	DefaultTimeout = 10 * time.Second
	maxQueue       = 2048
	maxBatch       = 512
	batchEvery     = 5 * time.Second
	maxAnswer      = 64 << 10 // of a collector's answer read, which is only ever logged as its status
)

// Name is the instrumentation scope of ryo's own spans.
const Name = "github.com/ryo-bot/ryo"

// Provider makes ryo's tracers, and sends their spans away when enabled.
type Provider struct {
	trace.TracerProvider
	sdk *sdktrace.TracerProvider // nil when off
}

// Off is a provider that records nothing.
func Off() *Provider { return &Provider{TracerProvider: noop.NewTracerProvider()} }

// Start returns the provider cfg describes: one that records nothing when
// cfg is not Enabled. Failed exports are logged to log once, when they
// begin, and once more when they end; at most once in ten minutes.
func Start(cfg Config, log *slog.Logger) (*Provider, error) {
	if !cfg.Enabled() {
		return Off(), nil
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	seen := &lastExchange{}
	transport := &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true, // as the exporter's own
		DialContext:  (&net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns: 4, IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: cfg.Timeout}
	exp, err := otlptracehttp.New(context.Background(),
		otlptracehttp.WithEndpointURL(cfg.Endpoint),
		otlptracehttp.WithHeaders(cfg.Headers),
		otlptracehttp.WithHTTPClient(&http.Client{Transport: watchingTransport{base: transport, seen: seen}, Timeout: cfg.Timeout,
			// A redirect is a failed export: following it would send the
			// headers, often the collector's key, wherever it points.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}),
		otlptracehttp.WithMaxResponseSize(maxAnswer),
		// A batch that fails is dropped: the next one tries again, and a
		// retrying export would only hold the queue longer.
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	if err != nil {
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT: %w", err)
	}
	name := cfg.ServiceName
	if name == "" {
		name = "ryo"
	}
	opts := []sdktrace.TracerProviderOption{
		sdktrace.WithBatcher(&quietExporter{SpanExporter: exp, log: log, seen: seen, clock: cfg.Clock},
			sdktrace.WithMaxQueueSize(maxQueue), sdktrace.WithMaxExportBatchSize(maxBatch),
			sdktrace.WithBatchTimeout(batchEvery), sdktrace.WithExportTimeout(cfg.Timeout)),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", name))),
	}
	if cfg.Sampler != nil {
		opts = append(opts, sdktrace.WithSampler(cfg.Sampler))
	}
	tp := sdktrace.NewTracerProvider(opts...)
	return &Provider{TracerProvider: tp, sdk: tp}, nil
}

// Tracer is ryo's tracer from p; a nil p gives one that records nothing.
func (p *Provider) Tracer() trace.Tracer {
	if p == nil {
		return noop.NewTracerProvider().Tracer(Name)
	}
	return p.TracerProvider.Tracer(Name)
}

// Shutdown sends the spans still queued and stops, by ctx's deadline at
// the latest: give it one.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil || p.sdk == nil {
		return nil
	}
	err := p.sdk.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("traces still queued at shutdown were dropped: %w", err)
	}
	return err
}
