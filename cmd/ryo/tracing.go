package main

import (
	"context"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"golang.org/x/net/http/httpguts"

	"github.com/ryo-bot/ryo/tracing"
)

// tracing reads where traces go, as the OpenTelemetry specification
// names it; tracing is off unless an endpoint is set. Neither endpoints
// nor headers are quoted back: they may carry keys.
func (r *reader) tracing() tracing.Config {
	disabled := r.oneOf("OTEL_SDK_DISABLED", "false", "true", "false") == "true"
	for _, name := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		if v := r.str(name, "http/protobuf"); v != "http/protobuf" {
			r.fail(name, "ryo sends traces over OTLP/HTTP with protobuf only: leave it unset or http/protobuf, and use the collector's HTTP port (4318)")
		}
	}
	c := tracing.Config{
		Endpoint:    r.otlpEndpoint(),
		Headers:     r.otlpHeaders("OTEL_EXPORTER_OTLP_HEADERS", nil),
		ServiceName: r.str("OTEL_SERVICE_NAME", "ryo"),
		Timeout:     r.millis("OTEL_EXPORTER_OTLP_TIMEOUT", tracing.DefaultTimeout),
		Sampler:     r.sampler(),
	}
	c.Headers = r.otlpHeaders("OTEL_EXPORTER_OTLP_TRACES_HEADERS", c.Headers)
	c.Timeout = r.millis("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", c.Timeout)
	if disabled {
		c.Endpoint = ""
	}
	return c
}

// otlpEndpoint is the collector's traces URL: the traces endpoint as it
// is, or the general one with /v1/traces after it; "" for none.
func (r *reader) otlpEndpoint() string {
	name, v := "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", r.str("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	base := r.str("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	if v == "" && base != "" {
		name, v = "OTEL_EXPORTER_OTLP_ENDPOINT", strings.TrimRight(base, "/")+"/v1/traces"
	}
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.fail(name, "want an http(s) URL of an OTLP/HTTP collector, such as http://127.0.0.1:4318")
		return ""
	}
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		// The exporter sends to scheme, host and path only: what else the
		// URL holds would be dropped without a word, and exports refused.
		r.fail(name, "want no user, password, query or fragment in the URL: put a collector's key in OTEL_EXPORTER_OTLP_HEADERS")
		return ""
	}
	return v
}

// otlpHeaders reads "key=value,key2=value2", values URL-encoded, over
// base. The values are not quoted back.
func (r *reader) otlpHeaders(name string, base map[string]string) map[string]string {
	v, ok := r.get(name)
	if !ok {
		return base
	}
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for _, pair := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		dec, err := url.PathUnescape(strings.TrimSpace(val))
		dec = strings.TrimSpace(dec)
		if !ok || err != nil || !httpguts.ValidHeaderFieldName(k) || !httpguts.ValidHeaderFieldValue(dec) {
			r.fail(name, "want key=value pairs separated by commas, values URL-encoded")
			return base
		}
		out[k] = dec
	}
	return out
}

// millis reads a whole number of milliseconds, as the OTEL_* timeouts are.
func (r *reader) millis(name string, def time.Duration) time.Duration {
	v, ok := r.get(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		r.fail(name, "want a whole number of milliseconds above 0, such as 10000")
		return def
	}
	return time.Duration(n) * time.Millisecond
}

// sampler reads which turns are traced; nil for the default, every one.
func (r *reader) sampler() sdktrace.Sampler {
	kind := r.oneOf("OTEL_TRACES_SAMPLER", "parentbased_always_on", "always_on", "always_off", "traceidratio",
		"parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio")
	ratio := 1.0
	if v, ok := r.get("OTEL_TRACES_SAMPLER_ARG"); ok && strings.HasSuffix(kind, "traceidratio") { // other samplers take none
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0 && f <= 1) { // NaN is neither
			r.fail("OTEL_TRACES_SAMPLER_ARG", "want a fraction of turns to trace, from 0 to 1, such as 0.25")
		}
		ratio = f
	}
	switch kind {
	case "always_on":
		return sdktrace.AlwaysSample()
	case "always_off":
		return sdktrace.NeverSample()
	case "traceidratio":
		return sdktrace.TraceIDRatioBased(ratio)
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample())
	case "parentbased_traceidratio":
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))
	}
	return nil
}

// traceFlush bounds how long a stop waits for the last spans to reach
// the collector.
const traceFlush = 5 * time.Second

// startTracing starts sending traces of turns where cfg says; a provider
// that records nothing when it names no collector.
func startTracing(cfg Config, log *slog.Logger) (*tracing.Provider, error) {
	p, err := tracing.Start(cfg.Tracing, log)
	if err != nil { // the error may quote the endpoint, which may carry a key
		return nil, &ConfigError{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Problem: "cannot send traces to this collector"}
	}
	if cfg.Tracing.Enabled() {
		u, _ := url.Parse(cfg.Tracing.Endpoint) // checked by LoadConfig
		log.Info("traces of turns are sent to an OTLP collector", "collector", u.Host, "service", cfg.Tracing.ServiceName)
	}
	return p, nil
}

// stopTracing sends the spans still queued, for traceFlush at most.
func stopTracing(ctx context.Context, p *tracing.Provider, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), traceFlush)
	defer cancel()
	if err := p.Shutdown(ctx); err != nil {
		log.Warn("could not send the last traces", "err", err)
	}
}
