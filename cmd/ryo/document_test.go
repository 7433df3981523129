package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/imagetest"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// requestText is everything the newest chat request showed the model.
func requestText(t *testing.T, llm *ollamatest.Server) string {
	t.Helper()
	reqs := llm.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model was never asked")
	}
	var s strings.Builder
	for _, m := range reqs[len(reqs)-1].Messages {
		s.WriteString(m.Content + "\n")
	}
	return s.String()
}

// The done-when of documents: a PDF sent with "summarise this" is
// answered from its text, which the model is shown with the question,
// the file's name and kind; the file is downloaded once.
func TestDocumentPDFAnswered(t *testing.T) {
	pdf, err := os.ReadFile("../../fetch/testdata/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("The harbour report says tickets cost twelve euros.")})
	h.start()
	q := h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "report.pdf", MimeType: "application/pdf", Data: pdf}, "summarise this")
	h.answer(dm, q.ID, "tickets cost twelve euros")
	shown := requestText(t, h.llm)
	for _, want := range []string{"summarise this", "“report.pdf” (PDF,", "Tickets cost twelve euros", "shown below whole"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the model was not shown %q:\n%s", want, shown)
		}
	}
	if d := h.tg.Downloads(); len(d) != 1 {
		t.Errorf("downloads = %q; want the PDF once", d)
	}
}

// A text file longer than the budget is shown cut, with a note saying how
// much; a later question finds what was cut off with knowledge_search,
// while the file's text is shown again from the store, not downloaded
// again.
func TestDocumentLongTextCutAndSearched(t *testing.T) {
	var text strings.Builder
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&text, "# Section %d\n\n", i)
		for range 12 {
			fmt.Fprintf(&text, "Paragraph of section %d about the harbour and its ferries, written at some length. ", i)
		}
		text.WriteString("\n\n")
	}
	text.WriteString("The lighthouse keeper of section three is called Ilse Marquardt.\n")
	h := newHarness(t)
	h.env["RYO_DOCUMENT_BUDGET"] = "1000"
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("It is about the harbour.")},
		ollamatest.Reply{Content: command("knowledge_search", `{"query":"lighthouse keeper section three"}`)},
		ollamatest.Reply{Content: envelope("Section 3 names the keeper, Ilse Marquardt [harbour.md › Section 3].")})
	h.start()
	q := h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "harbour.md", MimeType: "text/markdown", Data: []byte(text.String())}, "")
	h.answer(dm, q.ID, "It is about the harbour.")
	first := requestText(t, h.llm)
	if !strings.Contains(first, "“harbour.md” (MD,") || !strings.Contains(first, "its first ") || !strings.Contains(first, "knowledge_search") ||
		!strings.Contains(first, "Section 1") || strings.Contains(first, "Ilse") {
		t.Fatalf("the first turn showed the model:\n%s\nwant the file cut at its budget, with a note", first)
	}
	q = h.tg.SendText(dm, alice, "what does section 3 say about the lighthouse keeper?")
	h.answer(dm, q.ID, "Ilse Marquardt")
	last := requestText(t, h.llm)
	if !strings.Contains(last, "__tool_result__ knowledge_search") || !strings.Contains(last, "Ilse Marquardt") ||
		!strings.Contains(last, "[harbour.md › Section 3]") {
		t.Errorf("knowledge_search did not find the cut-off part:\n%s", last)
	}
	if !strings.Contains(last, "“harbour.md” (MD,") || !strings.Contains(last, "Paragraph of section 1") {
		t.Errorf("the later turn was not shown the file again:\n%s", last)
	}
	if d := h.tg.Downloads(); len(d) != 1 {
		t.Errorf("downloads = %q; want the file once", d)
	}
}

// A file of a kind the bot does not read gets a sentence naming the kinds
// it does, as does a .txt that is really binary; neither asks the model,
// and the .zip is not even downloaded.
func TestDocumentUnsupported(t *testing.T) {
	h := newHarness(t)
	h.start()
	q := h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "photos.zip", MimeType: "application/zip",
		Data: []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00")}, "what is in here?")
	h.reply(dm, q.ID, "I can't read “photos.zip”: I read text, Markdown, CSV, JSON, source code, HTML and PDF files")
	if d := h.tg.Downloads(); len(d) != 0 {
		t.Errorf("downloads = %q; want none", d)
	}
	q = h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "notes.txt", MimeType: "text/plain",
		Data: []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00\x00\x00")}, "")
	h.reply(dm, q.ID, "“notes.txt” is not really a TXT file")
	if n := len(h.llm.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
}

// A file past RYO_DOCUMENT_MAX_BYTES is refused by the size its message
// tells, before Telegram is asked for it.
func TestDocumentTooBigRefusedBeforeGetFile(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_DOCUMENT_MAX_BYTES"] = "2048"
	h.start()
	q := h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "big.txt", MimeType: "text/plain",
		Data: []byte(strings.Repeat("many words ", 400))}, "read this")
	h.reply(dm, q.ID, "“big.txt” is too big for me: I read files of at most 2 KB.")
	if n := len(h.tg.Calls("getFile")); n != 0 {
		t.Errorf("getFile was called %d times; want none", n)
	}
	if n := len(h.llm.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
}

// In a group, a file not meant for the bot is not read: its caption is
// context, and a later question is answered without it being downloaded.
func TestDocumentInAGroupNotMeantForTheBot(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hello, Bob.")})
	h.start()
	h.tg.SendDocument(team, bob, telegramtest.Document{FileName: "salaries.csv", MimeType: "text/csv",
		Data: []byte("name,salary\nBob,4100\n")}, "for the team leads only")
	q := h.tg.SendText(team, bob, "@ryo_test_bot hello")
	h.answer(team, q.ID, "Hello, Bob.")
	shown := requestText(t, h.llm)
	if !strings.Contains(shown, "for the team leads only") || strings.Contains(shown, "4100") {
		t.Errorf("the model was shown:\n%s\nwant the caption as context, never the file", shown)
	}
	if n := len(h.tg.Calls("getFile")); n != 0 {
		t.Errorf("getFile was called %d times; want none", n)
	}
}

// A file Telegram will not hand over gets a sentence asking for it again,
// with a log line saying why that carries no token; the model is not
// asked.
func TestDocumentTelegramRefuses(t *testing.T) {
	h := newHarness(t)
	h.tg.FailNext("getFile", 1, telegramtest.APIError{Code: 400, Description: "Bad Request: wrong file_id or the file is temporarily unavailable"})
	h.start()
	q := h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "notes.txt", MimeType: "text/plain", Data: []byte("hello")}, "read this")
	h.reply(dm, q.ID, "Telegram would not hand me “notes.txt” just now")
	if n := len(h.llm.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
	if logs := h.logs.String(); !strings.Contains(logs, "wrong file_id") || strings.Contains(logs, testToken) {
		t.Errorf("the log does not say why, or carries the token")
	}
}

// While Telegram fails for a moment, the turn runs again, and the file is
// read once Telegram works.
func TestDocumentThroughATelegramOutage(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("It says hello.")})
	h.tg.FailNext("getFile", 2, telegramtest.APIError{Code: 500, Description: "Internal Server Error"})
	h.start()
	q := h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "notes.txt", MimeType: "text/plain", Data: []byte("hello from the notes")}, "")
	h.answer(dm, q.ID, "It says hello.")
	if shown := requestText(t, h.llm); !strings.Contains(shown, "hello from the notes") {
		t.Errorf("the model was not shown the file:\n%s", shown)
	}
}

// A PDF whose pages hold no text (a scan) gets a sentence saying so, and
// one that cannot be read at all another; the model is not asked.
func TestDocumentPDFWithoutText(t *testing.T) {
	h := newHarness(t)
	h.start()
	scan := pdfOf("<</Type /Catalog /Pages 2 0 R>>", "<</Type /Pages /Kids [3 0 R] /Count 1>>",
		"<</Type /Page /Parent 2 0 R /Resources <<>> /MediaBox [0 0 612 792]>>")
	q := h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "scan.pdf", MimeType: "application/pdf", Data: scan}, "what does it say?")
	h.reply(dm, q.ID, "I found no text in “scan.pdf” — if it is a scanned PDF")
	q = h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "broken.pdf", MimeType: "application/pdf",
		Data: []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n")}, "and this?")
	h.reply(dm, q.ID, "I could not read the text of “broken.pdf”")
	if n := len(h.llm.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
}

// A picture sent as a file ("without compression") is looked at as a
// photo is.
func TestDocumentPictureLookedAt(t *testing.T) {
	h := visionHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("A red car.")})
	h.start()
	pic := imagetest.Picture(800, 600, "png")
	q := h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "car.png", MimeType: "image/png", Data: pic}, "what is this?")
	h.answer(dm, q.ID, "A red car.")
	if model, images, _ := lastImages(t, h.llm); model != "gemma3:4b" || len(images) != 1 || !bytes.Equal(images[0], pic) {
		t.Fatalf("the model %q was shown %d pictures; want the file as a photo", model, len(images))
	}
}

// A file that was refused is not downloaded again when its sender's next
// message is answered: the refusal was its answer.
func TestDocumentRefusedIsNotDownloadedAgain(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hello again.")})
	h.start()
	q := h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "notes.txt", MimeType: "text/plain",
		Data: []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00\x00\x00")}, "")
	h.reply(dm, q.ID, "“notes.txt” is not really a TXT file")
	q = h.tg.SendText(dm, alice, "hello")
	h.answer(dm, q.ID, "Hello again.")
	if d := h.tg.Downloads(); len(d) != 1 {
		t.Errorf("downloads = %q; want the refused file once", d)
	}
}

// Five files someone sends while their first question is being answered
// are answered together: the turn reads no more than it may, but the
// model is told of every one of them — none is dropped unsaid.
func TestDocumentBurstNamesEveryFile(t *testing.T) {
	h, g := bobsTurnAtTheModel(t, nil)
	var last telegramtest.Message
	for i := 1; i <= 5; i++ {
		last = h.tg.SendDocument(team, bob, telegramtest.Document{FileName: fmt.Sprintf("part%d.txt", i), MimeType: "text/plain",
			Data: []byte(fmt.Sprintf("Part %d of the minutes: the ferry leaves at %d o'clock.", i, i+6))}, "@ryo_test_bot compare these")
	}
	h.waitStored(last)
	g.release()
	h.waitFor("the burst's turn at the model", func() bool { return len(h.llm.Requests()) == 2 })
	shown := contents(h.llm.Requests()[1])
	for i := 1; i <= 5; i++ {
		if name := fmt.Sprintf("“part%d.txt”", i); !strings.Contains(shown, name) {
			t.Errorf("the model was not told of %s:\n%s", name, shown)
		}
	}
	if d := h.tg.Downloads(); len(d) > 3 {
		t.Errorf("downloads = %q; want at most three", d)
	}
}

// The built binary, killed after a file's text is stored but before the
// answer, and started again, answers once from the stored text: the file
// is neither downloaded nor stored a second time.
func TestDocumentKill9AfterStoredAnswersOnce(t *testing.T) {
	bin := builtBinary(t)
	h := newHarness(t)
	hold := make(chan struct{})
	defer close(hold)
	h.llm.Enqueue(ollamatest.Reply{Hold: hold})
	first := h.startBinary(bin)
	q := h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "minutes.md", MimeType: "text/markdown",
		Data: []byte("# Minutes\n\nThe ferry to Vlieland leaves at seven.\n")}, "when does the ferry leave?")
	if err := h.llm.Wait(bg(t), func() bool { return len(h.llm.Requests()) == 1 }); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the status message remembered", func() bool { return statusRemembered(t, h.db(), ryo.Place{ChatID: dm.ID}) })
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.Wait()

	h.llm.Enqueue(ollamatest.Reply{Content: envelope("At seven.")})
	second := h.startBinary(bin)
	checkAnsweredOnce(t, h.answer(dm, q.ID, "At seven."), "At seven.")
	if shown := requestText(t, h.llm); !strings.Contains(shown, "The ferry to Vlieland leaves at seven.") {
		t.Errorf("the turn run again was not shown the stored file:\n%s", shown)
	}
	if d := h.tg.Downloads(); len(d) != 1 {
		t.Errorf("downloads = %q; want the file once", d)
	}
	if n := strings.Count(h.logs.String(), "a document read"); n != 1 {
		t.Errorf("the file was read and stored %d times; want once", n)
	}
	second.Process.Signal(syscall.SIGTERM)
	second.Wait()
}

// A file longer than the passages kept of one keeps its first part; the
// model is told so, in the turn that reads it and in a later one, rather
// than that knowledge_search finds any part of it.
func TestDocumentPastThePassagesKeptSaysSo(t *testing.T) {
	var text strings.Builder
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&text, "# Day %d\n\nThe log of day %d: the ferry ran on time.\n\n", i, i)
	}
	h := newHarness(t)
	h.env["RYO_KNOWLEDGE_MAX_CHUNKS"] = "3"
	h.env["RYO_DOCUMENT_BUDGET"] = "500"
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("It is a ferry log.")}, ollamatest.Reply{Content: envelope("Day 8 is not kept.")})
	h.start()
	q := h.tg.SendDocument(dm, alice, telegramtest.Document{FileName: "ferry.log", MimeType: "text/plain", Data: []byte(text.String())}, "what is this?")
	h.answer(dm, q.ID, "It is a ferry log.")
	first := requestText(t, h.llm)
	q = h.tg.SendText(dm, alice, "what happened on day 8?")
	h.answer(dm, q.ID, "Day 8 is not kept.")
	later := requestText(t, h.llm)
	for turn, shown := range map[string]string{"first": first, "later": later} {
		if strings.Contains(shown, "finds any part of it") || strings.Contains(shown, "shown below whole") ||
			!strings.Contains(shown, "only its first 3 passages were kept") {
			t.Errorf("the %s turn was not told the file was kept in part:\n%s", turn, shown)
		}
	}
}
