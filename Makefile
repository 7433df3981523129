# ryo's tasks. `make test` is the whole test suite and what CI runs.

GO ?= go

.PHONY: test test-ollama bench bench-pool load capacity chaos flood vet fmt-check run build migrate doctor compose-check

# The environment of the test tiers: a running PostgreSQL with the test
# database, and a real Ollama server (built once, about 4 minutes, then cached).
TEST_ENV = RYO_TEST_DATABASE_URL="$$(./scripts/test-db.sh)" RYO_OLLAMA_BIN="$$(./scripts/ollama-test.sh)"

# Checks formatting, vets, and runs every test — the real-Ollama tier
# included — with the race detector.
test: fmt-check vet
	$(TEST_ENV) $(GO) test -race -count=1 -timeout 40m ./...

# Only the tier that runs against a real Ollama server.
test-ollama:
	$(TEST_ENV) $(GO) test -race -count=1 -run Live ./ollama/... ./modelpool ./cmd/ryo

# A whole turn against a real Ollama and the tiny model: ryo's own time per
# turn apart from the model's.
bench:
	$(TEST_ENV) $(GO) test -run '^$$' -bench LiveTurn -benchtime 200x ./cmd/ryo

# Answers a second from one real Ollama server and from two behind the pool.
bench-pool:
	$(TEST_ENV) $(GO) test -run '^$$' -bench LiveChat -benchtime 100x -count 3 ./modelpool

# The load test: 1,000 chats writing at once, 5 turns each, against the fake
# Telegram enforcing Telegram's flood limits and a model that answers at
# once. Several minutes: Telegram allows 30 messages a second in all.
LOAD_CHATS ?= 1000
LOAD_TURNS ?= 5
load:
	RYO_TEST_DATABASE_URL="$$(./scripts/test-db.sh)" $(GO) test ./cmd/ryo -run '^$$' -bench Load -benchtime 1x -timeout 60m \
		-args -load.chats=$(LOAD_CHATS) -load.turns=$(LOAD_TURNS)

# The capacity measurement: ryo itself with Telegram's pacing lifted (a
# built ryo against the fake Telegram without flood limits and a model that
# answers at once), 1,000 chats each keeping a question waiting; reports
# turns a second, CPU per turn, resident memory, and writes ryo's CPU
# profile to capacity.prof.
CAPACITY_CHATS ?= 1000
capacity:
	RYO_TEST_DATABASE_URL="$$(./scripts/test-db.sh)" $(GO) test ./cmd/ryo -run '^$$' -bench Capacity -benchtime 1x -timeout 20m \
		-args -capacity.chats=$(CAPACITY_CHATS) -capacity.profile=$(CURDIR)/capacity.prof

# The chaos run: ryo replicas on one database under load while one is
# killed, PostgreSQL restarts, the model stalls and Telegram answers 429s
# and 500s; prints what was lost, answered twice or out of order. It
# restarts the machine's PostgreSQL: run nothing else meanwhile.
CHAOS_REPLICAS ?= 3
CHAOS_CHATS ?= 200
chaos:
	RYO_TEST_DATABASE_URL="$$(./scripts/test-db.sh)" $(GO) test ./cmd/ryo -run '^$$' -bench Chaos -benchtime 1x -timeout 30m \
		-args -chaos.replicas=$(CHAOS_REPLICAS) -chaos.chats=$(CHAOS_CHATS)

# The flood measurement: one person sends 100 messages in 10 s in a group
# while the model takes 2 s an answer; reports the model calls they cost
# and another member's wait, quiet and in the flood.
flood:
	RYO_TEST_DATABASE_URL="$$(./scripts/test-db.sh)" $(GO) test ./cmd/ryo -run '^$$' -bench Flood -benchtime 1x -timeout 20m

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
