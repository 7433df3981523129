# ryo's tasks. `make test` is the whole test suite and what CI runs.

GO ?= go

.PHONY: test vet fmt-check run build migrate doctor compose-check

# Starts PostgreSQL if needed, creates the test database, checks formatting,
# vets, and runs every test with the race detector.
test: fmt-check vet
	RYO_TEST_DATABASE_URL="$$(./scripts/test-db.sh)" $(GO) test -race -count=1 ./...

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

# Runs the bot from source with the settings in .env.
run:
	$(GO) run ./cmd/ryo serve

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o bin/ryo ./cmd/ryo

migrate:
	$(GO) run ./cmd/ryo migrate

doctor:
	$(GO) run ./cmd/ryo doctor

# Validates docker-compose.yml (no Docker engine needed).
compose-check:
	./scripts/compose-check.sh
