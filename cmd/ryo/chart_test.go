package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// weeklySpending is the chart the model asks for when told "chart my
// weekly spending: 12, 40, 33, 8".
const weeklySpending = `{"kind":"bar","title":"Weekly spending","unit":"$","series":["Spending"],"points":[` +
	`{"label":"Week 1","value":12},{"label":"Week 2","value":40},{"label":"Week 3","value":33},{"label":"Week 4","value":8}]}`

const chartAnswer = "Here is your weekly spending: it peaked at $40 in week 2 and was lowest in week 4."

// photos are the bot's photo messages in chat.
func photos(h *harness, chat telegramtest.Chat) []telegramtest.Message {
	var out []telegramtest.Message
	for _, m := range h.tg.BotMessages(chat.ID) {
		if m.Photo != nil {
			out = append(out, m)
		}
	}
	return out
}

// checkChartPhoto fails unless m is the weekly spending chart: a PNG of
// 1200×800 pixels, captioned with its title, replying to the question.
func checkChartPhoto(t *testing.T, m telegramtest.Message, question int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(m.Photo.Data))
	if err != nil {
		t.Fatalf("the photo is no PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 800 || m.Photo.Width != 1200 || m.Photo.Height != 800 {
		t.Fatalf("the photo is %v, read by the fake as %d×%d; want 1200×800", b, m.Photo.Width, m.Photo.Height)
	}
	if m.Text != "Weekly spending" || m.ReplyTo != question {
		t.Fatalf("photo caption %q, replying to %d; want the title, replying to the question %d", m.Text, m.ReplyTo, question)
	}
}

// "chart my weekly spending: 12, 40, 33, 8": the model calls create_chart,
// reads what the chart shows — never the picture — and answers; the chart
// arrives after the answer as a photo.
func TestChartArrivesAsAPhoto(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_DRAFTS"] = "off"
	h.llm.Enqueue(ollamatest.Reply{Content: command("create_chart", weeklySpending)}, ollamatest.Reply{Content: envelope(chartAnswer)})
	h.start()
	q := h.tg.SendText(dm, alice, "chart my weekly spending: 12, 40, 33, 8")
	h.waitFor("the chart", func() bool { return len(photos(h, dm)) == 1 })
	checkChartPhoto(t, photos(h, dm)[0], q.ID)
	msgs := h.tg.BotMessages(dm.ID)
	if len(msgs) != 2 || msgs[0].Text != chartAnswer || msgs[0].ReplyTo != q.ID || msgs[1].Photo == nil {
		t.Fatalf("bot messages = %+v; want the answer, then the chart", msgs)
	}

	shown := h.llm.Requests()[1].Messages
	result := shown[len(shown)-1].Content
	for _, want := range []string{"__tool_result__ create_chart ", `"status":"ok"`, `"max":40`, `"max_at":"Week 2"`, `"sum":93`, "sent to the person as a photo"} {
		if !strings.Contains(result, want) {
			t.Errorf("the model read %s; want %s in it", result, want)
		}
	}
	if len(result) > 2000 || strings.Contains(result, "\x89PNG") || strings.Contains(result, "iVBORw0KGgo") {
		t.Fatalf("the model read %d bytes: the picture, not what it shows?", len(result))
	}
	h.waitFor("the update done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })
	stored, err := h.db().History(bg(t), ryo.Place{ChatID: dm.ID}, 10)
	if err != nil || len(stored) != 3 || stored[2].Kind != ryo.KindAssistant {
		t.Fatalf("stored = %+v, %v", stored, err)
	}
	var meta struct {
		IDs   []int    `json:"message_ids"`
		Tools []string `json:"tools"`
	}
	json.Unmarshal(stored[2].Metadata, &meta)
	if len(meta.IDs) != 2 || meta.IDs[1] != msgs[1].ID || strings.Join(meta.Tools, ",") != "create_chart" {
		t.Fatalf("answer metadata = %s; want the answer's and the photo's message ids", stored[2].Metadata)
	}
	var toolMeta struct {
		Attachments []struct {
			Name  string `json:"name"`
			Bytes int    `json:"bytes"`
		} `json:"attachments"`
	}
	json.Unmarshal(stored[1].Metadata, &toolMeta)
	if len(toolMeta.Attachments) != 1 || toolMeta.Attachments[0].Name != "chart.png" || toolMeta.Attachments[0].Bytes != len(msgs[1].Photo.Data) {
		t.Fatalf("tool result metadata = %s", stored[1].Metadata)
	}
}

// A restart after the chart was drawn, before the model answered, and
// another after the answer was sent but before Telegram took the photo:
// the chart is drawn once, kept in PostgreSQL, and arrives exactly once,
// after the answer, which is not sent again.
func TestChartSurvivesRestartsAndArrivesOnce(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_DRAFTS"] = "off"
	hold := make(chan struct{})
	defer close(hold)
	h.llm.Enqueue(ollamatest.Reply{Content: command("create_chart", weeklySpending)}, ollamatest.Reply{Hold: hold})
	h.start()
	q := h.tg.SendText(dm, alice, "chart my weekly spending: 12, 40, 33, 8")
	if err := h.llm.Wait(bg(t), func() bool { return len(h.llm.Requests()) == 2 }); err != nil {
		t.Fatal(err) // the second request carries the chart's result: it is drawn and stored
	}
	h.stopMain()
	if n := len(h.tg.Calls("sendPhoto")); n != 0 {
		t.Fatalf("%d photos sent before the answer", n)
	}

	// The turn runs again: the model asks for the same chart, which is
	// not drawn again; the answer goes out, the photo is refused.
	h.tg.FailNext("sendPhoto", 1000, telegramtest.APIError{Code: http.StatusInternalServerError, Description: "Internal Server Error"})
	h.llm.Enqueue(ollamatest.Reply{Content: command("create_chart", weeklySpending)}, ollamatest.Reply{Content: envelope(chartAnswer)})
	h.start()
	h.answer(dm, q.ID, chartAnswer)
	h.waitFor("the photo refused", func() bool { return len(h.tg.Calls("sendPhoto")) > 0 })
	h.stopMain()
	if len(photos(h, dm)) != 0 {
		t.Fatal("a photo arrived while Telegram refused them")
	}

	h.tg.FailNext("sendPhoto", 0, telegramtest.APIError{})
	h.start()
	h.waitFor("the chart", func() bool { return len(photos(h, dm)) == 1 })
	checkChartPhoto(t, photos(h, dm)[0], q.ID)
	h.waitFor("the update done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })
	answers, sent := 0, 0
	for _, m := range h.tg.BotMessages(dm.ID) {
		if m.Text == chartAnswer {
			answers++
		}
	}
	for _, c := range h.tg.Calls("sendPhoto") {
		if c.Err == nil {
			sent++
		}
	}
	if answers != 1 || sent != 1 || len(photos(h, dm)) != 1 {
		t.Fatalf("the chat shows the answer %d times and %d photos (%d sent); want each once", answers, len(photos(h, dm)), sent)
	}
	got := history(t, h.db(), ryo.Place{ChatID: dm.ID})
	if len(got) != 3 || !strings.HasPrefix(got[1], "tool_result: __tool_result__ create_chart") || got[2] != "assistant: "+chartAnswer {
		t.Fatalf("history = %q; want the question, one chart result, the answer", got)
	}
	if n := len(h.llm.Requests()); n != 4 {
		t.Fatalf("the model was asked %d times; want 4 (two runs of the turn, the last run's second round after the stored chart)", n)
	}
}

// A chart asked for in a forum topic arrives in that topic, as a reply to
// the question, after the answer; while it is drawn the status message
// says so.
func TestChartInATopic(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_DRAFTS"] = "off"
	hold := make(chan struct{})
	h.llm.Enqueue(ollamatest.Reply{Content: command("create_chart", weeklySpending)}, ollamatest.Reply{Content: envelope(chartAnswer), Hold: hold})
	h.start()
	topic := h.tg.CreateTopic(team, alice, "Money")
	q := h.inTopic(topic, alice, "@ryo_test_bot chart my weekly spending: 12, 40, 33, 8")
	h.waitFor("the status saying what is done", func() bool {
		for _, c := range h.tg.Calls("") {
			if strings.Contains(c.Params["text"], "📊 drawing a chart") {
				return true
			}
		}
		return false
	})
	close(hold)
	h.waitFor("the chart", func() bool { return len(photos(h, team)) == 1 })
	photo := photos(h, team)[0]
	if photo.ThreadID != topic.ThreadID || photo.ReplyTo != q.ID || photo.Text != "Weekly spending" {
		t.Fatalf("photo in thread %d replying to %d, caption %q; want thread %d, replying to %d", photo.ThreadID, photo.ReplyTo, photo.Text, topic.ThreadID, q.ID)
	}
	if c := h.tg.Calls("sendPhoto"); len(c) != 1 || c[0].Params["message_thread_id"] != strconv.Itoa(topic.ThreadID) || c[0].Params["parse_mode"] != "" {
		t.Fatalf("sendPhoto calls = %+v", c)
	}
}

// A model that asks for the same chart again in a later round of the same
// turn — small models often do, after reading the first result — draws it
// twice, but the person gets it once.
func TestTheSameChartTwiceInATurnArrivesOnce(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_DRAFTS"] = "off"
	h.llm.Enqueue(ollamatest.Reply{Content: command("create_chart", weeklySpending)},
		ollamatest.Reply{Content: command("create_chart", weeklySpending)}, ollamatest.Reply{Content: envelope(chartAnswer)})
	h.start()
	q := h.tg.SendText(dm, alice, "chart my weekly spending: 12, 40, 33, 8")
	h.waitFor("the update done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })
	if n := len(h.llm.Requests()); n != 3 {
		t.Fatalf("the model was asked %d times; want 3", n)
	}
	if got := photos(h, dm); len(got) != 1 {
		t.Fatalf("%d photos; want the chart once", len(got))
	}
	checkChartPhoto(t, photos(h, dm)[0], q.ID)
}
