package tracing

import (
	"context"
	"net/url"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// ModelCall names, on the caller's span of a model call (when it is
// traced), the kind of server (system: "ollama", "openai"), the server
// asked and the model: never a password in the URL.
func ModelCall(ctx context.Context, system string, server *url.URL, model string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attribute.String("gen_ai.system", system), attribute.String("gen_ai.request.model", model))
	if server != nil {
		span.SetAttributes(attribute.String("server.address", server.Host))
	}
}
