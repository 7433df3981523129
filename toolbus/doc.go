// Package toolbus is where the agent's commands become actions.
//
// In the flow of a turn, when the model's answer carries a command, the agent
// hands it to the bus: the bus finds the tool in an explicit registry built in
// main, validates the arguments against the tool's JSON Schema, runs it with
// its own deadline and result cap, and returns a result the agent stores as a
// tool-result message and shows the model in the next round. The registry is
// shaped like net/http: a one-method Tool, a ToolFunc adapter, no init-time
// registration.
//
// Plain turns use no tools yet; the registry arrives with the JSON-envelope
// agent loop.
package toolbus
