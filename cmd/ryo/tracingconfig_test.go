package main

import (
	"strings"
	"testing"
	"time"
)

func tracingConfig(t *testing.T, vars map[string]string) (Config, error) {
	t.Helper()
	all := minimal()
	for k, v := range vars {
		all[k] = v
	}
	return LoadConfig(env(all), true)
}

func TestTracingSettings(t *testing.T) {
	for _, tt := range []struct {
		name     string
		vars     map[string]string
		endpoint string
		headers  map[string]string
		timeout  time.Duration
		service  string
	}{
		{name: "off by default", vars: nil, service: "ryo", timeout: 10 * time.Second},
		{name: "the general endpoint gets /v1/traces", vars: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/"},
			endpoint: "http://collector:4318/v1/traces", service: "ryo", timeout: 10 * time.Second},
		{name: "the traces endpoint is taken as it is, and wins",
			vars:     map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://b/otlp/traces"},
			endpoint: "https://b/otlp/traces", service: "ryo", timeout: 10 * time.Second},
		{name: "headers, timeouts and the service name",
			vars: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318", "OTEL_EXPORTER_OTLP_HEADERS": "api-key=s%3Dcret, x-team = bots",
				"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-team=ops", "OTEL_EXPORTER_OTLP_TIMEOUT": "3000", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "2500",
				"OTEL_SERVICE_NAME": "ryo-home"},
			endpoint: "http://a:4318/v1/traces", headers: map[string]string{"api-key": "s=cret", "x-team": "ops"},
			timeout: 2500 * time.Millisecond, service: "ryo-home"},
		{name: "switched off", vars: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318", "OTEL_SDK_DISABLED": "true"},
			service: "ryo", timeout: 10 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tracingConfig(t, tt.vars)
			if err != nil {
				t.Fatal(err)
			}
			got := c.Tracing
			if got.Endpoint != tt.endpoint || got.ServiceName != tt.service || got.Timeout != tt.timeout || len(got.Headers) != len(tt.headers) {
				t.Fatalf("tracing = %+v", got)
			}
			for k, v := range tt.headers {
				if got.Headers[k] != v {
					t.Fatalf("header %s = %q, want %q", k, got.Headers[k], v)
				}
			}
		})
	}
}

func TestTracingSamplers(t *testing.T) {
	for sampler, want := range map[string]string{"always_off": "AlwaysOffSampler", "traceidratio": "TraceIDRatioBased{0.25}",
		"parentbased_traceidratio": "ParentBased{root:TraceIDRatioBased{0.25}", "always_on": "AlwaysOnSampler"} {
		c, err := tracingConfig(t, map[string]string{"OTEL_TRACES_SAMPLER": sampler, "OTEL_TRACES_SAMPLER_ARG": "0.25"})
		if err != nil || c.Tracing.Sampler == nil || !strings.HasPrefix(c.Tracing.Sampler.Description(), want) {
			t.Errorf("%s: %v, %v", sampler, c.Tracing.Sampler, err)
		}
	}
}

// A malformed tracing setting stops start-up with one line that names it
// and quotes neither an endpoint nor a header, which may carry keys.
func TestTracingSettingsMalformed(t *testing.T) {
	for name, value := range map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":        "collector:4318-secretkey",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "ftp://secretkey@a/",
		"OTEL_EXPORTER_OTLP_HEADERS":         "api-key secretkey",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS":  "=secretkey",
		"OTEL_EXPORTER_OTLP_TIMEOUT":         "10s",
		"OTEL_TRACES_SAMPLER":                "sometimes",
		"OTEL_TRACES_SAMPLER_ARG":            "1.5",
		"OTEL_SDK_DISABLED":                  "perhaps",
		"OTEL_EXPORTER_OTLP_PROTOCOL":        "grpc",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json",
	} {
		vars := map[string]string{name: value}
		if name == "OTEL_TRACES_SAMPLER_ARG" {
			vars["OTEL_TRACES_SAMPLER"] = "traceidratio"
		}
		_, err := tracingConfig(t, vars)
		if err == nil || !strings.HasPrefix(err.Error(), name+": ") || strings.Contains(err.Error(), "secretkey") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%s: %v", name, value, err)
		}
	}
}
