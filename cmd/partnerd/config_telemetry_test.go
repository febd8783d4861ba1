package main

import (
	"io"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/telemetry"
)

func TestConfigTelemetryAdminAddressAndTracing(t *testing.T) {
	c, err := loadConfig("serve", nil, envOf(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.AdminAddr != "127.0.0.1:9090" || c.MetricsOnAPI || c.TracesProtocol != "" {
		t.Fatalf("defaults: admin %q, metrics on API %v, traces %q; want loopback 9090, no, off", c.AdminAddr, c.MetricsOnAPI, c.TracesProtocol)
	}
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, telemetry.ProtocolHTTP},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, telemetry.ProtocolGRPC},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "true"}, ""},
	} {
		c, err := loadConfig("serve", nil, envOf(tc.env), io.Discard)
		if err != nil || c.TracesProtocol != tc.want {
			t.Errorf("%v: traces %q, %v; want %q", tc.env, c.TracesProtocol, err, tc.want)
		}
	}
	c, err = loadConfig("worker", nil, envOf(map[string]string{"PARTNERD_ADMIN_ADDR": "off", "PARTNERD_METRICS_ON_API": "true"}), io.Discard)
	if err != nil || c.AdminAddr != "" || !c.MetricsOnAPI {
		t.Fatalf("off: admin %q metrics on API %v, %v", c.AdminAddr, c.MetricsOnAPI, err)
	}
	_, err = loadConfig("serve", nil, envOf(map[string]string{
		"PARTNERD_ADMIN_ADDR": "9090", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "thrift",
	}), io.Discard)
	for _, want := range []string{"PARTNERD_ADMIN_ADDR", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %s", err, want)
		}
	}
}
