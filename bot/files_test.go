package bot_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// While a tool that draws runs, the status message says so; the picture
// it stored with its result arrives after the answer, as a photo replying
// to the question, with its caption; anything else comes as a file.
func TestTurnFilesArriveAfterTheAnswer(t *testing.T) {
	tg, db := newTelegram(t, false), memorytest.Open(t)
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 120, 80))); err != nil {
		t.Fatal(err)
	}
	pic := buf.Bytes()
	run(t, tg, db, answerFunc(func(ctx context.Context, in agent.Input) (agent.Output, error) {
		in.Observe(ryo.Step{Kind: ryo.StepThinking, Call: 1})
		in.Observe(ryo.Step{Kind: ryo.StepTool, Tool: "create_chart", Doing: "📊 drawing a chart"})
		if err := tg.Wait(ctx, botSays(tg, "📊 drawing a chart")); err != nil {
			return agent.Output{}, err
		}
		_, err := db.SaveToolResult(ctx, ryo.Message{Place: in.Place, Kind: ryo.KindToolResult, Text: "__tool_result__ create_chart {}",
			UpdateID: in.UpdateID, Attachments: []ryo.Attachment{
				{Name: "chart.png", MimeType: "image/png", Caption: "Weekly spending", Data: pic},
				{Name: "data.csv", MimeType: "text/csv", Data: []byte("week,spent\n1,12\n")}}}, "chart-call")
		in.Observe(ryo.Step{Kind: ryo.StepToolDone, Tool: "create_chart", Status: "ok", Took: 140 * time.Millisecond})
		return agent.Output{Text: "Your spending peaked in week 2.", Tools: []string{"create_chart"}}, err
	}), 5)
	q := tg.SendText(dm, alice, "chart my weekly spending: 12, 40, 33, 8")
	waitFor(t, tg, "the file after the photo", func() bool {
		msgs := tg.BotMessages(dm.ID)
		return len(msgs) > 0 && msgs[len(msgs)-1].Document != nil
	})
	var answer, photo, file *telegramtest.Message
	msgs := tg.BotMessages(dm.ID)
	for i := range msgs {
		switch m := &msgs[i]; {
		case m.Photo != nil:
			photo = m
		case m.Document != nil:
			file = m
		case m.Text == "Your spending peaked in week 2.":
			answer = m
		}
	}
	if answer == nil || photo == nil || file == nil || !(answer.ID < photo.ID && photo.ID < file.ID) {
		t.Fatalf("bot messages = %+v; want the answer, then the photo, then the file", msgs)
	}
	if !bytes.Equal(photo.Photo.Data, pic) || photo.Text != "Weekly spending" || photo.ReplyTo != q.ID || file.ReplyTo != q.ID {
		t.Fatalf("photo %+v, file %+v; want the picture with its caption and the file, replying to the question", photo, file)
	}
	if len(tg.Calls("sendPhoto")) != 1 || len(tg.Calls("sendDocument")) != 1 {
		t.Fatalf("sendPhoto %d, sendDocument %d; want each once", len(tg.Calls("sendPhoto")), len(tg.Calls("sendDocument")))
	}
}

// In a group that does not let members send photos, Telegram refuses the
// chart as a photo for want of rights; it arrives as a file. Where files
// are not allowed either, a line in its place says so. Either way the
// turn is done — answered and remembered — with no apology after the
// answer.
func TestFilesAChatDoesNotAllow(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 120, 80))); err != nil {
		t.Fatal(err)
	}
	pic := buf.Bytes()
	for _, tt := range []struct {
		name      string
		documents bool // the chat takes files
	}{{"files allowed", true}, {"no files either", false}} {
		t.Run(tt.name, func(t *testing.T) {
			tg, db := newTelegram(t, false), memorytest.Open(t)
			tg.FailNext("sendPhoto", 1000, telegramtest.APIError{Code: 400, Description: "Bad Request: not enough rights to send photos to the chat"})
			if !tt.documents {
				tg.FailNext("sendDocument", 1000, telegramtest.APIError{Code: 400, Description: "Bad Request: not enough rights to send documents to the chat"})
			}
			run(t, tg, db, answerFunc(func(ctx context.Context, in agent.Input) (agent.Output, error) {
				_, err := db.SaveToolResult(ctx, ryo.Message{Place: in.Place, Kind: ryo.KindToolResult, Text: "__tool_result__ create_chart {}",
					UpdateID: in.UpdateID, Attachments: []ryo.Attachment{{Name: "chart.png", MimeType: "image/png", Caption: "Weekly spending", Data: pic}}}, "chart-call")
				return agent.Output{Text: "Your spending peaked in week 2.", Tools: []string{"create_chart"}}, err
			}), 3)
			tg.SendText(dm, alice, "chart my weekly spending: 12, 40, 33, 8")
			waitFor(t, tg, "the answer remembered", func() bool {
				history, err := db.History(context.Background(), ryo.Place{ChatID: dm.ID}, 10)
				return err == nil && len(history) > 0 && history[len(history)-1].Kind == ryo.KindAssistant
			})
			var file, note bool
			for _, m := range tg.BotMessages(dm.ID) {
				file = file || m.Document != nil && bytes.Equal(m.Document.Data, pic)
				note = note || strings.Contains(m.Text, "chart.png")
				if strings.Contains(m.Text, "Sorry") {
					t.Fatalf("bot messages = %+v; an apology after the answer", tg.BotMessages(dm.ID))
				}
			}
			if file != tt.documents || note == tt.documents {
				t.Fatalf("bot messages = %+v; want the chart as a file, or a line saying it could not be sent", tg.BotMessages(dm.ID))
			}
		})
	}
}
