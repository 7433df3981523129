package stages

import (
	"slices"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
)

// board is what a turn's status message shows: the tools that ran, the
// stage the turn is in and for how long, and the reply as it is written.
// It is plain data; the turn renders it whenever it may edit.
type board struct {
	w       lang.Printer // the words of the status message
	began   time.Time    // when the person started waiting
	resumed bool         // the turn was interrupted and picked up again
	forced  string       // the tool the person chose for this turn
	stage   ryo.StepKind
	call    int    // model calls so far
	tool    string // the tool running or waiting for a yes
	args    string // its arguments, summarised
	doing   string // what the running tool says it does; "" to show its name and arguments
	reply   string // the reply so far
	done    []toolRun
	// stopping: someone pressed stop; what was written so far is kept
	stopping bool
}

// toolRun is a tool that finished.
type toolRun struct {
	tool, args, status string
	doing              string // what it said it did; shown instead of its name and arguments
	took               time.Duration
}

// previewUnits bounds the reply shown in the status message; with the lines
// above it the message stays under Telegram's limit.
const previewUnits = 3000

func (b *board) observe(s ryo.Step) {
	switch s.Kind {
	case ryo.StepForced:
		b.forced = s.Tool
	case ryo.StepThinking:
		b.stage, b.call, b.reply = s.Kind, s.Call, ""
	case ryo.StepTool, ryo.StepConfirm:
		b.stage, b.tool, b.args, b.doing = s.Kind, s.Tool, summarize(s.Args), clip(oneLine(b.w.MessageAbout(s.Doing, plainSubject(s.Subject))), maxDoing)
		if s.Subject != "" && strings.TrimSpace(plainSubject(s.Subject)) == "" {
			b.doing = "" // nothing of the subject to show: the tool's name and arguments
		}
	case ryo.StepToolDone:
		b.done = append(b.done, toolRun{tool: s.Tool, args: b.argsOf(s.Tool), doing: b.doingOf(s.Tool), status: s.Status, took: s.Took})
		b.stage, b.tool, b.args, b.doing = ryo.StepThinking, "", "", ""
	case ryo.StepWriting:
		b.reply = s.Reply
		if preview(s.Reply) != "" { // until then the model is thinking aloud
			b.stage = s.Kind
		}
	}
}

// argsOf returns the summarised arguments of the tool that was running.
func (b *board) argsOf(tool string) string {
	if b.tool == tool {
		return b.args
	}
	return ""
}

// doingOf returns what the tool that was running said it did. A quick
// tool is done before the status message shows it running: its line then
// says what it did, not its arguments (a chart's would be raw JSON).
func (b *board) doingOf(tool string) string {
	if b.tool == tool {
		return b.doing
	}
	return ""
}

// writing reports whether the reply is being written.
func (b *board) writing() bool { return b.stage == ryo.StepWriting }

// text is the status message at now. withPreview shows the reply so far
// under the stage; without, it streams elsewhere (a draft).
func (b *board) text(now time.Time, withPreview bool) string {
	var lines []string
	if b.resumed {
		lines = append(lines, b.w.Sprintf("🔄 Picked up again after an interruption"))
	}
	if b.forced != "" {
		lines = append(lines, b.w.Sprintf("⚡ using %s", b.forced))
	}
	for _, r := range b.done {
		lines = append(lines, r.line(b.w))
	}
	lines = append(lines, b.stageLine()+elapsedSuffix(b.w, now.Sub(b.began)))
	text := strings.Join(lines, "\n")
	if reply := preview(b.reply); withPreview && b.writing() && reply != "" {
		text += "\n\n" + tail(reply, previewUnits)
	}
	return text
}

func (b *board) stageLine() string {
	if b.stopping {
		return b.w.Sprintf(stoppingText)
	}
	switch b.stage {
	case ryo.StepTool:
		if b.doing != "" {
			return b.w.Message(b.doing) + "…"
		}
		return "🔧 " + withArgs(b.tool, b.args) + "…"
	case ryo.StepConfirm:
		return b.w.Sprintf("✋ Waiting for your confirmation: %s", withArgs(b.tool, b.args))
	case ryo.StepWriting:
		return b.w.Sprintf("✍️ Writing…")
	}
	if b.call > 1 {
		return b.w.Sprintf("🤔 Thinking… (step %d)", b.call)
	}
	return b.w.Sprintf("🤔 Thinking…")
}

func (r toolRun) line(w lang.Printer) string {
	name := withArgs(r.tool, r.args)
	if r.doing != "" {
		name = w.Message(r.doing)
	}
	switch r.status {
	case "ok":
		return "✅ " + name + " · " + duration(w, r.took)
	case "cancelled":
		return w.Sprintf("🚫 %s · cancelled", name)
	case "denied":
		return w.Sprintf("⛔ %s · not allowed", name)
	}
	return w.Sprintf("❌ %s · failed after %s", name, duration(w, r.took))
}

func withArgs(tool, args string) string {
	if args == "" {
		return tool
	}
	return tool + " — " + args
}

// changesAt is when the elapsed time shown next changes.
func (b *board) changesAt(now time.Time) time.Time {
	e := now.Sub(b.began)
	step := elapsedStep(e)
	return b.began.Add((e/step + 1) * step)
}

// summary is the one line a status message keeps once the answer came as
// messages of its own: how long it took and which tools ran.
func summary(w lang.Printer, took time.Duration, tools []string) string {
	line := w.Sprintf("✅ Answered in %s", duration(w, took))
	if len(tools) > 0 {
		line += w.Sprintf(" · used %s", strings.Join(unique(tools), ", "))
	}
	return line
}

// stoppedSummary is summary for a turn someone stopped.
func stoppedSummary(w lang.Printer, took time.Duration, tools []string) string {
	line := w.Sprintf("⏹ Stopped after %s", duration(w, took))
	if len(tools) > 0 {
		line += w.Sprintf(" · used %s", strings.Join(unique(tools), ", "))
	}
	return line
}

// unique keeps the first of each name, in order.
func unique(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// Texts of resolved status messages.
const (
	failedPrefix = "⚠️ "
	pausedText   = "⏸ Paused — I'll pick this up again shortly."
	stoppingText = "⏹ Stopping…"
)
