package tools

import (
	"encoding/json"
	"time"

	"github.com/ryo-bot/ryo/toolbus"
)

// Builtin returns the specs of all built-in tools, for main to register.
// defaultZone is the owner's time zone for current_time (nil means UTC) and
// now is its clock (nil means time.Now).
func Builtin(defaultZone *time.Location, now func() time.Time) []toolbus.Spec {
	return []toolbus.Spec{
		Calculate(),
		CurrentTime(defaultZone, now),
		UnitConvert(),
	}
}

// readOnly builds the spec of a tool that changes nothing.
func readOnly(name, description, schema string, call toolbus.ToolFunc) toolbus.Spec {
	return toolbus.Spec{
		Name:        name,
		Description: description,
		Schema:      json.RawMessage(schema),
		Effect:      toolbus.ReadOnly,
		Tool:        call,
	}
}
