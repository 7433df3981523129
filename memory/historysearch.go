package memory

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"golang.org/x/text/unicode/norm"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/render"
)

// MaxExcerpt is the longest excerpt of a found message, in characters.
const MaxExcerpt = 300

// SearchHistory finds the stored messages at place p — what people wrote,
// group messages kept as context included, and the bot's answers; never
// tool results or notes for the model — that best match query, at most
// limit, best first; skip is a message row left out (the one the search is
// asked from). Words match as Recall's do, by the start of the messages'
// words in any language; in scripts written without spaces (Chinese,
// Japanese, Thai) the query's characters are matched two at a time inside
// the text. A message scores the summed rarity of the query's words it
// holds, times a recency factor that falls from 1 today to ½ for the
// distant past: of two equal matches the newer wins, and a much better old
// match still beats a poor new one.
func (db *DB) SearchHistory(ctx context.Context, p ryo.Place, query string, skip int64, limit int) ([]ryo.Hit, error) {
	terms, inside := historyTerms(query)
	whole := make([]bool, len(terms))
	if len(terms) == 0 {
		terms, inside, whole = shortTerms(query)
	}
	if len(terms) == 0 || limit <= 0 {
		return nil, nil
	}
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, searchHistorySQL, p.ChatID, p.Thread, terms, inside, skip, db.Now(), limit, whole)
	if err != nil {
		return nil, db.fail("search history", err)
	}
	msgs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ryo.Message, error) {
		return scanMessage(row, p)
	})
	if err != nil {
		return nil, db.fail("search history", err)
	}
	hits := make([]ryo.Hit, len(msgs))
	for i, m := range msgs {
		hits[i] = ryo.Hit{Message: m, Excerpt: excerpt(m.Text, terms)}
	}
	return hits, nil
}

// searchHistorySQL ranks a place's messages by the terms in $3 ($4 true:
// matched inside the text, else by the start of a word, or as a whole
// word where $8 is true), BM25's inverse
// document frequency for each term summed, times the recency factor. The
// frequencies are over all the place's rows, tool results and notes
// included: counted from the place's index alone, they cost a busy topic
// a fraction of counting only the messages searched, and rank the same.
const searchHistorySQL = `with
	n as (select count(*)::float8 as n from messages m where m.chat_id = $1::bigint and m.thread_id = $2::bigint),
	q as (select t.term, t.inside,
			to_tsquery('simple', quote_literal(t.term) || case when t.whole then '' else ':*' end) as tsq
		from unnest($3::text[], $4::bool[], $8::bool[]) as t(term, inside, whole)),
	lowered as materialized (select m.id, m.created_at, lower(m.text) as text from messages m
		where m.chat_id = $1::bigint and m.thread_id = $2::bigint and m.kind in ('user', 'assistant')
			and m.id <> $5::bigint and true = any($4::bool[])),
	matches as (
		select q.term, m.id, m.created_at from q join messages m
			on m.chat_id = $1::bigint and m.thread_id = $2::bigint and m.kind in ('user', 'assistant')
			and m.id <> $5::bigint and not q.inside and to_tsvector('simple', m.text) @@ q.tsq
		union
		select q.term, l.id, l.created_at from q join lowered l on q.inside and strpos(l.text, q.term) > 0),
	df as (select term, count(*)::float8 as df from matches group by term),
	scored as (
		select mt.id, sum(ln(1 + (greatest(n.n, df.df) - df.df + 0.5) / (df.df + 0.5)))
			* (0.5 + 0.5 / (1 + greatest(extract(epoch from $6::timestamptz - min(mt.created_at)), 0) / 2592000)) as score
		from matches mt join df using (term) cross join n group by mt.id, n.n
		order by score desc, mt.id desc limit $7::bigint)
	select m.id, m.kind, m.text, coalesce(m.telegram_message_id, 0), coalesce(m.reply_to_message_id, 0),
		coalesce(m.update_id, 0), m.metadata, m.created_at,
		u.id, coalesce(u.username, ''), coalesce(u.first_name, ''), coalesce(u.last_name, ''), coalesce(u.role, ''),
		m.media, coalesce(m.media_group, '')
	from scored s join messages m on m.id = s.id left join users u on u.id = m.sender_id
	order by s.score desc, m.id desc`

// historyTerms are the terms a history search looks for, each with
// whether it is matched inside the text: words of scripts written with
// spaces become Recall's stems, matched at the start of a word; runs of a
// script written without them (where PostgreSQL's parser takes a whole
// sentence for one word) become their overlapping pairs of characters, or
// the one character, matched anywhere. The query is read as written
// (composed, NFC) and with its compatibility forms folded (NFKC: Latin
// typed full-width, katakana half-width), and each stem is looked for also
// with its accents written apart (NFD), as some keyboards send them. The
// first terms are kept, up to maxTerms of each kind.
func historyTerms(query string) ([]string, []bool) {
	var spaced strings.Builder
	var terms []string
	var inside []bool
	seen := map[string]bool{}
	pairs, stems := 0, 0
	add := func(t string, in bool) {
		kept := &stems
		if in {
			kept = &pairs
		}
		if !seen[t] && *kept < maxTerms(in) {
			seen[t] = true
			*kept++
			terms, inside = append(terms, t), append(inside, in)
		}
	}
	var run []rune
	flush := func() {
		if len(run) == 1 {
			add(string(run), true)
		}
		for i := 0; i+1 < len(run); i++ {
			add(string(run[i:i+2]), true)
		}
		run = run[:0]
	}
	for _, form := range []norm.Form{norm.NFC, norm.NFKC} {
		for _, r := range strings.ToLower(form.String(query)) {
			if unspaced(r) {
				run = append(run, r)
				continue
			}
			flush()
			spaced.WriteRune(r)
		}
		flush()
		spaced.WriteRune(' ')
	}
	for _, stem := range historyStems(spaced.String()) {
		add(stem, false)
		add(norm.NFD.String(stem), false)
	}
	return terms, inside
}

// historyStems are the stems of text's words by Recall's rule
// (queryStems), but with a letter's combining marks — an accent, a Hindi
// vowel sign — part of its word, not breaks in it: Recall's splitting
// leaves "किताब" (book) as three single letters, which no search looks for.
func historyStems(text string) []string {
	var stems []string
	for _, w := range strings.FieldsFunc(text, notWordOrMark) {
		r := []rune(w)
		switch {
		case len(r) < 3:
			continue
		case len(r) >= 6:
			r = r[:max(4, len(r)-3)]
		case len(r) > 3 && r[len(r)-1] == 's':
			r = r[:len(r)-1]
		}
		stems = append(stems, string(r))
	}
	return stems
}

// shortTerms are what a query without a term historyTerms looks for —
// "AI", "🎉" — is looked for by instead, so that it is not taken for no
// query: its words of two letters, each as a whole word (whole), else
// the query itself as written, lower case, inside the text.
func shortTerms(query string) (terms []string, inside, whole []bool) {
	query = strings.ToLower(norm.NFC.String(query))
	for _, w := range strings.FieldsFunc(query, notWordOrMark) {
		if utf8.RuneCountInString(w) == 2 && !slices.Contains(terms, w) {
			terms, inside, whole = append(terms, w), append(inside, false), append(whole, true)
		}
	}
	if t := strings.Join(strings.Fields(query), " "); len(terms) == 0 && t != "" {
		return []string{t}, []bool{true}, []bool{false}
	}
	return terms, inside, whole
}

// notWordOrMark reports whether r breaks a word: neither a letter, a digit
// nor a mark that belongs to a letter.
func notWordOrMark(r rune) bool { return notWordRune(r) && !unicode.In(r, unicode.Mn, unicode.Mc) }

// maxTerms bounds a search's terms, which the tool's 200 characters could
// make many: each term matched inside the text is a scan of all the
// place's text (199 of them took 3.7 s over a topic of 100,000 messages);
// a term matched at the start of a word is a look-up in the index.
func maxTerms(inside bool) int {
	if inside {
		return 16
	}
	return 32
}

// unspaced reports whether r belongs to a script whose words are written
// without spaces between them.
func unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao,
		unicode.Khmer, unicode.Myanmar)
}

// excerpt is text, its runs of white space made one space, cut to at most
// MaxExcerpt characters around the first of terms it holds; "…" marks
// where it was cut. A cut falls between two visible characters, never
// inside one (see joins).
func excerpt(text string, terms []string) string {
	runes := []rune(strings.Join(strings.Fields(text), " "))
	if len(runes) <= MaxExcerpt {
		return string(runes)
	}
	pos := firstMatch(runes, terms)
	start := max(0, pos-MaxExcerpt/4)
	switch {
	case start == 0:
		return string(runes[:back(runes, MaxExcerpt-1)]) + "…"
	case start+MaxExcerpt-1 >= len(runes):
		return "…" + string(runes[ahead(runes, len(runes)-(MaxExcerpt-1)):])
	}
	from := ahead(runes, start)
	return "…" + string(runes[from:max(from, back(runes, start+MaxExcerpt-2))]) + "…"
}

// ahead is the first place at or after i where runes may be cut.
func ahead(runes []rune, i int) int {
	for i < len(runes) && !render.Cuttable(runes, i) {
		i++
	}
	return i
}

// back is the last place at or before i where runes may be cut.
func back(runes []rune, i int) int {
	for i > 0 && !render.Cuttable(runes, i) {
		i--
	}
	return i
}

// firstMatch is where in runes the first of terms starts, compared in
// lower case; 0 when none does. Each term is looked for once through the
// whole text, not compared at every character.
func firstMatch(runes []rune, terms []string) int {
	lower := strings.Map(unicode.ToLower, string(runes)) // one rune for each of runes
	best := -1
	for _, t := range terms {
		if i := strings.Index(lower, t); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	if best < 0 {
		return 0
	}
	return utf8.RuneCountInString(lower[:best])
}
