package toolbus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
)

// Result statuses.
const (
	StatusOK        = "ok"
	StatusError     = "error"
	StatusCancelled = "cancelled"
	StatusDenied    = "denied"
)

// Call is one command of the model.
type Call struct {
	ID   string // unique per call, e.g. "u100-r2"
	Key  string // idempotency key; see Key
	Tool string
	Args json.RawMessage
	// AskFirst is the model's requiresConfirmation: a tool that changes
	// something then waits for the person's yes.
	AskFirst bool
	// Confirmed: the person said yes to this very call. A call that Hold
	// holds runs only then.
	Confirmed bool
	// Allowed, when not nil, names the tools the person may use (their
	// tier): a call of any other is refused with StatusDenied, even when
	// the model makes it, and is never held for a yes. Nil allows every
	// tool; an empty list, none.
	Allowed []string
}

// permitted reports whether c's tool is among those it may call.
func (c Call) permitted() bool {
	return c.Allowed == nil || slices.Contains(c.Allowed, c.Tool)
}

// Policy says which calls wait for the person's yes, beyond those the
// model asks to confirm.
type Policy int

const (
	// ConfirmDestructive holds destructive tools only.
	ConfirmDestructive Policy = iota
	// ConfirmChanges holds every tool that changes something.
	ConfirmChanges
)

// Reasons a call waits for the person's yes.
const (
	HoldDestructive = "destructive" // the tool changes something for good
	HoldPolicy      = "policy"      // the bot confirms every change
	HoldModel       = "model"       // the model asked to check first
)

// Hold reports why the call must wait for the person's yes before it runs,
// or "" when it may run now. Read-only tools are never held: they change
// nothing there would be to confirm. Neither is a call that cannot run at
// all (an unknown tool, one the person may not use, arguments that do not
// fit): Run tells the model
// what is wrong, and nobody is asked to approve a mistake.
func (r *Registry) Hold(c Call) string {
	e, ok := r.entry(c.Tool)
	if !ok || !c.permitted() || e.spec.Effect == ReadOnly || e.schema.Validate(c.Args) != nil {
		return ""
	}
	switch {
	case e.spec.Effect == Destructive:
		return HoldDestructive
	case r.policy == ConfirmChanges:
		return HoldPolicy
	case c.AskFirst:
		return HoldModel
	}
	return ""
}

// Explain says in words what call c would do, for the person who must
// confirm it; "" when its tool cannot say.
func (r *Registry) Explain(ctx context.Context, c Call) string {
	e, ok := r.entry(c.Tool)
	if !ok || e.spec.Explain == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, e.spec.Timeout)
	defer cancel()
	return e.spec.Explain(ctx, c.Args)
}

// Happened asks call c's tool whether c took effect already, for a
// confirmed call whose run was cut short; Unknown when the tool cannot
// tell, or cannot be asked in time.
func (r *Registry) Happened(ctx context.Context, c Call) Happening {
	e, ok := r.entry(c.Tool)
	if !ok || e.spec.Happened == nil {
		return Unknown
	}
	ctx, cancel := context.WithTimeout(ctx, e.spec.Timeout)
	defer cancel()
	return e.spec.Happened(ctx, c.Args)
}

// ArgsHash is the hash an action is bound to: of the arguments in
// canonical form, whatever their order or spacing.
func ArgsHash(args json.RawMessage) string {
	sum := sha256.Sum256(canonical(args))
	return hex.EncodeToString(sum[:])
}

// Result is what came of a call.
type Result struct {
	CallID    string
	Key       string
	Tool      string
	Args      json.RawMessage
	Status    string
	Output    json.RawMessage // the tool's result, when Status is ok
	Error     *Error          // why not, otherwise
	Latency   time.Duration
	Truncated bool
	Attempts  int
	// Attachments are the files the tool made for the person (Attached),
	// when Status is ok.
	Attachments []ryo.Attachment
}

// Key derives the idempotency key of a call from the turn, the round of the
// agent loop, the tool and its arguments (whatever their order or spacing).
// For a tool that changes something, pass round 0: the same command twice in
// one turn is then done once.
func Key(turn int64, round int, tool string, args json.RawMessage) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%d\x00%s\x00%s", turn, round, tool, canonical(args))
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// Run validates and runs a call. A call whose key already ran returns that
// run's result without running again. Unknown tools, invalid arguments and
// failures come back as results the model can read, never as Go errors.
func (r *Registry) Run(ctx context.Context, c Call) Result {
	if res, ok := r.remembered(c.Key); ok {
		return res
	}
	_, known := r.entry(c.Tool) // before it runs: a tool replaced meanwhile keeps its name
	ctx, span := r.startSpan(ctx, c, known)
	res := r.run(ctx, c)
	endSpan(span, res)
	r.observe(res, known)
	if res.Status != StatusCancelled && (len(res.Attachments) == 0 || r.changes(c.Tool)) {
		// The files of a tool that changes nothing are not kept here:
		// they may be large, and it can make them again; the store
		// keeps them with the stored result.
		r.remember(res)
	}
	return res
}

// changes reports whether tool changes something.
func (r *Registry) changes(tool string) bool {
	e, ok := r.entry(tool)
	return ok && e.spec.Effect != ReadOnly
}

func (r *Registry) run(ctx context.Context, c Call) Result {
	res := Result{CallID: c.ID, Key: c.Key, Tool: c.Tool, Args: c.Args}
	e, ok := r.entry(c.Tool)
	if !ok {
		return res.fail(StatusError, Errorf(CodeUnknownTool, "there is no tool %q; the tools are: %s", c.Tool, r.names(c.Allowed)))
	}
	if !c.permitted() {
		return res.fail(StatusDenied, Errorf(CodeNotAllowed,
			"%s is not among the tools this person may use, so it was not run; answer without it. The tools they may use are: %s", c.Tool, r.names(c.Allowed)))
	}
	if err := e.schema.Validate(c.Args); err != nil {
		return res.fail(StatusError, Errorf(CodeInvalidArgs, "the arguments do not fit %s's schema: %v", c.Tool, err))
	}
	if !c.Confirmed && r.Hold(c) != "" {
		return res.fail(StatusDenied, Errorf(CodeNeedsConfirm,
			"%s needs the person's confirmation first; it was not done", c.Tool))
	}
	started := r.clock.Now()
	out, err := r.attempts(ctx, e, c.Args, &res)
	res.Latency = r.clock.Now().Sub(started)
	if err != nil {
		return res.failure(ctx, err, e.spec.Timeout)
	}
	return res.ok(out, e.spec.MaxResult)
}

// attempts calls the tool, once more after a failure when it changes
// nothing. A call that reached its deadline is not tried again: that
// would double the wait and ask a slow service twice.
func (r *Registry) attempts(ctx context.Context, e *entry, args json.RawMessage, res *Result) (any, error) {
	tries := 1
	if e.spec.Effect == ReadOnly {
		tries = 2
	}
	var out any
	var err error
	for res.Attempts = 1; res.Attempts <= tries; res.Attempts++ {
		out, err = callOnce(ctx, e.spec, args)
		var modelErr *Error
		if err == nil || errors.As(err, &modelErr) || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			break
		}
	}
	res.Attempts = min(res.Attempts, tries)
	return out, err
}

// callOnce runs the tool under its deadline, turning a panic into an error.
// A tool that does not return by its deadline is left to finish on its own;
// the call reports the deadline. A tool that returns a result is believed,
// even when the deadline passed meanwhile: what it did is done.
func callOnce(ctx context.Context, s Spec, args json.RawMessage) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	type outcome struct {
		out any
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{err: fmt.Errorf("panic: %v", p)}
			}
		}()
		out, err := s.Tool.Call(ctx, args)
		done <- outcome{out, err}
	}()
	select {
	case o := <-done:
		return o.out, o.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (res Result) fail(status string, err *Error) Result {
	res.Status, res.Error = status, err
	return res
}

func (res Result) failure(ctx context.Context, err error, timeout time.Duration) Result {
	var modelErr *Error
	switch {
	case errors.As(err, &modelErr):
		return res.fail(StatusError, modelErr)
	case ctx.Err() != nil:
		return res.fail(StatusCancelled, Errorf("cancelled", "the turn ended before %s finished", res.Tool))
	case errors.Is(err, context.DeadlineExceeded):
		return res.fail(StatusError, Errorf(CodeTimeout,
			"%s did not finish within %v; what it was doing may still happen, so do not repeat it unless the person asks", res.Tool, timeout))
	}
	return res.fail(StatusError, Errorf(CodeFailed, "%s failed: %v", res.Tool, err))
}

// ok encodes the output, cutting it to max bytes with a marker, and takes
// the files an Attached output carries.
func (res Result) ok(out any, max int) Result {
	if a, ok := out.(Attached); ok {
		if err := checkFiles(a.Files); err != nil {
			return res.fail(StatusError, Errorf(CodeFailed, "%s made a file that cannot be sent: %v", res.Tool, err))
		}
		out, res.Attachments = a.Result, a.Files
	}
	data, err := json.Marshal(out)
	if err != nil {
		return res.fail(StatusError, Errorf(CodeFailed, "%s returned a result that is not JSON", res.Tool))
	}
	res.Status = StatusOK
	if len(data) <= max {
		res.Output = data
		return res
	}
	res.Truncated = true
	note := fmt.Sprintf("the result was %d bytes; only the beginning is shown", len(data))
	// The partial text is escaped again inside the wrapper: cut until the
	// whole fits.
	for cut := max; cut > 0; cut = cut * 9 / 10 {
		res.Output, _ = json.Marshal(map[string]any{"truncated": note, "partial": strings.ToValidUTF8(string(data[:cut]), "")})
		if len(res.Output) <= max {
			break
		}
	}
	return res
}

// checkFiles refuses files a tool attached that could not be delivered.
func checkFiles(files []ryo.Attachment) error {
	if len(files) > MaxAttachments {
		return fmt.Errorf("%d files, more than %d", len(files), MaxAttachments)
	}
	for _, f := range files {
		if err := f.Check(); err != nil {
			return err
		}
	}
	return nil
}
