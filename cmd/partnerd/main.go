// Command partnerd runs the partnerd partner-program platform.
//
//	partnerd serve     HTTP API + worker (+ embedded Temporal server and database by default)
//	partnerd worker    a worker only, to scale out
//	partnerd migrate   bring the database schema up to date
//	partnerd openapi   print the OpenAPI document
//	partnerd version   print the version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `partnerd: the partner-program platform

Usage:
  partnerd serve     run the HTTP API and a worker; with no DATABASE_URL or TEMPORAL_ADDRESS
                     it also runs the embedded database and Temporal server
  partnerd worker    run only a worker (scale-out); needs the same DATABASE_URL and a Temporal
                     server (TEMPORAL_ADDRESS, default 127.0.0.1:$PARTNERD_TEMPORAL_PORT)
  partnerd migrate   apply database migrations and exit
  partnerd tenant create -slug S -name N -email E [-password P]
                     open a tenant with its owner
  partnerd openapi   print the OpenAPI document (-spec 3.1|3.0)
  partnerd version   print the version

Run "partnerd <command> -h" for the settings; each flag also reads an environment variable.
`

// run executes one command and returns the process exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	name, rest := args[0], args[1:]
	var err error
	switch name {
	case "serve", "worker", "migrate":
		var cfg config
		cfg, err = loadConfig(name, rest, getenv, stderr)
		if err != nil {
			break
		}
		switch name {
		case "serve":
			err = serve(ctx, cfg, stdout, stderr, nil)
		case "worker":
			err = runWorker(ctx, cfg, stderr)
		case "migrate":
			err = migrate(ctx, cfg, stdout, stderr)
		}
	case "tenant":
		if len(rest) == 0 || rest[0] != "create" {
			fmt.Fprintf(stderr, "partnerd: usage: partnerd tenant create -slug S -name N -email E\n")
			return 2
		}
		var cfg config
		cfg, err = loadConfig("tenant", nil, getenv, stderr)
		if err == nil {
			err = tenantCreate(ctx, cfg, rest[1:], stdout, stderr)
		}
	case "openapi":
		err = printOpenAPI(rest, stdout, stderr)
	case "version":
		fmt.Fprintf(stdout, "partnerd %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "partnerd: unknown command %q\n\n%s", name, usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	default:
		fmt.Fprintf(stderr, "partnerd %s: %v\n", name, err)
		return 1
	}
}
