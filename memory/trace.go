package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// Trace is what one turn did, step by step, as the inspector shows it.
type Trace struct {
	UpdateID     int64
	ChatID       int64
	Thread       int64
	AskerID      int64 // who the turn was for
	Model        string
	Outcome      string // answered, held, stopped
	Took         time.Duration
	PromptTokens int64
	ReplyTokens  int64
	Steps        []TraceStep
	StepsLeftOut int // steps past MaxTraceSteps, not kept
	CreatedAt    time.Time
}

// TraceStep is one model call or one tool call of a turn.
type TraceStep struct {
	Kind         string    `json:"kind"` // TraceModel or TraceTool
	Started      time.Time `json:"started"`
	TookMS       float64   `json:"took_ms"`
	Model        string    `json:"model,omitempty"`
	PromptTokens int       `json:"prompt_tokens,omitempty"`
	ReplyTokens  int       `json:"reply_tokens,omitempty"`
	Repair       bool      `json:"repair,omitempty"` // a model call that repairs an invalid answer
	Tool         string    `json:"tool,omitempty"`
	Args         string    `json:"args,omitempty"`
	ArgsBytes    int       `json:"args_bytes,omitempty"` // the arguments' full size
	Result       string    `json:"result,omitempty"`
	ResultBytes  int       `json:"result_bytes,omitempty"` // the result's full size
	// Status is how the step went: a tool's ok, error, cancelled or
	// denied (refused), or held (waits for a yes) or stopped; a model
	// call's failed or stopped; "" for a model call that answered.
	Status string `json:"status,omitempty"`
	Err    string `json:"error,omitempty"`
	// Confirmed marks a tool call the person confirmed before it ran.
	Confirmed bool `json:"confirmed,omitempty"`
}

// Kinds of trace steps.
const (
	TraceModel = "model"
	TraceTool  = "tool"
)

// Bounds of a stored trace.
const (
	MaxTraceSteps = 40   // steps kept of one turn; the rest are counted
	MaxTraceField = 4096 // bytes kept of a step's arguments, result or error
)

// SaveTrace stores what turn t did, bounded (boundTrace). A turn traced
// already (run again after an interruption) keeps its newer trace.
func (db *DB) SaveTrace(ctx context.Context, t Trace) error {
	args, err := traceArgs(t, db.Now())
	if err != nil {
		return err
	}
	return db.exec(ctx, "save trace", upsertTrace, args...)
}

// upsertTrace stores a turn's trace, or replaces the one stored (traceArgs).
const upsertTrace = `insert into turn_traces (update_id, chat_id, thread_id, asker_id, model, outcome, took_ms,
		prompt_tokens, reply_tokens, steps, steps_left_out, created_at)
	values ($1::bigint, $2::bigint, $3::bigint, $4::bigint, $5, $6, $7::bigint, $8::bigint, $9::bigint, $10, $11::bigint, $12)
	on conflict (update_id) do update set model = excluded.model, outcome = excluded.outcome, took_ms = excluded.took_ms,
		prompt_tokens = excluded.prompt_tokens, reply_tokens = excluded.reply_tokens, steps = excluded.steps,
		steps_left_out = excluded.steps_left_out`

func traceArgs(t Trace, now time.Time) ([]any, error) {
	t = boundTrace(t)
	steps, err := json.Marshal(t.Steps)
	if err != nil {
		return nil, fmt.Errorf("save trace: %w", err)
	}
	return []any{t.UpdateID, t.ChatID, t.Thread, t.AskerID, storableText(t.Model), t.Outcome, t.Took.Milliseconds(),
		t.PromptTokens, t.ReplyTokens, storable(steps), t.StepsLeftOut, now}, nil
}

// TraceOf returns the trace of the turn of update; found is false when
// none is kept.
func (db *DB) TraceOf(ctx context.Context, update int64) (t Trace, found bool, err error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var took int64
	var steps []byte
	err = db.pool.QueryRow(ctx, `select update_id, chat_id, thread_id, asker_id, model, outcome, took_ms, prompt_tokens,
			reply_tokens, steps, steps_left_out, created_at
		from turn_traces where update_id = $1::bigint`, update).Scan(&t.UpdateID, &t.ChatID, &t.Thread, &t.AskerID,
		&t.Model, &t.Outcome, &took, &t.PromptTokens, &t.ReplyTokens, &steps, &t.StepsLeftOut, &t.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Trace{}, false, nil
	}
	if err != nil {
		return Trace{}, false, db.fail("load trace", err)
	}
	t.Took = time.Duration(took) * time.Millisecond
	if err := json.Unmarshal(steps, &t.Steps); err != nil {
		return Trace{}, false, db.fail("read trace", err)
	}
	return t, true, nil
}

// boundTrace is t as it may be stored: at most MaxTraceSteps steps (the
// rest counted), each argument, result and error cut to MaxTraceField
// bytes with its full size noted, and the values of fields named like
// secrets (password, token, api_key, authorization, …) redacted.
func boundTrace(t Trace) Trace {
	if len(t.Steps) > MaxTraceSteps {
		t.StepsLeftOut += len(t.Steps) - MaxTraceSteps
		t.Steps = t.Steps[:MaxTraceSteps]
	}
	steps := make([]TraceStep, len(t.Steps))
	for i, s := range t.Steps {
		s.Args, s.ArgsBytes = boundSecrets(s.Args, s.ArgsBytes)
		s.Result, s.ResultBytes = boundSecrets(s.Result, s.ResultBytes)
		s.Err, _ = boundSecrets(s.Err, 0)
		s.Tool, _ = boundField(s.Tool, 0)
		s.Model, _ = boundField(s.Model, 0)
		steps[i] = s
	}
	t.Steps = steps
	return t
}

// boundField is s cut to MaxTraceField bytes on a character's edge, and
// its full size: size when it was noted before, else len(s); 0 when s
// was not cut.
func boundField(s string, size int) (string, int) {
	s = storableText(s)
	if size == 0 && len(s) > MaxTraceField {
		size = len(s)
	}
	if len(s) <= MaxTraceField {
		return s, size
	}
	cut := MaxTraceField
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], size
}

// boundSecrets is s redacted (redactSecrets) and cut (boundField), and
// its full size. Only what may be kept is read, with as much again for a
// value that goes on past the cut: a tool's result may be megabytes.
func boundSecrets(s string, size int) (string, int) {
	if size == 0 && len(s) > MaxTraceField {
		size = len(s)
	}
	if len(s) > 2*MaxTraceField {
		s = s[:2*MaxTraceField]
	}
	s, _ = boundField(redactSecrets(s), 0)
	return s, size
}

// namedValue matches a name and its value wherever it is written: a JSON
// member (also as JSON inside a JSON string, its quotes escaped, or cut
// before its end), a web
// address's query parameter, a header written as text. The name may hold
// \u00XX escapes. The value is a string, a flat array or object, or a
// bare word, after an authorization scheme when there is one.
var namedValue = regexp.MustCompile(`((?:[A-Za-z0-9_.\-]|\\u00[0-9A-Fa-f]{2})+)` +
	`((?:\\*["'])?[ \t]*[:=][ \t]*)` +
	`("(?:[^"\\]|\\.)*(?:"|\z)|\\+"(?:[^"\\]|\\+[^"\\])*\\+"|'[^']*'|\[[^\[\]]*\]|\{[^{}]*\}|` +
	`(?i:(?:bearer|basic|digest|token)[ \t]+)?[^\s"'\\,;&{}\[\]:=]+)`)

// bearer matches a bearer credential written anywhere.
var bearer = regexp.MustCompile(`(?i)\b(bearer[ \t]+)[A-Za-z0-9._~+/=-]+`)

// unicodeEscape matches a \u00XX escape in a name.
var unicodeEscape = regexp.MustCompile(`\\u00[0-9A-Fa-f]{2}`)

// secretWords name what holds a secret.
var secretWords = []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "accesskey", "privatekey",
	"authorization", "cookie", "credential", "session"}

// redactSecrets replaces the values named like secrets (secretName),
// wherever and however they are written (namedValue), and bearer
// credentials. After a name that holds no secret the scan goes on inside
// its value, which may be JSON written in a string.
func redactSecrets(s string) string {
	var b strings.Builder
	at := 0
	for at < len(s) {
		m := namedValue.FindStringSubmatchIndex(s[at:])
		if m == nil {
			break
		}
		name, sep, value := s[at+m[2]:at+m[3]], s[at+m[4]:at+m[5]], s[at+m[6]:at+m[7]]
		b.WriteString(s[at : at+m[5]])
		if !secretName(name) {
			at += m[5]
			continue
		}
		at += m[7]
		if !strings.ContainsAny(value[:1], `"\\'[{`) { // a bare value goes on to a space, quote or separator
			for at < len(s) && !strings.ContainsRune(" \t\r\n\"'\\,;&{}[]", rune(s[at])) {
				at++
			}
		}
		b.WriteString(redactedValue(sep, value))
	}
	b.WriteString(s[at:])
	return bearer.ReplaceAllString(b.String(), "${1}"+redacted)
}

// redactedValue stands for a secret value, quoted as it was, or as a JSON
// string after a member's name.
func redactedValue(sep, value string) string {
	quote := value[:strings.IndexFunc(value, func(r rune) bool { return r != '\\' })+1]
	switch {
	case strings.HasSuffix(quote, `"`), quote == "'":
		return quote + redacted + quote
	case strings.ContainsAny(sep, `"'`):
		return `"` + redacted + `"`
	}
	return redacted
}

const redacted = "[redacted]"

// secretName reports whether a member or parameter called name holds a
// secret: its letters, without case, separators and escapes, hold one of
// secretWords ("tokens", a count, does not count), or it is "auth".
func secretName(name string) bool {
	name = unicodeEscape.ReplaceAllStringFunc(name, func(e string) string {
		n, _ := strconv.ParseUint(e[2:], 16, 8)
		return string(rune(n))
	})
	name = strings.ToLower(name)
	if name == "auth" || strings.HasSuffix(name, "-auth") || strings.HasSuffix(name, "_auth") {
		return true
	}
	name = strings.NewReplacer("_", "", "-", "", ".", "", "tokens", "").Replace(name)
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// ExportTrace is the trace of a turn that answered the person.
type ExportTrace struct {
	UpdateID     int64           `json:"update_id"`
	ChatID       int64           `json:"chat_id"`
	Model        string          `json:"model"`
	Outcome      string          `json:"outcome"`
	TookMS       int64           `json:"took_ms"`
	PromptTokens int64           `json:"prompt_tokens"`
	ReplyTokens  int64           `json:"reply_tokens"`
	Steps        json.RawMessage `json:"steps"`
	StepsLeftOut int             `json:"steps_left_out"`
	CreatedAt    time.Time       `json:"created_at"`
}

// exportTraces are the traces of the turns that answered person, the
// newest first within budget bytes of steps; how many older ones did not
// fit is counted.
func exportTraces(ctx context.Context, tx pgx.Tx, person int64, budget int) ([]ExportTrace, int, error) {
	rows, err := tx.Query(ctx, `select update_id, chat_id, model, outcome, took_ms, prompt_tokens, reply_tokens, steps,
			steps_left_out, created_at
		from turn_traces where asker_id = $1::bigint order by created_at desc, update_id desc`, person)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out, left := []ExportTrace{}, 0
	for rows.Next() {
		var e ExportTrace
		if err := rows.Scan(&e.UpdateID, &e.ChatID, &e.Model, &e.Outcome, &e.TookMS, &e.PromptTokens, &e.ReplyTokens,
			&e.Steps, &e.StepsLeftOut, &e.CreatedAt); err != nil {
			return nil, 0, err
		}
		if cost := len(e.Steps) + exportRowCost; cost <= budget {
			budget -= cost
			out = append(out, e)
		} else {
			left++
		}
	}
	return out, left, rows.Err()
}
