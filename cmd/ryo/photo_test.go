package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/imagetest"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// visionHarness is a harness whose Ollama also has a model that reads
// pictures, named in RYO_VISION_MODEL.
func visionHarness(t *testing.T) *harness {
	h := newHarness(t)
	h.llm.AddVisionModel("gemma3:4b")
	h.env["RYO_VISION_MODEL"] = "gemma3:4b"
	h.env["RYO_DRAFTS"] = "off"
	return h
}

// lastImages are the model and the pictures of the newest chat request,
// decoded from the base64 they came as, with the text of the message that
// carried the last one.
func lastImages(t *testing.T, llm *ollamatest.Server) (string, [][]byte, string) {
	t.Helper()
	reqs := llm.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model was never asked")
	}
	r := reqs[len(reqs)-1]
	text := ""
	for _, m := range r.Messages {
		if len(m.Images) > 0 {
			text = m.Content
		}
	}
	return r.Model, r.Images(), text
}

// The done-when of photos: a receipt with "what did I spend?" is answered
// by the vision model, which got the photo's largest size as base64 with
// the question.
func TestPhotoAnsweredFromTheImage(t *testing.T) {
	h := visionHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("You spent 42.50 at the grocer's.")})
	h.start()
	receipt := imagetest.Picture(1200, 1600, "jpeg")
	q := h.tg.SendPhoto(dm, alice, receipt, "what did I spend?")
	h.answer(dm, q.ID, "You spent 42.50 at the grocer's.")
	model, images, text := lastImages(t, h.llm)
	if model != "gemma3:4b" || len(images) != 1 || !bytes.Equal(images[0], receipt) || !strings.Contains(text, "what did I spend?") {
		t.Fatalf("the model %q was shown %d pictures with %q; want the receipt with the question to gemma3:4b", model, len(images), text)
	}
	if d := h.tg.Downloads(); len(d) != 1 || !strings.HasPrefix(d[0], "photos/") {
		t.Fatalf("downloads = %q; want the photo once", d)
	}
	hist, err := h.db().History(bg(t), ryo.Place{ChatID: dm.ID}, 10)
	if err != nil || len(hist) == 0 || len(hist[0].Photos()) != 1 || hist[0].Photos()[0].Width != 1200 {
		t.Fatalf("history = %+v, %v; want the photo stored with the message", hist, err)
	}
}

// Without RYO_VISION_MODEL, the chat model reads the photo when Ollama
// says it reads pictures.
func TestPhotoAnsweredByAChatModelThatSees(t *testing.T) {
	h := newHarness(t)
	h.llm.AddVisionModel("llama3.2")
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("A red car.")})
	h.start()
	pic := imagetest.Picture(800, 600, "jpeg")
	q := h.tg.SendPhoto(dm, alice, pic, "")
	h.answer(dm, q.ID, "A red car.")
	if model, images, _ := lastImages(t, h.llm); model != "llama3.2" || len(images) != 1 || !bytes.Equal(images[0], pic) {
		t.Fatalf("the model %q was shown %d pictures; want the photo to llama3.2", model, len(images))
	}
}

// Without a model that reads pictures, a photo gets one sentence naming
// RYO_VISION_MODEL; the model is not asked, and the message is kept.
func TestPhotoWithoutAVisionModel(t *testing.T) {
	h := newHarness(t)
	h.start()
	q := h.tg.SendPhoto(dm, alice, imagetest.Picture(800, 600, "jpeg"), "what is this?")
	h.reply(dm, q.ID, "RYO_VISION_MODEL")
	if n := len(h.llm.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
	hist, err := h.db().History(bg(t), ryo.Place{ChatID: dm.ID}, 10)
	if err != nil || len(hist) != 1 || hist[0].Text != "what is this?" || len(hist[0].Photos()) != 1 {
		t.Fatalf("history = %+v, %v; want the photo kept with its caption", hist, err)
	}
	if msgs := h.tg.BotMessages(dm.ID); len(msgs) != 1 {
		t.Fatalf("bot messages = %+v; want the one sentence", msgs)
	}
}

// An album reaches the bot as one update per photo, the caption on the
// first: waiting together in the inbox, they are answered in one turn
// that shows the model all three.
func TestAlbumIsOneTurn(t *testing.T) {
	h := visionHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Three views of the same bridge.")})
	pics := [][]byte{imagetest.Picture(800, 600, "jpeg"), imagetest.Picture(600, 800, "jpeg"), imagetest.Picture(640, 640, "png")}
	var last telegramtest.Message
	for i, p := range pics {
		caption := ""
		if i == 0 {
			caption = "what do these show?"
		}
		last = h.tg.SendPhoto(dm, alice, p, caption, telegramtest.InAlbum("13758912345678901"))
	}
	h.start()
	h.answer(dm, last.ID, "Three views of the same bridge.")
	if n := len(h.llm.Requests()); n != 1 {
		t.Fatalf("the model was asked %d times; want one turn", n)
	}
	_, images, _ := lastImages(t, h.llm)
	if len(images) != 3 {
		t.Fatalf("the model was shown %d pictures; want the album's 3", len(images))
	}
	for _, p := range pics {
		if !slices.ContainsFunc(images, func(img []byte) bool { return bytes.Equal(img, p) }) {
			t.Fatal("a photo of the album was not shown")
		}
	}
}

// A photo past Telegram's 20 MB download limit gets one clear sentence,
// and a log line; the model is not asked.
func TestOversizedPhoto(t *testing.T) {
	h := visionHarness(t)
	h.start()
	big := append(imagetest.Picture(1280, 960, "png"), make([]byte, 21<<20)...)
	q := h.tg.SendPhoto(dm, alice, big, "what is this?")
	h.reply(dm, q.ID, "too big")
	if n := len(h.llm.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
	if !strings.Contains(h.logs.String(), "cannot fetch a photo") {
		t.Fatal("no log line says why")
	}
}

// In a group, a photo not meant for the bot is kept as context, never
// answered; a later question about it shows the model the photo again.
func TestGroupPhotoKeptAndSeenLater(t *testing.T) {
	h := visionHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("The car was red.")})
	h.start()
	car := imagetest.Picture(1024, 768, "jpeg")
	p := h.tg.SendPhoto(team, bob, car, "look what I saw")
	q := h.tg.SendText(team, alice, "@ryo_test_bot what colour was the car?")
	h.answer(team, q.ID, "The car was red.")
	for _, m := range h.tg.BotMessages(team.ID) {
		if m.ReplyTo == p.ID {
			t.Fatalf("the bot answered the photo: %q", m.Text)
		}
	}
	if model, images, text := lastImages(t, h.llm); model != "gemma3:4b" || len(images) != 1 || !bytes.Equal(images[0], car) ||
		!strings.Contains(text, "look what I saw") {
		t.Fatalf("the model %q was shown %d pictures with %q; want the car's photo again", model, len(images), text)
	}
}

// An album sent while ryo runs is one turn too: its first photo waits for
// the others, which are answered together with the last.
func TestAlbumWhileRunningIsOneTurn(t *testing.T) {
	h := visionHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Three cats.")})
	h.start()
	var last telegramtest.Message
	for i := range 3 {
		caption := ""
		if i == 0 {
			caption = "how many cats?"
		}
		last = h.tg.SendPhoto(dm, alice, imagetest.Picture(640+i, 480, "jpeg"), caption, telegramtest.InAlbum("2001"))
	}
	h.answer(dm, last.ID, "Three cats.")
	if n := len(h.llm.Requests()); n != 1 {
		t.Fatalf("the model was asked %d times; want one turn", n)
	}
	if _, images, _ := lastImages(t, h.llm); len(images) != 3 {
		t.Fatalf("the model was shown %d pictures; want the album's 3", len(images))
	}
	if msgs := h.tg.BotMessages(dm.ID); len(msgs) != 1 {
		t.Fatalf("bot messages = %+v; want one answer", msgs)
	}
}

// In a group only an album's first photo carries the caption that
// mentions ryo: the turn that answers it shows the model the whole album.
func TestGroupAlbumIsOneTurn(t *testing.T) {
	h := visionHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Two bridges.")})
	h.start()
	first := h.tg.SendPhoto(team, alice, imagetest.Picture(800, 600, "jpeg"), "@ryo_test_bot what are these?", telegramtest.InAlbum("2002"))
	h.tg.SendPhoto(team, alice, imagetest.Picture(600, 800, "jpeg"), "", telegramtest.InAlbum("2002"))
	h.answer(team, first.ID, "Two bridges.")
	if _, images, _ := lastImages(t, h.llm); len(images) != 2 {
		t.Fatalf("the model was shown %d pictures; want the album's 2", len(images))
	}
	if n := len(h.llm.Requests()); n != 1 {
		t.Fatalf("the model was asked %d times; want one turn", n)
	}
}

// A photo Telegram will not hand over gets one sentence and a log line;
// the model is not asked, and the photo is kept.
func TestPhotoTelegramRefuses(t *testing.T) {
	h := visionHarness(t)
	h.tg.FailNext("getFile", 1, telegramtest.APIError{Code: 400, Description: "Bad Request: wrong file_id or the file is temporarily unavailable"})
	h.start()
	q := h.tg.SendPhoto(dm, alice, imagetest.Picture(800, 600, "jpeg"), "what is this?")
	h.reply(dm, q.ID, "could not fetch that photo")
	if n := len(h.llm.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
	if !strings.Contains(h.logs.String(), "cannot fetch a photo") || !strings.Contains(h.logs.String(), "wrong file_id") {
		t.Fatal("no log line says why")
	}
	if strings.Contains(h.logs.String(), testToken) {
		t.Fatal("the token reached the log")
	}
}

// While Telegram fails to hand a photo over for a moment, the turn waits
// and runs again: the photo is answered once Telegram works.
func TestPhotoThroughATelegramOutage(t *testing.T) {
	h := visionHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("A lighthouse.")})
	h.tg.FailNext("getFile", 2, telegramtest.APIError{Code: 500, Description: "Internal Server Error"})
	h.start()
	q := h.tg.SendPhoto(dm, alice, imagetest.Picture(800, 600, "jpeg"), "what is this?")
	h.answer(dm, q.ID, "A lighthouse.")
	if _, images, _ := lastImages(t, h.llm); len(images) != 1 {
		t.Fatalf("the model was shown %d pictures; want the photo", len(images))
	}
}

// Photos of the history whose files Telegram no longer hands over cost a
// turn no more fetches than the photos it would show: a chat full of
// stale photos does not make each question fetch every one of them, and
// the question is still answered.
func TestStalePhotosFetchedNoMoreThanShown(t *testing.T) {
	h := visionHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("I can't see them any more.")})
	h.start()
	const stale = 12
	for range stale {
		h.tg.SendPhoto(team, bob, imagetest.Picture(64, 48, "jpeg"), "")
	}
	h.tg.FailNext("getFile", stale, telegramtest.APIError{Code: 400, Description: "Bad Request: wrong file_id or the file is temporarily unavailable"})
	q := h.tg.SendText(team, alice, "@ryo_test_bot what were those photos?")
	h.answer(team, q.ID, "I can't see them any more.")
	if n := len(h.tg.Calls("getFile")); n > 3 {
		t.Fatalf("the turn asked for %d photos' files; want no more than the 3 it shows", n)
	}
}

// When Ollama cannot say for a moment whether the chat model reads
// pictures, a photo is told so, in words that do not send an admin
// looking for a missing setting; the failure is asked about again, and the
// next photo is answered.
func TestPhotoWhileOllamaCannotSayItSees(t *testing.T) {
	h := newHarness(t)
	h.llm.AddVisionModel("llama3.2")
	h.llm.FailShows(2) // the start check's, and the first photo's
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("A red car.")})
	h.start()
	q := h.tg.SendPhoto(dm, alice, imagetest.Picture(800, 600, "jpeg"), "what is this?")
	told := h.reply(dm, q.ID, "in a moment").Text
	if strings.Contains(told, "RYO_VISION_MODEL") {
		t.Fatalf("told %q: an outage is not a missing setting", told)
	}
	q = h.tg.SendPhoto(dm, alice, imagetest.Picture(800, 600, "jpeg"), "and this?")
	h.answer(dm, q.ID, "A red car.")
}

// An album followed at once by a question is answered in one turn, with
// the question: the model is shown every photo of the album, not only
// the newest three.
func TestAlbumThenQuestionShowsTheWholeAlbum(t *testing.T) {
	h := visionHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("The third.")})
	for i := range 5 {
		h.tg.SendPhoto(dm, alice, imagetest.Picture(100+i, 100, "jpeg"), "", telegramtest.InAlbum("13758912345678902"))
	}
	q := h.tg.SendText(dm, alice, "which of these is the best?")
	h.start()
	h.answer(dm, q.ID, "The third.")
	if n := len(h.llm.Requests()); n != 1 {
		t.Fatalf("the model was asked %d times; want one turn", n)
	}
	if _, images, _ := lastImages(t, h.llm); len(images) != 5 {
		t.Fatalf("the model was shown %d pictures; want the album's 5", len(images))
	}
}

// A photo refused as too big does not refuse the question after it: the
// question is answered, without the photo.
func TestQuestionAfterARefusedPhoto(t *testing.T) {
	h := visionHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hello!")})
	h.start()
	big := append(imagetest.Picture(1280, 960, "png"), make([]byte, 21<<20)...)
	p := h.tg.SendPhoto(dm, alice, big, "what is this?")
	h.reply(dm, p.ID, "too big")
	q := h.tg.SendText(dm, alice, "never mind, hello")
	h.answer(dm, q.ID, "Hello!")
	if _, images, _ := lastImages(t, h.llm); len(images) != 0 {
		t.Fatalf("the model was shown %d pictures; want none", len(images))
	}
}

// RYO_VISION_MODEL naming a model that does not read pictures is no model
// that does: Ollama would take the photo for it without a word, and the
// model would answer about a picture it never saw. The photo gets the
// sentence naming the setting instead; the model is not asked.
func TestVisionModelThatDoesNotSee(t *testing.T) {
	h := newHarness(t)
	h.llm.AddModel("qwen3:0.6b")
	h.env["RYO_VISION_MODEL"] = "qwen3:0.6b"
	h.start()
	q := h.tg.SendPhoto(dm, alice, imagetest.Picture(800, 600, "jpeg"), "what is this?")
	h.reply(dm, q.ID, "RYO_VISION_MODEL")
	if n := len(h.llm.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
}

// A photo whose caption is a command runs the command: /knowledge add
// with a photo is told in words that it takes a document, and /help with
// one is the help; neither asks the model nor fetches the photo.
func TestPhotoWithACommandCaption(t *testing.T) {
	h := visionHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	q := h.tg.SendPhoto(dm, alice, imagetest.Picture(800, 600, "jpeg"), "/knowledge add")
	told := h.reply(dm, q.ID, "").Text
	t.Logf("/knowledge add with a photo: %q", told)
	if told == "" {
		t.Fatal("no answer to /knowledge add with a photo")
	}
	q = h.tg.SendPhoto(dm, alice, imagetest.Picture(800, 600, "jpeg"), "/help")
	if h.reply(dm, q.ID, "").Text == "" {
		t.Fatal("no answer to /help with a photo")
	}
	if n := len(h.llm.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
	if d := h.tg.Downloads(); len(d) != 0 {
		t.Fatalf("downloads = %q; want none", d)
	}
}

// A photo whose header is a picture's but whose pixels the model server
// cannot decode fails its own turn, but does not fail every later turn
// of the chat while it is among the photos shown again.
func TestUndecodablePhotoDoesNotPoisonTheChat(t *testing.T) {
	h := visionHarness(t)
	h.llm.Handle(func(r ollamatest.Request) ollamatest.Reply {
		if len(r.Images()) > 0 {
			return ollamatest.Reply{Status: 500, Error: "failed to process inputs: image: unknown format"}
		}
		return ollamatest.Reply{Content: envelope("Hello!")}
	})
	h.start()
	broken := imagetest.Picture(800, 600, "png")[:40] // the header, and no pixels
	p := h.tg.SendPhoto(dm, alice, broken, "what is this?")
	h.answer(dm, p.ID, "")
	q := h.tg.SendText(dm, alice, "never mind, hello")
	h.answer(dm, q.ID, "Hello!")
}
