# partnerd build, run and test. `make run` and `make test` are the two commands of README.md.

GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
TOOLS   := $(CURDIR)/bin/tools

# Pinned tool versions (these build with the Go toolchain of this project).
GOLANGCI_LINT_VERSION := v2.15.0
WORKFLOWCHECK_VERSION := v0.6.0
OAPI_CODEGEN_VERSION  := v2.8.2

GOLANGCI_LINT := $(TOOLS)/golangci-lint-$(GOLANGCI_LINT_VERSION)
WORKFLOWCHECK := $(TOOLS)/workflowcheck-$(WORKFLOWCHECK_VERSION)
OAPI_CODEGEN  := $(TOOLS)/oapi-codegen-$(OAPI_CODEGEN_VERSION)

.PHONY: run build web test test-go test-web test-e2e test-client lint tools openapi client bench clean faults

## run: build the web console and the binary, and serve with the embedded database and Temporal server
run: web build
	./bin/partnerd serve

## build: the partnerd binary in bin/
build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/partnerd ./cmd/partnerd

## test: every Go test with the race detector, the linters, the Go client and the web console current, then the console in a browser
test: test-go lint test-client test-web test-e2e

# The race detector runs on every package but the two that link the embedded Temporal server:
# instrumenting the server doubles the cold build and pushed CI past its budget (ADR 6).
SERVER_PKGS := ./cmd/... ./worker/devserver/...
test-go:
	$(GO) test -race -count=1 -timeout 30m $$($(GO) list ./... | grep -v -e /cmd/ -e /worker/devserver)
	$(GO) test -count=1 -timeout 30m $(SERVER_PKGS)

## web: the web console, built into web/dist/console, which the next go build embeds
web: web/node_modules
	cd web && npx vite build

## faults: the fault suite alone (also part of test-go): processes killed with SIGKILL mid-work, a webhook receiver down for an hour, Postgres restarted under load, a blob store that refuses writes
faults:
	$(GO) test -count=1 -timeout 30m -run '^TestFault' $$($(GO) list ./... | grep -v /web/)

## test-web: the OpenAPI document lint-clean (Redocly's recommended rules), the web console's generated API types current, type check, lint, build, bundle budget
test-web: web/node_modules
	cd web && npx redocly lint ../docs/openapi.json --config ../redocly.yaml
	cd web && npm run check:api && npm run typecheck && npm run lint && npx vite build && npm run size

## test-client: the Go client in client/ is what the generator makes of docs/openapi.json today
test-client: $(OAPI_CODEGEN)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	cd client && $(OAPI_CODEGEN) -config oapi-codegen.yaml -o "$$tmp/partnerd.gen.go" ../docs/openapi.json && \
	if ! diff -q partnerd.gen.go "$$tmp/partnerd.gen.go" >/dev/null; then \
		diff -u partnerd.gen.go "$$tmp/partnerd.gen.go" | head -40; \
		echo "client/partnerd.gen.go is out of date: run make openapi and commit the result"; exit 1; \
	fi

## test-e2e: the console in Debian's chromium (CHROMIUM overrides it) against a real partnerd serve
# Its binary is built like the tests' (no -trimpath), so it reuses what go test compiled.
test-e2e: web
	$(GO) build -o bin/partnerd-e2e ./cmd/partnerd
	web/e2e/run.sh bin/partnerd-e2e

# npm ci, then node_modules/go.mod, which keeps the Go files some npm packages ship out of this
# module's ./... (written here too: newer npm releases skip the package's own postinstall).
web/node_modules: web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	printf 'module ignore\n' > web/node_modules/go.mod
	touch $@

## lint: golangci-lint (with the dependency rules), workflowcheck over workflows/, and no tenant condition written outside store.Scope
lint: $(GOLANGCI_LINT) $(WORKFLOWCHECK)
	$(GOLANGCI_LINT) run ./...
	$(WORKFLOWCHECK) ./workflows/...
	$(GO) run ./tools/tenantscope .

tools: $(GOLANGCI_LINT) $(WORKFLOWCHECK) $(OAPI_CODEGEN)

$(GOLANGCI_LINT):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(TOOLS)/golangci-lint $@

$(WORKFLOWCHECK):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS) $(GO) install go.temporal.io/sdk/contrib/tools/workflowcheck@$(WORKFLOWCHECK_VERSION)
	mv $(TOOLS)/workflowcheck $@

# oapi-codegen builds with its own go.mod (go install pkg@version), so its dependencies stay out
# of this module's; the client needs only github.com/oapi-codegen/runtime (ADR 21).
$(OAPI_CODEGEN):
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS) $(GO) install github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$(OAPI_CODEGEN_VERSION)
	mv $(TOOLS)/oapi-codegen $@

## openapi: regenerate the OpenAPI snapshot in docs/, the Go client and the web types generated from it
openapi:
	$(GO) run ./cmd/partnerd openapi > docs/openapi.json
	$(MAKE) client
	@if [ -d web/node_modules ]; then cd web && npm run --silent gen:api; else echo "web/node_modules missing: run make web, then make openapi, to regenerate web/src/api/schema.d.ts"; fi

## client: regenerate the typed Go client in client/ from docs/openapi.json
client: $(OAPI_CODEGEN)
	cd client && $(OAPI_CODEGEN) -config oapi-codegen.yaml -o partnerd.gen.go ../docs/openapi.json

## bench: Go benchmarks (load scripts live in bench/)
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
