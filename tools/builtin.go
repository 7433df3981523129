package tools

import (
	"encoding/json"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/toolbus"
)

// Builtin returns the specs of all built-in tools, for main to register.
// defaultZone is the owner's time zone for current_time (nil means UTC) and
// c is its clock (nil means the system's).
func Builtin(defaultZone *time.Location, c ryo.Clock) []toolbus.Spec {
	return []toolbus.Spec{
		Calculate(),
		CurrentTime(defaultZone, c),
		UnitConvert(),
		Statistics(), Regression(), Finance(), Probability(), Benford(),
	}
}

// readOnly builds the spec of a tool that changes nothing.
func readOnly(name, description string, category toolbus.Category, schema string, call toolbus.ToolFunc, examples ...toolbus.Example) toolbus.Spec {
	return toolbus.Spec{
		Name:        name,
		Description: description,
		Category:    category,
		Examples:    examples,
		Schema:      json.RawMessage(schema),
		Effect:      toolbus.ReadOnly,
		Tool:        call,
	}
}

// example is a question and the arguments, as JSON, the tool would get.
func example(question, arguments string) toolbus.Example {
	return toolbus.Example{Question: question, Arguments: json.RawMessage(arguments)}
}
