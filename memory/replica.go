package memory

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// LeaseTTL is how long a chat's lease lasts without being renewed: a
// replica that stalls this long loses its chats to the others. (One whose
// process dies loses them at once: its connection closes.)
const LeaseTTL = 5 * time.Second

// beatTimeout bounds a heartbeat: a leader whose database does not answer
// for this long stops polling, well before its leases run out.
const beatTimeout = 2 * time.Second

// updatesChannel is where a stored update is announced, to every replica
// listening: the payload is the schema, the storing replica and the chat.
const updatesChannel = "ryo_updates"

// Replica is this process among the ryo processes sharing the database. It
// holds a connection of its own, which carries the lock that says it
// lives, the leadership lock while it polls, and the LISTEN for stored
// updates. Its methods that use that connection must be called from one
// goroutine at a time.
type Replica struct {
	db      *DB
	ID      string
	key     int64
	schema  string // the schema's name, which announcements carry
	conn    *pgxpool.Conn
	leading bool
}

// ErrReplicaNameTaken is returned by Join when a live replica already
// goes by the name asked for: two replicas under one name would both hold
// the same chats, and answer their updates twice.
var ErrReplicaNameTaken = errors.New("another live replica goes by this name (RYO_REPLICA_ID); give each replica its own, or leave it unset")

// Notice is a stored update announced by another replica: its chat.
type Notice struct{ Chat int64 }

// Join makes this process a replica named id (a random name when empty):
// it connects, takes its liveness lock and listens for stored updates.
// From then on the inbox is fenced: an update is claimed or finished only
// while this replica holds its chat's lease.
func (db *DB) Join(ctx context.Context, id string) (*Replica, error) {
	if id == "" {
		id = randomName()
	}
	var buf [8]byte
	if _, err := rand.Read(buf[:]); err != nil {
		return nil, fmt.Errorf("join replicas: %w", err)
	}
	r := &Replica{db: db, ID: id, key: int64(binary.BigEndian.Uint64(buf[:]) >> 2)} // positive, so its halves are oids
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	id = r.ID
	db.replica.Store(&id)
	return r, nil
}

func randomName() string {
	var buf [4]byte
	rand.Read(buf[:])
	return fmt.Sprintf("replica-%x", buf)
}

// connect takes a connection, the liveness lock on it and the LISTEN, and
// writes the replica down, with when its connection was made.
func (r *Replica) connect(ctx context.Context) error {
	ctx, cancel := r.db.deadline(ctx)
	defer cancel()
	conn, err := r.db.pool.Acquire(ctx)
	if err != nil {
		return r.db.fail("join replicas", err)
	}
	err = conn.QueryRow(ctx, "select current_schema()").Scan(&r.schema)
	if err == nil {
		_, err = conn.Exec(ctx, "select pg_advisory_lock($1::bigint)", r.key)
	}
	if err == nil {
		_, err = conn.Exec(ctx, "listen "+updatesChannel)
	}
	if err == nil {
		// The name is this replica's, unless another replica that lives
		// (its connection open, its heartbeat recent) goes by it. One whose
		// machine vanished, its connection not yet closed, stops beating:
		// its name is free again once its leases would have run out.
		var mine bool
		err = conn.QueryRow(ctx, `with joined as (insert into replicas as r (id, lock_key, started_at, seen_at, connected_at) values ($1, $2::bigint, now(), now(), now())
				on conflict (id) do update set lock_key = excluded.lock_key, seen_at = now(), connected_at = now(), leader = false
				where r.lock_key = excluded.lock_key or r.seen_at <= now() - $3::interval or not replica_alive(r.lock_key)
				returning 1)
			select exists (select 1 from joined)`, r.ID, r.key, LeaseTTL.String()).Scan(&mine)
		if err == nil && !mine {
			err = fmt.Errorf("%w: %q", ErrReplicaNameTaken, r.ID)
		}
	}
	if err != nil {
		conn.Conn().Close(context.WithoutCancel(ctx))
		conn.Release()
		return r.db.fail("join replicas", err)
	}
	r.conn, r.leading = conn, false
	return nil
}

// Reconnect drops a connection that failed and makes a new one: the
// leadership, if it was held, is gone with the old one.
func (r *Replica) Reconnect(ctx context.Context) error {
	if r.conn != nil {
		r.conn.Conn().Close(context.WithoutCancel(ctx))
		r.conn.Release()
		r.conn = nil
	}
	return r.connect(ctx)
}

// Beat says the replica lives and renews its leases (not those it let go,
// nor those that ran out). It returns the names
// of the replicas that live, this one included, in order.
func (r *Replica) Beat(ctx context.Context) (live []string, err error) {
	live, _, _, err = r.BeatHolding(ctx, nil)
	return live, err
}

// BeatHolding is Beat, which also renews the leases of running, the chats
// with updates running here, even those that ran out meanwhile — unless
// another replica took them — and returns held, the chats whose leases
// it renewed, and taken, those of running another replica holds or held
// last. A chat of running in neither had its lease taken after the
// heartbeat looked (a take and a heartbeat go by different connections).
func (r *Replica) BeatHolding(ctx context.Context, running []int64) (live []string, held, taken []int64, err error) {
	if r.conn == nil {
		return nil, nil, nil, r.db.fail("heartbeat", errors.New("no connection"))
	}
	ctx, cancel := context.WithTimeout(ctx, beatTimeout)
	defer cancel()
	if running == nil {
		running = []int64{}
	}
	err = r.conn.QueryRow(ctx, `with seen as (update replicas set seen_at = now(), leader = $2 where id = $1),
			renewed as (update chat_leases set until = now() + $3::interval
				where replica = $1 and (until > now() or chat_id = any($4::bigint[])) returning chat_id),
			forgotten as (delete from replicas where seen_at < now() - interval '1 day')
		select coalesce((select array_agg(id order by id) from replicas
				where id <> $1 and seen_at > now() - $3::interval and replica_alive(lock_key)), '{}'),
			coalesce((select array_agg(chat_id) from renewed), '{}'),
			coalesce((select array_agg(chat_id) from chat_leases where chat_id = any($4::bigint[]) and replica <> $1), '{}')`,
		r.ID, r.leading, LeaseTTL.String(), running).Scan(&live, &held, &taken)
	if err != nil {
		return nil, nil, nil, r.db.fail("heartbeat", err)
	}
	return append(live, r.ID), held, taken, nil
}

// TryLead takes the leadership — the one replica that polls Telegram —
// when no live replica holds it. It stays with this replica's connection.
func (r *Replica) TryLead(ctx context.Context) (bool, error) {
	if r.leading {
		return true, nil
	}
	ctx, cancel := r.db.deadline(ctx)
	defer cancel()
	var ok bool
	if err := r.conn.QueryRow(ctx, "select pg_try_advisory_lock($1, hashtext(current_schema()))", leaderLock).Scan(&ok); err != nil {
		return false, r.db.fail("take the leadership", err)
	}
	r.leading = ok
	return ok, nil
}

// Resign gives the leadership back, if this replica holds it.
func (r *Replica) Resign(ctx context.Context) {
	if !r.leading || r.conn == nil {
		return
	}
	ctx, cancel := r.db.deadline(ctx)
	defer cancel()
	r.conn.Exec(ctx, "select pg_advisory_unlock($1, hashtext(current_schema()))", leaderLock)
	r.leading = false
}

// Leading reports whether this replica polls.
func (r *Replica) Leading() bool { return r.leading }

// Wait returns the chats of updates other replicas stored, as they are
// announced, until ctx ends (nil, nil) or the connection fails.
func (r *Replica) Wait(ctx context.Context) ([]Notice, error) {
	var got []Notice
	for {
		n, err := r.conn.Conn().WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil && !r.conn.Conn().IsClosed() {
				return got, nil
			}
			return got, r.db.fail("wait for updates", err)
		}
		if chat, ok := r.notice(n.Payload); ok {
			got = append(got, Notice{Chat: chat})
			// Take what else is already there without waiting.
			short, cancel := context.WithTimeout(ctx, time.Millisecond)
			more, _ := r.Wait(short)
			cancel()
			return append(got, more...), nil
		}
	}
}

// notice reads a payload: a chat of this schema, stored by another replica.
func (r *Replica) notice(payload string) (int64, bool) {
	parts := strings.SplitN(payload, " ", 3)
	if len(parts) != 3 || parts[1] == r.ID || parts[0] != r.schema {
		return 0, false
	}
	chat, err := strconv.ParseInt(parts[2], 10, 64)
	return chat, err == nil
}

// Leave lets go of everything: the leases, the leadership, the
// connection. The others take the chats at once.
func (r *Replica) Leave(ctx context.Context) {
	ctx, cancel := r.db.deadline(context.WithoutCancel(ctx))
	defer cancel()
	r.db.pool.Exec(ctx, "update chat_leases set until = now() - interval '1 millisecond' where replica = $1", r.ID)
	r.db.pool.Exec(ctx, "delete from replicas where id = $1", r.ID)
	if r.conn != nil {
		r.conn.Conn().Close(ctx) // its locks go with it
		r.conn.Release()
		r.conn = nil
	}
	r.leading = false
}

// Taken is what TakeChat learned of the chat's last holder.
type Taken struct {
	// From is the replica that held the chat last, when another one did
	// within the last minute and may have written in it; "" otherwise.
	From string
	// Idle is how long ago From's lease ended: everything From did in the
	// chat happened before. Zero when its lease had not ended (it died).
	Idle time.Duration
}

// Affinity is how long a chat stays with the replica that answered it
// last, once it let it go: its next update goes there, unless forced.
const Affinity = time.Minute

// TakeChat takes chat's lease for this replica, unless another live
// replica holds it, or — when not forced — let it go less than Affinity
// ago.
func (r *Replica) TakeChat(ctx context.Context, chat int64, force bool) (ok bool, last Taken, err error) {
	ok, last, _, err = r.take(ctx, chat, force, false)
	return ok, last, err
}

// TakeChatWaiting takes chat's lease as TakeChat does and, when it took
// it, returns the chat's updates that are pending or were being processed,
// oldest first, read right after the lease was taken: both in one round
// trip, and one transaction.
func (r *Replica) TakeChatWaiting(ctx context.Context, chat int64, force bool) (ok bool, last Taken, waiting []InboxUpdate, err error) {
	return r.take(ctx, chat, force, true)
}

func (r *Replica) take(ctx context.Context, chat int64, force, list bool) (ok bool, last Taken, waiting []InboxUpdate, err error) {
	var idle float64
	err = r.db.batch(ctx, "take a chat", func(b *pgx.Batch) {
		b.Queue(`with before as (select replica, until from chat_leases where chat_id = $1::bigint),
				taken as (insert into chat_leases as l (chat_id, replica, until) values ($1::bigint, $2, now() + $3::interval)
					on conflict (chat_id) do update set replica = excluded.replica, until = excluded.until
					where l.replica = excluded.replica
						or lease_orphaned(l.replica, l.until, $3::interval)
						or l.until < now() and ($4::boolean or l.until < now() - $5::interval)
					returning 1)
			select exists (select 1 from taken), coalesce(b.replica, ''),
				coalesce(greatest(extract(epoch from now() - b.until), 0)::float8, 0)
			from (select 1) one left join before b on b.replica <> $2 and b.until > now() - $5::interval`,
			chat, r.ID, LeaseTTL.String(), force, Affinity.String()).QueryRow(func(row pgx.Row) error {
			return row.Scan(&ok, &last.From, &idle)
		})
		if list { // read once the lease is taken, as a statement of its own: it sees what was stored until then
			queueUnfinished(b, chat, `and exists (select 1 from chat_leases
				where chat_id = $1::bigint and replica = $2 and until > now())`, r.ID, &waiting)
		}
	})
	if err != nil {
		return false, Taken{}, nil, err
	}
	if !ok {
		return false, Taken{}, nil, nil
	}
	if last.From == "" {
		return true, Taken{}, waiting, nil
	}
	last.Idle = time.Duration(idle * float64(time.Second))
	return true, last, waiting, nil
}

// ReleaseChat lets chat's lease go, as its updates are all done here. The
// lease is kept as run out, so that whoever takes the chat next knows who
// wrote in it last.
func (r *Replica) ReleaseChat(ctx context.Context, chat int64) error {
	_, err := r.release(ctx, chat, false)
	return err
}

// ReleaseChatWaiting lets chat's lease go as ReleaseChat does, and returns
// the chat's updates that are pending or were being processed, oldest
// first, read right after it let go: both in one round trip.
func (r *Replica) ReleaseChatWaiting(ctx context.Context, chat int64) ([]InboxUpdate, error) {
	return r.release(ctx, chat, true)
}

func (r *Replica) release(ctx context.Context, chat int64, list bool) (waiting []InboxUpdate, err error) {
	err = r.db.batch(ctx, "release a chat", func(b *pgx.Batch) {
		b.Queue("update chat_leases set until = now() - interval '1 millisecond' where chat_id = $1::bigint and replica = $2", chat, r.ID)
		if list {
			queueUnfinished(b, chat, "", nil, &waiting)
		}
	})
	return waiting, err
}

// Waiting is a chat with updates waiting that no live replica holds.
type Waiting struct {
	Chat     int64
	Waited   time.Duration // since its oldest update waiting arrived
	Orphaned bool          // the replica that held it is gone
}

// Claimable returns chats with updates waiting that this replica may take:
// their lease is free, run out, held by a replica that is gone, or its own;
// the chats waiting longest first, at most limit.
func (r *Replica) Claimable(ctx context.Context, limit int) ([]Waiting, error) {
	ctx, cancel := r.db.deadline(ctx)
	defer cancel()
	rows, err := r.db.pool.Query(ctx, `select c.chat, greatest(extract(epoch from now() - c.since), 0)::float8,
			l.chat_id is not null and l.replica <> $1 and lease_orphaned(l.replica, l.until, $3::interval)
		from (select coalesce(chat_id, 0) as chat, min(update_id) as first, min(received_at) as since
			from updates where state in ('pending', 'processing') group by 1) c
		left join chat_leases l on l.chat_id = c.chat
		where l.chat_id is null or l.replica = $1 or l.until < now()
			or lease_orphaned(l.replica, l.until, $3::interval)
		order by c.first limit $2::bigint`, r.ID, limit, LeaseTTL.String())
	if err != nil {
		return nil, r.db.fail("claimable chats", err)
	}
	chats, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Waiting, error) {
		var w Waiting
		var waited float64
		err := row.Scan(&w.Chat, &waited, &w.Orphaned)
		w.Waited = time.Duration(waited * float64(time.Second))
		return w, err
	})
	if err != nil {
		return nil, r.db.fail("claimable chats", err)
	}
	return chats, nil
}

// queueUnfinished queues the reading of chat's updates that are pending or
// were being processed, oldest first, into *into; and, the condition on
// them ("" for none), which may use $2, given as arg.
func queueUnfinished(b *pgx.Batch, chat int64, and string, arg any, into *[]InboxUpdate) {
	args := []any{chat}
	if and != "" {
		args = append(args, arg)
	}
	// The chat's own condition, not coalesce(chat_id, 0) = $1: that one
	// no index serves, and it read every update waiting in every chat.
	of := "chat_id = $1::bigint"
	if chat == 0 {
		of = "chat_id is null and $1::bigint = 0"
	}
	b.Queue(`select update_id, coalesce(chat_id, 0), kind, raw from updates
		where `+of+` and state in ('pending', 'processing') `+and+` order by update_id`, args...).
		Query(func(rows pgx.Rows) error {
			var err error
			*into, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (InboxUpdate, error) {
				var u InboxUpdate
				return u, row.Scan(&u.ID, &u.ChatID, &u.Kind, &u.Raw)
			})
			return err
		})
}

// LiveReplica is a replica `ryo doctor` lists.
type LiveReplica struct {
	ID        string
	StartedAt time.Time
	SeenAt    time.Time
	Leading   bool
	Chats     int // leases it holds
}

// Replicas returns the replicas that live now.
func (db *DB) Replicas(ctx context.Context) ([]LiveReplica, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select r.id, r.started_at, r.seen_at, r.leader,
			(select count(*) from chat_leases l where l.replica = r.id and l.until > now())
		from replicas r where r.seen_at > now() - $1::interval and replica_alive(r.lock_key) order by r.started_at`, LeaseTTL.String())
	if err != nil {
		return nil, db.fail("replicas", err)
	}
	all, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (LiveReplica, error) {
		var l LiveReplica
		return l, row.Scan(&l.ID, &l.StartedAt, &l.SeenAt, &l.Leading, &l.Chats)
	})
	if err != nil {
		return nil, db.fail("replicas", err)
	}
	return all, nil
}

// ChatHolder returns the replica whose lease on chat runs now; "" for none.
func (db *DB) ChatHolder(ctx context.Context, chat int64) (string, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var holder string
	err := db.pool.QueryRow(ctx, "select replica from chat_leases where chat_id = $1::bigint and until > now()", chat).Scan(&holder)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", db.fail("chat holder", err)
	}
	return holder, nil
}
