package websearch

import (
	"container/list"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	"golang.org/x/text/unicode/norm"

	"github.com/ryo-bot/ryo"
)

// DefaultCacheEntries is how many answers a Cached keeps when not told.
const DefaultCacheEntries = 256

// Cached keeps a Searcher's answers for a while: the same query (same
// words in any case, spacing or Unicode form, same recency and count) within TTL is
// answered from memory, and identical queries asked at once share one
// request. Failures are not kept. The zero value is not usable; call
// NewCached.
//
// The shared request runs to its provider's own deadline even when the
// turn that started it ends, so that the others waiting for it, and the
// next asker, get its answer.
type Cached struct {
	searcher Searcher
	ttl      time.Duration
	size     int
	clock    ryo.Clock
	group    singleflight.Group

	mu      sync.Mutex
	entries map[string]*list.Element // of *cached, most recently used first
	order   *list.List
}

type cached struct {
	key     string
	results []Result
	expires time.Time
}

// NewCached keeps s's answers for ttl, at most size of them (the least
// recently used go first; DefaultCacheEntries when size is 0 or less).
// A ttl of 0 or less keeps nothing but still shares identical requests.
func NewCached(s Searcher, ttl time.Duration, size int, clock ryo.Clock) *Cached {
	if size <= 0 {
		size = DefaultCacheEntries
	}
	return &Cached{searcher: s, ttl: ttl, size: size, clock: clockOf(clock), entries: map[string]*list.Element{}, order: list.New()}
}

// Search answers q from memory when it can, else asks the Searcher.
func (c *Cached) Search(ctx context.Context, q Query) ([]Result, error) {
	key := cacheKey(q)
	if results, ok := c.get(key); ok {
		return results, nil
	}
	ch := c.group.DoChan(key, func() (any, error) {
		results, err := c.searcher.Search(context.WithoutCancel(ctx), q)
		if err == nil {
			c.put(key, results)
		}
		return results, err
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return slices.Clone(r.Val.([]Result)), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// cacheKey is what identical queries share: the words in any case and
// spacing, and in either Unicode form (é as one character or as e and an
// accent).
func cacheKey(q Query) string {
	text := norm.NFC.String(strings.ToLower(strings.Join(strings.Fields(q.Text), " ")))
	return text + "\x00" + q.Recency + "\x00" + strconv.Itoa(q.Count)
}

func (c *Cached) get(key string) ([]Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cached)
	if !c.clock.Now().Before(e.expires) {
		c.order.Remove(el)
		delete(c.entries, key)
		return nil, false
	}
	c.order.MoveToFront(el)
	return slices.Clone(e.results), true
}

func (c *Cached) put(key string, results []Result) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &cached{key: key, results: slices.Clone(results), expires: c.clock.Now().Add(c.ttl)}
	if el, ok := c.entries[key]; ok {
		el.Value = e
		c.order.MoveToFront(el)
		return
	}
	c.entries[key] = c.order.PushFront(e)
	for c.order.Len() > c.size {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.entries, oldest.Value.(*cached).key)
	}
}

// Len is how many answers are kept, expired ones included until they are
// asked for again or pushed out.
func (c *Cached) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
