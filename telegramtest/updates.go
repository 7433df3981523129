package telegramtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// firstUpdateID is where update ids start: near 10⁹, as a bot's update ids
// are in Telegram, so that tests do not pass by accident with offsets like
// 0 or 1 or with ids that only small numbers hold.
const firstUpdateID = 987_654_321

const maxUpdatesLimit = 100

// updateQueue holds the updates Telegram keeps for the bot until it
// confirms them with a getUpdates offset.
type updateQueue struct {
	items     []queued
	next      int64   // id for the next update without one
	confirmed int64   // highest confirmed id (offset-1)
	poller    *poller // the getUpdates request blocked right now, if any
}

type queued struct {
	id  int64
	raw []byte
}

// poller is a blocked getUpdates; kicked is closed when a newer request
// terminates it.
type poller struct{ kicked chan struct{} }

type pollRequest struct {
	offset  int64
	limit   int
	timeout time.Duration
}

// PushUpdate enqueues an arbitrary update, for kinds SendText does not
// cover (callback queries, stickers, malformed payloads). If update has no
// "update_id" the next id is assigned. It returns the update's id. Chats
// found in the update become known to the server. It panics if the update
// cannot be encoded as JSON.
func (s *Server) PushUpdate(update map[string]any) int64 {
	u := make(map[string]any, len(update)+1)
	for k, v := range update {
		u[k] = v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := updateIDOf(u["update_id"])
	if !ok {
		id = s.queue.next
		u["update_id"] = id
	}
	raw, err := json.Marshal(u)
	if err != nil {
		panic(fmt.Sprintf("telegramtest: PushUpdate: %v", err))
	}
	s.push(id, raw)
	return id
}

// PushRawUpdate enqueues raw exactly as given inside the getUpdates result
// array, even if it is not a valid update (or not valid JSON). Its
// update_id, if it has one, orders it for offsets; without one it takes
// the next id internally, so the next confirmed update confirms it too.
func (s *Server) PushRawUpdate(raw json.RawMessage) {
	var probe struct {
		UpdateID *int64 `json:"update_id"`
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.queue.next
	if json.Unmarshal(raw, &probe) == nil && probe.UpdateID != nil {
		id = *probe.UpdateID
	}
	s.push(id, bytes.Clone(raw))
}

// ConfirmedUpdateID returns the highest update_id confirmed by a
// getUpdates offset (offset-1), or 0 if none was.
func (s *Server) ConfirmedUpdateID() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queue.confirmed
}

// PendingUpdates returns how many updates are not confirmed yet.
func (s *Server) PendingUpdates() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue.items)
}

// push appends an update and wakes a blocked getUpdates.
func (s *Server) push(id int64, raw []byte) {
	s.queue.items = append(s.queue.items, queued{id: id, raw: raw})
	s.queue.next = max(s.queue.next, id+1)
	s.learnChats(raw)
	s.learnQuery(raw)
	s.notify()
}

// enqueue assigns the next update_id to u, pushes it and returns the id.
func (s *Server) enqueue(u wireUpdate) int64 {
	u.UpdateID = s.queue.next
	raw, _ := json.Marshal(u)
	s.push(u.UpdateID, raw)
	return u.UpdateID
}

func (s *Server) getUpdates(r *request) (any, error) {
	q := readPoll(r)
	if r.err != nil {
		return nil, r.err
	}
	if s.hook.url != "" {
		return nil, webhookActive()
	}
	s.kickPoller()
	if s.queue.confirm(q.offset) {
		s.notify()
	}
	return s.longPoll(r.ctx, q)
}

func readPoll(r *request) pollRequest {
	q := pollRequest{offset: r.int64("offset"), limit: r.int("limit")}
	q.timeout = time.Duration(max(r.int("timeout"), 0)) * time.Second
	if q.limit <= 0 || q.limit > maxUpdatesLimit {
		q.limit = maxUpdatesLimit
	}
	var kinds []string
	if v := r.str("allowed_updates"); v != "" && json.Unmarshal([]byte(v), &kinds) != nil && r.err == nil {
		r.err = badRequest("can't parse allowed updates JSON array")
	}
	return q
}

// kickPoller answers the blocked getUpdates, if any, with 409 Conflict.
func (s *Server) kickPoller() {
	if p := s.queue.poller; p != nil {
		close(p.kicked)
		s.queue.poller = nil
	}
}

// longPoll returns pending updates, waiting up to q.timeout for some.
// Called with s.mu held; it releases the lock while blocked.
func (s *Server) longPoll(ctx context.Context, q pollRequest) (any, error) {
	timer := time.NewTimer(q.timeout)
	defer timer.Stop()
	me := &poller{kicked: make(chan struct{})}
	for {
		batch := s.queue.batch(q.offset, q.limit)
		if len(batch) > 0 || q.timeout <= 0 {
			return encodeBatch(batch), nil
		}
		again, err := s.block(ctx, me, timer.C)
		if err != nil || !again {
			return verbatim("[]"), err
		}
	}
}

// block waits for a state change; again is false when the poll should end
// empty (timeout, client gone, server closed).
func (s *Server) block(ctx context.Context, me *poller, expired <-chan time.Time) (again bool, err error) {
	s.queue.poller = me
	changed := s.changed
	s.mu.Unlock()
	select {
	case <-changed:
		again = true
	case <-me.kicked:
	case <-expired:
	case <-ctx.Done():
	case <-s.closed:
	}
	s.mu.Lock()
	if s.queue.poller == me {
		s.queue.poller = nil
	}
	select {
	case <-me.kicked:
		return false, conflict()
	default:
		return again, nil
	}
}

// confirm forgets updates below offset; a negative offset keeps only the
// last -offset updates. It reports whether anything changed.
func (q *updateQueue) confirm(offset int64) bool {
	before, confirmed := len(q.items), q.confirmed
	switch {
	case offset > 0:
		q.confirmed = max(q.confirmed, offset-1)
		q.keep(func(u queued) bool { return u.id >= offset })
	case offset < 0 && int64(len(q.items)) > -offset:
		drop := len(q.items) - int(-offset)
		q.confirmed = max(q.confirmed, q.items[drop-1].id)
		q.items = q.items[drop:]
	}
	return len(q.items) != before || q.confirmed != confirmed
}

func (q *updateQueue) keep(ok func(queued) bool) {
	kept := q.items[:0]
	for _, u := range q.items {
		if ok(u) {
			kept = append(kept, u)
		}
	}
	q.items = kept
}

// batch returns up to limit updates with id >= offset, in queue order.
func (q *updateQueue) batch(offset int64, limit int) []queued {
	var out []queued
	for _, u := range q.items {
		if len(out) == limit {
			break
		}
		if u.id >= offset {
			out = append(out, u)
		}
	}
	return out
}

func encodeBatch(batch []queued) verbatim {
	raws := make([][]byte, len(batch))
	for i, u := range batch {
		raws[i] = u.raw
	}
	out := append([]byte("["), bytes.Join(raws, []byte(","))...)
	return append(out, ']')
}

// updateIDOf reads an update_id given by a test as any Go number.
func updateIDOf(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		return int64(n), true
	case json.Number:
		id, err := n.Int64()
		return id, err == nil
	}
	return 0, false
}

// learnChats registers unknown chats mentioned by a pushed update, so the
// bot can answer a callback query or a hand-made message, and the people
// who sent it.
func (s *Server) learnChats(raw []byte) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return
	}
	for _, v := range fields {
		var probe struct {
			Chat *wireChat `json:"chat"`
			From *struct {
				ID int64 `json:"id"`
			} `json:"from"`
			Message *struct {
				Chat *wireChat `json:"chat"`
			} `json:"message"`
		}
		if json.Unmarshal(v, &probe) != nil {
			continue
		}
		if probe.From != nil && probe.From.ID > 0 {
			s.people[probe.From.ID] = true
		}
		s.learnChat(probe.Chat)
		if probe.Message != nil {
			s.learnChat(probe.Message.Chat)
		}
	}
}
