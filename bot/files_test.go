package bot_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
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
