package memory

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// The knowledge base's documents and their chunks. A chat sees the global
// documents and its own (a group's); never another group's. Every read and
// delete takes the chat it is asked from. The files people sent in a chat
// (chatfile.go) are kept here too, with their message: a search from that
// chat finds them, and nothing else does — /knowledge neither lists,
// shows nor deletes them.

const documentColumns = `d.id, coalesce(d.chat_id, 0), d.name, d.title, d.source, d.added_by, d.added_at, d.bytes, d.chunks,
	coalesce(d.message_id, 0)`

// sees is the condition that keeps the knowledge base's documents chat $n
// sees: not the files people sent.
func sees(n string) string {
	return `(d.message_id is null and (d.chat_id is null or d.chat_id = ` + n + `::bigint))`
}

// searches is the condition that keeps the documents a search from chat
// $n looks through: those it sees, and the files sent in it. A file's
// chat is never null (a check says so), so no other chat's file passes.
func searches(n string) string { return `(d.chat_id is null or d.chat_id = ` + n + `::bigint)` }

func documentFields(d *ryo.Document) []any {
	return []any{&d.ID, &d.Chat, &d.Name, &d.Title, &d.Source, &d.AddedBy, &d.AddedAt, &d.Bytes, &d.Chunks, &d.Message}
}

func scanDocument(row pgx.CollectableRow) (ryo.Document, error) {
	var d ryo.Document
	return d, row.Scan(documentFields(&d)...)
}

// documentNameLock is the first key of the advisory lock a transaction
// holds while it adds a document (the second is the hash of its place and
// name), so that two adds of one name at once replace one after the
// other instead of the later failing on the name's unique index.
const documentNameLock int32 = 0x72796f03

// AddDocument stores d with its chunks, for d.Chat (0: globally), and
// returns it with its id. A document of the same name there (in any case)
// is replaced: replaced then names the one it replaced.
func (db *DB) AddDocument(ctx context.Context, d ryo.Document, chunks []ryo.Chunk) (added ryo.Document, replaced ryo.Document, err error) {
	d.Chunks = len(chunks)
	err = db.tx(ctx, "add document", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `select pg_advisory_xact_lock($1, hashtext($2::bigint::text || ':' || lower($3)))`,
			documentNameLock, d.Chat, d.Name); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `delete from knowledge_documents d where d.message_id is null and coalesce(d.chat_id, 0) = $1::bigint and lower(d.name) = lower($2)
			returning `+documentColumns, d.Chat, d.Name)
		if err != nil {
			return err
		}
		old, err := pgx.CollectRows(rows, scanDocument)
		if err != nil {
			return err
		}
		if len(old) > 0 {
			replaced = old[0]
		}
		d.AddedAt = db.Now()
		var chat *int64
		if d.Chat != 0 {
			chat = &d.Chat
		}
		if err := tx.QueryRow(ctx, `insert into knowledge_documents (chat_id, name, title, source, added_by, added_at, bytes, chunks)
			values ($1::bigint, $2, $3, $4, $5::bigint, $6, $7::bigint, $8::bigint) returning id`,
			chat, d.Name, d.Title, d.Source, d.AddedBy, d.AddedAt, d.Bytes, d.Chunks).Scan(&d.ID); err != nil {
			return err
		}
		return insertChunks(ctx, tx, d.ID, chunks)
	})
	if err != nil {
		return ryo.Document{}, ryo.Document{}, err
	}
	return d, replaced, nil
}

// insertChunks stores a document's chunks in one round trip.
func insertChunks(ctx context.Context, tx pgx.Tx, doc int64, chunks []ryo.Chunk) error {
	var batch pgx.Batch
	for _, c := range chunks {
		batch.Queue(`insert into knowledge_chunks (document_id, ord, heading, text, embedding) values ($1::bigint, $2::bigint, $3, $4, $5)`,
			doc, c.Ord, c.Heading, c.Text, c.Embedding)
	}
	return tx.SendBatch(ctx, &batch).Close()
}

// Documents returns the documents chat sees, newest first, from offset,
// and how many there are in all.
func (db *DB) Documents(ctx context.Context, chat int64, offset, limit int) ([]ryo.Document, int, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var total int
	if err := db.pool.QueryRow(ctx, `select count(*) from knowledge_documents d where `+sees("$1"), chat).Scan(&total); err != nil {
		return nil, 0, db.fail("count documents", err)
	}
	rows, err := db.pool.Query(ctx, `select `+documentColumns+`,
			coalesce(nullif(trim(coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')), ''), u.username, '')
		from knowledge_documents d left join users u on u.id = d.added_by where `+sees("$1")+`
		order by d.id desc offset $2 limit $3`, chat, offset, limit)
	if err != nil {
		return nil, 0, db.fail("list documents", err)
	}
	docs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ryo.Document, error) {
		var d ryo.Document
		return d, row.Scan(append(documentFields(&d), &d.AddedByName)...)
	})
	if err != nil {
		return nil, 0, db.fail("list documents", err)
	}
	return docs, total, nil
}

// Outline is what /knowledge show tells of a document: its sections, in
// order, and its first chunk.
type Outline struct {
	Sections []string
	First    ryo.Chunk
}

// Document returns document id when chat sees it, with its outline: at
// most sections of its heading paths.
func (db *DB) Document(ctx context.Context, chat, id int64, sections int) (ryo.Document, Outline, bool, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select `+documentColumns+` from knowledge_documents d where d.id = $1::bigint and `+sees("$2"), id, chat)
	if err != nil {
		return ryo.Document{}, Outline{}, false, db.fail("load document", err)
	}
	d, err := pgx.CollectExactlyOneRow(rows, scanDocument)
	if errors.Is(err, pgx.ErrNoRows) {
		return ryo.Document{}, Outline{}, false, nil
	}
	if err != nil {
		return ryo.Document{}, Outline{}, false, db.fail("load document", err)
	}
	var o Outline
	rows, err = db.pool.Query(ctx, `select heading from knowledge_chunks where document_id = $1::bigint and heading <> ''
		group by heading order by min(ord) limit $2`, id, sections)
	if err == nil {
		o.Sections, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err == nil {
		err = db.pool.QueryRow(ctx, `select ord, heading, text from knowledge_chunks where document_id = $1::bigint order by ord limit 1`, id).
			Scan(&o.First.Ord, &o.First.Heading, &o.First.Text)
	}
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return ryo.Document{}, Outline{}, false, db.fail("load document", err)
	}
	return d, o, true, nil
}

// DeleteDocument deletes document id, with its chunks, when chat sees it,
// and returns it; ok is false when chat sees no such document.
func (db *DB) DeleteDocument(ctx context.Context, chat, id int64) (ryo.Document, bool, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `delete from knowledge_documents d where d.id = $1::bigint and `+sees("$2")+` returning `+documentColumns, id, chat)
	if err != nil {
		return ryo.Document{}, false, db.fail("delete document", err)
	}
	d, err := pgx.CollectExactlyOneRow(rows, scanDocument)
	if errors.Is(err, pgx.ErrNoRows) {
		return ryo.Document{}, false, nil
	}
	if err != nil {
		return ryo.Document{}, false, db.fail("delete document", err)
	}
	return d, true, nil
}

// SearchKnowledge finds the chunks of the documents chat sees, and of the
// files sent in it, that best
// match query, at most limit, best first; vec is the query's embedding,
// nil without an embedding model. Words match as history_search's do, in
// any language: by the start of the chunks' words, or, in scripts written
// without spaces, two characters at a time inside the text. A chunk
// scores the summed rarity of the query's words it holds (BM25's inverse
// document frequency), a word in its headings counting double; with vec,
// that ranking and the ranking by closeness of meaning are fused as
// RecallNear fuses them.
func (db *DB) SearchKnowledge(ctx context.Context, chat int64, query string, vec []float32, limit int) ([]ryo.Passage, error) {
	terms, inside := historyTerms(query)
	if limit <= 0 || (len(terms) == 0 && len(vec) == 0) {
		return nil, nil
	}
	var out []ryo.Passage
	err := db.tx(ctx, "search knowledge", func(tx pgx.Tx) error {
		pool := max(limit*5, 50)
		byWords, err := knowledgeByWords(ctx, tx, chat, terms, inside, pool)
		if err != nil {
			return err
		}
		byMeaning, err := knowledgeByMeaning(ctx, tx, chat, vec, pool)
		if err != nil {
			return err
		}
		ids, scores := fuse(limit, byWords, byMeaning)
		if len(ids) == 0 {
			return nil
		}
		rows, err := tx.Query(ctx, `select c.id, c.ord, c.heading, c.text, `+documentColumns+`
			from knowledge_chunks c join knowledge_documents d on d.id = c.document_id where c.id = any($1::bigint[])`, ids)
		if err != nil {
			return err
		}
		found := map[int64]ryo.Passage{}
		var id int64
		var p ryo.Passage
		_, err = pgx.ForEachRow(rows, append([]any{&id, &p.Ord, &p.Heading, &p.Text}, documentFields(&p.Document)...), func() error {
			p.Score = scores[id]
			found[id] = p
			return nil
		})
		if err != nil {
			return err
		}
		for _, id := range ids {
			if p, ok := found[id]; ok { // else deleted since it was ranked
				out = append(out, p)
			}
		}
		slices.SortStableFunc(out, func(a, b ryo.Passage) int { return cmp.Compare(b.Score, a.Score) })
		return nil
	})
	return out, err
}

// knowledgeByWords ranks the chunks chat sees by the terms ($3; $4 true:
// matched inside the text).
func knowledgeByWords(ctx context.Context, tx pgx.Tx, chat int64, terms []string, inside []bool, limit int) ([]int64, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, knowledgeByWordsSQL, chat, limit, terms, inside)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

const knowledgeByWordsSQL = `with
	docs as (select d.id, d.chunks from knowledge_documents d where (d.chat_id is null or d.chat_id = $1::bigint)),
	n as (select coalesce(sum(chunks), 0)::float8 as n from docs),
	q as (select t.term, t.inside, to_tsquery('simple', quote_literal(t.term) || ':*') as tsq
		from unnest($3::text[], $4::bool[]) as t(term, inside)),
	matches as (
		select q.term, c.id, c.heading_search @@ q.tsq as in_heading from q join knowledge_chunks c
			on not q.inside and c.search @@ q.tsq and c.document_id in (select id from docs)
		union all
		select q.term, c.id, strpos(lower(c.heading), q.term) > 0 from q join knowledge_chunks c
			on q.inside and c.document_id in (select id from docs) and strpos(lower(c.heading || ' ' || c.text), q.term) > 0
		where (select bool_or(inside) from q)),
	df as (select term, count(*)::float8 as df from matches group by term)
	select m.id from matches m join df using (term) cross join n
	group by m.id
	order by sum(ln(1 + (n.n - df.df + 0.5) / (df.df + 0.5)) * case when m.in_heading then 2 else 1 end) desc, m.id
	limit $2::bigint`

// knowledgeByMeaning ranks the chunks chat sees that have embeddings by
// their closeness to vec; none when vec is nil.
func knowledgeByMeaning(ctx context.Context, tx pgx.Tx, chat int64, vec []float32, limit int) ([]int64, error) {
	if len(vec) == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, `select c.id, c.embedding from knowledge_chunks c join knowledge_documents d on d.id = c.document_id
		where `+searches("$1")+` and cardinality(c.embedding) = $2::bigint`, chat, len(vec))
	if err != nil {
		return nil, err
	}
	return nearest(rows, vec, limit)
}
