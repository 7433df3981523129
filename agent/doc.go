// Package agent turns a conversation into the model's answer.
//
// In the flow of a turn, the bot hands the agent the chat, the person and the
// recent history (the newest message last). The agent builds the prompt — the
// system prompt from prompts, the history with group speakers named, a short
// note with the time just before the newest message — calls the model, and
// returns its answer with the usage figures. A caller that wants to show the
// answer as it grows passes Input.OnDelta.
//
// The agent depends on a one-method Model interface, not on Ollama; tests
// give it a scripted model.
package agent
