# syntax=docker/dockerfile:1

# Build a static ryo binary.
FROM golang:1.26-bookworm AS build
WORKDIR /src

# The few files the final image needs: CA certificates, a non-root user
# (uid 65532) and an empty /tmp.
RUN mkdir -p /out/root/etc/ssl/certs /out/root/tmp \
 && cp /etc/ssl/certs/ca-certificates.crt /out/root/etc/ssl/certs/ \
 && echo 'nonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin' > /out/root/etc/passwd \
 && echo 'nonroot:x:65532:' > /out/root/etc/group \
 && chmod 1777 /out/root/tmp

# Dependencies first: this layer is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download

COPY . .
RUN --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/ryo ./cmd/ryo

# The binary, CA certificates and the user: no shell, no package manager.
# ryo carries its own time zone data.
FROM scratch
COPY --from=build /out/root/ /
COPY --from=build /out/ryo /ryo
USER 65532:65532

# The HTTP endpoints (/healthz, /metrics) listen here: RYO_HTTP_ADDR, :8080 by default.
EXPOSE 8080

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/ryo", "healthcheck"]

ENTRYPOINT ["/ryo"]
CMD ["serve"]
