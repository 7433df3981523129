package memory

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/ryo-bot/ryo"
)

// shelfWhere is the condition that keeps a query on shelf s, with its
// arguments numbered from n.
func shelfWhere(s ryo.Shelf, n int) (string, []any) {
	if s.Every() {
		return "$" + strconv.Itoa(n) + "::bigint is not null", []any{int64(0)}
	}
	if s.Scope == ryo.ScopeGroup {
		return "m.scope = 'group' and m.chat_id = $" + strconv.Itoa(n), []any{s.ID}
	}
	return "m.scope = 'user' and m.owner_id = $" + strconv.Itoa(n), []any{s.ID}
}

// MaxMemory is the longest memory, in characters.
const MaxMemory = 2000

// ErrTooLong is returned for a memory longer than MaxMemory.
var ErrTooLong = errors.New("a memory is at most 2000 characters")

const memoryColumns = `m.id, m.scope, m.owner_id, coalesce(nullif(trim(o.first_name || ' ' || o.last_name), ''), nullif(o.username, ''), ''),
	m.chat_id, m.content, m.tags, coalesce(m.source_message_id, 0), m.added_by, m.created_at, m.updated_at,
	coalesce(m.last_used_at, 'epoch'), coalesce(m.expires_at, 'epoch')`

const memoryFrom = ` from memories m left join users o on o.id = m.owner_id `

func memoryFields(m *ryo.Memory) []any {
	return []any{&m.ID, &m.Scope, &m.Owner, &m.OwnerName, &m.Chat, &m.Content, &m.Tags, &m.Source, &m.AddedBy,
		&m.CreatedAt, &m.UpdatedAt, &m.LastUsed, &m.Expires}
}

func unsetMemoryTimes(m *ryo.Memory) {
	for _, t := range []*time.Time{&m.LastUsed, &m.Expires} {
		if !t.After(time.Unix(0, 0)) {
			*t = time.Time{}
		}
	}
}

func scanMemory(row pgx.CollectableRow) (ryo.Memory, error) {
	var m ryo.Memory
	err := row.Scan(memoryFields(&m)...)
	unsetMemoryTimes(&m)
	return m, err
}

// Remember stores m on its shelf and returns it with its id. The same
// content stored again on the same shelf returns the memory already there,
// with the new tags added.
func (db *DB) Remember(ctx context.Context, m ryo.Memory) (ryo.Memory, error) {
	m.Content = strings.TrimSpace(m.Content)
	if utf8.RuneCountInString(m.Content) > MaxMemory {
		return ryo.Memory{}, ErrTooLong
	}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	err := db.tx(ctx, "remember", func(tx pgx.Tx) error {
		now := db.Now()
		shelf := ryo.Shelf{Scope: m.Scope, ID: m.Owner}
		if m.Scope == ryo.ScopeGroup {
			shelf.ID = m.Chat
		}
		cond, args := shelfWhere(shelf, 2)
		var id int64
		err := tx.QueryRow(ctx, `select m.id from memories m where m.content = $1 and `+cond+` limit 1`,
			append([]any{m.Content}, args...)...).Scan(&id)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			var expires *time.Time
			if !m.Expires.IsZero() {
				expires = &m.Expires
			}
			var source *int64
			if m.Source != 0 {
				source = &m.Source
			}
			err = tx.QueryRow(ctx, `insert into memories (scope, owner_id, chat_id, content, tags, source_message_id, added_by,
					search, embedding, created_at, updated_at, expires_at)
				values ($1, $2, $3, $4, $5, $6, $7, `+searchOf("$4", "$5")+`, $8, $9, $9, $10) returning id`,
				m.Scope, m.Owner, m.Chat, m.Content, m.Tags, source, m.AddedBy, m.Embedding, now, expires).Scan(&id)
		case err == nil:
			_, err = tx.Exec(ctx, `update memories set tags = array(select distinct unnest(tags || $2::text[])),
					updated_at = $3 where id = $1`, id, m.Tags, now)
			if err == nil {
				_, err = tx.Exec(ctx, `update memories set search = `+searchOf("content", "tags")+` where id = $1`, id)
			}
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `select `+memoryColumns+memoryFrom+`where m.id = $1`, id)
		if err != nil {
			return err
		}
		m, err = pgx.CollectExactlyOneRow(rows, scanMemory)
		return err
	})
	return m, err
}

// searchOf is the SQL that makes a memory's search vector from its content
// and tags.
func searchOf(content, tags string) string {
	return `to_tsvector('simple', ` + content + `::text || ' ' || array_to_string((` + tags + `)::text[], ' '))`
}

// Memories returns the shelf's memories, newest first, from offset, and how
// many there are in all.
func (db *DB) Memories(ctx context.Context, s ryo.Shelf, offset, limit int) ([]ryo.Memory, int, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	cond, args := shelfWhere(s, 2)
	args = append([]any{db.Now()}, args...)
	var total int
	if err := db.pool.QueryRow(ctx, `select count(*) from memories m where `+cond+live, args...).Scan(&total); err != nil {
		return nil, 0, db.fail("count memories", err)
	}
	rows, err := db.pool.Query(ctx, `select `+memoryColumns+memoryFrom+`where `+cond+live+`
		order by m.id desc offset $3 limit $4`, append(args, offset, limit)...)
	if err != nil {
		return nil, 0, db.fail("list memories", err)
	}
	out, err := pgx.CollectRows(rows, scanMemory)
	if err != nil {
		return nil, 0, db.fail("list memories", err)
	}
	return out, total, nil
}

// live keeps memories that have not expired by the time in $1.
const live = ` and (m.expires_at is null or m.expires_at > $1)`

// Memory returns memory id when it is on the shelf.
func (db *DB) Memory(ctx context.Context, s ryo.Shelf, id int64) (ryo.Memory, bool, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	cond, args := shelfWhere(s, 2)
	rows, err := db.pool.Query(ctx, `select `+memoryColumns+memoryFrom+`where m.id = $1 and `+cond, append([]any{id}, args...)...)
	if err != nil {
		return ryo.Memory{}, false, db.fail("load memory", err)
	}
	m, err := pgx.CollectExactlyOneRow(rows, scanMemory)
	if errors.Is(err, pgx.ErrNoRows) {
		return ryo.Memory{}, false, nil
	}
	if err != nil {
		return ryo.Memory{}, false, db.fail("load memory", err)
	}
	return m, true, nil
}

// Forget deletes memory id when it is on the shelf, and returns it; ok is
// false when there is no such memory there.
func (db *DB) Forget(ctx context.Context, s ryo.Shelf, id int64) (ryo.Memory, bool, error) {
	var m ryo.Memory
	var ok bool
	err := db.tx(ctx, "forget", func(tx pgx.Tx) error {
		cond, args := shelfWhere(s, 2)
		rows, err := tx.Query(ctx, `select `+memoryColumns+memoryFrom+`where m.id = $1 and `+cond+` for update of m`,
			append([]any{id}, args...)...)
		if err != nil {
			return err
		}
		m, err = pgx.CollectExactlyOneRow(rows, scanMemory)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		_, err = tx.Exec(ctx, `delete from memories where id = $1`, id)
		return err
	})
	return m, ok, err
}

// Recall finds the shelf's memories that best match query, best first, at
// most limit, and marks them used. Matching works for any language: the
// query's words match the start of the memories' words (so "dogs" finds
// "dog" and "called" finds "call"), and each matching word counts by how
// rare it is on the shelf, so that "my" or "is" weigh little and "Rex" a
// lot (BM25's inverse document frequency).
func (db *DB) Recall(ctx context.Context, s ryo.Shelf, query string, limit int) ([]ryo.Memory, error) {
	return db.RecallNear(ctx, s, query, nil, limit)
}

// RecallNear is Recall that also ranks the memories by how close their
// embeddings are to vec, the query's (nil: by words alone), and fuses the
// two rankings (reciprocal rank fusion: a memory's score is the sum of
// 1/(60+rank) over the rankings it is in), so that a memory found by its
// meaning alone, or by its words alone, still comes up.
//
// The vectors are compared here, exactly, rather than by pgvector: a shelf
// holds one person's or one group's memories — hundreds, a few thousand —
// which takes well under a millisecond, and needs no extension in
// PostgreSQL.
func (db *DB) RecallNear(ctx context.Context, s ryo.Shelf, query string, vec []float32, limit int) ([]ryo.Memory, error) {
	if limit <= 0 {
		return nil, nil
	}
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	// No transaction: in read committed it would give the statements no
	// common snapshot, only two more round trips. Each ranking is one
	// statement, and the memories they found are read and marked used in
	// one more.
	now := db.Now()
	pool := max(limit*5, 50)
	byWords, err := wordRanking(ctx, db.pool, s, queryStems(query), now, pool)
	if err != nil {
		return nil, db.fail("recall", err)
	}
	byMeaning, err := vectorRanking(ctx, db.pool, s, vec, now, pool)
	if err != nil {
		return nil, db.fail("recall", err)
	}
	ids, scores := fuse(limit, byWords, byMeaning)
	if len(ids) == 0 {
		return nil, nil
	}
	found, err := db.useMemories(ctx, ids, now)
	if err != nil {
		return nil, db.fail("recall", err)
	}
	for i := range found {
		found[i].Score, found[i].LastUsed = scores[found[i].ID], now
	}
	slices.SortFunc(found, func(a, b ryo.Memory) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return found, nil
}

// useMemories marks the memories ids used at now, and returns them.
func (db *DB) useMemories(ctx context.Context, ids []int64, now time.Time) ([]ryo.Memory, error) {
	var found []ryo.Memory
	var err error
	for range txAttempts {
		var rows pgx.Rows
		rows, err = db.pool.Query(ctx, `with m as (update memories set last_used_at = $2::timestamptz where id = any($1::bigint[]) returning *)
			select `+memoryColumns+` from m left join users o on o.id = m.owner_id`, ids, now)
		if err == nil {
			found, err = pgx.CollectRows(rows, scanMemory)
		}
		if !lostRace(err) {
			break
		}
	}
	return found, err
}

// querier is what runs a query: the pool, or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// wordRanking is the shelf's memories that contain the query's stems, best
// first, by the summed rarity of the stems they contain.
func wordRanking(ctx context.Context, db querier, s ryo.Shelf, stems []string, now time.Time, limit int) ([]int64, error) {
	if len(stems) == 0 {
		return nil, nil
	}
	cond, args := shelfWhere(s, 4)
	rows, err := db.Query(ctx, `with cand as (
			select m.id, m.search from memories m where `+cond+live+`),
		n as (select count(*)::float8 as n from cand),
		q as (select stem, to_tsquery('simple', quote_literal(stem) || ':*') as tsq from unnest($2::text[]) as stem),
		df as (select q.stem, q.tsq, count(c.id)::float8 as df from q join cand c on c.search @@ q.tsq group by q.stem, q.tsq),
		scored as (select c.id, sum(ln(1 + (n.n - df.df + 0.5) / (df.df + 0.5))) as score
			from cand c cross join n join df on c.search @@ df.tsq group by c.id)
		select id from scored order by score desc, id desc limit $3`, append([]any{now, stems, limit}, args...)...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// vectorRanking is the shelf's memories with embeddings, closest to vec
// first by cosine similarity; none when vec is nil.
func vectorRanking(ctx context.Context, db querier, s ryo.Shelf, vec []float32, now time.Time, limit int) ([]int64, error) {
	if len(vec) == 0 {
		return nil, nil
	}
	cond, args := shelfWhere(s, 3)
	rows, err := db.Query(ctx, `select m.id, m.embedding from memories m
		where `+cond+live+` and cardinality(m.embedding) = $2::bigint`, append([]any{now, len(vec)}, args...)...)
	if err != nil {
		return nil, err
	}
	return nearest(rows, vec, limit)
}

// nearest reads rows of ids and embeddings, and returns at most limit of
// the ids, closest to vec first by cosine similarity, leaving out those
// pointing away from it.
func nearest(rows pgx.Rows, vec []float32, limit int) ([]int64, error) {
	type near struct {
		id  int64
		sim float64
	}
	var all []near
	var id int64
	var emb []float32
	_, err := pgx.ForEachRow(rows, []any{&id, &emb}, func() error {
		all = append(all, near{id, cosine(vec, emb)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b near) int { return cmp.Compare(b.sim, a.sim) })
	var ids []int64
	for _, n := range all[:min(limit, len(all))] {
		if n.sim > 0 {
			ids = append(ids, n.id)
		}
	}
	return ids, nil
}

// cosine is the cosine similarity of a and b, of equal length.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// fuse merges rankings by reciprocal rank fusion and returns the best
// limit ids, best first, with their scores.
func fuse(limit int, rankings ...[]int64) ([]int64, map[int64]float64) {
	const k = 60
	scores := map[int64]float64{}
	for _, r := range rankings {
		for rank, id := range r {
			scores[id] += 1 / float64(k+rank+1)
		}
	}
	ids := make([]int64, 0, len(scores))
	for id := range scores {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int64) int {
		if c := cmp.Compare(scores[b], scores[a]); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	})
	return ids[:min(limit, len(ids))], scores
}

// queryStems are the words of a query as Recall matches them: lower case,
// at least three letters, a long word cut to a stem-like start so that it
// matches the other forms of the word, in most languages that inflect the
// end of words.
func queryStems(query string) []string {
	seen := map[string]bool{}
	var stems []string
	for _, w := range strings.FieldsFunc(strings.ToLower(query), notWordRune) {
		r := []rune(w)
		if len(r) < 3 {
			continue
		}
		if len(r) >= 6 {
			r = r[:max(4, len(r)-3)] // "working" → "work", "birthday" → "birth", "собаку" → "соба"
		} else if len(r) > 3 && r[len(r)-1] == 's' {
			r = r[:len(r)-1] // "dogs" → "dog"
		}
		stem := string(r)
		if !seen[stem] {
			seen[stem] = true
			stems = append(stems, stem)
		}
	}
	return stems
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }
