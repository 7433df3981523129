package memory

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
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
	t = boundTrace(t)
	steps, err := json.Marshal(t.Steps)
	if err != nil {
		return err
	}
	return db.tx(ctx, "save trace", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `insert into turn_traces (update_id, chat_id, thread_id, asker_id, model, outcome, took_ms,
				prompt_tokens, reply_tokens, steps, steps_left_out, created_at)
			values ($1::bigint, $2::bigint, $3::bigint, $4::bigint, $5, $6, $7::bigint, $8::bigint, $9::bigint, $10, $11::bigint, $12)
			on conflict (update_id) do update set model = excluded.model, outcome = excluded.outcome, took_ms = excluded.took_ms,
				prompt_tokens = excluded.prompt_tokens, reply_tokens = excluded.reply_tokens, steps = excluded.steps,
				steps_left_out = excluded.steps_left_out`,
			t.UpdateID, t.ChatID, t.Thread, t.AskerID, storableText(t.Model), t.Outcome, t.Took.Milliseconds(),
			t.PromptTokens, t.ReplyTokens, storable(steps), t.StepsLeftOut, db.Now())
		return err
	})
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
		s.Args, s.ArgsBytes = boundField(redactSecrets(s.Args), s.ArgsBytes)
		s.Result, s.ResultBytes = boundField(redactSecrets(s.Result), s.ResultBytes)
		s.Err, _ = boundField(s.Err, 0)
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

// secretField matches a JSON member whose name says it holds a secret,
// with its string value.
var secretField = regexp.MustCompile(`(?i)("[^"\\]*(?:password|passwd|secret|token|api[_-]?key|apikey|authorization|cookie|credential)[^"\\]*"\s*:\s*)"(?:[^"\\]|\\.)*"`)

// redactSecrets replaces the string values of members named like secrets.
func redactSecrets(s string) string {
	if !strings.Contains(s, `"`) {
		return s
	}
	return secretField.ReplaceAllString(s, `$1"[redacted]"`)
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
