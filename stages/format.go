package stages

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"

	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/render"
)

// Argument summaries: each value and the whole line are cut to these many
// characters.
const (
	maxArgValue = 40
	maxArgs     = 80
	maxDoing    = 100 // characters of what a running tool says it does
)

// summarize turns a tool's JSON arguments into one short line such as
// `expression: 6*7, precision: 2`.
func summarize(args json.RawMessage) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(args, &fields) != nil {
		return clip(oneLine(string(args)), maxArgs)
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, name := range names {
		parts = append(parts, name+": "+clip(argValue(fields[name]), maxArgValue))
	}
	return clip(strings.Join(parts, ", "), maxArgs)
}

// argValue shows a string as itself and anything else as compact JSON.
func argValue(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return oneLine(s)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return oneLine(string(raw))
	}
	return buf.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// plainSubject is a tool's subject as its status line may show it: valid
// UTF-8, white space as spaces, without control characters or invisible
// formatting — a direction override would turn the rest of the line
// around. The joiner stays: it holds emoji together.
func plainSubject(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r) && r != '\u200d':
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// clip cuts s to n characters, marking the cut with "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// tail keeps the end of s within n UTF-16 units, cut after a space where
// one is near, marked with a leading "…".
func tail(s string, n int) string {
	if render.Units(s) <= n {
		return s
	}
	r := []rune(s)
	units, start := 1, len(r) // the "…" takes one unit
	for start > 0 {
		w := max(utf16.RuneLen(r[start-1]), 1)
		if units+w > n {
			break
		}
		start--
		units += w
	}
	kept := string(r[start:])
	if i := strings.IndexAny(kept, " \n"); i >= 0 && i < 40 {
		kept = kept[i+1:]
	}
	return "…" + kept
}

// duration shows how long something took: 350 ms, 2.4s, 12s, 1m 05s.
func duration(w lang.Printer, d time.Duration) string {
	switch {
	case d < time.Second:
		return w.Sprintf("%d ms", d.Milliseconds())
	case d < 10*time.Second:
		return w.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return w.Sprintf("%ds", int(d.Seconds()))
	}
	return w.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// elapsedStep is how finely the elapsed time of a running turn is shown:
// in 5-second steps for the first minute, then 15. Coarse steps keep edits
// few; the status changes only when the number does.
func elapsedStep(e time.Duration) time.Duration {
	if e < time.Minute {
		return 5 * time.Second
	}
	return 15 * time.Second
}

// elapsedSuffix is " · 15s" for a turn running that long; nothing in the
// first seconds.
func elapsedSuffix(w lang.Printer, e time.Duration) string {
	step := elapsedStep(e)
	shown := e / step * step
	switch {
	case shown <= 0:
		return ""
	case shown < time.Minute:
		return " · " + w.Sprintf("%ds", int(shown.Seconds()))
	}
	return " · " + duration(w, shown)
}

// preview is the reply so far as the person may see it while the model
// writes: thinking removed, and nothing after a <think> that has not been
// closed yet — the model is still thinking — nor a tag only begun.
func preview(reply string) string { return render.StripThinkingSoFar(reply) }
