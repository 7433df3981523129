package bot

import (
	"context"
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

// leases is this replica's part in the sharing of chats.
type leases struct {
	r *memory.Replica
	// A chat is taken or let go under its stripe's lock, so that a take
	// never crosses a release; other chats go on meanwhile.
	stripes [64]sync.Mutex
}

func (l *leases) lock(chat int64) *sync.Mutex {
	mu := &l.stripes[uint64(chat)%uint64(len(l.stripes))]
	mu.Lock()
	return mu
}

// join makes this process a replica, retrying while the database is away.
func (b *Bot) join(ctx context.Context) error {
	return b.retry(ctx, "join the replicas", func() error {
		r, err := b.db.Join(ctx, b.cfg.ReplicaID)
		if err == nil {
			b.leases.r = r
			b.log.Info("joined the replicas sharing the database", "replica", r.ID)
		}
		return err
	})
}

// offer takes chat, when no other live replica holds it, and queues its
// updates waiting, in order. stored are updates of chat just stored here:
// when the chat already runs here they are queued as they are.
func (b *Bot) offer(ctx context.Context, d *dispatcher, chat int64, stored []memory.InboxUpdate) int {
	defer b.leases.lock(chat).Unlock()
	if len(stored) > 0 && d.busy(chat) {
		for _, u := range stored {
			b.dispatch(d, u)
		}
		return len(stored)
	}
	ok, from, err := b.leases.r.TakeChat(ctx, chat)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn("could not take a chat; the sweep tries again", "chat_id", chat, "err", err)
		}
		return 0
	}
	if !ok {
		return 0 // another replica answers it
	}
	if from != "" {
		b.tg.Inherit(chat)
		b.log.Info("took over a chat from another replica", "chat_id", chat, "from", from)
	}
	waiting, err := b.db.ChatUnfinished(ctx, chat)
	if err != nil {
		b.log.Warn("could not list a chat's updates; the sweep tries again", "chat_id", chat, "err", err)
		return 0
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
	if err := b.leases.r.ReleaseChat(ctx, chat); err != nil && ctx.Err() == nil {
		b.log.Warn("could not let a chat go; it is free once its lease runs out", "chat_id", chat, "err", err)
	}
}

// chatIdle lets chat go once nothing of it waits or runs here, and looks
// again for updates that were stored meanwhile.
func (b *Bot) chatIdle(ctx context.Context, d *dispatcher, chat int64) {
	mu := b.leases.lock(chat)
	if d.busy(chat) {
		mu.Unlock()
		return
	}
	b.release(ctx, chat)
	mu.Unlock()
	if d.isClosed() {
		return
	}
	waiting, err := b.db.ChatUnfinished(ctx, chat)
	if err == nil && len(waiting) > 0 {
		b.offer(ctx, d, chat, nil)
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
		b.offer(ctx, d, chat, byChat[chat])
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
	for _, chat := range chats {
		if !d.busy(chat) { // what waits in a chat that runs here is queued when it is stored or announced, or when its queue drains
			n += b.offer(ctx, d, chat, nil)
		}
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
		live, err := r.Beat(life)
		if err != nil {
			if life.Err() != nil {
				return
			}
			leader.stop(life, r) // a leader without its connection may have lost the lock: stop polling now
			b.log.Warn("lost this replica's database connection; reconnecting", "err", err)
			if err := r.Reconnect(life); err != nil {
				ryo.Sleep(life, b.cfg.Clock, beatEvery)
			}
			continue
		}
		b.tg.ShareBudget(live)
		if lead != nil && serve.Err() == nil && !leader.running() {
			if ok, err := r.TryLead(life); err == nil && ok {
				b.log.Info("this replica polls Telegram now", "replica", r.ID, "replicas", live)
				leader.start(serve, lead)
			}
		}
		if serve.Err() == nil {
			b.sweepInbox(life, d)
		}
		for _, n := range b.announced(serve, life) {
			if serve.Err() == nil {
				b.offer(life, d, n.Chat, nil)
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
