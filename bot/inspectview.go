package bot

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

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
	inspectName = 64 // characters of a model's or tool's name shown
)

// renderTrace is the message that shows tr, and the whole trace as a text
// file when the message cannot show all of it (nil when it does). A step
// is shown only when all of it fits, in Telegram's units and entities.
func renderTrace(tr memory.Trace) (render.Part, []byte) {
	var b render.Builder
	b.Bold("🔍 How this answer came about")
	b.Text("\n" + traceSummary(tr) + "\n")
	whole := tr.StepsLeftOut == 0 && len(tr.Steps) <= inspectSteps
	start, entities := traceStart(tr), 1
	for i, s := range tr.Steps {
		pieces, cut := stepPieces(i, s, start)
		if i == inspectSteps || b.Units()+pieces.units() > render.MaxUnits-inspectRoom ||
			entities+pieces.entities() > render.MaxEntities {
			whole = false
			break
		}
		whole = whole && !cut
		entities += pieces.entities()
		pieces.add(&b)
	}
	if whole {
		return b.Part(), nil
	}
	b.Text("\nThe whole trace is in the file below.")
	return b.Part(), []byte(traceText(tr))
}

// piece is a span of a rendered step, in its style.
type piece struct {
	style string // "", "b", "i" or "pre"
	text  string
}

type pieces []piece

// stepPieces are step s, the i-th, as the message shows it, and whether
// any of its fields is cut.
func stepPieces(i int, s memory.TraceStep, start time.Time) (pieces, bool) {
	ps := pieces{{"", "\n"}, {"b", strconv.Itoa(i+1) + ". " + stepTitle(s)}, {"", " " + stepFigures(s, start) + "\n"}}
	cut := false
	for _, f := range stepFields(s) {
		shown, clipped := clipText(visible(f.text), inspectShown)
		cut = cut || clipped || f.size != 0
		ps = append(ps, piece{"i", f.name}, piece{"", "\n"}, piece{"pre", shown})
	}
	return ps, cut
}

func (ps pieces) units() int {
	n := 0
	for _, p := range ps {
		n += render.Units(strings.ToValidUTF8(p.text, "\uFFFD"))
	}
	return n
}

// entities are how many pieces of formatting ps bring.
func (ps pieces) entities() int {
	n := 0
	for _, p := range ps {
		if p.style != "" && p.text != "" {
			n++
		}
	}
	return n
}

func (ps pieces) add(b *render.Builder) {
	for _, p := range ps {
		switch p.style {
		case "b":
			b.Bold(p.text)
		case "i":
			b.Italic(p.text)
		case "pre":
			b.Pre(p.text, "")
		default:
			b.Text(p.text)
		}
	}
}

// traceSummary is the trace's first lines: the model, its tokens, the
// time in all and the outcome.
func traceSummary(tr memory.Trace) string {
	models, tools := 0, 0
	for _, s := range tr.Steps {
		if s.Kind == memory.TraceTool {
			tools++
		} else {
			models++
		}
	}
	line := fmt.Sprintf("Model: %s\nTokens: %d in · %d out\nTime: %s in all · %s\nSteps: %s, %s",
		traceName(tr.Model), tr.PromptTokens, tr.ReplyTokens, duration(float64(tr.Took.Microseconds())/1000), tr.Outcome,
		count(models, "model call"), count(tools, "tool call"))
	if tr.StepsLeftOut > 0 {
		line += fmt.Sprintf(" (and %d more steps not kept)", tr.StepsLeftOut)
	}
	return line
}

// count is n of what, in words: "1 tool call", "2 tool calls".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// traceStart is when the trace's first step began.
func traceStart(tr memory.Trace) time.Time {
	if len(tr.Steps) == 0 {
		return time.Time{}
	}
	return tr.Steps[0].Started
}

// stepTitle names a step: the model asked, or the tool called.
func stepTitle(s memory.TraceStep) string {
	if s.Kind == memory.TraceTool {
		return "🔧 " + traceName(s.Tool)
	}
	if s.Repair {
		return "🧠 " + traceName(s.Model) + " (asked to repair its answer)"
	}
	return "🧠 " + traceName(s.Model)
}

// traceName is a model's or a tool's name as shown: a model may call a tool by
// any name, of any length.
func traceName(s string) string {
	shown, _ := clipText(visible(s), inspectName)
	return shown
}

// stepFigures are a step's status, when it began after the first and how
// long it took, and a model call's tokens.
func stepFigures(s memory.TraceStep, start time.Time) string {
	parts := []string{}
	if s.Confirmed {
		parts = append(parts, "☑️ confirmed")
	}
	if st := stepStatus(s); st != "" {
		parts = append(parts, st)
	}
	if !s.Started.IsZero() && !start.IsZero() {
		parts = append(parts, "at +"+duration(float64(s.Started.Sub(start).Microseconds())/1000))
	}
	if s.Status != traceHeld {
		parts = append(parts, "took "+duration(s.TookMS))
	}
	if s.Kind == memory.TraceModel && (s.PromptTokens > 0 || s.ReplyTokens > 0) {
		parts = append(parts, fmt.Sprintf("%d in, %d out", s.PromptTokens, s.ReplyTokens))
	}
	return "— " + strings.Join(parts, " · ")
}

// stepStatus is how a step went, in words.
func stepStatus(s memory.TraceStep) string {
	switch s.Status {
	case toolbus.StatusOK:
		return "✅ ok"
	case toolbus.StatusError, traceFailed:
		return "⚠️ failed"
	case toolbus.StatusDenied:
		return "⛔ refused"
	case toolbus.StatusCancelled:
		return "✖️ cancelled"
	case traceHeld:
		return "⏸ held for a yes"
	case traceStopped:
		return "⏹ stopped"
	}
	return traceName(s.Status)
}

// field is a step's arguments, result or error, with its full size when
// it was cut before it was stored (0 when it was not).
type field struct {
	name, text string
	size       int
}

func stepFields(s memory.TraceStep) []field {
	var out []field
	if s.Args != "" {
		out = append(out, field{name: "arguments" + cutNote(s.ArgsBytes), text: s.Args, size: s.ArgsBytes})
	}
	if s.Result != "" {
		out = append(out, field{name: "result" + cutNote(s.ResultBytes), text: s.Result, size: s.ResultBytes})
	}
	if s.Err != "" {
		out = append(out, field{name: "error", text: s.Err})
	}
	return out
}

// cutNote says how large a field cut before it was stored was.
func cutNote(size int) string {
	if size == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s in all; the first %s kept)", bytesOf(size), bytesOf(memory.MaxTraceField))
}

func bytesOf(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// duration is ms milliseconds in words: "40 ms", "1.2 s".
func duration(ms float64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", int(ms+0.5))
	}
	return fmt.Sprintf("%.1f s", ms/1000)
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
func traceText(tr memory.Trace) string {
	var b strings.Builder
	b.WriteString("How the answer of update " + strconv.FormatInt(tr.UpdateID, 10) + " came about\n")
	b.WriteString(traceSummary(tr) + "\n")
	start := traceStart(tr)
	for i, s := range tr.Steps {
		fmt.Fprintf(&b, "\n%d. %s %s\n", i+1, stepTitle(s), stepFigures(s, start))
		for _, f := range stepFields(s) {
			b.WriteString("-- " + f.name + "\n" + visible(f.text) + "\n")
		}
	}
	return b.String()
}
