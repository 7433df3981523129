package memory

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// How a person is named in the queries below: the full name, or the
// username.
const (
	requesterName = `coalesce(nullif(trim(r.first_name || ' ' || r.last_name), ''), nullif(r.username, ''), '')`
	deciderName   = `coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), nullif(u.username, ''), '')`
	actorName     = `coalesce(nullif(trim(eu.first_name || ' ' || eu.last_name), ''), nullif(eu.username, ''), '')`
)

const actionColumns = `a.id, a.chat_id, a.thread_id, a.requester_id, ` + requesterName + `, a.update_id, a.call_id, a.tool, a.arguments,
	a.arguments_hash, a.idempotency_key, a.reason, a.summary, a.origin, a.state, coalesce(a.prompt_message_id, 0), coalesce(a.file_message_id, 0),
	a.prompt_settled, a.result_status, coalesce(a.decided_by, 0), ` + deciderName + `,
	coalesce(a.decided_update, 0), coalesce(a.retry_of, ''), a.created_at, a.expires_at, coalesce(a.decided_at, 'epoch'),
	coalesce(a.started_at, 'epoch'), coalesce(a.executed_at, 'epoch')`

const actionFrom = ` from actions a left join users u on u.id = a.decided_by left join users r on r.id = a.requester_id `

// actionFields are where the actionColumns of a row go.
func actionFields(a *ryo.Action) []any {
	return []any{&a.ID, &a.Place.ChatID, &a.Place.Thread, &a.Requester, &a.RequesterName, &a.UpdateID, &a.CallID, &a.Tool, &a.Args,
		&a.ArgsHash, &a.Key, &a.Reason, &a.Summary, &a.Origin, &a.State, &a.PromptID, &a.FileID,
		&a.Settled, &a.ResultStatus, &a.DecidedBy, &a.DeciderName,
		&a.DecidedUpdate, &a.RetryOf, &a.CreatedAt, &a.ExpiresAt, &a.DecidedAt, &a.StartedAt, &a.ExecutedAt}
}

// unsetActionTimes turns the epoch that stands for "not yet" into zero times.
func unsetActionTimes(a *ryo.Action) {
	for _, t := range []*time.Time{&a.DecidedAt, &a.StartedAt, &a.ExecutedAt} {
		if !t.After(time.Unix(0, 0)) {
			*t = time.Time{}
		}
	}
}

func scanAction(row pgx.Row) (ryo.Action, error) {
	var a ryo.Action
	err := row.Scan(actionFields(&a)...)
	unsetActionTimes(&a)
	return a, err
}

// SaveHeldAnswer remembers the model's answer to a turn together with the
// action it asks the person to confirm, in one transaction, and returns the
// action as stored. When the turn already asked for the same call (its
// idempotency key), that action is returned and no other is made.
func (db *DB) SaveHeldAnswer(ctx context.Context, updateID int64, place ryo.Place, answer string, meta json.RawMessage, a ryo.Action) (ryo.Action, error) {
	return db.SaveHeldAnswered(ctx, TurnAnswer{UpdateID: updateID, Place: place, Text: answer, Metadata: meta}, a)
}

// SaveHeldAnswered is SaveHeldAnswer with the answer's usage and trace
// (TurnAnswer), kept in the same transaction.
func (db *DB) SaveHeldAnswered(ctx context.Context, answer TurnAnswer, a ryo.Action) (ryo.Action, error) {
	err := db.tx(ctx, "save held answer", func(tx pgx.Tx) error {
		now := db.Now()
		trace, err := answer.traceArgs(now)
		if err != nil {
			return err
		}
		var b pgx.Batch
		queueTurnAnswer(&b, answer, trace, now)
		if err := tx.SendBatch(ctx, &b).Close(); err != nil {
			return err
		}
		a, err = insertAction(ctx, tx, answer.UpdateID, answer.Place, a, now)
		return err
	})
	return a, err
}

// SaveCommandAction stores an action a command asks the person to confirm,
// once per update: a command run again finds the action it made.
func (db *DB) SaveCommandAction(ctx context.Context, updateID int64, place ryo.Place, a ryo.Action) (ryo.Action, error) {
	err := db.tx(ctx, "save command action", func(tx pgx.Tx) error {
		var err error
		a, err = insertAction(ctx, tx, updateID, place, a, db.Now())
		return err
	})
	return a, err
}

// insertAction stores a, unless an action with its idempotency key is
// stored already, and returns the one stored.
func insertAction(ctx context.Context, tx pgx.Tx, updateID int64, place ryo.Place, a ryo.Action, now time.Time) (ryo.Action, error) {
	if a.Origin == "" {
		a.Origin = ryo.OriginModel
	}
	tag, err := tx.Exec(ctx, `insert into actions (id, chat_id, thread_id, requester_id, update_id, call_id, tool,
			arguments, arguments_hash, idempotency_key, reason, summary, origin, created_at, expires_at, retry_of)
		values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, nullif($16::text, ''))
		on conflict (idempotency_key) do nothing`,
		a.ID, place.ChatID, place.Thread, a.Requester, updateID, a.CallID, a.Tool,
		a.Args, a.ArgsHash, a.Key, a.Reason, a.Summary, a.Origin, now, a.ExpiresAt, a.RetryOf)
	if err != nil {
		return ryo.Action{}, err
	}
	if tag.RowsAffected() == 1 {
		if err := actionEvent(ctx, tx, a.ID, ryo.EventRequested, a.Requester, a.Reason, now); err != nil {
			return ryo.Action{}, err
		}
	}
	return scanAction(tx.QueryRow(ctx, `select `+actionColumns+actionFrom+`where a.idempotency_key = $1`, a.Key))
}

// Action returns the action with id.
func (db *DB) Action(ctx context.Context, id string) (ryo.Action, bool, error) {
	return db.findAction(ctx, "load action", `a.id = $1`, id)
}

// TurnAction returns the action the turn answering updateID asked for.
func (db *DB) TurnAction(ctx context.Context, updateID int64) (ryo.Action, bool, error) {
	return db.findAction(ctx, "load turn action", `a.update_id = $1 order by a.created_at desc limit 1`, updateID)
}

func (db *DB) findAction(ctx context.Context, op, where string, arg any) (ryo.Action, bool, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	a, err := scanAction(db.pool.QueryRow(ctx, `select `+actionColumns+actionFrom+`where `+where, arg))
	if errors.Is(err, pgx.ErrNoRows) {
		return ryo.Action{}, false, nil
	}
	if err != nil {
		return ryo.Action{}, false, db.fail(op, err)
	}
	return a, true, nil
}

// SaveActionPrompt remembers the messages that show the action, so that a
// resumed turn does not send them again and the outcome is shown in them.
func (db *DB) SaveActionPrompt(ctx context.Context, id string, promptID, fileID int) error {
	return db.tx(ctx, "save action prompt", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `update actions set prompt_message_id = nullif($2::bigint, 0), file_message_id = nullif($3::bigint, 0)
			where id = $1`, id, promptID, fileID)
		return err
	})
}

// Decision is a person's answer to an action.
type Decision struct {
	ID      string
	Actor   int64
	Update  int64 // the button press
	Confirm bool
	// Result is the tool-result message stored when the action is
	// cancelled, so that the model knows it was not done.
	Result ryo.Message
}

// Decide moves a pending action to confirmed or cancelled, by one
// conditional update: of any number of presses, at once or replayed, one
// decides. It returns the action as it is afterwards and whether this
// decision was the one taken. An action whose time ran out is expired
// instead (with expired, its tool result), and not decided.
func (db *DB) Decide(ctx context.Context, d Decision, expired ryo.Message) (ryo.Action, bool, error) {
	var a ryo.Action
	var decided bool
	err := db.tx(ctx, "decide action", func(tx pgx.Tx) error {
		now := db.Now()
		state, event := ryo.ActionCancelled, ryo.EventCancelled
		if d.Confirm {
			state, event = ryo.ActionConfirmed, ryo.EventConfirmed
		}
		tag, err := tx.Exec(ctx, `update actions set state = $2, decided_by = $3, decided_update = $4, decided_at = $5
			where id = $1 and state = 'pending' and expires_at > $5`, d.ID, state, d.Actor, d.Update, now)
		if err != nil {
			return err
		}
		decided = tag.RowsAffected() == 1
		if decided {
			if err := actionEvent(ctx, tx, d.ID, event, d.Actor, "", now); err != nil {
				return err
			}
			if !d.Confirm {
				if err := saveActionResult(ctx, tx, d.ID, d.Result, now); err != nil {
					return err
				}
			}
		} else if _, _, err := expireOne(ctx, tx, d.ID, now, func(ryo.Action) ryo.Message { return expired }); err != nil {
			return err
		}
		a, err = scanAction(tx.QueryRow(ctx, `select `+actionColumns+actionFrom+`where a.id = $1`, d.ID))
		return err
	})
	return a, decided, err
}

// StartAction marks a confirmed action running, before its tool runs, and
// returns it as it is afterwards. Once this is committed the action is
// never run again blindly: a start that finds it running asks its tool, or
// the person, whether it happened. Like ClaimUpdate it is fenced: a
// replica that no longer holds the action's chat gets ErrLeaseLost, and
// the action stays confirmed for the replica that does.
func (db *DB) StartAction(ctx context.Context, id string) (ryo.Action, error) {
	var a ryo.Action
	fence := db.fence()
	err := db.tx(ctx, "start action", func(tx pgx.Tx) error {
		now := db.Now()
		tag, err := tx.Exec(ctx, `update actions set state = 'running', started_at = $2 where id = $1 and state = 'confirmed'
			and ($3::text = '' or (select l.replica from chat_leases l where l.chat_id = actions.chat_id) = $3::text)`, id, now, fence)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			if err := actionEvent(ctx, tx, id, ryo.EventStarted, 0, "", now); err != nil {
				return err
			}
		}
		a, err = scanAction(tx.QueryRow(ctx, `select `+actionColumns+actionFrom+`where a.id = $1`, id))
		if err == nil && tag.RowsAffected() == 0 && a.State == ryo.ActionConfirmed && fence != "" {
			return ErrLeaseLost // still confirmed: the lease named another replica
		}
		return err
	})
	return a, err
}

// FinishAction stores the result of a running action and marks it
// executed, in one transaction. A result already stored under the
// action's key is kept.
func (db *DB) FinishAction(ctx context.Context, id string, result ryo.Message, status string) (ryo.Action, error) {
	var a ryo.Action
	err := db.tx(ctx, "finish action", func(tx pgx.Tx) error {
		now := db.Now()
		if err := saveActionResult(ctx, tx, id, result, now); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `update actions set state = 'executed', result_status = $2, executed_at = $3
			where id = $1 and state = 'running'`, id, status, now)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			if err := actionEvent(ctx, tx, id, ryo.EventExecuted, 0, status, now); err != nil {
				return err
			}
		}
		a, err = scanAction(tx.QueryRow(ctx, `select `+actionColumns+actionFrom+`where a.id = $1`, id))
		return err
	})
	return a, err
}

// InterruptAction ends an action found running with no outcome, whose tool
// cannot say whether it happened: it becomes interrupted, result (what the
// model is told) is stored under its key, and again, the same call asked
// of the person anew, is stored to be shown. Run again, it finds both as
// they were left. It returns the action and, when it is interrupted, the
// new one; an action not running is left as it is, and nothing asked.
func (db *DB) InterruptAction(ctx context.Context, id string, result ryo.Message, again ryo.Action) (old, ask ryo.Action, err error) {
	err = db.tx(ctx, "interrupt action", func(tx pgx.Tx) error {
		now := db.Now()
		tag, err := tx.Exec(ctx, `update actions set state = 'interrupted', executed_at = $2 where id = $1 and state = 'running'`, id, now)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			if err := actionEvent(ctx, tx, id, ryo.EventInterrupted, 0, "", now); err != nil {
				return err
			}
			if err := saveActionResult(ctx, tx, id, result, now); err != nil {
				return err
			}
		}
		if old, err = scanAction(tx.QueryRow(ctx, `select `+actionColumns+actionFrom+`where a.id = $1`, id)); err != nil || old.State != ryo.ActionInterrupted {
			return err
		}
		again.RetryOf = id
		ask, err = insertAction(ctx, tx, again.UpdateID, old.Place, again, now)
		return err
	})
	return old, ask, err
}

// saveActionResult stores the tool result of action id under the action's
// idempotency key, unless one is stored under it already, or there is none
// to store.
func saveActionResult(ctx context.Context, tx pgx.Tx, id string, m ryo.Message, now time.Time) error {
	if m.Text == "" {
		return nil // an action a command asked for: no conversation to tell
	}
	var key string
	if err := tx.QueryRow(ctx, `select idempotency_key from actions where id = $1`, id).Scan(&key); err != nil {
		return err
	}
	_, err := saveToolResult(ctx, tx, key, m, now)
	return err
}

// ExpireActions expires the pending actions whose time ran out, storing
// for each the tool result result builds, and returns them.
func (db *DB) ExpireActions(ctx context.Context, result func(ryo.Action) ryo.Message) ([]ryo.Action, error) {
	var out []ryo.Action
	err := db.tx(ctx, "expire actions", func(tx pgx.Tx) error {
		var err error
		out, err = expireAll(ctx, tx, db.Now(), result)
		return err
	})
	return out, err
}

func expireAll(ctx context.Context, tx pgx.Tx, now time.Time, result func(ryo.Action) ryo.Message) ([]ryo.Action, error) {
	rows, err := tx.Query(ctx, `select a.id from actions a where a.state = 'pending' and a.expires_at <= $1
		order by a.expires_at limit 100`, now)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	var out []ryo.Action
	for _, id := range ids {
		a, ok, err := expireOne(ctx, tx, id, now, result)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, a)
		}
	}
	return out, nil
}

// expireOne expires the action with id when it is pending and out of time,
// storing the tool result that result builds.
func expireOne(ctx context.Context, tx pgx.Tx, id string, now time.Time, result func(ryo.Action) ryo.Message) (ryo.Action, bool, error) {
	tag, err := tx.Exec(ctx, `update actions set state = 'expired', decided_at = $2
		where id = $1 and state = 'pending' and expires_at <= $2`, id, now)
	if err != nil || tag.RowsAffected() == 0 {
		return ryo.Action{}, false, err
	}
	if err := actionEvent(ctx, tx, id, ryo.EventExpired, 0, "", now); err != nil {
		return ryo.Action{}, false, err
	}
	a, err := scanAction(tx.QueryRow(ctx, `select `+actionColumns+actionFrom+`where a.id = $1`, id))
	if err != nil {
		return ryo.Action{}, false, err
	}
	return a, true, saveActionResult(ctx, tx, id, result(a), now)
}

// UnsettledActions returns decided actions whose prompt does not show the
// outcome yet (its buttons are still there).
func (db *DB) UnsettledActions(ctx context.Context) ([]ryo.Action, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select `+actionColumns+actionFrom+`
		where not a.prompt_settled and a.state in ('executed', 'cancelled', 'expired', 'interrupted') and a.prompt_message_id is not null
		order by a.decided_at limit 100`)
	if err != nil {
		return nil, db.fail("unsettled actions", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ryo.Action, error) { return scanAction(row) })
	if err != nil {
		return nil, db.fail("unsettled actions", err)
	}
	return out, nil
}

// SettleAction records that the action's prompt shows its outcome.
func (db *DB) SettleAction(ctx context.Context, id string) error {
	return db.tx(ctx, "settle action", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `update actions set prompt_settled = true where id = $1`, id)
		return err
	})
}

// RefuseAction records a press by someone who may not decide the action:
// one entry of the audit log per person and action, counting their
// presses, however many they make.
func (db *DB) RefuseAction(ctx context.Context, id string, actor int64) error {
	return db.tx(ctx, "refuse action", func(tx pgx.Tx) error {
		var who *int64
		if actor != 0 {
			who = &actor
		}
		_, err := tx.Exec(ctx, `insert into action_events (action_id, event, actor_id, at, last_at) values ($1, 'refused', $2, $3, $3)
			on conflict (action_id, coalesce(actor_id, 0)) where event = 'refused'
			do update set times = action_events.times + 1, last_at = excluded.last_at`, id, who, db.Now())
		return err
	})
}

func actionEvent(ctx context.Context, tx pgx.Tx, id string, event ryo.AuditEvent, actor int64, detail string, now time.Time) error {
	var who *int64
	if actor != 0 {
		who = &actor
	}
	_, err := tx.Exec(ctx, `insert into action_events (action_id, event, actor_id, detail, at, last_at) values ($1, $2, $3, $4, $5, $5)`,
		id, event, who, detail, now)
	return err
}

// ActionEvent is one entry of the actions' audit log.
type ActionEvent struct {
	At      time.Time // when it happened; for refused presses, the last one
	Event   ryo.AuditEvent
	Actor   string // who, by name; "" for the bot itself
	ActorID int64
	Detail  string
	Times   int // how many presses a refused entry counts; 1 for the rest
	Action  ryo.Action
}

// ActionEvents returns the newest decisions and steps of the audit log,
// newest first: of the actions in chat, or of every chat when chat is 0.
// Refused presses are not among them, so that no flood of presses can
// push a decision out of the list; RefusedPresses returns those.
func (db *DB) ActionEvents(ctx context.Context, limit int, chat int64) ([]ActionEvent, error) {
	return db.actionEvents(ctx, "action events", `e.event <> 'refused'`, limit, chat)
}

// RefusedPresses returns the people who pressed the buttons of actions in
// chat (every chat when chat is 0) without being allowed to decide, one
// entry per person and action with how often, the latest first.
func (db *DB) RefusedPresses(ctx context.Context, limit int, chat int64) ([]ActionEvent, error) {
	return db.actionEvents(ctx, "refused presses", `e.event = 'refused'`, limit, chat)
}

func (db *DB) actionEvents(ctx context.Context, op, which string, limit int, chat int64) ([]ActionEvent, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select e.last_at, e.event, coalesce(e.actor_id, 0), `+actorName+`, e.detail, e.times, `+
		actionColumns+`
		from action_events e join actions a on a.id = e.action_id
			left join users u on u.id = a.decided_by
			left join users r on r.id = a.requester_id
			left join users eu on eu.id = e.actor_id
		where `+which+` and ($2::bigint = 0 or a.chat_id = $2)
		order by e.last_at desc, e.id desc limit $1`, limit, chat)
	if err != nil {
		return nil, db.fail(op, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ActionEvent, error) {
		var e ActionEvent
		err := row.Scan(append([]any{&e.At, &e.Event, &e.ActorID, &e.Actor, &e.Detail, &e.Times}, actionFields(&e.Action)...)...)
		unsetActionTimes(&e.Action)
		return e, err
	})
	if err != nil {
		return nil, db.fail(op, err)
	}
	return out, nil
}
