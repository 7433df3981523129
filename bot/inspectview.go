package bot

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/toolbus"
)

// How a trace looks. The message shows every step, in order, each tool
// call with its arguments and result cut to inspectShown characters; a
// trace with more than inspectSteps steps, or any of whose arguments or
// results is longer, comes whole (as stored: each field up to
// memory.MaxTraceField bytes) as a text file below the message. What a
// tool or the model wrote is text: escaped, and its invisible and
// direction-changing characters shown by their code points, so that
// hostile output can neither format the message nor reorder it.

const (
	inspectSteps = 15  // steps the message shows at most
	inspectShown = 300 // characters of a step's arguments or result the message shows
	// inspectRoom is what the message keeps free of MaxUnits for its last
	// line.
	inspectRoom = 200
)

// renderTrace is the message that shows tr, and the whole trace as a text
// file when the message cannot show all of it (nil when it does).
func renderTrace(p lang.Printer, tr memory.Trace) (render.Part, []byte) {
	var b render.Builder
	b.Bold(p.Sprintf("🔍 How this answer came about"))
	b.Text("\n" + traceSummary(p, tr) + "\n")
	whole := tr.StepsLeftOut == 0 && len(tr.Steps) <= inspectSteps
	start := traceStart(tr)
	for i, s := range tr.Steps {
		if i == inspectSteps || b.Units() > render.MaxUnits-inspectRoom-2*inspectShown {
			whole = false
			break
		}
		b.Text("\n")
		b.Bold(strconv.Itoa(i+1) + ". " + stepTitle(p, s))
		b.Text(" " + stepFigures(p, s, start) + "\n")
		for _, f := range stepFields(p, s) {
			shown, cut := clipText(visible(f.text), inspectShown)
			whole = whole && !cut && f.size == 0
			b.Italic(f.name)
			b.Text("\n")
			b.Pre(shown, "")
		}
	}
	if whole {
		return b.Part(), nil
	}
	b.Text("\n" + p.Sprintf("The whole trace is in the file below."))
	return b.Part(), []byte(traceText(p, tr))
}

// traceSummary is the trace's first lines: the model, its tokens, the
// time in all and the outcome.
func traceSummary(p lang.Printer, tr memory.Trace) string {
	models, tools := 0, 0
	for _, s := range tr.Steps {
		if s.Kind == memory.TraceTool {
			tools++
		} else {
			models++
		}
	}
	line := p.Sprintf("Model: %s\nTokens: %d in · %d out\nTime: %s in all · %s\nSteps: %s, %s",
		visible(tr.Model), tr.PromptTokens, tr.ReplyTokens, duration(p, float64(tr.Took.Microseconds())/1000), tr.Outcome,
		p.Sprintf("%d model calls", models), p.Sprintf("%d tool calls", tools))
	if tr.StepsLeftOut > 0 {
		line += p.Sprintf(" (and %d more steps not kept)", tr.StepsLeftOut)
	}
	return line
}

// traceStart is when the trace's first step began.
func traceStart(tr memory.Trace) time.Time {
	if len(tr.Steps) == 0 {
		return time.Time{}
	}
	return tr.Steps[0].Started
}

// stepTitle names a step: the model asked, or the tool called.
func stepTitle(p lang.Printer, s memory.TraceStep) string {
	if s.Kind == memory.TraceTool {
		return "🔧 " + visible(s.Tool)
	}
	if s.Repair {
		return "🧠 " + p.Sprintf("%s (asked to repair its answer)", visible(s.Model))
	}
	return "🧠 " + visible(s.Model)
}

// stepFigures are a step's status, when it began after the first and how
// long it took, and a model call's tokens.
func stepFigures(p lang.Printer, s memory.TraceStep, start time.Time) string {
	parts := []string{}
	if s.Confirmed {
		parts = append(parts, p.Sprintf("☑️ confirmed"))
	}
	if st := stepStatus(p, s); st != "" {
		parts = append(parts, st)
	}
	if !s.Started.IsZero() && !start.IsZero() {
		parts = append(parts, p.Sprintf("at +%s", duration(p, float64(s.Started.Sub(start).Microseconds())/1000)))
	}
	if s.Status != traceHeld {
		parts = append(parts, p.Sprintf("took %s", duration(p, s.TookMS)))
	}
	if s.Kind == memory.TraceModel && (s.PromptTokens > 0 || s.ReplyTokens > 0) {
		parts = append(parts, p.Sprintf("%d in, %d out", s.PromptTokens, s.ReplyTokens))
	}
	return "— " + strings.Join(parts, " · ")
}

// stepStatus is how a step went, in words.
func stepStatus(p lang.Printer, s memory.TraceStep) string {
	switch s.Status {
	case toolbus.StatusOK:
		return p.Sprintf("✅ ok")
	case toolbus.StatusError, traceFailed:
		return p.Sprintf("⚠️ failed")
	case toolbus.StatusDenied:
		return p.Sprintf("⛔ refused")
	case toolbus.StatusCancelled:
		return p.Sprintf("✖️ cancelled")
	case traceHeld:
		return p.Sprintf("⏸ held for a yes")
	case traceStopped:
		return p.Sprintf("⏹ stopped")
	}
	return visible(s.Status)
}

// field is a step's arguments, result or error, with its full size when
// it was cut before it was stored (0 when it was not).
type field struct {
	name, text string
	size       int
}

func stepFields(p lang.Printer, s memory.TraceStep) []field {
	var out []field
	if s.Args != "" {
		out = append(out, field{name: p.Sprintf("arguments") + cutNote(p, s.ArgsBytes), text: s.Args, size: s.ArgsBytes})
	}
	if s.Result != "" {
		out = append(out, field{name: p.Sprintf("result") + cutNote(p, s.ResultBytes), text: s.Result, size: s.ResultBytes})
	}
	if s.Err != "" {
		out = append(out, field{name: p.Sprintf("error"), text: s.Err})
	}
	return out
}

// cutNote says how large a field cut before it was stored was.
func cutNote(p lang.Printer, size int) string {
	if size == 0 {
		return ""
	}
	return p.Sprintf(" (%s in all; the first %s kept)", bytesOf(p, size), bytesOf(p, memory.MaxTraceField))
}

func bytesOf(p lang.Printer, n int) string {
	switch {
	case n >= 1<<20:
		return p.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return p.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return p.Sprintf("%d bytes", n)
}

// duration is ms milliseconds in words: "40 ms", "1.2 s".
func duration(p lang.Printer, ms float64) string {
	if ms < 1000 {
		return p.Sprintf("%d ms", int(ms+0.5))
	}
	return p.Sprintf("%.1f s", ms/1000)
}

// clipText is s cut to n characters, with "…", and whether it was cut.
func clipText(s string, n int) (string, bool) {
	r := []rune(s)
	if len(r) <= n {
		return s, false
	}
	return string(r[:n]) + "…", true
}

// visible is s with its invisible and direction-changing characters, and
// control characters but for line breaks and tabs, written as their code
// points ("⟨U+202E⟩").
func visible(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hidden reports whether r would not show as itself: a control character
// other than a line break or tab, a format character (zero-width spaces
// and joiners, direction marks, embeddings, overrides and isolates, the
// byte order mark).
func hidden(r rune) bool {
	switch {
	case r == '\n', r == '\t':
		return false
	case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
		return true
	}
	return false
}

// traceText is the whole trace as plain text, for the file.
func traceText(p lang.Printer, tr memory.Trace) string {
	var b strings.Builder
	b.WriteString(p.Sprintf("How the answer of update %d came about", tr.UpdateID) + "\n")
	b.WriteString(traceSummary(p, tr) + "\n")
	start := traceStart(tr)
	for i, s := range tr.Steps {
		fmt.Fprintf(&b, "\n%d. %s %s\n", i+1, stepTitle(p, s), stepFigures(p, s, start))
		for _, f := range stepFields(p, s) {
			b.WriteString("-- " + f.name + "\n" + visible(f.text) + "\n")
		}
	}
	return b.String()
}
