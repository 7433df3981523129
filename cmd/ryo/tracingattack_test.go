package main

import (
	"strings"
	"testing"
)

// An endpoint or header the exporter would not send as written stops
// start-up, naming the setting and quoting no key: a password or key in
// the URL, which the exporter drops without a word (exports then fail as
// unauthorised); a header the HTTP client refuses (then every export
// fails); a header's value with control characters.
func TestTracingSettingsTheExporterWouldNotSend(t *testing.T) {
	for _, tt := range []struct{ name, value string }{
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "https://ryo:secretkey@collector.example:4318"},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://collector.example/v1/traces?api_key=secretkey"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "https://collector.example:4318#secretkey"},
		{"OTEL_EXPORTER_OTLP_HEADERS", "x-api-key:=secretkey"},
		{"OTEL_EXPORTER_OTLP_HEADERS", "ключ=secretkey"},
		{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "api-key=secret%00key"},
		{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "api-key=secret%7Fkey"},
	} {
		_, err := tracingConfig(t, map[string]string{tt.name: tt.value})
		if err == nil || !strings.HasPrefix(err.Error(), tt.name+": ") || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s=%s: %v", tt.name, tt.value, err)
		}
	}
}

// Headers as collectors' documentation writes them still pass.
func TestTracingHeadersAsCollectorsWriteThem(t *testing.T) {
	c, err := tracingConfig(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector.example:4318/otlp",
		"OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Basic%20cnlvOmtleQ==, x-honeycomb-team=abc123 ,X-Scope-OrgID=tenant_1"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Authorization": "Basic cnlvOmtleQ==", "x-honeycomb-team": "abc123", "X-Scope-OrgID": "tenant_1"}
	for k, v := range want {
		if c.Tracing.Headers[k] != v {
			t.Errorf("header %s = %q, want %q (all: %v)", k, c.Tracing.Headers[k], v, c.Tracing.Headers)
		}
	}
	if c.Tracing.Endpoint != "https://collector.example:4318/otlp/v1/traces" {
		t.Errorf("endpoint = %q", c.Tracing.Endpoint)
	}
}

// A ratio that is not a number between 0 and 1 stops start-up, NaN too:
// it passes both comparisons with 0 and 1, and the sampler it makes
// depends on how the machine turns NaN into an integer.
func TestTracingSamplerRatioNaNStopsStartUp(t *testing.T) {
	for _, arg := range []string{"NaN", "nan", "-Inf", "+Inf", "1e400"} {
		_, err := tracingConfig(t, map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": arg})
		if err == nil || !strings.HasPrefix(err.Error(), "OTEL_TRACES_SAMPLER_ARG: ") {
			t.Errorf("OTEL_TRACES_SAMPLER_ARG=%s: %v", arg, err)
		}
	}
}
