package telegramtest

import (
	"hash/fnv"
	"strconv"
)

// Telegram's ids do not fit in 32 bits: people who joined since 2024 have
// ids above 7·10⁹, bots too (a token starts with its bot's id), supergroups
// and channels are -100 followed by ten digits, and new basic groups are
// -4 followed by nine. The constructors below hand out ids like those, so
// that code which stores or compares an id as a 32-bit number fails its
// tests. Each id is derived from the names given, so a fixture can be
// built before any Server exists and the same names always give the same
// id; different names give different ids in practice, but a test that needs
// two people of the same name must set one ID itself.

// NewUser returns a person with an id between 7·10⁹ and 8·10⁹, as a
// Telegram account made in recent years has. username may be empty.
func NewUser(firstName, username string) User {
	return User{ID: 7_000_000_000 + idHash(1_000_000_000, "user", firstName, username), FirstName: firstName, Username: username}
}

// PrivateChat returns the private chat between the bot and u; as in
// Telegram, its id is the person's id.
func PrivateChat(u User) Chat {
	return Chat{ID: u.ID, Type: "private", FirstName: u.FirstName, Username: u.Username}
}

// NewSupergroup returns a supergroup without topics, with an id such as
// -1001234567890.
func NewSupergroup(title string) Chat {
	return Chat{ID: channelID("supergroup", title), Type: "supergroup", Title: title}
}

// NewForum returns a supergroup with topics (is_forum). Its topics are
// made with CreateTopic; messages sent without one are in the General
// topic.
func NewForum(title string) Chat {
	return Chat{ID: channelID("forum", title), Type: "supergroup", Title: title, IsForum: true}
}

// NewGroup returns a basic group, with an id such as -4123456789.
func NewGroup(title string) Chat {
	return Chat{ID: -(4_000_000_000 + idHash(1_000_000_000, "group", title)), Type: "group", Title: title}
}

// NewChannel returns a channel, with an id such as -1009876543210.
func NewChannel(title string) Chat {
	return Chat{ID: channelID("channel", title), Type: "channel", Title: title}
}

// channelID is a supergroup's or channel's id: -100 and then ten digits.
func channelID(kind, title string) int64 {
	return -(1_000_000_000_000 + 1_000_000_000 + idHash(2_000_000_000, kind, title))
}

// firstMessageID is the id of the first message the fake stores in a chat.
// Telegram numbers messages per chat, so ids of different chats overlap and
// are far from 1; the fake starts each chat somewhere else, a few thousand
// in a private chat and between 100 000 and 1 000 000 in a group, so that a
// message id taken from the wrong chat does not point at a message.
func firstMessageID(chatID int64) int {
	h := idHash(900_000, "messages", strconv.FormatInt(chatID, 10))
	if chatID > 0 {
		return 2_000 + int(h%8_000)
	}
	return 100_000 + int(h)
}

// idHash maps names to a number in [0, n).
func idHash(n int64, names ...string) int64 {
	h := fnv.New64a()
	for _, name := range names {
		h.Write([]byte(name))
		h.Write([]byte{0})
	}
	return int64(h.Sum64() % uint64(n))
}
