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
