package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/knowledge"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

const refundsHandbook = "# Customer service guide\n\n## Refunds\n\nOnline orders can be returned within 14 days of delivery.\n\n" +
	"## Loyalty card\n\nEvery tenth coffee is free with the loyalty card.\n"

// An admin adds a document to a group's knowledge base with /knowledge add
// as its caption; a member's question is answered from it: the model
// calls knowledge_search, the status says what it searches for, and the
// answer cites the passage.
func TestKnowledgeAddedAndAnswered(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.env["RYO_DRAFTS"] = "off"
	hold := make(chan struct{})
	h.llm.Enqueue(ollamatest.Reply{Content: command("knowledge_search", `{"query":"return online order"}`)},
		ollamatest.Reply{Content: envelope("Within 14 days of delivery [guide.md › Refunds]."), Hold: hold})
	h.start()
	q := h.tg.SendDocument(team, alice, telegramtest.Document{FileName: "guide.md", MimeType: "text/markdown", Data: []byte(refundsHandbook)},
		"/knowledge add")
	h.reply(team, q.ID, "📚 Added “guide.md” as #")
	if got := h.reply(team, q.ID, "📚 Added"); !strings.Contains(got.Text, "for this group: 2 passages.") {
		t.Fatalf("the add's reply = %q", got.Text)
	}
	if len(h.tg.Downloads()) != 1 {
		t.Fatalf("downloads = %v; want the file once", h.tg.Downloads())
	}

	q = h.tg.SendText(team, bob, "@ryo_test_bot how long do I have to return an online order?")
	h.waitFor("the status saying what is searched", func() bool {
		for _, c := range h.tg.Calls("") {
			if strings.Contains(c.Params["text"], "📚 searching the knowledge base for return online order") {
				return true
			}
		}
		return false
	})
	close(hold)
	h.answer(team, q.ID, "Within 14 days of delivery [guide.md › Refunds].")
	reqs := h.llm.Requests()
	last := reqs[len(reqs)-1].Messages
	result := last[len(last)-1].Content
	for _, want := range []string{"__tool_result__ knowledge_search ", `"cite":"[guide.md › Refunds]"`, "Online orders can be returned within 14 days"} {
		if !strings.Contains(result, want) {
			t.Errorf("knowledge_search's result lacks %q: %s", want, result)
		}
	}
	if strings.Contains(result, "tenth coffee") && strings.Index(result, "tenth coffee") < strings.Index(result, "Online orders") {
		t.Errorf("the loyalty card ranks above refunds: %s", result)
	}
}

// A document added in a private chat is everyone's; one added in a group
// is the group's alone.
func TestKnowledgeScopes(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	file := h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "rules.txt", Data: []byte("The office opens at nine.")}, "")
	q := h.tg.SendText(dm, alice, "/knowledge add", telegramtest.ReplyTo(file.ID))
	h.reply(dm, q.ID, "for everyone: 1 passage.")
	group := h.tg.SendDocument(team, alice, telegramtest.Document{FileName: "team.md", Data: []byte("Team lunch is at eleven.")}, "/knowledge add")
	h.reply(team, group.ID, "for this group")
	group = h.tg.SendDocument(team, alice, telegramtest.Document{FileName: "Team.md", Data: []byte("Team lunch is at noon.")}, "/knowledge add")
	h.reply(team, group.ID, "of the same name.")
	if found, _ := h.db().SearchKnowledge(bg(t), team.ID, "team lunch", nil, 5); len(found) != 1 || found[0].Text != "Team lunch is at noon." {
		t.Fatalf("after the replacement the group finds %+v; want the new text alone", found)
	}

	q = h.tg.SendText(bobDM, bob, "/knowledge")
	list := h.reply(bobDM, q.ID, "📚 Knowledge base, newest first (1)")
	if !strings.Contains(list.Text, "rules.txt · 1 passage · for everyone · Alice") || strings.Contains(list.Text, "team.md") {
		t.Fatalf("Bob's list = %q; want the global document only", list.Text)
	}
	q = h.tg.SendText(team, bob, "/knowledge")
	if got := h.reply(team, q.ID, "(2)"); !strings.Contains(got.Text, "Team.md") || !strings.Contains(got.Text, "rules.txt") {
		t.Fatalf("the group's list = %q", got.Text)
	}
	docs, _, err := h.db().Documents(bg(t), team.ID, 0, 10)
	if err != nil || len(docs) != 2 {
		t.Fatal(docs, err)
	}
	q = h.tg.SendText(bobDM, bob, fmt.Sprintf("/knowledge show %d", docs[0].ID))
	h.reply(bobDM, q.ID, fmt.Sprintf("There is no document #%d here", docs[0].ID))
	q = h.tg.SendText(team, bob, fmt.Sprintf("/knowledge show %d", docs[1].ID))
	if got := h.reply(team, q.ID, "📚 #"); !strings.Contains(got.Text, "rules.txt") || !strings.Contains(got.Text, "The office opens at nine.") {
		t.Fatalf("/knowledge show = %q", got.Text)
	}
}

// Each thing wrong with a document to add gets its own clear answer, and
// only admins add.
func TestKnowledgeAddRefusals(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.env["RYO_KNOWLEDGE_MAX_BYTES"] = "2048"
	h.env["RYO_KNOWLEDGE_MAX_CHUNKS"] = "3"
	h.start()
	for _, tc := range []struct {
		doc  telegramtest.Document
		want string
	}{
		{telegramtest.Document{FileName: "photo.jpg", MimeType: "image/jpeg", Data: []byte{0xff, 0xd8}}, "I add .txt, .md, .html and .pdf files"},
		{telegramtest.Document{FileName: "big.txt", Data: []byte(strings.Repeat("a ", 2000))}, "“big.txt” is 4 KB; a document may be at most 2 KB."},
		{telegramtest.Document{FileName: "blank.md", Data: []byte("# Title\n\n   \n")}, "I found no text in “blank.md”"},
		{telegramtest.Document{FileName: "binary.txt", Data: []byte{0, 1, 0xff, 0xfe}}, "I could not read “binary.txt”: binary.txt is not text"},
		{telegramtest.Document{FileName: "long.md", Data: []byte(strings.Repeat("## Part\n\ntext\n\n", 4))}, "it makes 4 passages, and a document may have at most 3"},
	} {
		q := h.tg.SendDocument(dm, alice, tc.doc, "/knowledge add")
		h.reply(dm, q.ID, tc.want)
	}
	q := h.tg.SendDocument(bobDM, bob, telegramtest.Document{FileName: "mine.txt", Data: []byte("hello")}, "/knowledge add")
	h.reply(bobDM, q.ID, "Only admins add and delete")
	q = h.tg.SendText(dm, alice, "/knowledge add")
	h.reply(dm, q.ID, "Usage:")
	q = h.tg.SendText(dm, alice, "/knowledge add ftp://files.example/guide")
	h.reply(dm, q.ID, "Send /knowledge add with a web address (https://…)")
	if docs, total, _ := h.db().Documents(bg(t), dm.ID, 0, 10); total != 0 {
		t.Fatalf("documents stored despite the refusals: %+v", docs)
	}
}

// /knowledge delete asks the admin to confirm; nobody else may, and a
// member may not even ask.
func TestKnowledgeDeleteIsConfirmed(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	chunks, _, _ := knowledge.Split(refundsHandbook, 0)
	d, _, err := h.db().AddDocument(bg(t), ryo.Document{Chat: team.ID, Name: "guide.md", AddedBy: alice.ID, Bytes: 100}, chunks)
	if err != nil {
		t.Fatal(err)
	}
	q := h.tg.SendText(team, bob, fmt.Sprintf("/knowledge delete %d", d.ID))
	h.reply(team, q.ID, "Only admins add and delete")
	q = h.tg.SendText(team, alice, fmt.Sprintf("/knowledge delete %d", d.ID))
	p := h.prompt(team)
	if p.ReplyTo != q.ID || !strings.Contains(p.Text, "Delete “guide.md”") || !strings.Contains(p.Text, "2 passages, for this group") {
		t.Fatalf("prompt = %+v", p)
	}
	if ans := h.pressAnswer(h.press(team, bob, p, "✅")); ans.Text == "" {
		t.Fatalf("Bob's press was answered %+v; want refused", ans)
	}
	if _, _, ok, _ := h.db().Document(bg(t), team.ID, d.ID, 0); !ok {
		t.Fatal("Bob's press deleted the document")
	}
	h.pressAnswer(h.press(team, alice, p, "✅"))
	h.settled(team, p.ID, "✅ Confirmed by Alice at ")
	if _, _, ok, _ := h.db().Document(bg(t), team.ID, d.ID, 0); ok {
		t.Fatal("the document is still there")
	}
	q = h.tg.SendText(team, alice, "/knowledge delete 999999")
	h.reply(team, q.ID, "There is no document #999999 here")
}

// /knowledge lists ten documents a page, newest first.
func TestKnowledgeListPages(t *testing.T) {
	h := newHarness(t)
	h.start()
	chunks, _, _ := knowledge.Split("text", 0)
	for i := 1; i <= 12; i++ {
		if _, _, err := h.db().AddDocument(bg(t), ryo.Document{Name: fmt.Sprintf("doc%02d.md", i), AddedBy: alice.ID}, chunks); err != nil {
			t.Fatal(err)
		}
	}
	q := h.tg.SendText(bobDM, bob, "/knowledge")
	list := h.reply(bobDM, q.ID, "(12) — page 1 of 2")
	if !strings.Contains(list.Text, "doc12.md") || strings.Contains(list.Text, "doc02.md") {
		t.Fatalf("page 1 = %q", list.Text)
	}
	h.pressAnswer(h.press(bobDM, bob, list, "Next"))
	h.waitFor("page 2", func() bool { return strings.Contains(h.message(bobDM, list.ID).Text, "doc01.md") })
}

// With an embedding model that is missing, a document is still added,
// found by its words, and the log says why.
func TestKnowledgeEmbeddingFailureKeepsWords(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.env["RYO_EMBED_MODEL"] = "not-pulled"
	h.start()
	q := h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "guide.md", Data: []byte(refundsHandbook)}, "/knowledge add")
	h.reply(dm, q.ID, "📚 Added")
	if !strings.Contains(h.logs.String(), "could not embed a document's passages") {
		t.Fatal("the log does not say embedding failed")
	}
	if found, err := h.db().SearchKnowledge(bg(t), bob.ID, "loyalty card", nil, 1); err != nil || len(found) != 1 {
		t.Fatalf("SearchKnowledge = %+v, %v", found, err)
	}
}
