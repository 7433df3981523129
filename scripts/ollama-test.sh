#!/usr/bin/env bash
# Builds a real, CPU-only Ollama server for ryo's integration tests and
# prints the path of the binary.
#
# The pinned version is built with `go install` outside ryo's module (ryo's
# go.mod gains no server dependency) and cached by version in
# ${XDG_CACHE_HOME:-$HOME/.cache}/ryo/ollama/VERSION/ollama; later runs reuse
# it at once. The first build takes about 4 minutes on 2 cores.
#
# The Go module of Ollama lacks llama.cpp's vendored header-only libraries,
# so they come from elsewhere: nlohmann-json and stb from Debian (installed
# only when missing), miniaudio.h from the Go module that ships it.
set -euo pipefail

version=${RYO_OLLAMA_VERSION:-v0.17.4}
malgo=github.com/gen2brain/malgo@v0.11.24 # ships miniaudio.h
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ryo/ollama
bin=$cache/$version/ollama

say() { echo "ollama-test: $*" >&2; }

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

if [ ! -f /usr/include/nlohmann/json_fwd.hpp ] || [ ! -f /usr/include/stb/stb_image.h ]; then
  say "installing the C++ headers the build needs (nlohmann-json3-dev, libstb-dev)"
  log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nlohmann-json3-dev libstb-dev; } >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
  fi
  rm -f "$log"
fi

mkdir -p "$cache/include/miniaudio" "$cache/$version"
cd "$cache" # outside any go.mod
malgo_dir=$(GOFLAGS=-mod=mod go mod download -json "$malgo" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
cp "$malgo_dir/miniaudio.h" "$cache/include/miniaudio/miniaudio.h"

say "building Ollama $version (about 4 minutes the first time)"
start=$SECONDS
tmp=$(mktemp -d "$cache/$version/build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The include path stays the same from run to run, so Go's build cache
# (keyed on CGO_CPPFLAGS) is reused after an interrupted build.
GOBIN=$tmp CGO_ENABLED=1 CGO_CPPFLAGS="-I$cache/include" GOFLAGS=-buildvcs=false \
  go install -trimpath -ldflags "-s -w -X github.com/ollama/ollama/version.Version=${version#v}" \
  "github.com/ollama/ollama@$version" >&2
mv "$tmp/ollama" "$bin"
say "built $bin in $((SECONDS - start))s"
echo "$bin"
