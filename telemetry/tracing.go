package telemetry

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// OTLP protocols of OTEL_EXPORTER_OTLP_PROTOCOL.
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// TracingOptions say whether and where spans go.
type TracingOptions struct {
	// Protocol is the OTLP protocol, ProtocolHTTP or ProtocolGRPC; empty turns tracing off
	// (unless Exporter is set). The exporter reads its endpoint, headers, timeout and TLS
	// settings from the standard OTEL_EXPORTER_OTLP_* variables.
	Protocol string
	// Exporter, when set, receives every span at once instead of an OTLP exporter (tests).
	Exporter sdktrace.SpanExporter
	// ServiceName and Version describe this process; OTEL_SERVICE_NAME and
	// OTEL_RESOURCE_ATTRIBUTES override them.
	ServiceName, Version string
}

// Tracing is the process's tracer provider and propagator. When off, its provider is the no-op
// one and Enabled is false: callers install no instrumentation then.
type Tracing struct {
	Provider   trace.TracerProvider
	Propagator propagation.TextMapPropagator
	Enabled    bool
	shutdown   func(context.Context) error
}

// NewTracing builds the tracer provider the options ask for and, when tracing is on, installs
// it and the W3C trace-context and baggage propagators as OpenTelemetry's globals. The sampler
// follows OTEL_TRACES_SAMPLER (parent-based always-on by default).
func NewTracing(ctx context.Context, opts TracingOptions) (*Tracing, error) {
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	off := &Tracing{Provider: noop.NewTracerProvider(), Propagator: prop, shutdown: func(context.Context) error { return nil }}
	var span sdktrace.TracerProviderOption
	switch {
	case opts.Exporter != nil:
		span = sdktrace.WithSyncer(opts.Exporter)
	case opts.Protocol == "":
		return off, nil
	case opts.Protocol == ProtocolHTTP:
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("OTLP trace exporter: %w", err)
		}
		span = sdktrace.WithBatcher(exp)
	case opts.Protocol == ProtocolGRPC:
		exp, err := otlptracegrpc.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("OTLP trace exporter: %w", err)
		}
		span = sdktrace.WithBatcher(exp)
	default:
		return nil, fmt.Errorf("OTLP protocol %q is not %s or %s", opts.Protocol, ProtocolHTTP, ProtocolGRPC)
	}
	name := opts.ServiceName
	if name == "" {
		name = "partnerd"
	}
	// The environment (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) wins over our defaults.
	res, err := resource.New(ctx, resource.WithTelemetrySDK(), resource.WithHost(),
		resource.WithAttributes(attribute.String("service.name", name), attribute.String("service.version", opts.Version)),
		resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(span, sdktrace.WithResource(res))
	if opts.Exporter == nil {
		otel.SetTracerProvider(tp)
		otel.SetTextMapPropagator(prop)
	}
	return &Tracing{Provider: tp, Propagator: prop, Enabled: true, shutdown: tp.Shutdown}, nil
}

// Shutdown sends the spans still buffered and stops the provider.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.shutdown(ctx)
}
