package main

import (
	"bytes"
	"fmt"
	"image/png"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/imagetest"
	"github.com/ryo-bot/ryo/ollamatest"
)

// With RYO_IMAGE_URL set, the model may draw: the picture the generator
// made arrives as a photo after the answer, and the model read what was
// made, not the picture.
func TestGeneratedImageArrivesAsAPhoto(t *testing.T) {
	gen := imagetest.NewServer(imagetest.Options{Key: "sk-test-key-123"})
	t.Cleanup(gen.Close)
	h := newHarness(t)
	h.env["RYO_DRAFTS"] = "off"
	h.env["RYO_IMAGE_URL"] = gen.URL()
	h.env["RYO_IMAGE_API_KEY"] = "sk-test-key-123"
	h.llm.Enqueue(ollamatest.Reply{Content: command("generate_image", `{"prompt":"a red fox asleep in the snow, watercolour","shape":"landscape"}`)},
		ollamatest.Reply{Content: envelope("Here is your fox, curled up in the snow.")})
	h.start()
	q := h.tg.SendText(dm, alice, "paint me a fox sleeping in the snow")
	h.waitFor("the picture", func() bool { return len(photos(h, dm)) == 1 })
	msgs := h.tg.BotMessages(dm.ID)
	if len(msgs) != 2 || msgs[0].Text != "Here is your fox, curled up in the snow." || msgs[1].Photo == nil {
		t.Fatalf("bot messages = %+v; want the answer, then the picture", msgs)
	}
	photo := msgs[1]
	img, err := png.Decode(bytes.NewReader(photo.Photo.Data))
	if err != nil || img.Bounds().Dx() != 112 || img.Bounds().Dy() != 64 {
		t.Fatalf("the photo decodes as %v, %v; want the generator's 112×64 PNG", img, err)
	}
	if photo.Text != "🎨 a red fox asleep in the snow, watercolour" || photo.ReplyTo != q.ID {
		t.Fatalf("caption %q replying to %d", photo.Text, photo.ReplyTo)
	}
	if reqs := gen.Requests(); len(reqs) != 1 || reqs[0].Size != "1792x1024" {
		t.Fatalf("the generator was asked %+v", reqs)
	}
	shown := h.llm.Requests()[1].Messages
	result := shown[len(shown)-1].Content
	if !strings.Contains(result, `"made":true`) || len(result) > 1000 || strings.Contains(result, "iVBORw0KGgo") {
		t.Fatalf("the model read %q", result)
	}
	if system := h.llm.Requests()[0].Messages[0].Content; !strings.Contains(system, "- generate_image:") {
		t.Fatal("the model was not offered generate_image")
	}
	if strings.Contains(h.logs.String(), "sk-test-key-123") {
		t.Fatal("the key reached the log")
	}
}

// Without a generator there is no generate_image: the model is not offered
// it, /tools does not list it, and a call of it is an unknown tool.
func TestNoImageToolWithoutAGenerator(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: command("generate_image", `{"prompt":"a fox"}`)},
		ollamatest.Reply{Content: envelope("I can't draw here.")})
	h.start()
	q := h.tg.SendText(dm, alice, "paint me a fox")
	h.answer(dm, q.ID, "I can't draw here.")
	reqs := h.llm.Requests()
	if strings.Contains(reqs[0].Messages[0].Content, "generate_image") || strings.Contains(string(reqs[0].Format), "generate_image") {
		t.Fatal("generate_image was offered without a generator")
	}
	if result := reqs[1].Messages[len(reqs[1].Messages)-1].Content; !strings.Contains(result, "unknown_tool") {
		t.Fatalf("the model read %q", result)
	}
	if n := len(photos(h, dm)); n != 0 {
		t.Fatalf("%d photos sent", n)
	}
	q = h.tg.SendText(dm, alice, "/tools")
	if home := h.reply(dm, q.ID, "What I can do"); strings.Contains(fmt.Sprint(buttonTexts(home)), "Images") {
		t.Fatalf("/tools lists %v", buttonTexts(home))
	}
}
