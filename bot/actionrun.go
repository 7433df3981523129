package bot

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/toolbus"
)

// A confirmed action runs once. It is marked running, in a transaction of
// its own, just before its tool runs; its result and the executed state
// are written together after. A crash or a stop in between leaves it
// running with no outcome, and whatever runs the press again finds it so
// (resumeAction): the tool is not run again blindly. A tool that can tell
// (toolbus.Spec.Happened) says whether the call took effect — then it is
// finished, or run now, once. Otherwise nobody can tell: the action ends
// interrupted, the model is told the outcome is unknown, and the person is
// asked again by a new prompt that says so.

// errAskedAgain ends the turn of a model's action that was interrupted:
// the turn answers that the outcome is unknown, and shows the new prompt.
var errAskedAgain = errors.New("the action was interrupted and is asked again")

// execute runs a confirmed model's action in its conversation's turn,
// stores its result and shows the outcome in its prompt. One that an
// interrupted run finished is not run again.
func (b *Bot) execute(ctx context.Context, w *worker, a ryo.Action, observe func(ryo.Step)) error {
	a, err := b.resumeAction(ctx, w, a)
	if err != nil {
		return err
	}
	if a.State == ryo.ActionInterrupted {
		return errAskedAgain
	}
	return b.runOnce(ctx, w, a, observe)
}

// executeCommand runs a confirmed action a command asked for, and shows
// the outcome in its prompt: there is no conversation to go on with. One
// that was interrupted is asked again in a prompt of its own, under the
// old one.
func (b *Bot) executeCommand(ctx context.Context, w *worker, a ryo.Action, caller ryo.Caller) error {
	ctx = ryo.WithCaller(ctx, caller)
	a, err := b.resumeAction(ctx, w, a)
	if err != nil {
		return err
	}
	if a.State == ryo.ActionInterrupted {
		return b.showAction(ctx, talk{id: a.DecidedUpdate, w: w, place: a.Place, replyTo: a.PromptID, words: b.wordsOfAction(ctx, a)})
	}
	return b.runOnce(ctx, w, a, func(ryo.Step) {})
}

// runOnce runs a confirmed action's tool, marked running first, then
// stores its result; an action running already is run only when resumeAction
// found that it had not happened. A run cut short by a stop stays running,
// for resumeAction to find at the next start.
func (b *Bot) runOnce(ctx context.Context, w *worker, a ryo.Action, observe func(ryo.Step)) error {
	var allowed []string // the model's call: the tools the person may use now
	if a.Origin.Converses() {
		err := b.record(ctx, "find tier", func(ctx context.Context) (err error) {
			allowed, err = b.toolsOfID(ctx, a.Requester)
			return err
		})
		if err != nil {
			return err
		}
	}
	// Shielded from the moment it is marked running: a call-off that comes
	// while the mark is on its way (the chat taken over after the mark read
	// its lease) waits for the tool, which runs here and nowhere else.
	var res toolbus.Result
	var err error
	ran := false
	w.shield(func() {
		if a.State == ryo.ActionConfirmed {
			if ctx.Err() != nil {
				err = context.Cause(ctx) // called off or stopping: left confirmed, for whoever runs it next
				return
			}
			if err = b.record(ctx, "start action", func(ctx context.Context) (err error) {
				a, err = b.db.StartAction(ctx, a.ID)
				return err
			}); err != nil {
				return
			}
		}
		if a.State == ryo.ActionRunning {
			ran = true
			res = b.runAction(ctx, a, allowed, observe)
		}
	})
	if err != nil {
		return err
	}
	if ran {
		if res.Status == toolbus.StatusCancelled && ctx.Err() != nil {
			return ctx.Err() // shutting down: whether it happened is for resumeAction to find out
		}
		if err := b.finishAction(ctx, &a, res); err != nil {
			return err
		}
	}
	b.settle(ctx, w, a)
	return nil
}

// finishAction stores the result of a's run and marks it executed.
func (b *Bot) finishAction(ctx context.Context, a *ryo.Action, res toolbus.Result) error {
	err := b.record(ctx, "finish action", func(ctx context.Context) (err error) {
		*a, err = b.db.FinishAction(ctx, a.ID, b.resultMessage(*a, res, a.DecidedUpdate), res.Status)
		return err
	})
	if err == nil {
		b.log.InfoContext(ctx, "action executed", "action", a.ID, "tool", a.Tool, "origin", a.Origin, "status", res.Status, "latency", res.Latency)
	}
	return err
}

// resumeAction deals with an action found running: its run was cut short before
// its outcome was recorded. Its tool is asked whether it happened: if so
// it is finished as done; if not it stays running, to be run now; if the
// tool cannot tell, it is interrupted and the person asked again. ctx
// carries the caller the tool runs for. Any other action is returned as
// it is.
func (b *Bot) resumeAction(ctx context.Context, w *worker, a ryo.Action) (ryo.Action, error) {
	if a.State != ryo.ActionRunning {
		return a, nil
	}
	log := b.log.With("action", a.ID, "tool", a.Tool, "chat_id", a.Place.ChatID)
	switch b.toolsFor(a.Origin).Happened(ctx, toolbus.Call{ID: a.CallID, Key: a.Key, Tool: a.Tool, Args: a.Args, Confirmed: true}) {
	case toolbus.NotHappened:
		log.WarnContext(ctx, "an action's run was cut short; its tool says it did not happen, so it runs now")
		return a, nil
	case toolbus.Happened:
		log.WarnContext(ctx, "an action's run was cut short; its tool says it happened, so it is not run again")
		out, _ := json.Marshal(map[string]any{"done": true, "note": "the bot was stopped while " + a.Tool + " ran, after it had taken effect"})
		err := b.finishAction(ctx, &a, toolbus.Result{CallID: a.CallID, Key: a.Key, Tool: a.Tool, Args: a.Args, Status: toolbus.StatusOK, Output: out})
		return a, err
	}
	log.WarnContext(ctx, "an action's run was cut short and whether it happened cannot be told; asking the person again")
	return b.interrupt(ctx, w, a)
}

// interrupt ends an action whose outcome nobody can tell, shows so in its
// prompt, and stores the same call asked of the person again, as the
// action of the press that confirmed it (its turn shows it). Run again
// after a crash, it finds what it did.
func (b *Bot) interrupt(ctx context.Context, w *worker, a ryo.Action) (ryo.Action, error) {
	call := toolbus.Call{ID: a.CallID, Tool: a.Tool, Args: a.Args, Key: toolbus.Key(a.DecidedUpdate, 0, a.Tool, a.Args) + "-again"}
	again := b.newAction(ctx, ryo.User{ID: a.Requester}, call, a.Reason, a.Origin)
	again.UpdateID = a.DecidedUpdate
	err := b.record(ctx, "interrupt action", func(ctx context.Context) (err error) {
		a, again, err = b.db.InterruptAction(ctx, a.ID, b.resultMessage(a, interrupted(a), a.DecidedUpdate), again)
		return err
	})
	if err != nil {
		return a, err
	}
	b.settle(ctx, w, a)
	return a, nil
}

// runAction runs the tool with the arguments the person saw, through the
// tool bus, if allowed (nil: any tool) has it, telling observe (the
// turn's status message).
func (b *Bot) runAction(ctx context.Context, a ryo.Action, allowed []string, observe func(ryo.Step)) toolbus.Result {
	spec, _ := b.toolsFor(a.Origin).Lookup(a.Tool)
	doing, subject := spec.DoingOf(a.Args)
	observe(ryo.Step{Kind: ryo.StepTool, Tool: a.Tool, Args: a.Args, Doing: doing, Subject: subject})
	var res toolbus.Result
	switch {
	case toolbus.ArgsHash(a.Args) != a.ArgsHash:
		b.log.ErrorContext(ctx, "an action's stored arguments differ from those shown; not running it", "action", a.ID, "tool", a.Tool)
		res = toolbus.Result{CallID: a.CallID, Key: a.Key, Tool: a.Tool, Args: a.Args, Status: toolbus.StatusDenied,
			Error: toolbus.Errorf("arguments_changed", "the arguments changed after the person saw them, so %s was not done", a.Tool)}
	case a.Reason != toolbus.HoldDestructive &&
		b.toolsFor(a.Origin).Hold(toolbus.Call{Tool: a.Tool, Args: a.Args, Allowed: allowed}) == toolbus.HoldDestructive:
		// The tool was replaced (its API's document changed) and now does
		// what cannot be undone: the person confirmed a lesser thing.
		b.log.WarnContext(ctx, "an action's tool became destructive after the person saw it; not running it", "action", a.ID, "tool", a.Tool)
		res = toolbus.Result{CallID: a.CallID, Key: a.Key, Tool: a.Tool, Args: a.Args, Status: toolbus.StatusDenied,
			Error: toolbus.Errorf("tool_changed", "%s changed after the person saw it and now cannot be undone, so it was not done; ask again if it should still be done", a.Tool)}
	default:
		res = b.toolsFor(a.Origin).Run(ctx, toolbus.Call{ID: a.CallID, Key: a.Key, Tool: a.Tool, Args: a.Args, Confirmed: true, Allowed: allowed})
	}
	observe(ryo.Step{Kind: ryo.StepToolDone, Tool: a.Tool, Args: a.Args, Status: res.Status, Took: res.Latency, Result: res.Text()})
	return res
}

// declined is the result the model is shown for an action the person
// cancelled.
func declined(a ryo.Action) toolbus.Result {
	return toolbus.Result{CallID: a.CallID, Key: a.Key, Tool: a.Tool, Args: a.Args, Status: toolbus.StatusCancelled,
		Error: toolbus.Errorf("declined", "the person pressed Cancel, so %s was not done", a.Tool)}
}

// expired is the result the model is shown for an action nobody decided
// in time.
func expired(a ryo.Action) toolbus.Result {
	return toolbus.Result{CallID: a.CallID, Key: a.Key, Tool: a.Tool, Args: a.Args, Status: toolbus.StatusCancelled,
		Error: toolbus.Errorf("expired", "the person did not confirm in time, so %s was not done", a.Tool)}
}

// interrupted is the result the model is shown for an action whose run
// was cut short with no way to tell whether it happened.
func interrupted(a ryo.Action) toolbus.Result {
	return toolbus.Result{CallID: a.CallID, Key: a.Key, Tool: a.Tool, Args: a.Args, Status: toolbus.StatusError,
		Error: toolbus.Errorf("interrupted", "the bot was stopped while %s ran, so whether it was done is unknown; the person was asked again whether to do it", a.Tool)}
}

// resultMessage is res as the tool-result message stored in a's place; none
// for an action a command asked for, which no conversation waits on.
func (b *Bot) resultMessage(a ryo.Action, res toolbus.Result, update int64) ryo.Message {
	if !a.Origin.Converses() {
		return ryo.Message{}
	}
	return ryo.Message{Place: a.Place, Kind: ryo.KindToolResult, Text: res.Text(), UpdateID: update, Metadata: res.Metadata()}
}
