package bot

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/memory"
)

// One person cannot flood the bot. Two things keep them from it:
//
//   - The messages a person sends while their turn waits in the chat's
//     queue are answered together: each one that a later message of the
//     same person, in the same place, will be answered with is kept as
//     context only (answeredLater), so a burst costs one turn, not one
//     each, and the others in a group wait behind one turn of theirs, not
//     behind the whole burst.
//   - Each person has an allowance of turns and commands (a token bucket:
//     RYO_PERSON_BURST at once, one more every minute/RYO_PERSON_RATE).
//     Past it their messages are kept as context, unanswered, and they are
//     told to slow down, at most once a minute. Admins have no limit.
//   - In a group, turns take turns: a person whose turn was the group's
//     last gives way once, to the end of the chat's queue, when someone
//     else's question waits (giveWay) — so a burst split across a forum's
//     topics keeps the others behind one turn of it, not one per topic.

// slowDown tells a person who is over their allowance.
const slowDown = "🐢 You're writing faster than I can answer. I've kept your messages — give me a moment, then ask again."

// laterLooked is how many of a person's waiting messages are looked at to
// find one that will be answered after the one at hand.
const laterLooked = 20

// tellEvery is how often a person over their allowance is told so.
const tellEvery = time.Minute

// allowance is one person's token bucket.
type allowance struct {
	tokens float64
	at     time.Time // when tokens was last brought up to date
	told   time.Time // when they were last told to slow down
}

// floodGuard holds every person's allowance. People whose bucket is full
// again are forgotten, so it holds only those who wrote lately.
type floodGuard struct {
	every time.Duration // one token back every
	burst float64

	mu     sync.Mutex
	people map[int64]*allowance
}

func newFloodGuard(perMinute, burst int) *floodGuard {
	return &floodGuard{every: time.Minute / time.Duration(max(perMinute, 1)), burst: float64(max(burst, 1)), people: map[int64]*allowance{}}
}

// take spends one of person's tokens at now. ok is false when they have
// none; tell is true when they should then be told to slow down (once a
// minute).
func (g *floodGuard) take(person int64, now time.Time) (ok, tell bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	a := g.people[person]
	if a == nil {
		a = &allowance{tokens: g.burst, at: now}
		g.people[person] = a
	}
	a.tokens = min(g.burst, a.tokens+float64(now.Sub(a.at))/float64(g.every))
	a.at = now
	if a.tokens >= 1 {
		a.tokens--
		g.forgetFull(now)
		return true, false
	}
	if now.Sub(a.told) < tellEvery {
		return false, false
	}
	a.told = now
	return false, true
}

// forgetFull drops the people whose bucket has filled up again, once there
// are many: they would start afresh anyway. g.mu is held.
func (g *floodGuard) forgetFull(now time.Time) {
	if len(g.people) < 4096 {
		return
	}
	for id, a := range g.people {
		if a.tokens+float64(now.Sub(a.at))/float64(g.every) >= g.burst && now.Sub(a.told) >= tellEvery {
			delete(g.people, id)
		}
	}
}

// allowed spends a token of m's sender for a turn or a command. When they
// have none they are told, at most once a minute, to slow down, and a
// message that would have been a turn is kept (as context).
func (b *Bot) allowed(ctx context.Context, j *job, m *models.Message, keep bool) (bool, error) {
	ok, tell := b.flood.take(m.From.ID, b.cfg.Clock.Now())
	if ok {
		return true, nil
	}
	u, err := b.db.SaveUser(ctx, seenIn(m, m.From), false)
	if err != nil {
		return false, err
	}
	if b.isAdmin(u) { // the people who govern the bot are not held back by it
		return true, nil
	}
	b.log.InfoContext(ctx, "a person is over their allowance of turns; their message is kept unanswered",
		"update_id", j.id, "chat_id", m.Chat.ID, "user_id", m.From.ID, "told", tell)
	if keep {
		if err := b.keep(ctx, j.id, m); err != nil {
			return false, err
		}
	}
	if !tell {
		return false, nil
	}
	return false, b.replyOnce(ctx, j.w, j.id, placeOf(m), m.ID, b.wordsOf(ctx, m).Sprintf(slowDown))
}

// answeredLater reports whether a later message of m's sender, waiting in
// the same chat and place, is one the bot will answer: then m is answered
// with it, as one turn — unless that turn could no longer show the model
// every message it answers (foldable). later are the sender's messages
// waiting after m, as memory.LaterFrom reads them.
func (b *Bot) answeredLater(ctx context.Context, m *models.Message, later []json.RawMessage) (bool, error) {
	for _, raw := range later {
		upd, _, err := decodeUpdate(raw)
		if err != nil {
			continue
		}
		r := b.classify(&upd)
		if r.what == verdictAnswer && r.msg.From.ID == m.From.ID && placeOf(r.msg) == placeOf(m) {
			return b.foldable(ctx, m)
		}
	}
	return false, nil
}

// foldable reports whether m may wait for its sender's next message: the
// turn that answers them both must show the model everything since the
// bot last answered them, m and that message included, and a turn shows
// only the newest messages. A long burst is answered a history's worth
// at a time.
func (b *Bot) foldable(ctx context.Context, m *models.Message) (bool, error) {
	room := memory.ShortestWindow(b.cfg.HistoryLimit) - 1 // the answered message's own place
	if room <= 0 {
		return false, nil
	}
	since, err := b.db.SinceAnswered(ctx, placeOf(m), m.From.ID, room)
	return since < room, err
}

// speakers remembers, per group, whose turn was the group's last.
type speakers struct {
	mu   sync.Mutex
	last map[int64]int64 // chat → the person
}

func (s *speakers) lastIn(chat int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last[chat]
}

func (s *speakers) spoke(chat, person int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last[chat] = person
}

// giveWay reports whether the turn m asks for should wait at the end of
// its chat's queue: its sender had the group's last turn, this update has
// not given way before, and someone else's question waits. Otherwise it
// notes that m's sender now has the group's turn.
func (b *Bot) giveWay(ctx context.Context, j *job, m *models.Message) (bool, error) {
	if m.Chat.Type == models.ChatTypePrivate {
		return false, nil
	}
	if !j.gaveWay && b.speakers.lastIn(m.Chat.ID) == m.From.ID {
		waiting, err := b.db.OthersWaiting(ctx, m.Chat.ID, m.From.ID, j.id, laterLooked)
		if err != nil {
			return false, err
		}
		for _, raw := range waiting {
			upd, _, err := decodeUpdate(raw)
			if err != nil {
				continue
			}
			if r := b.classify(&upd); r.what == verdictAnswer && r.msg.From.ID != m.From.ID {
				j.gaveWay = true
				return true, nil
			}
		}
	}
	b.speakers.spoke(m.Chat.ID, m.From.ID)
	return false, nil
}
