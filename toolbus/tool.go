package toolbus

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ryo-bot/ryo"
)

// Tool does one thing the model may ask for. Call gets the arguments as
// validated JSON and returns the result as a JSON-encodable value. An error
// that should reach the model as it is, so that it can correct itself, is a
// *Error; any other error is reported to the model as a failure of the tool.
// Call must respect ctx: the bus cancels it at the tool's deadline.
type Tool interface {
	Call(ctx context.Context, args json.RawMessage) (any, error)
}

// ToolFunc adapts a function to Tool.
type ToolFunc func(ctx context.Context, args json.RawMessage) (any, error)

// Call calls f.
func (f ToolFunc) Call(ctx context.Context, args json.RawMessage) (any, error) { return f(ctx, args) }

// Effect says what running a tool changes.
type Effect int

// Effects, from harmless to irreversible.
const (
	ReadOnly    Effect = iota // changes nothing; safe to retry
	Mutating                  // changes something that can be changed back
	Destructive               // changes something for good; always confirmed by the person
)

func (e Effect) String() string {
	switch e {
	case ReadOnly:
		return "read-only"
	case Mutating:
		return "mutating"
	}
	return "destructive"
}

// Defaults for a Spec that leaves them zero.
const (
	DefaultTimeout   = 10 * time.Second
	DefaultMaxResult = 16 << 10 // bytes of JSON result
)

// Category groups tools in the catalog people browse: the built-in ones
// below, and later one per OpenAPI API, named after it.
type Category string

// Categories of the built-in tools.
const (
	MathFinance Category = "Math & Finance"
	Charts      Category = "Charts"
	Images      Category = "Images"
	Memory      Category = "Memory"
	Knowledge   Category = "Knowledge"
	TimeUnits   Category = "Time & Units"
	Web         Category = "Web"
	YourData    Category = "Your data" // the bot's own commands' tools, never the model's
)

// Example is a question a person might ask, and the arguments the tool
// would get for it. Registration checks the arguments against the schema,
// so an example never shows a call the tool would refuse.
type Example struct {
	Question  string
	Arguments json.RawMessage
}

// Spec describes a tool to the registry and to the model.
type Spec struct {
	Name        string          // lower_snake_case, what the model names in "intent"
	Description string          // starts with a verb, at most 200 characters
	Category    Category        // 1 to 32 characters
	Examples    []Example       // one or two
	Schema      json.RawMessage // JSON Schema of the arguments; an object with additionalProperties false
	Effect      Effect
	Timeout     time.Duration // 0 means DefaultTimeout
	MaxResult   int           // 0 means DefaultMaxResult
	Tool        Tool
	// Doing, when set, is what the status message shows while the tool
	// runs, such as "📊 drawing a chart"; without it, the tool's name and
	// a summary of its arguments.
	Doing string
	// DoingAbout and DoingWith, when set, say it for one call: DoingAbout
	// is the line with one %s, such as "🔎 searching the web for %s", and
	// DoingWith what the %s stands for in a call with args, such as
	// "kernel 6.12" — "" when it cannot say, and Doing stands. The line is
	// translated whole into the chat's language and the subject put in.
	DoingAbout string
	DoingWith  func(args json.RawMessage) string
	// Tags are added to the turn's tags when a call succeeds, such as
	// "memory:remember".
	Tags []string
	// Explain, when set, says in words what a call with args would do, for
	// the person who must confirm it (forget shows the memory, not its id).
	// "" when it cannot say.
	Explain func(ctx context.Context, args json.RawMessage) string
	// Happened, when set, says whether a call with args has taken effect
	// already. It is asked about a confirmed call whose run was cut short
	// (a crash, a stop) before its outcome was recorded, so that the call
	// is neither run twice nor given up when the tool can tell.
	Happened func(ctx context.Context, args json.RawMessage) Happening
}

// DoingOf is what the status message shows while a call with args runs:
// DoingAbout about DoingWith's subject, else Doing (subject "").
func (s Spec) DoingOf(args json.RawMessage) (doing, subject string) {
	if s.DoingWith != nil && s.DoingAbout != "" {
		if subject := s.DoingWith(args); subject != "" {
			return s.DoingAbout, subject
		}
	}
	return s.Doing, ""
}

// Happening is what a tool can tell of a call whose run was cut short.
type Happening int

// Happenings.
const (
	Unknown     Happening = iota // it cannot tell: ask the person
	Happened                     // it took effect: do not run it again
	NotHappened                  // it did not: running it now does it once
)

// Attached is a result with files for the person, such as a chart: a tool
// returns it when it made something to show. The model is shown Result;
// the files travel with the call's Result as Attachments, stored with it,
// and are delivered with the turn's answer.
type Attached struct {
	Result any
	Files  []ryo.Attachment
}

// MaxAttachments is the most files one call may attach.
const MaxAttachments = 4

// Error is a failure the model should see as it is: a short code and a
// message that says what to do differently.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Error codes the bus itself reports.
const (
	CodeUnknownTool  = "unknown_tool"
	CodeInvalidArgs  = "invalid_arguments"
	CodeTimeout      = "timeout"
	CodeFailed       = "tool_failed"
	CodeNeedsConfirm = "needs_confirmation"
	CodeNotAllowed   = "not_allowed"
)

// Errorf returns an *Error for the model.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
