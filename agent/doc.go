// Package agent turns a conversation into the bot's answer with a
// model-agnostic JSON-envelope loop.
//
// In the flow of a turn, the bot hands the agent the chat, the person and the
// recent history. The agent builds the prompt — the system prompt from
// prompts, with the contract and the tools this person may use first and
// nothing that changes between turns; the history, with group speakers named,
// the bot's own answers shown as envelopes and tool results as they were
// given; a note with the time just before the newest message — and asks the
// model with the envelope schema as its format.
//
// Every answer is an envelope: a reply, and perhaps a command. The answer is
// parsed tolerantly (code fences, text around the JSON, braces in strings)
// and validated against the schema; an invalid one is repaired by telling the
// model exactly what was wrong, at most MaxRepairs times, then the person is
// told politely. An answer the model server cut off at its length limit is
// not repaired — asked again, the model would most likely be cut off again,
// after as long a wait: the reply as far as it got is the answer, with a
// line saying it was cut off (Output.CutOff), and a command it was still
// writing does not run. A command goes to the tool bus under an idempotency key
// (the turn, the round, the tool, the arguments): a key already stored — an
// earlier run of the same turn — is not run again. The result is stored as a
// "__tool_result__ <tool> <json>" message and shown to the model, and the next
// round starts. Unknown tools and invalid arguments come back as error
// results the model can correct. The loop stops at an answer without a
// command, at MaxRounds, or at the turn's deadline.
//
// A person's text never passes for a tool result: the prefix is quoted
// wherever it appears, after invisible formatting characters are dropped. A
// reply that says an action was done (saved, sent, deleted…) when no tool
// that changes things did anything is flagged in the output. The answer comes
// with tags: tool:<name> for each call that succeeded, an action: tag (answer,
// use-tools, ask, repaired), and the envelope's own, normalised (never in the
// tool: or action: space). A command that carries a question for the person
// runs nothing: the question is the answer. The last round offers the model
// no tools, so a turn always ends with an answer.
//
// Each step is reported as it happens (Input.Observe): a model call as it
// begins and, with its model, tokens, time and whether it repaired an
// invalid answer, as it ends; a tool as it starts and, with what the model
// is shown of it, as it ends; a command held for a yes; the reply as it
// grows. The bot shows them live and records them for its inspector.
//
// The agent depends on a one-method Model interface, not on Ollama, and on a
// small Store for tool results; tests give it a scripted model.
package agent
