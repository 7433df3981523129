package bot

import (
	"testing"

	"github.com/go-telegram/bot/models"
)

// Which calls of a command, asked in a group, are answered in the private
// chat instead.
func TestPrivacyOfACall(t *testing.T) {
	reply := &models.Message{ReplyToMessage: &models.Message{ID: 7}}
	topic := &models.Message{ReplyToMessage: &models.Message{ID: 1, ForumTopicCreated: &models.ForumTopicCreated{Name: "t"}}}
	plain := &models.Message{}
	tests := []struct {
		name string
		p    privacy
		args string
		msg  *models.Message
		want bool
	}{
		{"a command shown anywhere", anywhere, "7123456789", plain, false},
		{"a private list", privateOnly, "", plain, true},
		{"bare /memory: the chat's own", privateWithArgs, "", plain, false},
		{"/memory naming someone", privateWithArgs, "7123456789", plain, true},
		{"/ban in reply to a message", privateByName, "", reply, false},
		{"/ban by name, in reply", privateByName, "@bob", reply, true},
		{"/ban by id", privateByName, "7123456789", plain, true},
		{"/ban alone", privateByName, "", plain, true},
		{"/ban in a topic, replying to no one", privateByName, "", topic, true},
	}
	for _, tt := range tests {
		if got := tt.p.of(call{args: tt.args, msg: tt.msg}); got != tt.want {
			t.Errorf("%s: private = %v; want %v", tt.name, got, tt.want)
		}
	}
}
