package ryo

import (
	"strings"
	"time"
)

// ChatType is Telegram's kind of chat.
type ChatType string

// Chat types.
const (
	ChatPrivate    ChatType = "private"
	ChatGroup      ChatType = "group"
	ChatSupergroup ChatType = "supergroup"
	ChatChannel    ChatType = "channel"
)

// IsGroup reports whether several people share the chat.
func (t ChatType) IsGroup() bool { return t == ChatGroup || t == ChatSupergroup }

// Chat is a Telegram chat the bot has seen.
type Chat struct {
	ID       int64
	Type     ChatType
	Title    string
	Username string
	IsForum  bool
}

// Place is where a conversation happens: a chat, and a forum topic inside it
// (Thread 0 is the chat itself). Context, history and replies are kept per
// place.
type Place struct {
	ChatID int64
	Thread int
}

// Role is what a user may do.
type Role string

// Roles.
const (
	RoleAdmin  Role = "admin"
	RoleUser   Role = "user"
	RoleBanned Role = "banned"
)

// User is a Telegram user the bot has seen.
type User struct {
	ID           int64
	Username     string
	FirstName    string
	LastName     string
	LanguageCode string
	IsBot        bool
	Role         Role
	Allowed      bool   // let in by an admin, for when access is by allowlist
	Tier         string // which tools they may use; "" is the default tier
	// Seen is when Telegram showed the bot this person with Username: the
	// date of the message they came with. Zero, when saving, means now;
	// read back, it is zero for people stored before sightings were kept.
	Seen time.Time
}

// Name is how the user is named to the model and in the logs: the full
// name, with the @username when there is one.
func (u User) Name() string {
	name := strings.TrimSpace(u.FirstName + " " + u.LastName)
	switch {
	case name == "" && u.Username == "":
		return "someone"
	case name == "":
		return "@" + u.Username
	case u.Username == "":
		return name
	}
	return name + " (@" + u.Username + ")"
}
