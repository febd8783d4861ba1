//go:build pprof

// Profiling build (go build -tags pprof): with PARTNERD_PPROF_ADDR set, the process serves
// net/http/pprof there, for the benchmarks in bench/ to see where a run's time goes. Release
// builds do not contain it.

package main

import (
	"net/http"
	_ "net/http/pprof" // the profiling handlers on http.DefaultServeMux
	"os"
)

func init() {
	addr := os.Getenv("PARTNERD_PPROF_ADDR")
	if addr == "" {
		return
	}
	go func() { _ = http.ListenAndServe(addr, nil) }() //nolint:gosec // a local profiling build only
}
