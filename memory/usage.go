package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// Usage is what one answered turn cost.
type Usage struct {
	UpdateID     int64 // the turn's update
	ChatID       int64
	UserID       int64 // who the turn was for
	Model        string
	PromptTokens int64
	ReplyTokens  int64
	ModelTime    time.Duration // the model's own time
	Tools        []string      // the tools that ran, a name once per call
}

// RecordUsage stores what a turn cost, at the store's clock's now. A turn
// recorded already (run again after an interruption) keeps its first row.
func (db *DB) RecordUsage(ctx context.Context, u Usage) error {
	return db.exec(ctx, "record usage", insertUsage, usageArgs(u, db.Now())...)
}

// insertUsage stores a turn's usage once (usageArgs).
const insertUsage = `insert into usage (update_id, chat_id, user_id, model, prompt_tokens, reply_tokens, model_ms, tools, at)
	values ($1::bigint, $2::bigint, nullif($3::bigint, 0::bigint), $4, $5::bigint, $6::bigint, $7::bigint, $8, $9)
	on conflict (update_id) do nothing`

func usageArgs(u Usage, now time.Time) []any {
	tools := u.Tools
	if tools == nil {
		tools = []string{}
	}
	return []any{u.UpdateID, u.ChatID, u.UserID, storableText(u.Model), u.PromptTokens, u.ReplyTokens, u.ModelTime.Milliseconds(), tools, now}
}

// UsageScope is whose usage a report counts: a chat's (ChatID), a
// person's (UserID), both (a person's in one chat), or, both zero,
// everyone's everywhere.
type UsageScope struct {
	ChatID int64
	UserID int64
}

// UsageTotals sum a stretch of time.
type UsageTotals struct {
	Turns        int64
	People       int64 // distinct people, the forgotten not counted
	PromptTokens int64
	ReplyTokens  int64
	ModelTime    time.Duration
	ToolCalls    int64
}

// UsageDay is one model's turns and tokens on one day (UTC).
type UsageDay struct {
	Day    time.Time // midnight UTC
	Model  string
	Turns  int64
	Tokens int64 // prompt and reply
}

// ModelUsage is one model's share of the last 30 days.
type ModelUsage struct {
	Model string
	UsageTotals
}

// PersonUsage is one person's share of the last 30 days.
type PersonUsage struct {
	Person ryo.User // as last seen; only the id when the bot keeps no row of theirs
	Turns  int64
	Tokens int64
}

// ToolUsage is how often one tool ran in the last 30 days.
type ToolUsage struct {
	Tool  string
	Calls int64
}

// UsageReport is what /stats shows: totals for today, the last 7 and
// the last 30 days (each counted from midnight UTC, today included), and
// over the 30 days: by day and model, by model, the busiest people and the
// busiest tools.
type UsageReport struct {
	Today, Week, Month UsageTotals
	Days               []UsageDay // oldest first, then by model
	Models             []ModelUsage
	People             []PersonUsage // the busiest first
	Tools              []ToolUsage   // the busiest first
}

// UsageTop is how many people and tools a report names.
const UsageTop = 5

// UsageReport counts the usage of scope, today being the day of the
// store's clock's now, in UTC.
func (db *DB) UsageReport(ctx context.Context, scope UsageScope) (UsageReport, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	today := db.Now().UTC().Truncate(24 * time.Hour)
	month := today.AddDate(0, 0, -29)
	where, args := scope.where(month)
	var r UsageReport
	var err error
	if r.Today, r.Week, r.Month, err = db.usageTotals(ctx, where, append(args, today, today.AddDate(0, 0, -6))); err != nil {
		return r, db.fail("count usage", err)
	}
	if r.Days, err = db.usageDays(ctx, where, args); err != nil {
		return r, db.fail("count usage by day", err)
	}
	if r.Models, err = db.usageModels(ctx, where, args); err != nil {
		return r, db.fail("count usage by model", err)
	}
	if r.People, err = db.usagePeople(ctx, where, append(args, UsageTop)); err != nil {
		return r, db.fail("count usage by person", err)
	}
	if r.Tools, err = db.usageTools(ctx, where, append(args, UsageTop)); err != nil {
		return r, db.fail("count usage by tool", err)
	}
	return r, nil
}

// where is the condition of a scope's usage since since, and its
// arguments: since is $1, its chat and person follow when it names them,
// so that the planner uses the index that fits. The statements' own
// arguments follow these.
func (s UsageScope) where(since time.Time) (string, []any) {
	where, args := "at >= $1", []any{since}
	if s.ChatID != 0 {
		args = append(args, s.ChatID)
		where += fmt.Sprintf(" and chat_id = $%d::bigint", len(args))
	}
	if s.UserID != 0 {
		args = append(args, s.UserID)
		where += fmt.Sprintf(" and user_id = $%d::bigint", len(args))
	}
	return where, args
}

// last is the placeholder of the last of args.
func last(args []any) string { return fmt.Sprintf("$%d", len(args)) }

// usageSums sum the rows filter picks, in the order UsageTotals holds them.
func usageSums(filter string) string {
	f := " filter (where " + filter + ")"
	return `count(*)` + f + `, count(distinct user_id)` + f + `, coalesce(sum(prompt_tokens)` + f + `, 0)::bigint,
	coalesce(sum(reply_tokens)` + f + `, 0)::bigint, coalesce(sum(model_ms)` + f + `, 0)::bigint, coalesce(sum(cardinality(tools))` + f + `, 0)::bigint`
}

// usageTotals sums today, the week and the month in one pass: args end
// with the start of today and of the week.
func (db *DB) usageTotals(ctx context.Context, where string, args []any) (today, week, month UsageTotals, err error) {
	n := len(args)
	var ms [3]int64
	err = db.pool.QueryRow(ctx, `select `+usageSums(fmt.Sprintf("at >= $%d", n-1))+`, `+usageSums(fmt.Sprintf("at >= $%d", n))+`, `+
		usageSums("true")+` from usage where `+where, args...).Scan(
		&today.Turns, &today.People, &today.PromptTokens, &today.ReplyTokens, &ms[0], &today.ToolCalls,
		&week.Turns, &week.People, &week.PromptTokens, &week.ReplyTokens, &ms[1], &week.ToolCalls,
		&month.Turns, &month.People, &month.PromptTokens, &month.ReplyTokens, &ms[2], &month.ToolCalls)
	today.ModelTime, week.ModelTime, month.ModelTime = millis(ms[0]), millis(ms[1]), millis(ms[2])
	return today, week, month, err
}

func millis(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

func (db *DB) usageDays(ctx context.Context, where string, args []any) ([]UsageDay, error) {
	rows, err := db.pool.Query(ctx, `select date_trunc('day', at at time zone 'UTC') as day, model, count(*),
			coalesce(sum(prompt_tokens + reply_tokens), 0)::bigint
		from usage where `+where+` group by day, model order by day, model`, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (UsageDay, error) {
		var d UsageDay
		err := row.Scan(&d.Day, &d.Model, &d.Turns, &d.Tokens)
		d.Day = time.Date(d.Day.Year(), d.Day.Month(), d.Day.Day(), 0, 0, 0, 0, time.UTC)
		return d, err
	})
}

func (db *DB) usageModels(ctx context.Context, where string, args []any) ([]ModelUsage, error) {
	rows, err := db.pool.Query(ctx, `select model, `+usageSums("true")+` from usage where `+where+`
		group by model order by count(*) desc, model`, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (ModelUsage, error) {
		var m ModelUsage
		var ms int64
		err := row.Scan(&m.Model, &m.Turns, &m.People, &m.PromptTokens, &m.ReplyTokens, &ms, &m.ToolCalls)
		m.ModelTime = millis(ms)
		return m, err
	})
}

// usagePeople: args end with how many.
func (db *DB) usagePeople(ctx context.Context, where string, args []any) ([]PersonUsage, error) {
	rows, err := db.pool.Query(ctx, `select s.user_id, coalesce(u.username, ''), coalesce(u.first_name, ''), coalesce(u.last_name, ''),
			s.turns, s.tokens
		from (select user_id, count(*) as turns, coalesce(sum(prompt_tokens + reply_tokens), 0)::bigint as tokens
			from usage where `+where+` and user_id is not null
			group by user_id order by turns desc, tokens desc, user_id limit `+last(args)+`) s
		left join users u on u.id = s.user_id
		order by s.turns desc, s.tokens desc, s.user_id`, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (PersonUsage, error) {
		var p PersonUsage
		err := row.Scan(&p.Person.ID, &p.Person.Username, &p.Person.FirstName, &p.Person.LastName, &p.Turns, &p.Tokens)
		return p, err
	})
}

// usageTools: args end with how many.
func (db *DB) usageTools(ctx context.Context, where string, args []any) ([]ToolUsage, error) {
	rows, err := db.pool.Query(ctx, `select tool, count(*) as calls
		from usage, unnest(tools) as tool where `+where+`
		group by tool order by calls desc, tool limit `+last(args), args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (ToolUsage, error) {
		var t ToolUsage
		err := row.Scan(&t.Tool, &t.Calls)
		return t, err
	})
}

// UsageMark is one turn a quota counts: when it was answered, and its
// tokens.
type UsageMark struct {
	At     time.Time
	Tokens int64
}

// PersonTurns are the turns of person answered since since, everywhere,
// the oldest first: what their quota counts.
func (db *DB) PersonTurns(ctx context.Context, person int64, since time.Time) ([]UsageMark, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select at, prompt_tokens + reply_tokens from usage
		where user_id = $1::bigint and at > $2 order by at, update_id`, person, since)
	if err != nil {
		return nil, db.fail("count a person's turns", err)
	}
	marks, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (UsageMark, error) {
		var m UsageMark
		err := row.Scan(&m.At, &m.Tokens)
		return m, err
	})
	if err != nil {
		return nil, db.fail("count a person's turns", err)
	}
	return marks, nil
}

// PersonQuota is a quota an admin gave one person.
type PersonQuota struct {
	UserID int64
	Limits string // as /quota writes them
	SetBy  int64
	SetAt  time.Time
}

// SetPersonQuota gives person the quota limits; "" removes theirs, so
// that their tier's applies again.
func (db *DB) SetPersonQuota(ctx context.Context, person int64, limits string, by int64) error {
	return db.tx(ctx, "set quota", func(tx pgx.Tx) error {
		if limits == "" {
			_, err := tx.Exec(ctx, `delete from person_quotas where user_id = $1::bigint`, person)
			return err
		}
		_, err := tx.Exec(ctx, `insert into person_quotas (user_id, limits, set_by, set_at) values ($1::bigint, $2, $3::bigint, $4)
			on conflict (user_id) do update set limits = excluded.limits, set_by = excluded.set_by, set_at = excluded.set_at`,
			person, storableText(limits), by, db.Now())
		return err
	})
}

// QuotaOf is the quota an admin gave person, if any.
func (db *DB) QuotaOf(ctx context.Context, person int64) (PersonQuota, bool, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	q := PersonQuota{UserID: person}
	err := db.pool.QueryRow(ctx, `select limits, set_by, set_at from person_quotas where user_id = $1::bigint`, person).
		Scan(&q.Limits, &q.SetBy, &q.SetAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return PersonQuota{}, false, nil
	}
	if err != nil {
		return PersonQuota{}, false, db.fail("load quota", err)
	}
	return q, true, nil
}

// QuotaStanding is what decides the quota a person is held to: the quota
// an admin gave them, and their role and tier.
type QuotaStanding struct {
	Limits string // the quota an admin gave them, as /quota writes it; "" when Own is false
	Own    bool
	Known  bool // whether the bot knows them: Role and Tier are theirs only then
	Role   ryo.Role
	Tier   string // "" for the default tier
}

// QuotaStandingOf is what decides person's quota, in one round trip:
// QuotaOf, and the role and tier FindUser would find.
func (db *DB) QuotaStandingOf(ctx context.Context, person int64) (QuotaStanding, error) {
	var s QuotaStanding
	err := db.batch(ctx, "load quota standing", func(b *pgx.Batch) { queueQuotaStanding(b, person, &s) })
	return s, err
}

// queueQuotaStanding queues the read of QuotaStandingOf, and has what it
// finds land in *s.
func queueQuotaStanding(b *pgx.Batch, person int64, s *QuotaStanding) {
	*s = QuotaStanding{}
	b.Queue(`select q.user_id is not null, coalesce(q.limits, ''), u.id is not null, coalesce(u.role, ''), coalesce(u.tier, '')
		from (select $1::bigint as id) p
		left join person_quotas q on q.user_id = p.id
		left join users u on u.id = p.id`, person).QueryRow(func(row pgx.Row) error {
		var role string
		err := row.Scan(&s.Own, &s.Limits, &s.Known, &role, &s.Tier)
		s.Role = ryo.Role(role)
		return err
	})
}

// ExportUsage is what a person's answers in one chat on one day (UTC)
// cost, with one model.
type ExportUsage struct {
	Day          string `json:"day"` // 2026-03-09
	ChatID       int64  `json:"chat_id"`
	Model        string `json:"model"`
	Answers      int64  `json:"answers"`
	PromptTokens int64  `json:"prompt_tokens"`
	ReplyTokens  int64  `json:"reply_tokens"`
	ModelMS      int64  `json:"model_ms"`
	ToolCalls    int64  `json:"tool_calls"`
}

// exportUsage sums person's usage by day, chat and model, the newest day
// first: at most a row per chat and model a day of RYO_RETAIN_USAGE.
func exportUsage(ctx context.Context, tx pgx.Tx, person int64) ([]ExportUsage, error) {
	rows, err := tx.Query(ctx, `select to_char(at at time zone 'UTC', 'YYYY-MM-DD') as day, chat_id, model, count(*),
			sum(prompt_tokens)::bigint, sum(reply_tokens)::bigint, sum(model_ms)::bigint, sum(cardinality(tools))::bigint
		from usage where user_id = $1::bigint group by day, chat_id, model order by day desc, chat_id, model`, person)
	if err != nil {
		return nil, err
	}
	out := []ExportUsage{}
	var u ExportUsage
	_, err = pgx.ForEachRow(rows, []any{&u.Day, &u.ChatID, &u.Model, &u.Answers, &u.PromptTokens, &u.ReplyTokens, &u.ModelMS, &u.ToolCalls}, func() error {
		out = append(out, u)
		return nil
	})
	return out, err
}
