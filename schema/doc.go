// Package schema validates JSON documents against JSON Schemas: the
// envelope the model answers in, and the arguments of every tool. It keeps
// the validator library (gojsonschema, frozen upstream) behind one small
// type, so it can be swapped without touching its users.
//
// Schemas are compiled once, at start; Validate is safe for concurrent use.
// Schemas must be self-contained: a $ref to anything but the schema itself
// is refused, since the library would fetch it over the network.
//
// In a turn it checks the model's every reply (agent) and the arguments of
// every tool call before the tool runs (toolbus).
package schema
