#!/usr/bin/env bash
# Validates docker-compose.yml with `docker compose config`, the way
# `docker compose up` will read it, using .env (or a copy of .env.example).
#
# No Docker engine is needed. When `docker compose` is missing, Docker Compose
# is built once from its Go module and cached under
# ${XDG_CACHE_HOME:-$HOME/.cache}/ryo/compose/VERSION, then installed as a
# Docker CLI plugin (or called directly when there is no docker CLI).
#
# Usage: scripts/compose-check.sh [-v]   (-v prints the resolved file, .env
#                                         values included)
# Env:   RYO_COMPOSE_VERSIONS  versions to build, first that this Go can build
#                              (default "v5.5.1 v2.40.3")
set -euo pipefail

verbose=0
[[ "${1:-}" == "-v" ]] && verbose=1

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/ryo/compose"
versions="${RYO_COMPOSE_VERSIONS:-v5.5.1 v2.40.3}"
plugin_dir="${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins"

log() { printf 'compose-check: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

tmp="$(mktemp -d)"
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

# version_ge A B: true when version A >= version B.
version_ge() { [[ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n1)" == "$2" ]]; }

# build_compose VERSION OUT: builds Docker Compose VERSION into OUT, or fails.
# `go install module@version` refuses it (its go.mod has exclude directives),
# so the module is downloaded and built as the main module.
build_compose() {
	local version="$1" out="$2"
	local module="github.com/docker/compose/${version%%.*}"
	local info dir gomod need have
	if ! info="$(cd "$tmp" && GOFLAGS='' GOWORK=off go mod download -json "$module@$version")"; then
		log "skip $version: $(sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p' <<<"$info" |
			sed 's/\\u003e/>/g; s/\\u003c/</g')"
		return 1
	fi
	dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$info")"
	gomod="$(sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p' <<<"$info")"
	need="$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$gomod")"
	have="$(cd "$tmp" && go env GOVERSION)"
	have="${have#go}"
	if ! version_ge "$have" "$need"; then
		log "skip $version: it needs Go $need, this is Go $have"
		return 1
	fi
	log "building Docker Compose $version with Go $have (a few minutes, once)"
	rm -rf "$tmp/src"
	cp -R "$dir" "$tmp/src"
	chmod -R u+w "$tmp/src"
	local start=$SECONDS
	(cd "$tmp/src" && GOWORK=off GOFLAGS=-buildvcs=false CGO_ENABLED=0 \
		go build -trimpath -ldflags "-s -w -X $module/internal.Version=$version" \
		-o "$out.tmp" ./cmd) || { log "build of $version failed"; return 1; }
	mv "$out.tmp" "$out"
	log "built $out in $((SECONDS - start))s"
}

# compose_bin: prints the path of a cached Docker Compose, building one if needed.
compose_bin() {
	local version bin
	for version in $versions; do
		bin="$cache_root/$version/docker-compose"
		if [[ -x "$bin" ]] && "$bin" version >/dev/null 2>&1; then
			echo "$bin"
			return 0
		fi
	done
	command -v go >/dev/null || die "no docker compose, and no Go toolchain to build it"
	mkdir -p "$cache_root"
	if command -v flock >/dev/null; then # one build at a time
		exec 9>"$cache_root/.lock"
		flock 9
	fi
	for version in $versions; do
		bin="$cache_root/$version/docker-compose"
		if [[ -x "$bin" ]] && "$bin" version >/dev/null 2>&1; then
			echo "$bin"
			return 0
		fi
		mkdir -p "$cache_root/$version"
		if build_compose "$version" "$bin"; then
			echo "$bin"
			return 0
		fi
	done
	die "could not build Docker Compose (tried: $versions)"
}

# Choose the validator: an existing `docker compose`, else the cached build.
compose=()
if command -v docker >/dev/null && docker compose version >/dev/null 2>&1; then
	compose=(docker compose)
else
	bin="$(compose_bin)" || exit 1
	if command -v docker >/dev/null; then
		mkdir -p "$plugin_dir"
		[[ -e "$plugin_dir/docker-compose" ]] || ln -sf "$bin" "$plugin_dir/docker-compose"
	fi
	if command -v docker >/dev/null && docker compose version >/dev/null 2>&1; then
		compose=(docker compose)
	else
		compose=("$bin")
	fi
fi
log "validator: ${compose[*]} ($("${compose[@]}" version --short 2>/dev/null || echo '?'))"

# The directory to validate in: the project itself when it has a .env, else
# a mirror of it (same name, so the same project name) with a sample .env.
workdir="$root"
if [[ ! -f "$root/.env" ]]; then
	workdir="$tmp/mirror/$(basename "$root")"
	mkdir -p "$workdir"
	for entry in "$root"/* "$root"/.[!.]*; do
		[[ -e "$entry" && "$(basename "$entry")" != ".env" ]] || continue
		ln -s "$entry" "$workdir/$(basename "$entry")"
	done
	if [[ -f "$root/.env.example" ]]; then
		log "no .env: using a copy of .env.example"
		cp "$root/.env.example" "$workdir/.env"
	else
		log "no .env and no .env.example: using a built-in sample"
		cat >"$workdir/.env" <<-'EOF'
			TELEGRAM_BOT_TOKEN=123456:sample-token
			TELEGRAM_API_URL=https://api.telegram.org
			DATABASE_URL=postgres://ryo:ryo@localhost:5432/ryo?sslmode=disable
			OLLAMA_HOST=http://127.0.0.1:11434
			RYO_MODEL=qwen2.5:3b
			RYO_ADMIN_IDS=
			RYO_HTTP_ADDR=:8080
			RYO_LOG_LEVEL=info
			RYO_TIMEZONE=UTC
			POSTGRES_USER=ryo
			POSTGRES_PASSWORD=ryo
			POSTGRES_DB=ryo
		EOF
	fi
fi

# Variables of this shell would override the file's; the check uses the file.
# shellcheck disable=SC2016 # a literal ${ in the pattern
for name in $(sed -n 's/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}\([A-Za-z_][A-Za-z0-9_]*\)=.*/\2/p' "$workdir/.env") \
	$(grep -o '\${[A-Za-z_][A-Za-z0-9_]*' "$root/docker-compose.yml" | cut -c3- | sort -u); do
	unset "$name" || true
done
unset COMPOSE_FILE COMPOSE_PROJECT_NAME COMPOSE_PROFILES COMPOSE_ENV_FILES || true

# Any warning (an unset variable, an obsolete key) fails the check too.
status=0
(cd "$workdir" && "${compose[@]}" config) >"$tmp/config.yml" 2>"$tmp/stderr" || status=$?
if [[ -s "$tmp/stderr" ]]; then
	sed "s|$tmp/mirror/|$(dirname "$root")/|g" "$tmp/stderr" >&2
	[[ $status -ne 0 ]] || { log "FAIL: warnings above"; exit 1; }
fi
if [[ $status -ne 0 ]]; then
	log "FAIL: docker-compose.yml is not valid"
	exit "$status"
fi
[[ $verbose -eq 0 ]] || cat "$tmp/config.yml"

services="$(cd "$workdir" && "${compose[@]}" config --services | sort | tr '\n' ' ')"
volumes="$(cd "$workdir" && "${compose[@]}" config --volumes | sort | tr '\n' ' ')"
log "services: ${services% }"
# Each optional profile must be valid too.
for profile in $(cd "$workdir" && "${compose[@]}" config --profiles); do
	status=0
	(cd "$workdir" && "${compose[@]}" --profile "$profile" config --quiet) 2>"$tmp/stderr" || status=$?
	if [[ $status -ne 0 || -s "$tmp/stderr" ]]; then
		sed "s|$tmp/mirror/|$(dirname "$root")/|g" "$tmp/stderr" >&2
		log "FAIL: docker-compose.yml is not valid with the profile $profile"
		exit 1
	fi
	extra="$(cd "$workdir" && "${compose[@]}" --profile "$profile" config --services | sort | tr '\n' ' ')"
	log "profile $profile: ${extra% }"
done
log "volumes: ${volumes% }"
log "OK: docker-compose.yml is valid"
