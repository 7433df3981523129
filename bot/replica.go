package bot

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
)

// Several ryo processes — replicas — may share one database. A chat's
// updates run on the replica that holds the chat's lease, in order, one at
// a time, as they would in a lone process: a stop, an edit or a press
// reaches the turn it changes, which runs in that same process. A replica
// takes a chat when it learns of updates waiting in it — it stored them,
// another replica announced them, or its sweep found them — unless another
// live replica holds it; it lets the chat go once nothing of it waits or
// runs here. In polling mode one replica, the leader, polls Telegram; all
// of them answer.

// beatEvery is how often a replica says it lives, renews its leases and
// sweeps the inbox for chats no live replica holds.
const beatEvery = time.Second

// sweepChats is how many chats one sweep may take.
const sweepChats = 1000

// forceAfter is how long an update may wait for its chat's home replica
// before any replica takes the chat.
const forceAfter = 3 * time.Second

// leases is this replica's part in the sharing of chats.
type leases struct {
	r *memory.Replica
	// A chat is taken or let go under its stripe's lock, so that a take
	// never crosses a release; other chats go on meanwhile.
	stripes [64]sync.Mutex

	mu     sync.Mutex
	live   []string            // the replicas alive at the last beat
	recent map[int64]time.Time // chats this replica let go, and when
	// sure are the chats this replica holds, each with when the database
	// last said so (when the statement that took or renewed its lease was
	// sent): Telegram calls for a chat go out only while that is recent
	// enough (fence). lost are those a heartbeat found taken over or run
	// out, and when.
	sure, lost map[int64]time.Time

	// The replicas the bot-wide budget is shared by: more at once when
	// one comes, fewer only once the one gone has been gone a while, as
	// Telegram still counts its last calls.
	sharedBy int
	fewer    time.Time // when fewer replicas were first seen alive; zero when not
}

// shareGone is how long a replica gone still counts in the sharing of the
// bot-wide budget: Telegram counts calls over a second.
const shareGone = 2 * time.Second

// share returns how many replicas the bot-wide budget is to be shared by,
// with n alive now.
func (l *leases) share(n int, now time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case n >= l.sharedBy:
		l.sharedBy, l.fewer = n, time.Time{}
	case l.fewer.IsZero():
		l.fewer = now
	case now.Sub(l.fewer) >= shareGone:
		l.sharedBy, l.fewer = n, time.Time{}
	}
	return l.sharedBy
}

func (l *leases) lock(chat int64) *sync.Mutex {
	mu := &l.stripes[uint64(chat)%uint64(len(l.stripes))]
	mu.Lock()
	return mu
}

// ours reports whether this replica should take chat when it is free: it
// answered it within memory.Affinity, or the chat's home is here. A chat's
// home is the live replica that ranks it highest (rendezvous hashing):
// every replica computes the same, and when one comes or goes only the
// chats that were or become its own move.
func (l *leases) ours(chat int64, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if at, ok := l.recent[chat]; ok && now.Sub(at) < memory.Affinity {
		return true
	}
	if len(l.live) <= 1 {
		return true
	}
	home, best := "", uint64(0)
	for _, id := range l.live {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s/%d", id, chat)
		if v := h.Sum64(); home == "" || v > best {
			home, best = id, v
		}
	}
	return home == l.r.ID
}

// fenceAfter is how long after the database last said this replica holds
// a chat its Telegram calls for the chat still go out: less than a lease
// lasts, by a margin for the call's own way.
const fenceAfter = memory.LeaseTTL - time.Second

// took notes that this replica took chat with a statement sent at.
func (l *leases) took(chat int64, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sure == nil {
		l.sure = map[int64]time.Time{}
	}
	l.sure[chat] = at
	delete(l.lost, chat)
}

// gave notes that this replica let chat go.
func (l *leases) gave(chat int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.sure, chat)
	delete(l.lost, chat)
}

// renewed notes the chats a heartbeat sent at renewed, held, and those it
// found another replica holds or held last, taken: these are not this
// replica's own any more, unless it took them after the heartbeat was
// sent; it returns them, lost. The others it believed it held stay as they
// were, unconfirmed: a take that reached the database after the heartbeat
// did, or one that ran out (the fence holds it once it is not confirmed
// for fenceAfter).
func (l *leases) renewed(held, taken []int64, at time.Time) (lost []int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost == nil {
		l.lost = map[int64]time.Time{}
	}
	was := l.sure
	l.sure = make(map[int64]time.Time, len(held))
	for _, chat := range held {
		// Only a chat still held here, or believed lost: one let go after
		// the heartbeat was sent is not held again, and one taken after it
		// keeps its take's later confirmation.
		since, mine := was[chat]
		if _, lost := l.lost[chat]; !mine && !lost {
			continue
		}
		delete(l.lost, chat)
		l.sure[chat] = at
		if since.After(at) {
			l.sure[chat] = since
		}
	}
	for _, chat := range taken {
		if since, ok := was[chat]; ok && since.Before(at) {
			l.lost[chat] = at
			delete(was, chat)
			lost = append(lost, chat)
		}
	}
	for chat, since := range was {
		// Taken after the heartbeat was sent, or not confirmed: its lease
		// ran out while nothing of it ran here. One not confirmed for long
		// is forgotten, as a chat lost is.
		if _, ok := l.sure[chat]; !ok && at.Sub(since) < memory.Affinity {
			l.sure[chat] = since
		}
	}
	for _, chat := range taken {
		// Still found held elsewhere while something of it waits or runs
		// here (a claimed update waiting out an outage): it stays lost
		// until nothing of it is here, however long that takes.
		if _, ok := l.lost[chat]; ok {
			l.lost[chat] = at
		}
	}
	for chat, when := range l.lost {
		if at.Sub(when) >= memory.Affinity {
			delete(l.lost, chat)
		}
	}
	return lost
}

// errNotConfirmed is why a call for a chat the database did not confirm
// lately is refused.
var errNotConfirmed = errors.New("the database has not confirmed lately that this replica holds the chat")

// fence refuses a Telegram call for a chat this replica answers in when it
// cannot be sure it still holds the chat: it froze (a machine asleep), or
// its heartbeats failed or came late, for longer than fenceAfter, or the
// last one found the chat taken over. Another replica may answer there
// now — one that started meanwhile, too, so a replica that was alone is
// fenced as well — and a call from here would edit or send over its
// answer. A turn refused as not confirmed waits for the database in its
// chat's queue, as in any outage; one in a chat found taken over ends.
// A chat this replica does not answer in (someone's private chat the
// inspector sends a trace to) is not fenced.
func (l *leases) fence(chat int64, now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.r == nil || chat == 0 {
		return nil
	}
	if since, ok := l.sure[chat]; ok {
		if now.Sub(since) < fenceAfter {
			return nil
		}
		// Not lost, as far as is known: the turn waits in its chat's
		// queue for the database, as for any outage, and goes on there
		// before what came after it once a heartbeat renews the chat — or
		// ends once one finds it taken over.
		return fmt.Errorf("chat %d not confirmed for %v: %w", chat, now.Sub(since).Round(time.Millisecond),
			ryo.Unavailable(ryo.Database, errNotConfirmed))
	}
	if _, ok := l.lost[chat]; ok {
		return memory.ErrLeaseLost
	}
	return nil
}

// alone reports whether no other replica lived at the last beat.
func (l *leases) alone() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.live) <= 1
}

// letGo notes that this replica let chat go at now.
func (l *leases) letGo(chat int64, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.recent == nil {
		l.recent = map[int64]time.Time{}
	}
	l.recent[chat] = now
}

// seen notes the replicas alive now, and forgets chats let go long ago.
func (l *leases) seen(live []string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.live = live
	for chat, at := range l.recent {
		if now.Sub(at) >= memory.Affinity {
			delete(l.recent, chat)
		}
	}
}

// join makes this process a replica, retrying while the database is away.
// When others run already it waits two beats before it answers, so that
// they learn of it and share the bot-wide budget with it first; then it
// asks again who lives, and shares the budget with them all: replicas
// started together (a compose file's) join during that wait, and one that
// went on with the count it saw before it sent its part of a burst as if
// they were fewer.
func (b *Bot) join(ctx context.Context) error {
	err := b.retry(ctx, "join the replicas", func() error {
		r, err := b.db.Join(ctx, b.cfg.ReplicaID)
		if err == nil {
			b.leases.r = r
		}
		return err
	})
	if err != nil {
		return err
	}
	var live []string
	beat := func() error {
		return b.retry(ctx, "say this replica lives", func() error {
			live, err = b.leases.r.Beat(ctx)
			return err
		})
	}
	err = beat()
	if err == nil && len(live) > 1 { // two beats: theirs may come late
		ryo.Sleep(ctx, b.cfg.Clock, 2*beatEvery)
		err = beat()
	}
	if err != nil { // stopped, or the database went away, while joining
		b.leases.r.Leave(ctx) // its connection, held apart from the pool, goes back
		return err
	}
	b.leases.seen(live, b.cfg.Clock.Now())
	b.tg.ShareBudget(b.leases.share(len(live), b.cfg.Clock.Now()))
	b.log.Info("joined the replicas sharing the database", "replica", b.leases.r.ID, "replicas", len(live))
	return nil
}

// offer takes chat, when no other live replica holds it and it is ours
// (or force says to take it anyway), and queues its updates waiting, in
// order. stored are updates of chat just stored here: when the chat
// already runs here they are queued as they are.
func (b *Bot) offer(ctx context.Context, d *dispatcher, chat int64, stored []memory.InboxUpdate, force bool) int {
	defer b.leases.lock(chat).Unlock()
	if len(stored) > 0 && d.busy(chat) {
		for _, u := range stored {
			b.dispatch(d, u)
		}
		return len(stored)
	}
	if !force && !d.busy(chat) && !b.leases.ours(chat, b.cfg.Clock.Now()) {
		return 0 // its home replica takes it; the sweep does, should it not
	}
	sent := b.cfg.Clock.Now()
	ok, last, waiting, err := b.leases.r.TakeChatWaiting(ctx, chat, force)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn("could not take a chat; the sweep tries again", "chat_id", chat, "err", err)
		}
		return 0
	}
	if !ok {
		return 0 // another replica answers it
	}
	b.leases.took(chat, sent)
	if last.From != "" {
		b.tg.Inherit(chat, last.Idle)
		b.log.Info("took over a chat from another replica", "chat_id", chat, "from", last.From, "idle", last.Idle)
	}
	if len(waiting) == 0 && !d.busy(chat) {
		b.release(ctx, chat)
		return 0
	}
	for _, u := range waiting {
		b.dispatch(d, u)
	}
	return len(waiting)
}

// release lets chat's lease go. The chat's stripe is locked.
func (b *Bot) release(ctx context.Context, chat int64) {
	b.releaseWaiting(ctx, chat, false)
}

// releaseWaiting lets chat's lease go and, when list is set, returns its
// updates waiting, read right after in the same round trip; none when it
// could not. The chat's stripe is locked.
func (b *Bot) releaseWaiting(ctx context.Context, chat int64, list bool) []memory.InboxUpdate {
	var waiting []memory.InboxUpdate
	var err error
	b.leases.gave(chat)
	if list {
		waiting, err = b.leases.r.ReleaseChatWaiting(ctx, chat)
	} else {
		err = b.leases.r.ReleaseChat(ctx, chat)
	}
	if err != nil && ctx.Err() == nil {
		b.log.Warn("could not let a chat go; it is free once its lease runs out", "chat_id", chat, "err", err)
	}
	return waiting
}

// chatIdle lets chat go once nothing of it waits or runs here, and looks
// again, in the same round trip, for updates that were stored meanwhile.
func (b *Bot) chatIdle(ctx context.Context, d *dispatcher, chat int64) {
	mu := b.leases.lock(chat)
	if d.busy(chat) {
		mu.Unlock()
		return
	}
	waiting := b.releaseWaiting(ctx, chat, !d.isClosed())
	b.leases.letGo(chat, b.cfg.Clock.Now())
	mu.Unlock()
	if len(waiting) > 0 {
		b.offer(ctx, d, chat, nil, false)
	}
}

// offerStored queues updates just stored here, each chat's in order.
func (b *Bot) offerStored(ctx context.Context, d *dispatcher, stored []memory.InboxUpdate) {
	var chats []int64
	byChat := map[int64][]memory.InboxUpdate{}
	for _, u := range stored {
		if _, ok := byChat[u.ChatID]; !ok {
			chats = append(chats, u.ChatID)
		}
		byChat[u.ChatID] = append(byChat[u.ChatID], u)
	}
	for _, chat := range chats {
		b.offer(ctx, d, chat, byChat[chat], false)
	}
}

// sweepInbox takes the chats with updates waiting that no live replica
// holds — a replica that died held them, or their announcement was missed —
// and queues their updates. It returns how many it queued.
func (b *Bot) sweepInbox(ctx context.Context, d *dispatcher) int {
	chats, err := b.leases.r.Claimable(ctx, sweepChats)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn("could not look for updates waiting; will try again", "err", err)
		}
		return 0
	}
	n := 0
	for _, w := range chats {
		if !d.busy(w.Chat) { // what waits in a chat that runs here is queued when it is stored or announced, or when its queue drains
			n += b.offer(ctx, d, w.Chat, nil, w.Orphaned || w.Waited >= forceAfter)
		}
	}
	if n > 0 {
		b.log.Info("resuming unfinished updates", "count", n)
	}
	return n
}

// stayPresent keeps this replica among the live ones until life ends: it
// beats every second, renewing its leases and sharing the bot-wide budget
// with the other replicas; hears of updates the others stored; sweeps the
// inbox; and, when lead is set, takes the leadership whenever it is free
// and runs lead while it holds it. When serve ends it gives the leadership
// up at once, and stops taking chats; it beats on, for the turns still
// running, until life ends.
func (b *Bot) stayPresent(serve, life context.Context, d *dispatcher, lead func(ctx context.Context)) {
	r := b.leases.r
	var leader leaderRun
	defer leader.stop(life, r)
	for life.Err() == nil {
		if serve.Err() != nil {
			leader.stop(life, r)
		}
		sent := b.cfg.Clock.Now()
		live, held, taken, err := r.BeatHolding(life, d.running())
		if err != nil {
			if life.Err() != nil {
				return
			}
			if !b.leases.alone() {
				// Its lock went with the connection: another replica
				// may poll now, and two pollers must never run.
				leader.stop(life, r)
			} // alone, it polls on, storing nothing and confirming nothing, until the database is back
			b.log.Warn("lost this replica's database connection; reconnecting", "err", err)
			if err := r.Reconnect(life); err != nil {
				ryo.Sleep(life, b.cfg.Clock, beatEvery)
				continue
			}
			if leader.running() {
				if ok, err := r.TryLead(life); err != nil || !ok {
					leader.stop(life, r) // another replica polls meanwhile
				}
			}
			continue
		}
		b.leases.seen(live, b.cfg.Clock.Now())
		for _, chat := range b.leases.renewed(held, taken, sent) {
			// What runs here of it is called off: the other replica runs
			// it, and a model call left to its end would keep the model
			// server busy on an answer nobody will see.
			d.callOff(chat, memory.ErrLeaseLost)
		}
		b.tg.ShareBudget(b.leases.share(len(live), b.cfg.Clock.Now()))
		if lead != nil && serve.Err() == nil && !leader.running() {
			if ok, err := r.TryLead(life); err == nil && ok {
				b.log.Info("this replica polls Telegram now", "replica", r.ID, "replicas", len(live))
				leader.start(serve, lead)
			}
		}
		if serve.Err() == nil {
			b.sweepInbox(life, d)
		}
		for _, n := range b.announced(serve, life) {
			if serve.Err() == nil {
				b.offer(life, d, n.Chat, nil, false)
			}
		}
	}
}

// announced waits up to a beat for announcements of updates the other replicas
// stored; it returns early when serve ends.
func (b *Bot) announced(serve, life context.Context) []memory.Notice {
	ctx, cancel := context.WithCancel(life)
	defer cancel()
	fired, stop := b.cfg.Clock.Timer(beatEvery)
	defer stop()
	ending := serve.Done()
	if serve.Err() != nil {
		ending = nil
	}
	go func() {
		select {
		case <-fired:
		case <-ending:
		case <-ctx.Done():
		}
		cancel()
	}()
	got, err := b.leases.r.Wait(ctx)
	if err != nil && life.Err() == nil {
		b.log.Debug("listening for updates stopped", "err", err)
	}
	return got
}

// leaderRun is the polling this replica does while it leads.
type leaderRun struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (l *leaderRun) running() bool { return l.cancel != nil }

func (l *leaderRun) start(serve context.Context, lead func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(serve)
	l.cancel, l.done = cancel, make(chan struct{})
	go func() { defer close(l.done); lead(ctx) }()
}

// stop ends the polling and gives the leadership back.
func (l *leaderRun) stop(ctx context.Context, r *memory.Replica) {
	if l.cancel != nil {
		l.cancel()
		<-l.done
		l.cancel = nil
	}
	r.Resign(ctx)
}
