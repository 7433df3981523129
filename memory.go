package ryo

import "time"

// Scope says whose a memory is.
type Scope string

// Memory scopes.
const (
	ScopeUser  Scope = "user"  // one person's own: recalled only in their private chat
	ScopeGroup Scope = "group" // a group's: recalled only in that group
	scopeEvery Scope = "every" // every memory: admins' commands only
)

// Memory is something the bot was asked to remember.
type Memory struct {
	ID        int64
	Scope     Scope
	Owner     int64 // the person it belongs to, or who added it to the group
	OwnerName string
	Chat      int64 // the group; for a person's own, where it was learned
	Content   string
	Tags      []string
	Source    int64 // the message it came from; 0 when none
	AddedBy   int64 // the person, or the admin who added it for them
	CreatedAt time.Time
	UpdatedAt time.Time
	LastUsed  time.Time // zero until recalled
	Expires   time.Time // zero when it does not expire
	Score     float64   // how well it matched a recall
	Embedding []float32 // from the embedding model; nil when none is configured
}

// Shelf is whose memories a query may see: one person's own, or one
// group's. Every read and delete of memories goes through one, so that no
// path reaches another person's memories.
type Shelf struct {
	Scope Scope
	ID    int64 // the person, or the group chat
}

// PersonShelf is a person's own memories.
func PersonShelf(user int64) Shelf { return Shelf{Scope: ScopeUser, ID: user} }

// GroupShelf is a group's memories.
func GroupShelf(chat int64) Shelf { return Shelf{Scope: ScopeGroup, ID: chat} }

// EveryShelf is every memory of every person and group: only admins'
// commands use it.
func EveryShelf() Shelf { return Shelf{Scope: scopeEvery} }

// Every reports whether s is every shelf at once.
func (s Shelf) Every() bool { return s.Scope == scopeEvery }

// ShelfOf is the shelf of memories a conversation sees: the person's own
// in a private chat, the group's in a group.
func ShelfOf(c Caller) Shelf {
	if c.Chat.Type.IsGroup() {
		return GroupShelf(c.Chat.ID)
	}
	return PersonShelf(c.Person.ID)
}
