// Package toolbus is where the agent's commands become actions.
//
// In the flow of a turn, when the model's envelope carries a command, the
// agent hands it to the bus as a Call: the Registry finds the tool, validates
// the arguments against the tool's JSON Schema, refuses what needs the
// person's confirmation (destructive tools, for now always), runs the tool
// under its deadline (retrying once only if it changes nothing), caps its
// result, and returns a Result. Unknown tools, invalid arguments and
// failures are results too, with a short code and message the model can act
// on in the next round. Result.Text is the tool-result message the model
// reads ("__tool_result__ <tool> <json>"); Result.Metadata is what is stored
// with it.
//
// Every call has an idempotency key (Key: turn, round, tool, arguments): a
// key that already ran returns its result instead of running again. The
// registry remembers recent keys; the agent also looks them up in the store,
// so a turn resumed after a restart does not repeat its actions.
//
// The registry is shaped like net/http: a one-method Tool, a ToolFunc
// adapter, and an explicit Registry built in main — no init-time
// registration. Register refuses tools that would confuse a model or let it
// invent arguments: names that are not lower_snake_case, descriptions that do
// not start with a verb or run past 200 characters, and schemas that leave an
// object open to extra properties.
package toolbus
