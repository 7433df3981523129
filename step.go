package ryo

import (
	"encoding/json"
	"time"
)

// StepKind says what a running turn is doing.
type StepKind int

// Steps of a turn, as the agent reports them.
const (
	StepThinking StepKind = iota + 1 // a model call began
	StepTool                         // a tool began to run
	StepToolDone                     // a tool finished
	StepConfirm                      // a command waits for the person's yes
	StepWriting                      // the reply grew
	StepForced                       // the first round must call Tool: the person chose it
	StepAnswered                     // a model call ended (the inspector records it; the status message does not show it)
)

// Step is something a running turn did, reported as it happens so that the
// person can follow it.
type Step struct {
	Kind  StepKind
	Call  int             // StepThinking: model calls so far in the turn, repairs included
	Tool  string          // StepTool, StepToolDone, StepConfirm, StepForced
	Args  json.RawMessage // StepTool, StepConfirm: the tool's arguments
	Doing string          // StepTool: what the status message shows while it runs, such as "📊 drawing a chart"; "" for its name and arguments
	// Subject, when set, is what Doing's %s stands for in this call:
	// Doing "🔎 searching the web for %s", Subject "kernel 6.12". Doing is
	// translated whole and Subject put in, as it is.
	Subject string
	Status  string        // StepToolDone: ok, error, cancelled or denied
	Took    time.Duration // StepToolDone
	Reply   string        // StepWriting: the reply so far
	// Result is what the model is shown of a finished tool (StepToolDone),
	// as stored: secrets are redacted by the tool before it gets here.
	Result string
	// StepAnswered: the model asked, what the call cost and took, whether
	// it was a repair of an invalid answer, and why it failed ("" when it
	// did not).
	Model  string
	Usage  Usage
	Repair bool
	Err    string
}
