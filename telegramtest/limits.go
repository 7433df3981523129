package telegramtest

import (
	"maps"
	"strings"
	"time"
)

// Limits are flood limits, the fake's model of Telegram's flood control. A
// zero field switches that limit off.
//
// Which limits a call counts against depends on its method:
//
//   - sendMessage, editMessageText, editMessageReplyMarkup, deleteMessage,
//     sendChatAction and sendMessageDraft count against the limits of the
//     chat their chat_id names (a numeric id or "@username") and against
//     PerSecond. A chat_id the server does not know counts against PerSecond
//     only; the method then fails with "chat not found".
//   - answerCallbackQuery, setMyCommands and deleteMyCommands count against
//     PerSecond only.
//   - Other methods (getUpdates, getMe, getWebhookInfo, getChat,
//     getMyCommands, deleteWebhook) are never counted.
//
// The limits:
//
//   - Every chat, of any type, has a token bucket that holds up to
//     ChatBurst tokens and starts full. It regains tokens continuously, one
//     per ChatEvery, and a call takes one whole token. So a quiet chat may
//     make ChatBurst calls at once and then one per ChatEvery. The bucket is
//     off if ChatEvery or ChatBurst is zero.
//   - A group or supergroup may in addition make at most GroupPerMinute
//     calls in any 60-second window: a call leaves the window 60 seconds
//     after it was made.
//   - All counted calls together may number at most PerSecond in any
//     1-second window, in the same way.
//
// A call is checked when it arrives: after routing, the token check, the
// parsing of its parameters and FailNext, and before the method looks at
// its parameters. (Calls that fail before the check, or that SetDown
// answers with 502, are not counted.) If a limit the call counts against is
// spent, the call is refused with TooManyRequests(n), where n is the number
// of seconds until every one of those limits would allow it, rounded up and
// at least 1. A refused call consumes nothing and is recorded in Calls with
// that error and in Refused. An allowed call consumes from every limit it
// counts against even if the method then rejects it, since Telegram counts
// requests. Time is Options.Now at the call's arrival.
type Limits struct {
	ChatEvery      time.Duration // sustained spacing of calls in one chat (Telegram: 1s)
	ChatBurst      int           // calls one chat may make at once before the spacing applies (3)
	GroupPerMinute int           // calls in one group or supergroup in any 60-second window (20)
	PerSecond      int           // calls over all chats in any 1-second window (30)
}

// TelegramLimits returns Telegram's published flood limits: about one
// message per second in a chat with short bursts tolerated, 20 messages per
// minute in a group and 30 per second over all chats.
func TelegramLimits() Limits {
	return Limits{ChatEvery: time.Second, ChatBurst: 3, GroupPerMinute: 20, PerSecond: 30}
}

// floodScope is what a method's calls count against.
type floodScope int

const (
	uncounted floodScope = iota
	overall              // PerSecond only
	perChat              // the chat's limits and PerSecond
)

var floodScopes = map[string]floodScope{
	"sendMessage":            perChat,
	"sendDocument":           perChat,
	"sendPhoto":              perChat,
	"editMessageText":        perChat,
	"editMessageReplyMarkup": perChat,
	"deleteMessage":          perChat,
	"sendChatAction":         perChat,
	"sendMessageDraft":       perChat,
	"answerCallbackQuery":    overall,
	"setMyCommands":          overall,
	"deleteMyCommands":       overall,
}

// Refused returns the calls flood control refused (see Options.Limits), in
// arrival order. 429s injected with FailNext are not among them, so a test
// that expects the bot to stay within the limits checks this is empty.
func (s *Server) Refused() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.flood == nil {
		return nil
	}
	var out []Call
	for _, i := range s.flood.refused {
		c := s.calls[i]
		c.Params = maps.Clone(c.Params)
		out = append(out, c)
	}
	return out
}

// admit applies flood control to call i: it refuses the call if a limit it
// counts against is spent, and otherwise takes from every such limit.
func (s *Server) admit(i int) error {
	if s.flood == nil {
		return nil
	}
	call := s.calls[i]
	chat := s.chatByRef(strings.TrimSpace(call.Params["chat_id"]))
	meters := s.flood.meters(floodScopes[call.Method], chat)
	var wait time.Duration
	for _, m := range meters {
		wait = max(wait, m.wait(call.At))
	}
	if wait > 0 {
		s.flood.refused = append(s.flood.refused, i)
		return TooManyRequests(wholeSeconds(wait))
	}
	for _, m := range meters {
		m.take(call.At)
	}
	return nil
}

// wholeSeconds rounds d up to whole seconds, at least 1.
func wholeSeconds(d time.Duration) int {
	return max(int((d+time.Second-1)/time.Second), 1)
}

// limiter is the flood-control state of a server.
type limiter struct {
	limits  Limits
	global  *window
	chats   map[int64]*bucket
	groups  map[int64]*window
	refused []int // indexes in Server.calls of the calls refused
}

func newLimiter(l *Limits) *limiter {
	if l == nil {
		return nil
	}
	return &limiter{
		limits: *l,
		global: &window{span: time.Second, max: l.PerSecond},
		chats:  map[int64]*bucket{},
		groups: map[int64]*window{},
	}
}

// meter is one limit: how long a call arriving at now must wait, and
// taking that call.
type meter interface {
	wait(now time.Time) time.Duration
	take(now time.Time)
}

// meters returns the limits that are on and that a call of scope counts
// against; chat is the call's chat, nil if none or unknown.
func (l *limiter) meters(scope floodScope, chat *chatLog) []meter {
	if scope == uncounted {
		return nil
	}
	var ms []meter
	if l.limits.PerSecond > 0 {
		ms = append(ms, l.global)
	}
	if scope != perChat || chat == nil {
		return ms
	}
	id := chat.chat.ID
	if l.limits.ChatEvery > 0 && l.limits.ChatBurst > 0 {
		ms = append(ms, lookup(l.chats, id, func() *bucket {
			return &bucket{every: l.limits.ChatEvery, burst: l.limits.ChatBurst}
		}))
	}
	if isGroup(chat.chat) && l.limits.GroupPerMinute > 0 {
		ms = append(ms, lookup(l.groups, id, func() *window {
			return &window{span: time.Minute, max: l.limits.GroupPerMinute}
		}))
	}
	return ms
}

// lookup returns m[id], storing fresh() there first if it is missing.
func lookup[T any](m map[int64]*T, id int64, fresh func() *T) *T {
	v := m[id]
	if v == nil {
		v = fresh()
		m[id] = v
	}
	return v
}

func isGroup(c Chat) bool { return c.Type == "group" || c.Type == "supergroup" }

// bucket is a token bucket of burst tokens that regains one every `every`.
// It is kept as the time it is full again: at now it holds
// burst - full.Sub(now)/every tokens, all of them once full has passed.
type bucket struct {
	every time.Duration
	burst int
	full  time.Time
}

// wait is how long until the bucket holds a whole token.
func (b *bucket) wait(now time.Time) time.Duration {
	owed := max(b.full.Sub(now), 0)
	return max(owed-time.Duration(b.burst-1)*b.every, 0)
}

func (b *bucket) take(now time.Time) {
	if b.full.Before(now) {
		b.full = now
	}
	b.full = b.full.Add(b.every)
}

// window allows max calls in any sliding span: a call stays in the window
// for span after it was made.
type window struct {
	span  time.Duration
	max   int
	times []time.Time // arrival of the calls still in the window, oldest first
}

// wait is how long until the window has room for one more call.
func (w *window) wait(now time.Time) time.Duration {
	w.expire(now)
	if len(w.times) < w.max {
		return 0
	}
	// The count drops below max when this call leaves.
	return w.times[len(w.times)-w.max].Add(w.span).Sub(now)
}

func (w *window) take(now time.Time) {
	w.expire(now)
	w.times = append(w.times, now)
}

// expire drops the calls made span or longer before now.
func (w *window) expire(now time.Time) {
	i := 0
	for i < len(w.times) && !w.times[i].Add(w.span).After(now) {
		i++
	}
	w.times = w.times[i:]
}
