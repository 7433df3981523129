package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// The done-when of the knowledge base: an admin adds a PDF with
// /knowledge add, and a member's question is answered from it with a
// citation.
func TestKnowledgePDFAnswered(t *testing.T) {
	pdf, err := os.ReadFile("../../fetch/testdata/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.llm.Enqueue(ollamatest.Reply{Content: command("knowledge_search", `{"query":"ticket price"}`)},
		ollamatest.Reply{Content: envelope("Tickets cost twelve euros [report.pdf].")})
	h.start()
	q := h.tg.SendDocument(team, alice, telegramtest.Document{FileName: "report.pdf", MimeType: "application/pdf", Data: pdf}, "/knowledge add")
	h.reply(team, q.ID, "📚 Added “report.pdf” as #")
	q = h.tg.SendText(team, bob, "@ryo_test_bot how much is a ticket?")
	h.answer(team, q.ID, "Tickets cost twelve euros [report.pdf].")
	reqs := h.llm.Requests()
	last := reqs[len(reqs)-1].Messages
	result := last[len(last)-1].Content
	for _, want := range []string{"__tool_result__ knowledge_search ", `"cite":"[report.pdf`, "Tickets cost twelve euros", `"title":"Harbour report"`} {
		if !strings.Contains(result, want) {
			t.Errorf("knowledge_search's result lacks %q: %s", want, result)
		}
	}
}

// /knowledge add <url> reads the page through the web fetcher's guard: a
// public page is added with its title, a private address refused.
func TestKnowledgeAddPage(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, ferryPage)
	}))
	t.Cleanup(srv.Close)
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.fetch = webNet(t, srv, map[string]string{"news.example": newsIP})
	h.start()
	q := h.tg.SendText(dm, alice, "/knowledge add https://news.example/2026/ferry")
	h.reply(dm, q.ID, "📚 Added “https://news.example/2026/ferry” as #")
	found, err := h.db().SearchKnowledge(bg(t), bob.ID, "last boat back", nil, 1)
	if err != nil || len(found) != 1 || found[0].Document.Title != "Ferry times change in winter" {
		t.Fatalf("SearchKnowledge = %+v, %v", found, err)
	}
	q = h.tg.SendText(dm, alice, "/knowledge add http://127.0.0.1:8080/admin")
	h.reply(dm, q.ID, "I could not read http://127.0.0.1:8080/admin")
}

// A page's address may carry a secret in its query (a token, a signature):
// the page is read with it, but it never becomes the document's name, the
// list everyone sees, a reply or a log line.
func TestKnowledgeAddPageKeepsItsQuerySecret(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("token") != "s3cr3t-tok" {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, ferryPage)
	}))
	t.Cleanup(srv.Close)
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.fetch = webNet(t, srv, map[string]string{"news.example": newsIP})
	h.start()
	q := h.tg.SendText(dm, alice, "/knowledge add https://news.example/2026/ferry?token=s3cr3t-tok#top")
	h.reply(dm, q.ID, "📚 Added “https://news.example/2026/ferry” as #")
	q = h.tg.SendText(dm, alice, "/knowledge")
	h.reply(dm, q.ID, "news.example/2026/ferry")
	q = h.tg.SendText(dm, alice, "/knowledge add https://news.example/missing?token=other-secret")
	h.reply(dm, q.ID, "I could not read https://news.example/missing")
	for _, m := range h.tg.Messages(dm.ID) {
		if m.From.IsBot && (strings.Contains(m.Text, "s3cr3t") || strings.Contains(m.Text, "other-secret")) {
			t.Fatalf("a reply shows the page's token: %q", m.Text)
		}
	}
	if logs := h.logs.String(); strings.Contains(logs, "s3cr3t") || strings.Contains(logs, "other-secret") {
		t.Fatal("the log shows a page's token")
	}
	docs, _, err := h.db().Documents(bg(t), bob.ID, 0, 10)
	if err != nil || len(docs) != 1 || strings.Contains(docs[0].Name+docs[0].Source, "s3cr3t") {
		t.Fatalf("documents = %+v, %v", docs, err)
	}
}
