// Package prompts holds what ryo tells the model: the prompt templates, as
// embedded files parsed once at start and rendered through typed data, and
// the JSON schema of the envelope the model answers in. Golden files in
// testdata pin the rendered prompts.
//
// The system prompt is built for Ollama's prompt cache: it depends only on
// things that stay the same across the turns of a chat (the bot, the chat,
// the tools), and what changes every turn — the time — heads the newest
// message instead (rendered by Now), so the prompt keeps the bytes of the
// previous turn up to the previous newest message. (Ollama merges system
// messages into the first one, so a per-turn system note would change the
// very start of the prompt.)
package prompts
