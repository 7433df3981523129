// Package prompts holds what ryo tells the model: the prompt templates, as
// embedded files parsed once at start and rendered through typed data, and
// the JSON schema of the envelope the model answers in. Golden files in
// testdata pin the rendered prompts.
//
// The system prompt is built for Ollama's prompt cache: it depends only on
// things that stay the same across the turns of a chat (the bot, the chat,
// the tools, the chat's persona), and what changes every turn — the time — heads the newest
// message instead (rendered by Now), so the prompt keeps the bytes of the
// previous turn up to the previous newest message. (Ollama merges system
// messages into the first one, so a per-turn system note would change the
// very start of the prompt.) A Set keeps the system prompts it rendered,
// by all the data they were rendered from, so a chat's later turns reuse
// its prompt rather than run the template again.
//
// A chat's persona (/settings) is the admins' words: it is shown in a
// delimited section right after the first line, before the envelope
// contract and every rule, which follow it whole, and a closing line
// repeats the contract, so the rules have the last word.
package prompts
