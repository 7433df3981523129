package ryo

import (
	"encoding/json"
	"time"
)

// ActionState is where an action is in its life: pending until someone
// decides, then confirmed, running and executed, or cancelled, or expired.
// One found running at a start was cut short while its tool ran: it ends
// interrupted, unless its tool can say whether it happened.
type ActionState string

// Action states.
const (
	ActionPending   ActionState = "pending"
	ActionConfirmed ActionState = "confirmed" // the yes came; its tool has not started
	ActionRunning   ActionState = "running"   // its tool started; no outcome recorded yet
	ActionExecuted  ActionState = "executed"
	ActionCancelled ActionState = "cancelled"
	ActionExpired   ActionState = "expired"
	// ActionInterrupted: cut short while running, with no way to tell
	// whether it happened; the person was asked again.
	ActionInterrupted ActionState = "interrupted"
)

// Origin is who asked for an action. It decides what follows the decision.
type Origin string

// Origins.
const (
	OriginModel   Origin = "model"   // the model, in a conversation that goes on after the yes
	OriginCommand Origin = "command" // a person's own command, such as /forget
	OriginAdmin   Origin = "admin"   // an admin's command, such as /memory forget
)

// Converses reports whether a conversation waits on the action's outcome:
// the model asked for it, is told the result, and answers on.
func (o Origin) Converses() bool { return o == OriginModel || o == "" }

// ForAdmins reports whether the action is an admin's, which only an admin
// may still decide.
func (o Origin) ForAdmins() bool { return o == OriginAdmin }

// AuditEvent is one kind of entry in the audit log of actions.
type AuditEvent string

// Audit events.
const (
	EventRequested   AuditEvent = "requested"
	EventConfirmed   AuditEvent = "confirmed"
	EventCancelled   AuditEvent = "cancelled"
	EventExpired     AuditEvent = "expired"
	EventStarted     AuditEvent = "started" // its tool began to run
	EventExecuted    AuditEvent = "executed"
	EventInterrupted AuditEvent = "interrupted"
	EventRefused     AuditEvent = "refused" // presses by someone who may not decide: one entry each, counted
)

// Action is a tool call held until the person who asked says yes. It is
// bound to its exact arguments: ArgsHash is checked again before it runs.
type Action struct {
	ID            string
	Place         Place
	Requester     int64
	RequesterName string // who asked, by name
	UpdateID      int64  // the turn that asked for it
	CallID        string
	Tool          string
	Args          json.RawMessage
	ArgsHash      string
	Key           string // the call's idempotency key
	Reason        string // why it waits: destructive, policy or model
	Summary       string // what it will do, in words; "" when its tool cannot say
	Origin        Origin
	State         ActionState
	PromptID      int // the message with the buttons; 0 until sent
	FileID        int // the arguments in full as a file; 0 when none
	Settled       bool
	ResultStatus  string // the tool's result once it ran
	DecidedBy     int64
	DeciderName   string // who decided, by name; "" when nobody or unknown
	DecidedUpdate int64  // the button press that decided it
	RetryOf       string // the interrupted action this one asks about again; "" for most
	CreatedAt     time.Time
	ExpiresAt     time.Time
	DecidedAt     time.Time
	StartedAt     time.Time
	ExecutedAt    time.Time
}

// Open reports whether the action still waits for a decision.
func (a Action) Open() bool { return a.State == ActionPending }
