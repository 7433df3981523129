// Package ollama adapts the Ollama server to ryo's model interface.
//
// In the flow of a turn, the agent hands a ryo.ModelRequest to Client.Chat,
// which streams it to Ollama's /api/chat and hands the answer back as it
// grows. Every call has three deadlines: connecting, the first token (a cold
// model may take a while to load), and the whole answer. A stream that ends
// without Ollama's final done line, or carries an error line, is an error, never
// a silently short answer. Each call asks for at most Config.NumPredict
// tokens; an answer Ollama stopped there (done_reason "length") comes back
// marked CutOff, for the agent to decide what to make of it.
//
// Installed lists the models the server has (/api/tags) with what each
// can do (/api/show's capabilities: completion, tools, vision, embedding,
// thinking), for /model; Capabilities and VisionModel ask about one.
// What a model can do is asked once for each version of it and
// remembered; a model gone or pulled again is asked about afresh.
//
// Models (the names /api/tags lists) and Probe (/api/version) are what a
// modelpool.Pool asks of each of several servers.
//
// Failures come back as *ryo.Error values whose Message can be shown to the
// user as it is: the server is unreachable, the model is not installed, the
// model took too long. A model that is not installed is ryo.ModelMissing. SDK types (api.ChatRequest and friends) never leave
// this package.
package ollama
