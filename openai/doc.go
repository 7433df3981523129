// Package openai adapts a server that speaks OpenAI's chat completions
// API — vLLM, llama.cpp's server, LM Studio, OpenAI itself — to ryo's
// model interface, as package ollama adapts Ollama.
//
// In the flow of a turn, the agent hands a ryo.ModelRequest to
// Client.Chat, which posts it to /v1/chat/completions with "stream": true
// and hands the answer back as its server-sent events arrive. Usage is
// asked for with stream_options.include_usage: the server then sends a
// last chunk with empty choices and the token counts. Every call has
// three deadlines, as with Ollama: connecting, the first token (a role
// alone is no token; a thinking model's reasoning is), and the whole
// answer; they run on the configured clock. A stream that ends before a
// finish_reason or [DONE], or carries an error object, is an error, never
// a silently short answer. finish_reason "length" marks the answer
// CutOff.
//
// The envelope's schema goes as response_format {"type": "json_schema",
// "json_schema": {"name": "ryo_envelope", "schema": …, "strict": false}}.
// Strict mode would hold the model to the schema exactly, but OpenAI takes
// a schema for it only when every object lists all its properties as
// required and forbids others, and the envelope's slots are by design any
// object (the tool bus checks them against the tool's own schema): in
// strict mode they could only ever be {}. So the schema guides the model,
// as vLLM, llama.cpp and LM Studio enforce it with their grammars anyway,
// and the agent validates every answer and asks for repairs as it does
// with Ollama.
//
// Pictures go as image_url parts holding data: URLs. The API key, if any,
// goes in the Authorization header and is a ryo.Secret everywhere else; a
// server's error that quotes it has it blanked out.
//
// Failures come back as *ryo.Error values whose Message can be shown to
// the user as it is: a server refused or out of reach, overloaded (429)
// or failing (5xx) is ryo.Unavailable of ryo.Model; a model it does not
// serve (404 naming the model) is ryo.ModelMissing; any other refusal
// carries the server's own words. Models lists GET /v1/models, and Probe
// asks it as the cheapest sign that the server is up. The server says
// nothing of what a model can do, so each served model counts as one
// that answers, and only the configured vision model as one that reads
// pictures.
package openai
