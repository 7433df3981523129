// Package openaitest is a fake OpenAI-compatible server for tests: the
// chat completions and model list endpoints that vLLM, llama.cpp's
// server, LM Studio and OpenAI share. Each accepted chat request takes
// the next scripted Reply, and the Server records what it was asked.
//
// The fake is as strict as OpenAI's own API: a body with a field it does
// not know, a response_format with an unknown field or a nameless schema,
// a strict schema that strict mode cannot hold a model to, a missing
// model, one it does not serve (404, model_not_found), stream_options
// without streaming, a picture that is not a base64 data: URL, or a wrong
// key (RequireKey) is refused with OpenAI's error object, and recorded in
// Refusals. A stream is what real servers send: a first chunk with the
// assistant's role and no text, the text in chunks of a few characters,
// a chunk with the finish_reason, a usage chunk with empty choices when
// stream_options.include_usage asks for it, then data: [DONE].
//
// A Reply can fail the way servers fail: an HTTP status with the error
// object before any output, an error event in the middle of the stream,
// or a connection dropped before the end. Hold and HoldAfterRole keep a
// request waiting, to test deadlines and cancellation; Fragmented splits
// every event into pieces of a few bytes.
//
//	srv := openaitest.NewServer("Qwen/Qwen2.5-7B-Instruct")
//	defer srv.Close()
//	srv.Enqueue(openaitest.Reply{Content: "Hello!"}, openaitest.Reply{Status: 503, Error: "overloaded"})
//	// ... point the code under test at srv.URL() ...
//	got := srv.Requests()[0].Format.JSONSchema.Schema
package openaitest
