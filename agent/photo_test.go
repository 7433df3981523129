package agent_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
)

// Pictures fetched for a turn go with their messages to the model the
// turn names, and the model is told which photos it sees and which it
// does not; a photo without a caption is only the note.
func TestPhotosGoToTheVisionModel(t *testing.T) {
	f := newFixture(t, reply("The car was red."))
	car := []byte("car")
	photo := []ryo.Media{{Kind: ryo.MediaPhoto, FileID: "AgAC"}}
	in := private("what colour was the car?")
	in.Model = "gemma3:4b"
	in.History = append([]ryo.Message{
		{Kind: ryo.KindUser, Sender: ann, Text: "what did I spend?", Media: photo},
		{Kind: ryo.KindAssistant, Text: "42.50."},
		{Kind: ryo.KindUser, Sender: ann, Media: photo, Images: [][]byte{car}},
	}, in.History...)
	if _, err := f.run(t, in); err != nil {
		t.Fatal(err)
	}
	req := f.model.requests[0]
	if req.Model != "gemma3:4b" {
		t.Fatalf("asked %q; want the vision model", req.Model)
	}
	msgs := req.Messages
	unseen, seen, question := msgs[1], msgs[3], msgs[4]
	if !strings.HasPrefix(unseen.Content, "(sent a photo, not shown to you now) what did I spend?") || len(unseen.Images) != 0 {
		t.Errorf("an unseen photo = %q with %d pictures", unseen.Content, len(unseen.Images))
	}
	if seen.Content != "(sent a photo, attached)" || len(seen.Images) != 1 || !bytes.Equal(seen.Images[0], car) {
		t.Errorf("a photo shown = %q with %d pictures; want the note and the picture", seen.Content, len(seen.Images))
	}
	if len(question.Images) != 0 || !strings.Contains(question.Content, "what colour was the car?") {
		t.Errorf("the question = %+v", question)
	}
}
