// Package toolbus is where the agent's commands become actions.
//
// In the flow of a turn, when the model's envelope carries a command, the
// agent hands it to the bus as a Call: the Registry finds the tool, validates
// the arguments against the tool's JSON Schema, holds what needs the
// person's confirmation (Hold: destructive tools always; tools that change
// things when the model asks for a yes, or always under ConfirmChanges) —
// the agent ends its turn with the held call and the bot asks the person —
// and runs a call only once it is Confirmed; it runs the tool under its deadline (a tool that overruns is left to
// finish on its own and reported as timed out; only tools that change nothing
// are retried), caps its result, and returns a Result. Unknown tools, invalid arguments and
// failures are results too, with a short code and message the model can act
// on in the next round. Result.Text is the tool-result message the model
// reads ("__tool_result__ <tool> <json>"); Result.Metadata is what is stored
// with it. A tool that made something for the person — a chart — returns
// it Attached: the model reads the result alone, and the files (checked
// against Telegram's photo limits, at most MaxAttachments) travel in
// Result.Attachments, to be stored with the result and delivered with the
// answer. A Spec's Doing is what the status message shows while its tool
// runs.
//
// Every call has an idempotency key (Key: turn, round, tool, arguments; no
// round for tools that change things): a key that already ran returns its
// result instead of running again. The registry remembers recent keys; the
// agent also looks them up in the store, so a turn resumed after a restart
// does not repeat an action whose result was stored. (A crash in the instant
// between a tool's run and the storing of its result is not covered yet.)
//
// The registry is shaped like net/http: a one-method Tool, a ToolFunc
// adapter, and an explicit Registry built in main — no init-time
// registration. Register refuses tools that would confuse a model or let it
// invent arguments: names that are not lower_snake_case, descriptions that do
// not start with a verb or run past 200 characters, and schemas that leave an
// object open to extra properties.
package toolbus
