package memory_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/knowledge"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// sendFile stores a message of person in chat carrying a file whose text
// is text, and the file, as the bot does when it reads one.
func sendFile(t *testing.T, db *memory.DB, chat ryo.Chat, person ryo.User, tgID int, name, text string) (ryo.Message, ryo.Document) {
	t.Helper()
	m, err := db.SaveUserMessage(ctx(t), chat, ryo.Message{Place: ryo.Place{ChatID: chat.ID}, Sender: &person, Kind: ryo.KindUser,
		Text: "read this", TelegramID: tgID, UpdateID: int64(tgID) + 9_000_000_000,
		Media: []ryo.Media{{Kind: ryo.MediaDocument, FileID: "doc-" + name, FileName: name, MimeType: "text/plain", Size: int64(len(text))}}})
	if err != nil {
		t.Fatal(err)
	}
	chunks, _, err := knowledge.Split(text, 0)
	if err != nil {
		t.Fatal(err)
	}
	d, err := db.SaveChatFile(ctx(t), ryo.Document{Chat: chat.ID, Name: name, Source: "TXT", AddedBy: person.ID,
		Bytes: int64(len(text)), Message: m.ID}, chunks)
	if err != nil {
		t.Fatal(err)
	}
	return m, d
}

// A file a person sent is found by a search from its chat alone: never
// from another chat, a group or a private one, whose ids are 64-bit; the
// knowledge base's list, show and delete never see it; a name it shares
// with a document of the knowledge base replaces nothing.
func TestChatFilesAreTheirChatsAlone(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	other := ryo.Chat{ID: -1009876543210, Type: ryo.ChatSupergroup, Title: "Other"}
	bobs := ryo.Chat{ID: 8_123_456_789_012, Type: ryo.ChatPrivate}
	bob := ryo.User{ID: bobs.ID, FirstName: "Bob"}
	kb := addDocument(t, db, group.ID, "minutes.txt", "The board met on Tuesday.")
	_, d := sendFile(t, db, group, alice, 1, "minutes.txt", "# Budget\n\nThe zeppelin hangar costs 4.2 million.\n\n# Staff\n\nNine keepers.")
	_, mine := sendFile(t, db, bobs, bob, 2, "diary.txt", "The zeppelin was late again.")
	if d.ID == 0 || d.Message == 0 || d.Chunks != 2 {
		t.Fatalf("SaveChatFile = %+v", d)
	}
	if again, err := db.SaveChatFile(c, ryo.Document{Chat: group.ID, Name: "minutes.txt", Message: d.Message}, nil); err != nil || again.ID != d.ID {
		t.Errorf("saving the file of the same message again = %+v, %v; want the one stored", again, err)
	}
	for _, s := range []struct {
		chat int64
		want []int64
	}{{group.ID, []int64{d.ID}}, {bobs.ID, []int64{mine.ID}}, {other.ID, nil}, {0, nil}, {alice.ID, nil}} {
		found, err := db.SearchKnowledge(c, s.chat, "zeppelin", nil, 5)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, p := range found {
			got = append(got, p.Document.ID)
		}
		if len(got) != len(s.want) || len(got) > 0 && got[0] != s.want[0] {
			t.Errorf("a search from chat %d finds the documents %v; want %v", s.chat, got, s.want)
		}
	}
	if found, err := db.SearchKnowledge(c, group.ID, "zeppelin", []float32{1, 0}, 5); err != nil || len(found) != 1 || found[0].Document.Message == 0 {
		t.Errorf("a search by words and meaning = %+v, %v", found, err)
	}
	docs, total, err := db.Documents(c, group.ID, 0, 10)
	if err != nil || total != 1 || docs[0].ID != kb.ID {
		t.Errorf("/knowledge lists %+v (%d), %v; want the knowledge base's document alone", docs, total, err)
	}
	if _, _, ok, err := db.Document(c, group.ID, d.ID, 5); ok || err != nil {
		t.Errorf("/knowledge show sees the file (%v, %v)", ok, err)
	}
	if _, ok, err := db.DeleteDocument(c, group.ID, d.ID); ok || err != nil {
		t.Errorf("/knowledge delete deletes the file (%v, %v)", ok, err)
	}
	files, err := db.ChatFiles(c, other.ID, []int64{d.Message})
	if err != nil || len(files) != 0 {
		t.Errorf("another chat loads the file: %+v, %v", files, err)
	}
	if chunks, _, err := db.ChatFileText(c, other.ID, d.ID, 1000); err != nil || len(chunks) != 0 {
		t.Errorf("another chat reads the file's text: %+v, %v", chunks, err)
	}
}

// A file's text is read back in order, up to the first passage that
// ends past the characters asked for, with how many its passages hold.
func TestChatFileTextIsReadBackUpToItsBudget(t *testing.T) {
	db := memorytest.Open(t)
	var text strings.Builder
	for i := range 5 {
		text.WriteString("# Part " + string(rune('A'+i)) + "\n\n" + strings.Repeat("word ", 200) + "\n\n")
	}
	m, d := sendFile(t, db, group, alice, 3, "long.txt", text.String())
	files, err := db.ChatFiles(ctx(t), group.ID, []int64{m.ID, 12345678901234})
	if err != nil || files[m.ID].ID != d.ID || files[m.ID].Name != "long.txt" || len(files) != 1 {
		t.Fatalf("ChatFiles = %+v, %v", files, err)
	}
	chunks, total, err := db.ChatFileText(ctx(t), group.ID, d.ID, 1500)
	if err != nil || len(chunks) != 2 || chunks[0].Heading != "Part A" || chunks[1].Heading != "Part B" || total < 4900 {
		t.Fatalf("ChatFileText = %d chunks (%+v), %d, %v; want parts A and B of about 5,000 characters", len(chunks), chunks, total, err)
	}
}

// A person's files go with them: /export lists them with their message,
// and /forgetme deletes them with their messages, passages and all.
func TestChatFilesOfAForgottenPerson(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	m, d := sendFile(t, db, group, alice, 4, "payslip.txt", "Salary: 4,100 a month.")
	e, err := db.Export(c, alice.ID, 1<<20)
	if err != nil || len(e.Documents) != 1 || e.Documents[0].ID != d.ID || e.Documents[0].MessageID != m.ID {
		t.Fatalf("Alice's export lists %+v, %v; want her file with its message", e.Documents, err)
	}
	if _, err := db.ForgetPerson(c, alice.ID); err != nil {
		t.Fatal(err)
	}
	if found, err := db.SearchKnowledge(c, group.ID, "salary", nil, 5); err != nil || len(found) != 0 {
		t.Errorf("a search after Alice was forgotten finds %+v, %v", found, err)
	}
	if n := memory.Count(t, db, `select count(*) from knowledge_chunks`); n != 0 {
		t.Errorf("%d passages are left after Alice was forgotten", n)
	}
}

// The text of a file people sent goes RYO_RETAIN_FILES after it was read:
// its passages with it, never the message it came with, nor the knowledge
// base's documents however old.
func TestSweepFiles(t *testing.T) {
	db, clock := sweepDB(t)
	c := ctx(t)
	const month = 30 * 24 * time.Hour
	kb := addDocument(t, db, group.ID, "rules.md", "The zeppelin hangar opens at nine.")
	m, _ := sendFile(t, db, group, alice, 5, "hangar.txt", "The zeppelin hangar costs 4.2 million.")
	clock.Advance(month - time.Second)
	if got := sweep(t, db, memory.Retention{Files: month}); got != (memory.Swept{}) {
		t.Errorf("swept %+v a second early", got)
	}
	clock.Advance(2 * time.Second)
	if got := sweep(t, db, memory.Retention{Files: month}); got != (memory.Swept{Files: 1}) {
		t.Errorf("swept %+v; want the file", got)
	}
	found, err := db.SearchKnowledge(c, group.ID, "zeppelin", nil, 5)
	if err != nil || len(found) != 1 || found[0].Document.ID != kb.ID {
		t.Errorf("a search after the sweep finds %+v, %v; want the knowledge base's document alone", found, err)
	}
	hist, err := db.History(c, ryo.Place{ChatID: group.ID}, 10)
	if err != nil || len(hist) != 1 || hist[0].ID != m.ID || len(hist[0].Media) != 1 {
		t.Errorf("history after the sweep = %+v, %v; want the message kept", hist, err)
	}
}
