package memory

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// What ryo keeps about one person, counted (Footprint), deleted
// (ForgetPerson) or handed to them (Export). A person's own is: their user
// row; the messages they wrote anywhere, and everything of their private
// chat with the bot (its id is theirs); the memories of their own shelf,
// and those they added to a group's; the actions they asked for, with
// their audit log, and their refused presses on others'; the paged lists
// they were sent, or that list their memories; the inbox updates they
// sent, and the dead letters of those and of their private chat. What
// others wrote, and group memories others added, are not theirs.

// ErrNotAPerson is returned for an id that is not a person's: chats that
// write as themselves (anonymous admins, channels) have negative ids.
var ErrNotAPerson = errors.New("not a person's id")

// Footprint counts what ryo keeps about one person.
type Footprint struct {
	Messages      int // theirs, and every message of their private chat with the bot
	Memories      int // of their own shelf
	GroupMemories int // they added to groups
	Actions       int // they asked for
}

// Footprint counts what ryo keeps about person.
func (db *DB) Footprint(ctx context.Context, person int64) (Footprint, error) {
	if person <= 0 {
		return Footprint{}, ErrNotAPerson
	}
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var f Footprint
	err := db.pool.QueryRow(ctx, `select
			(select count(*) from messages where sender_id = $1 or chat_id = $1),
			(select count(*) from memories where owner_id = $1 and scope = 'user'),
			(select count(*) from memories where owner_id = $1 and scope = 'group'),
			(select count(*) from actions where requester_id = $1)`, person).
		Scan(&f.Messages, &f.Memories, &f.GroupMemories, &f.Actions)
	if err != nil {
		return Footprint{}, db.fail("count a person's data", err)
	}
	return f, nil
}

// Forgotten counts what ForgetPerson deleted.
type Forgotten struct {
	Messages    int  `json:"messages"`
	Memories    int  `json:"memories"`
	Actions     int  `json:"actions"`
	Views       int  `json:"views"`
	Updates     int  `json:"updates"`
	DeadLetters int  `json:"dead_letters"`
	User        bool `json:"user"`
}

// ForgetPerson deletes everything ryo keeps about person (see Footprint),
// the large parts in batches, the user row last. Two things of theirs
// stay: actions confirmed or running — among them the one that asked for
// this, which must still be finished (its audit says who asked to be
// forgotten, and when, and goes with the actions' retention) — and
// updates not yet handled; those are swept in time. Run again, it deletes
// what is left, and whatever came since.
func (db *DB) ForgetPerson(ctx context.Context, person int64) (Forgotten, error) {
	if person <= 0 {
		return Forgotten{}, ErrNotAPerson
	}
	var f Forgotten
	batches := []struct {
		count *int
		op    string
		sql   string
	}{
		{&f.Messages, "forget a person's messages", `delete from messages where id in (
			select id from messages where sender_id = $2 limit $1)`},
		{&f.Messages, "forget a person's private chat", `delete from messages where id in (
			select id from messages where chat_id = $2 limit $1)`},
		{&f.DeadLetters, "forget a person's dead letters", `delete from dead_letters where update_id in (
			select d.update_id from dead_letters d where d.chat_id = $2
				or d.update_id in (select u.update_id from updates u where u.sender_id = $2)
			limit $1)`},
		{&f.Updates, "forget a person's updates", `delete from updates where update_id in (
			select update_id from updates where sender_id = $2 and state in ('done', 'failed') limit $1)`},
		{&f.Updates, "forget a person's private updates", `delete from updates where update_id in (
			select update_id from updates where chat_id = $2 and state in ('done', 'failed') limit $1)`},
	}
	for _, b := range batches {
		n, err := db.deleteInBatches(ctx, b.op, b.sql, sweepBatch, person)
		*b.count += n
		if err != nil {
			return f, err
		}
	}
	err := db.tx(ctx, "forget a person", func(tx pgx.Tx) error {
		var err error
		f.Memories, f.Actions, f.Views, f.User, err = forgetTheRest(ctx, tx, person)
		return err
	})
	return f, err
}

// forgetTheRest deletes a person's memories, actions, views, what their
// private chat's turns remembered, the chat, and their user row — but for
// the tier an admin put them in, kept with their id alone.
func forgetTheRest(ctx context.Context, tx pgx.Tx, person int64) (memories, actions, views int, user bool, err error) {
	deleted := func(sql string) int {
		if err != nil {
			return 0
		}
		tag, e := tx.Exec(ctx, sql, person)
		err = e
		return int(tag.RowsAffected())
	}
	memories = deleted(`delete from memories where owner_id = $1`)
	actions = deleted(`delete from actions where requester_id = $1 and state not in ('confirmed', 'running')`)
	deleted(`delete from action_events where actor_id = $1 and event = 'refused'`)
	views = deleted(`delete from views where viewer_id = $1 or (subject ->> 'scope' = 'user' and subject ->> 'id' = $1::bigint::text)`)
	deleted(`delete from turns where chat_id = $1`)
	deleted(`delete from turn_traces where asker_id = $1::bigint or chat_id = $1::bigint`) // what their turns did, also in groups
	deleted(`delete from usage where chat_id = $1`)                                        // their private chat's usage
	deleted(`update usage set user_id = null where user_id = $1::bigint`)                  // in groups: counted still, no longer theirs
	deleted(`update knowledge_documents set added_by = 0 where added_by = $1::bigint`)     // the documents are their group's: they stay, unsigned
	deleted(`delete from chats where id = $1 and type = 'private'`)
	var tier *string
	var tierBy *int64
	var tierAt *time.Time
	if err == nil {
		err = tx.QueryRow(ctx, `delete from users where id = $1::bigint returning tier, tier_by, tier_at`, person).Scan(&tier, &tierBy, &tierAt)
		user = err == nil
		if errors.Is(err, pgx.ErrNoRows) {
			err = nil
		}
	}
	if err == nil && tier != nil { // an admin's decision about them stays: else forgetting would undo it
		_, err = tx.Exec(ctx, `insert into users (id, tier, tier_by, tier_at) values ($1::bigint, $2::text, $3::bigint, $4::timestamptz)`,
			person, *tier, tierBy, tierAt)
	}
	return memories, actions, views, user, err
}

// Export is everything ryo keeps about one person, as /export hands it to
// them. Past its budget, the oldest messages, memories and actions are
// left out, and counted.
type Export struct {
	Person     int64            `json:"person_id"`
	ExportedAt time.Time        `json:"exported_at"`
	User       *ExportUser      `json:"user"` // null when ryo keeps no row of theirs
	Messages   []ExportMessage  `json:"messages"`
	Memories   []ExportMemory   `json:"memories"`
	Actions    []ExportAction   `json:"actions"`
	Documents  []ExportDocument `json:"knowledge_documents"` // the documents they added to the knowledge base
	Usage      []ExportUsage    `json:"usage"`               // what their answers cost, by day, chat and model (usage.go)
	Traces     []ExportTrace    `json:"traces"`              // what the turns that answered them did, step by step (trace.go)
	LeftOut    ExportLeftOut    `json:"left_out"`
}

// ExportUser is a person's user row.
type ExportUser struct {
	ID           int64      `json:"id"`
	Username     string     `json:"username"`
	UsernameSeen *time.Time `json:"username_seen_at"` // when Telegram last showed them with it
	FirstName    string     `json:"first_name"`
	LastName     string     `json:"last_name"`
	LanguageCode string     `json:"language_code"`
	Role         string     `json:"role"`
	Allowed      bool       `json:"allowed"`
	RoleBy       *int64     `json:"role_given_by"`
	RoleAt       *time.Time `json:"role_given_at"`
	StartedAt    *time.Time `json:"started_at"`
	RefusedAt    *time.Time `json:"last_refused_at"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

// ExportMessage is a message the person wrote.
type ExportMessage struct {
	ID                int64     `json:"id"`
	ChatID            int64     `json:"chat_id"`
	ThreadID          int64     `json:"thread_id"`
	TelegramMessageID int64     `json:"telegram_message_id"`
	ReplyTo           int64     `json:"reply_to_message_id"`
	Text              string    `json:"text"`
	ContextOnly       bool      `json:"context_only"` // a group message not meant for the bot
	CreatedAt         time.Time `json:"created_at"`
}

// ExportMemory is a memory of the person's shelf, or one they added to a
// group. Its embedding, a vector made from its content, is left out.
type ExportMemory struct {
	ID         int64      `json:"id"`
	Scope      string     `json:"scope"`
	ChatID     int64      `json:"chat_id"`
	Content    string     `json:"content"`
	Tags       []string   `json:"tags"`
	AddedBy    int64      `json:"added_by"`
	Source     *int64     `json:"source_message_id"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
}

// ExportAction is an action the person asked for, with its audit log.
type ExportAction struct {
	ID           string          `json:"id"`
	ChatID       int64           `json:"chat_id"`
	ThreadID     int64           `json:"thread_id"`
	Tool         string          `json:"tool"`
	Arguments    json.RawMessage `json:"arguments"`
	Summary      string          `json:"summary"`
	Reason       string          `json:"reason"`
	Origin       string          `json:"origin"`
	State        string          `json:"state"`
	ResultStatus string          `json:"result_status"`
	DecidedBy    *int64          `json:"decided_by"`
	CreatedAt    time.Time       `json:"created_at"`
	ExpiresAt    time.Time       `json:"expires_at"`
	DecidedAt    *time.Time      `json:"decided_at"`
	ExecutedAt   *time.Time      `json:"executed_at"`
	Events       []ExportEvent   `json:"events"`
}

// ExportEvent is one entry of an action's audit log.
type ExportEvent struct {
	Event   string    `json:"event"`
	ActorID *int64    `json:"actor_id"`
	Detail  string    `json:"detail"`
	Times   int       `json:"times"`
	At      time.Time `json:"at"`
	LastAt  time.Time `json:"last_at"`
}

// ExportDocument is a document the person added to the knowledge base;
// its text is the group's (or everyone's), and /knowledge show reads it.
type ExportDocument struct {
	ID      int64     `json:"id"`
	ChatID  int64     `json:"chat_id"` // 0: for every conversation
	Name    string    `json:"name"`
	Title   string    `json:"title"`
	Source  string    `json:"source"`
	AddedAt time.Time `json:"added_at"`
	// MessageID is the stored message a file they sent the bot to read
	// came with; 0 for a document of the knowledge base.
	MessageID int64 `json:"message_id,omitempty"`
}

// ExportLeftOut counts what did not fit the budget: the oldest.
type ExportLeftOut struct {
	Messages int `json:"messages"`
	Memories int `json:"memories"`
	Actions  int `json:"actions"`
	Traces   int `json:"traces"`
}

// exportRowCost is what one row costs of an export's budget beside its
// text: its other fields, as JSON.
const exportRowCost = 256

// Export returns everything ryo keeps about person, the newest first
// within budget, bytes of text: two thirds for their messages, a sixth
// each for their memories and their actions (each row also costs
// exportRowCost), and a sixth for the traces of their turns. What does
// not fit, the oldest, is counted in LeftOut.
func (db *DB) Export(ctx context.Context, person int64, budget int) (Export, error) {
	if person <= 0 {
		return Export{}, ErrNotAPerson
	}
	e := Export{Person: person, ExportedAt: db.Now(), Messages: []ExportMessage{}, Memories: []ExportMemory{}, Actions: []ExportAction{}}
	snapshot := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	err := pgx.BeginTxFunc(ctx, db.pool, snapshot, func(tx pgx.Tx) error {
		var err error
		if e.User, err = exportUser(ctx, tx, person); err != nil {
			return err
		}
		if e.Messages, e.LeftOut.Messages, err = exportMessages(ctx, tx, person, budget*4/6); err != nil {
			return err
		}
		if e.Memories, e.LeftOut.Memories, err = exportMemories(ctx, tx, person, budget/6); err != nil {
			return err
		}
		if e.Actions, e.LeftOut.Actions, err = exportActions(ctx, tx, person, budget/6); err != nil {
			return err
		}
		if e.Documents, err = exportDocuments(ctx, tx, person); err != nil {
			return err
		}
		if e.Usage, err = exportUsage(ctx, tx, person); err != nil {
			return err
		}
		e.Traces, e.LeftOut.Traces, err = exportTraces(ctx, tx, person, budget/6)
		return err
	})
	if err != nil {
		return Export{}, db.fail("export a person's data", err)
	}
	return e, nil
}

// exportDocuments lists the knowledge base's documents person added, and
// the files they sent the bot to read.
func exportDocuments(ctx context.Context, tx pgx.Tx, person int64) ([]ExportDocument, error) {
	rows, err := tx.Query(ctx, `select id, coalesce(chat_id, 0), name, title, source, added_at, coalesce(message_id, 0)
		from knowledge_documents where added_by = $1::bigint order by id`, person)
	if err != nil {
		return nil, err
	}
	out := []ExportDocument{}
	var d ExportDocument
	_, err = pgx.ForEachRow(rows, []any{&d.ID, &d.ChatID, &d.Name, &d.Title, &d.Source, &d.AddedAt, &d.MessageID}, func() error {
		out = append(out, d)
		return nil
	})
	return out, err
}

func exportUser(ctx context.Context, tx pgx.Tx, person int64) (*ExportUser, error) {
	var u ExportUser
	err := tx.QueryRow(ctx, `select id, username, username_seen_at, first_name, last_name, language_code, role, allowed,
			role_by, role_at, started_at, refused_at, created_at, updated_at from users where id = $1`, person).
		Scan(&u.ID, &u.Username, &u.UsernameSeen, &u.FirstName, &u.LastName, &u.LanguageCode, &u.Role, &u.Allowed,
			&u.RoleBy, &u.RoleAt, &u.StartedAt, &u.RefusedAt, &u.CreatedAt, &u.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return &u, err
}

// newestWithin is the SQL of the newest rows of query — which selects
// first an ord, that orders its rows by age, and last a cost — whose costs
// add up to at most $2, oldest first.
func newestWithin(query string) string {
	return `select * from (select r.*, sum(r.cost) over (order by r.ord desc) as spent
		from (` + query + `) r) x where spent <= $2 order by ord`
}

// collect reads the rows of a newestWithin query, scanning each into
// fields() (which leaves out ord, cost and spent).
func collect(rows pgx.Rows, fields func() []any) error {
	defer rows.Close()
	var ord, cost, spent any
	for rows.Next() {
		if err := rows.Scan(append(append([]any{&ord}, fields()...), &cost, &spent)...); err != nil {
			return err
		}
	}
	return rows.Err()
}

// leftOut is how many of the total rows the query counts were not read.
func leftOut(ctx context.Context, tx pgx.Tx, count string, person int64, read int) (int, error) {
	var total int
	err := tx.QueryRow(ctx, count, person).Scan(&total)
	return total - read, err
}

func exportMessages(ctx context.Context, tx pgx.Tx, person int64, budget int) ([]ExportMessage, int, error) {
	rows, err := tx.Query(ctx, newestWithin(`select id as ord, id, chat_id, thread_id, coalesce(telegram_message_id, 0),
			coalesce(reply_to_message_id, 0), text, context_only, created_at, octet_length(text) + $3::bigint as cost
		from messages where sender_id = $1`), person, budget, exportRowCost)
	if err != nil {
		return nil, 0, err
	}
	out := []ExportMessage{}
	err = collect(rows, func() []any {
		out = append(out, ExportMessage{})
		m := &out[len(out)-1]
		return []any{&m.ID, &m.ChatID, &m.ThreadID, &m.TelegramMessageID, &m.ReplyTo, &m.Text, &m.ContextOnly, &m.CreatedAt}
	})
	if err != nil {
		return nil, 0, err
	}
	left, err := leftOut(ctx, tx, `select count(*) from messages where sender_id = $1`, person, len(out))
	return out, left, err
}

func exportMemories(ctx context.Context, tx pgx.Tx, person int64, budget int) ([]ExportMemory, int, error) {
	rows, err := tx.Query(ctx, newestWithin(`select id as ord, id, scope, chat_id, content, tags, added_by, source_message_id,
			created_at, updated_at, last_used_at, expires_at,
			octet_length(content) + octet_length(array_to_string(tags, ' ')) + $3::bigint as cost
		from memories where owner_id = $1`), person, budget, exportRowCost)
	if err != nil {
		return nil, 0, err
	}
	out := []ExportMemory{}
	err = collect(rows, func() []any {
		out = append(out, ExportMemory{})
		m := &out[len(out)-1]
		return []any{&m.ID, &m.Scope, &m.ChatID, &m.Content, &m.Tags, &m.AddedBy, &m.Source,
			&m.CreatedAt, &m.UpdatedAt, &m.LastUsedAt, &m.ExpiresAt}
	})
	if err != nil {
		return nil, 0, err
	}
	left, err := leftOut(ctx, tx, `select count(*) from memories where owner_id = $1`, person, len(out))
	return out, left, err
}

// exportActions returns the actions person asked for, with their audit
// log. An action's id is opaque, not ordered by time: the newest are
// found by when they were asked for. An action's log is a few entries,
// one per step and one per person who pressed without the right: it
// costs as much as four rows.
func exportActions(ctx context.Context, tx pgx.Tx, person int64, budget int) ([]ExportAction, int, error) {
	rows, err := tx.Query(ctx, newestWithin(`select row_number() over (order by created_at, id) as ord,
			id, chat_id, thread_id, tool, arguments, summary, reason, origin, state, result_status,
			decided_by, created_at, expires_at, decided_at, executed_at,
			octet_length(arguments::text) + octet_length(summary) + 4 * $3::bigint as cost
		from actions where requester_id = $1`), person, budget, exportRowCost)
	if err != nil {
		return nil, 0, err
	}
	out := []ExportAction{}
	err = collect(rows, func() []any {
		out = append(out, ExportAction{Events: []ExportEvent{}})
		a := &out[len(out)-1]
		return []any{&a.ID, &a.ChatID, &a.ThreadID, &a.Tool, &a.Arguments, &a.Summary, &a.Reason, &a.Origin, &a.State,
			&a.ResultStatus, &a.DecidedBy, &a.CreatedAt, &a.ExpiresAt, &a.DecidedAt, &a.ExecutedAt}
	})
	if err != nil {
		return nil, 0, err
	}
	left, err := leftOut(ctx, tx, `select count(*) from actions where requester_id = $1`, person, len(out))
	if err != nil {
		return nil, 0, err
	}
	return out, left, exportEvents(ctx, tx, out)
}

// exportEvents fills in the audit log of actions.
func exportEvents(ctx context.Context, tx pgx.Tx, actions []ExportAction) error {
	at := map[string]int{}
	ids := make([]string, len(actions))
	for i, a := range actions {
		at[a.ID], ids[i] = i, a.ID
	}
	rows, err := tx.Query(ctx, `select action_id, event, actor_id, detail, times, at, last_at from action_events
		where action_id = any($1) order by id`, ids)
	if err != nil {
		return err
	}
	var id string
	var e ExportEvent
	_, err = pgx.ForEachRow(rows, []any{&id, &e.Event, &e.ActorID, &e.Detail, &e.Times, &e.At, &e.LastAt}, func() error {
		a := &actions[at[id]]
		a.Events = append(a.Events, e)
		return nil
	})
	return err
}
