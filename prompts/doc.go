// Package prompts holds what ryo tells the model: the prompt templates, as
// embedded files parsed once at start and rendered through typed data, and
// the JSON schema of the envelope the model answers in. Golden files in
// testdata pin the rendered prompts.
//
// The system prompt is built for Ollama's prompt cache: it depends only on
// things that stay the same across the turns of a chat (the bot, the chat),
// so the system message and the history after it keep a byte-identical
// prefix. What changes every turn, such as the time, goes in a short note
// rendered by Now, placed just before the newest message.
package prompts
