// Package livetest runs a real Ollama server for ryo's integration tests,
// with a tiny deterministic model made on the spot.
//
// The server binary is named by RYO_OLLAMA_BIN (make test builds it once with
// scripts/ollama-test.sh and sets it). Start runs `ollama serve` on a free
// loopback port with scratch model and home directories, and stops the whole
// process group — the server and its model runners — when the test ends.
// CreateTinyModel writes a ~470 KB GGUF model (WriteTinyModel, standard
// library only) and creates it on the server through /api/blobs and
// /api/create; nothing is downloaded.
//
// At temperature 0 the tiny model answers free text with a fixed reply ("ok"
// by default) and fills every string of a JSON schema with it, always
// finishing well within the token limit, in a few milliseconds per answer.
//
// Without RYO_OLLAMA_BIN the tests skip, naming the variable; under CI=true
// they fail instead.
package livetest
