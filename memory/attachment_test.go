package memory_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// A tool's files are stored with its result, in order, for its turn to
// deliver; storing the same call again stores nothing new.
func TestAttachmentsAreStoredWithTheirToolResult(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	place := ryo.Place{ChatID: group.ID, Thread: 7}
	const turn, other = 987654321012, 987654321013
	inbox(t, db, turn, other)
	say(t, db, place, 1, "chart my weekly spending")
	chart := ryo.Attachment{Name: "chart.png", MimeType: "image/png", Caption: "Weekly spending", Data: []byte("\x89PNG\r\n\x1a\n\x00chart")}
	table := ryo.Attachment{Name: "table.csv", MimeType: "text/csv", Data: []byte("week,spent\n1,12\n")}
	if _, err := db.SaveToolResult(c, ryo.Message{Place: place, Text: "__tool_result__ create_chart {}", UpdateID: turn,
		Attachments: []ryo.Attachment{chart, table}}, "chart-key"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveToolResult(c, ryo.Message{Place: place, Text: "__tool_result__ create_chart {}", UpdateID: turn,
		Attachments: []ryo.Attachment{table}}, "chart-key"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveToolResult(c, ryo.Message{Place: place, Text: "__tool_result__ create_chart {}", UpdateID: other,
		Attachments: []ryo.Attachment{table}}, "other-key"); err != nil {
		t.Fatal(err)
	}
	got, err := db.TurnAttachments(c, turn)
	if err != nil || len(got) != 2 {
		t.Fatalf("TurnAttachments = %d files, %v; want the two of the first call", len(got), err)
	}
	for i, want := range []ryo.Attachment{chart, table} {
		if got[i].Name != want.Name || got[i].MimeType != want.MimeType || got[i].Caption != want.Caption || !bytes.Equal(got[i].Data, want.Data) {
			t.Errorf("file %d = %+v; want %+v", i+1, got[i], want)
		}
	}
	if none, err := db.TurnAttachments(c, 1); err != nil || len(none) != 0 {
		t.Fatalf("a turn without files has %d, %v", len(none), err)
	}

	// They go with their turn's update, when the inbox is swept.
	memory.MustExec(t, db, fmt.Sprintf(`delete from updates where update_id = %d`, turn))
	if left, _ := db.TurnAttachments(c, turn); len(left) != 0 {
		t.Fatalf("%d files outlived their update", len(left))
	}
	// And with their message.
	memory.MustExec(t, db, `delete from messages where kind = 'tool_result'`)
	if left := memory.Count(t, db, `select count(*) from attachments`); left != 0 {
		t.Fatalf("%d files outlived their message", left)
	}
}

// A file larger than Telegram takes as a photo is refused by the store
// too, and nothing of its result is stored.
func TestAttachmentsAreBounded(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	place := ryo.Place{ChatID: group.ID}
	inbox(t, db, 987654321020)
	say(t, db, place, 1, "draw something huge")
	huge := ryo.Attachment{Name: "huge.png", MimeType: "image/png", Data: make([]byte, ryo.MaxAttachmentBytes+1)}
	if _, err := db.SaveToolResult(c, ryo.Message{Place: place, Text: "__tool_result__ x {}", UpdateID: 987654321020,
		Attachments: []ryo.Attachment{huge}}, "huge-key"); err == nil {
		t.Fatal("a file past 10 MB was stored")
	}
	if _, found, _ := db.ToolResult(c, "huge-key"); found {
		t.Fatal("the result of a refused file was stored without it")
	}
}
