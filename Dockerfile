# syntax=docker/dockerfile:1
# partnerd's container image (docs/production.md): the web console built with Node, the binary
# built with Go (the console embedded, no cgo), and a distroless final stage that runs as the
# nonroot user. Build: docker build --build-arg VERSION=$(git describe --tags --always) -t partnerd .

# 1. The web console (web/dist/console), as make web builds it.
FROM node:22-bookworm-slim AS web
WORKDIR /src/web
COPY web/package.json web/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY web/ ./
COPY docs/openapi.json /src/docs/openapi.json
RUN npx vite build

# 2. The binary, with the console embedded (package web embeds web/dist).
FROM golang:1.26-bookworm AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-trimpath
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/root/go/pkg/mod go mod download
COPY . .
COPY --from=web /src/web/dist/console ./web/dist/console
ARG VERSION=dev
RUN --mount=type=cache,target=/root/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    go build -ldflags "-s -w -X main.version=${VERSION}" -o /out/partnerd ./cmd/partnerd \
    && mkdir -p /out/data

# 3. The image: no shell, no package manager, uid 65532.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/partnerd /usr/local/bin/partnerd
COPY --from=build --chown=65532:65532 /out/data /data
ENV PARTNERD_ENV=production \
    PARTNERD_HTTP_ADDR=0.0.0.0:8080 \
    PARTNERD_DATA_DIR=/data \
    PARTNERD_LOG_FORMAT=json
USER 65532:65532
WORKDIR /data
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/partnerd"]
CMD ["serve"]
