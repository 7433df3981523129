package memory_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/knowledge"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// addDocument splits text and stores it as name, for chat (0: global).
func addDocument(t testing.TB, db *memory.DB, chat int64, name, text string) ryo.Document {
	t.Helper()
	chunks, title, err := knowledge.Split(text, 0)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := db.AddDocument(ctx(t.(*testing.T)), ryo.Document{Chat: chat, Name: name, Title: title, Source: name, AddedBy: 7_000_000_001,
		Bytes: int64(len(text))}, chunks)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// loadHandbook adds the retrieval fixture's documents globally.
func loadHandbook(t *testing.T, db *memory.DB) {
	t.Helper()
	files, _ := filepath.Glob("testdata/knowledge/*.*")
	for _, f := range files {
		if strings.HasSuffix(f, ".json") {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		addDocument(t, db, 0, filepath.Base(f), string(text))
	}
}

// For every question of the fixture the chunk that answers it ranks first,
// by words alone.
func TestKnowledgeRetrievalFixture(t *testing.T) {
	db := memorytest.Open(t)
	loadHandbook(t, db)
	raw, err := os.ReadFile("testdata/knowledge/questions.json")
	if err != nil {
		t.Fatal(err)
	}
	var questions []struct{ Question, Document, Contains string }
	if err := json.Unmarshal(raw, &questions); err != nil {
		t.Fatal(err)
	}
	if len(questions) < 10 {
		t.Fatalf("%d questions; the fixture needs at least ten", len(questions))
	}
	for _, q := range questions {
		found, err := db.SearchKnowledge(ctx(t), -1, q.Question, nil, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(found) == 0 || found[0].Document.Name != q.Document || !strings.Contains(found[0].Text, q.Contains) {
			var got []string
			for _, p := range found {
				got = append(got, p.Document.Name+" › "+p.Heading+": "+p.Text[:min(40, len(p.Text))])
			}
			t.Errorf("%q found first %q; want the chunk of %s holding %q", q.Question, got, q.Document, q.Contains)
		}
	}
}

// A chat sees the global documents and its own, never another group's;
// a document of the same name there replaces the old one.
func TestKnowledgeScopesAndReplaces(t *testing.T) {
	db := memorytest.Open(t)
	const team, other = -1001234567890, -1009876543210
	global := addDocument(t, db, 0, "Rules.md", "# Rules\n\nThe shop opens at nine.")
	mine := addDocument(t, db, team, "team.md", "The team's lunch is at noon.")
	theirs := addDocument(t, db, other, "theirs.md", "The other team's secret lunch is at one.")
	for chat, want := range map[int64][]int64{team: {mine.ID, global.ID}, other: {theirs.ID, global.ID}, 42: {global.ID}} {
		docs, total, err := db.Documents(ctx(t), chat, 0, 10)
		var ids []int64
		for _, d := range docs {
			ids = append(ids, d.ID)
		}
		if err != nil || total != len(want) || !slices.Equal(ids, want) {
			t.Errorf("Documents(%d) = %v, %d, %v; want %v", chat, ids, total, err, want)
		}
	}
	if found, _ := db.SearchKnowledge(ctx(t), team, "lunch", nil, 5); len(found) != 1 || found[0].Document.ID != mine.ID {
		t.Errorf("the team's search for lunch = %+v; want its own document only", found)
	}
	if _, _, ok, _ := db.Document(ctx(t), team, theirs.ID, 10); ok {
		t.Error("a group sees another group's document")
	}
	if _, ok, _ := db.DeleteDocument(ctx(t), team, theirs.ID); ok {
		t.Error("a group deleted another group's document")
	}

	chunks, _, _ := knowledge.Split("# Rules\n\n## Hours\n\nThe shop opens at ten now.", 0)
	again, replaced, err := db.AddDocument(ctx(t), ryo.Document{Name: "rules.MD", AddedBy: 1, Bytes: 10}, chunks)
	if err != nil || replaced.ID != global.ID || again.ID == global.ID {
		t.Fatalf("AddDocument of the same name = %+v replacing %+v, %v", again, replaced, err)
	}
	found, err := db.SearchKnowledge(ctx(t), 42, "shop opens", nil, 5)
	if err != nil || len(found) != 1 || !strings.Contains(found[0].Text, "ten") || found[0].Heading != "Rules › Hours" {
		t.Fatalf("search after the replacement = %+v, %v; want the new text only", found, err)
	}
	d, o, ok, err := db.Document(ctx(t), 42, again.ID, 10)
	if err != nil || !ok || d.Chunks != 1 || !slices.Equal(o.Sections, []string{"Rules › Hours"}) || o.First.Text != "The shop opens at ten now." {
		t.Fatalf("Document = %+v, %+v, %v, %v", d, o, ok, err)
	}
	if gone, ok, err := db.DeleteDocument(ctx(t), 42, again.ID); err != nil || !ok || gone.Name != "rules.MD" {
		t.Fatalf("DeleteDocument = %+v, %v, %v", gone, ok, err)
	}
	if found, _ := db.SearchKnowledge(ctx(t), 42, "shop", nil, 5); len(found) != 0 {
		t.Fatalf("the deleted document's chunks are still found: %+v", found)
	}
}

// A chunk that shares no word with the question is found by its meaning
// when the chunks and the query have embeddings.
func TestKnowledgeFindsByMeaning(t *testing.T) {
	db := memorytest.Open(t)
	chunks := []ryo.Chunk{
		{Ord: 0, Heading: "Pets", Text: "Dogs are allowed in the office on Fridays.", Embedding: []float32{1, 0, 0}},
		{Ord: 1, Heading: "Parking", Text: "Bicycles go in the basement.", Embedding: []float32{0, 1, 0}},
	}
	if _, _, err := db.AddDocument(ctx(t), ryo.Document{Name: "office.md", AddedBy: 1}, chunks); err != nil {
		t.Fatal(err)
	}
	found, err := db.SearchKnowledge(ctx(t), 5, "can I bring my puppy", []float32{0.9, 0.1, 0}, 1)
	if err != nil || len(found) != 1 || found[0].Heading != "Pets" {
		t.Fatalf("SearchKnowledge by meaning = %+v, %v; want the Pets chunk", found, err)
	}
	if found, _ := db.SearchKnowledge(ctx(t), 5, "can I bring my puppy", nil, 1); len(found) != 0 {
		t.Fatalf("by words alone = %+v; want nothing (no word in common)", found)
	}
}

// Searches the knowledge base over 10,000 chunks of 150 words, by words:
// p50 and p99 of one search are reported (the README quotes them). The
// words are drawn from 5,000 by Zipf's law, as a language's are, so that a
// few are in nearly every chunk and most in a few.
func BenchmarkKnowledgeSearch(b *testing.B) {
	db := memorytest.Open(b)
	c := b.Context()
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 2, 4999)
	word := func(i uint64) string { return fmt.Sprintf("w%dx", i) }
	sentence := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = word(zipf.Uint64())
		}
		return strings.Join(s, " ")
	}
	for d := range 20 {
		chunks := make([]ryo.Chunk, 500)
		for i := range chunks {
			chunks[i] = ryo.Chunk{Ord: i, Heading: sentence(3), Text: sentence(150)}
		}
		if _, _, err := db.AddDocument(c, ryo.Document{Name: fmt.Sprintf("doc%d.md", d), AddedBy: 1}, chunks); err != nil {
			b.Fatal(err)
		}
	}
	var queries []string
	for i := range 50 { // a common word, and two rarer ones
		queries = append(queries, word(uint64(i%10))+" "+word(uint64(20+i*7))+" "+word(uint64(300+i*53)))
	}
	var took []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if _, err := db.SearchKnowledge(c, 1, queries[i%len(queries)], nil, 5); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
}

// Two admins adding a document of the same name at once: each add
// succeeds, the last one wins, and exactly one document is left.
func TestKnowledgeSameNameAddsAtOnce(t *testing.T) {
	db := memorytest.Open(t)
	const workers, adds = 6, 8
	errs := make(chan error, workers*adds)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range adds {
				chunks, _, _ := knowledge.Split(fmt.Sprintf("version %d of %d", i, w), 0)
				_, _, err := db.AddDocument(ctx(t), ryo.Document{Chat: -100, Name: "Rules.md", Source: "rules.md", AddedBy: int64(w + 1), Bytes: 10}, chunks)
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a same-name add failed: %v", err)
		}
	}
	docs, total, err := db.Documents(ctx(t), -100, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 || len(docs) != 1 {
		t.Errorf("%d documents named Rules.md; want 1", total)
	}
}

// The documents a person added are the group's (or everyone's), and stay
// when they are forgotten, but no longer name them; until then, /export
// lists them.
func TestKnowledgeDocumentsOfAForgottenPerson(t *testing.T) {
	db := memorytest.Open(t)
	const ann, ben = 7_000_000_101, 7_000_000_102
	chunks, _, _ := knowledge.Split("The office opens at nine.", 0)
	mine, _, err := db.AddDocument(ctx(t), ryo.Document{Chat: -100, Name: "rules.md", Source: "rules.md", AddedBy: ann, Bytes: 25}, chunks)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.AddDocument(ctx(t), ryo.Document{Name: "other.md", AddedBy: ben, Bytes: 25}, chunks); err != nil {
		t.Fatal(err)
	}
	e, err := db.Export(ctx(t), ann, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Documents) != 1 || e.Documents[0].ID != mine.ID || e.Documents[0].Name != "rules.md" || e.Documents[0].ChatID != -100 {
		t.Errorf("Ann's export lists the documents %+v; want rules.md alone", e.Documents)
	}
	if _, err := db.ForgetPerson(ctx(t), ann); err != nil {
		t.Fatal(err)
	}
	docs, _, err := db.Documents(ctx(t), -100, 0, 10)
	if err != nil || len(docs) != 2 {
		t.Fatalf("documents after Ann was forgotten: %+v, %v; want both kept", docs, err)
	}
	for _, d := range docs {
		if d.AddedBy == ann || (d.Name == "other.md") != (d.AddedBy == ben) {
			t.Errorf("%s is added by %d after Ann was forgotten", d.Name, d.AddedBy)
		}
	}
	if e, err := db.Export(ctx(t), ann, 1<<20); err != nil || len(e.Documents) != 0 {
		t.Errorf("Ann's export after she was forgotten lists %+v, %v", e.Documents, err)
	}
}

// Queries are words, never tsquery syntax: operators, quotes, emoji
// alone, scripts without spaces, and 300 characters of them all search
// without an error.
func TestKnowledgeSearchHostileQueries(t *testing.T) {
	db := memorytest.Open(t)
	addDocument(t, db, 0, "guide.md", "# 退货\n\n网上订单可在收货后十四天内退货。\n\n## Party\n\nThe party 🎉 is on Friday & Saturday (maybe).")
	for _, q := range []string{"a & b | !c:*", "'); drop table knowledge_chunks; --", `\`, "::* <-> (", "🎉", "🎉🎉🎉", "退货", "十四天", strings.Repeat("ab& ", 75),
		strings.Repeat("退", 300), "\x00", "friday & saturday"} {
		found, err := db.SearchKnowledge(ctx(t), 7_000_000_001, q, nil, 6)
		if err != nil {
			t.Errorf("SearchKnowledge(%.40q): %v", q, err)
		}
		if len(found) > 6 {
			t.Errorf("SearchKnowledge(%.40q) found %d passages; want at most 6", q, len(found))
		}
	}
	for _, q := range []string{"退货", "十四天", "friday & saturday"} {
		if found, _ := db.SearchKnowledge(ctx(t), -5, q, nil, 6); len(found) == 0 {
			t.Errorf("SearchKnowledge(%q) found nothing", q)
		}
	}
}

// A document deleted while a search runs is either found whole or not at
// all: never as an empty passage.
func TestKnowledgeSearchRacingDelete(t *testing.T) {
	db := memorytest.Open(t)
	chunks, _, err := knowledge.Split(strings.Repeat("Refunds take fourteen days.\n\n", 40), 0)
	if err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			d, _, err := db.AddDocument(ctx(t), ryo.Document{Name: "refunds.md", AddedBy: 1, Bytes: 1}, chunks)
			if err == nil {
				_, _, err = db.DeleteDocument(ctx(t), 1, d.ID)
			}
			if err != nil {
				done <- err
				return
			}
		}
	}()
	defer func() {
		close(stop)
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	for range 300 {
		found, err := db.SearchKnowledge(ctx(t), 1, "refunds fourteen", nil, 6)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range found {
			if p.Text == "" || p.Document.Name == "" {
				t.Fatalf("a search racing a delete found an empty passage: %+v", p)
			}
		}
	}
}

// A replacement that fails half way — here its third chunk is refused by
// PostgreSQL — leaves the document it would replace whole: never neither,
// never both, never a document without its chunks.
func TestKnowledgeFailedReplaceKeepsTheOld(t *testing.T) {
	db := memorytest.Open(t)
	old := addDocument(t, db, -100, "rules.md", "The office opens at nine.")
	chunks := []ryo.Chunk{{Ord: 0, Text: "one"}, {Ord: 1, Text: "two"}, {Ord: 2, Text: "bad \x00 byte"}}
	if _, _, err := db.AddDocument(ctx(t), ryo.Document{Chat: -100, Name: "RULES.md", AddedBy: 1, Bytes: 3}, chunks); err == nil {
		t.Fatal("a chunk with a NUL byte was stored")
	}
	docs, _, err := db.Documents(ctx(t), -100, 0, 10)
	if err != nil || len(docs) != 1 || docs[0].ID != old.ID {
		t.Fatalf("after a failed replacement the documents are %+v, %v; want the old one alone", docs, err)
	}
	if found, _ := db.SearchKnowledge(ctx(t), -100, "office nine", nil, 5); len(found) != 1 {
		t.Errorf("the old document's passage is gone: %+v", found)
	}
	if found, _ := db.SearchKnowledge(ctx(t), -100, "one two", nil, 5); len(found) != 0 {
		t.Errorf("the failed replacement's chunks were kept: %+v", found)
	}
}
