package websearch

import (
	"context"
	"fmt"
	"time"
)

// Result is one page a search found.
type Result struct {
	Title     string
	URL       string    // always http or https
	Snippet   string    // plain text, no markup
	Published time.Time // zero when the provider does not say
	Source    string    // the site, such as example.org
}

// Recencies a Query may ask for: only pages from the last day, week, month
// or year. "" asks for any age.
const (
	Day   = "day"
	Week  = "week"
	Month = "month"
	Year  = "year"
)

// MaxCount is the most results one query may ask for.
const MaxCount = 10

// Query is what to search for.
type Query struct {
	Text    string
	Count   int    // how many results at most, 1 to MaxCount
	Recency string // "", Day, Week, Month or Year
}

// Searcher asks a provider.
type Searcher interface {
	Search(ctx context.Context, q Query) ([]Result, error)
}

// Kind says what went wrong with a search, as far as the person is
// concerned.
type Kind int

// Kinds of failure.
const (
	Unavailable Kind = iota // the provider did not answer, or answered nonsense: try again later
	RateLimited             // the provider asks ryo to slow down: wait RetryAfter
	Refused                 // the provider refuses ryo as it is set up (a wrong key, JSON switched off): the owner must fix it
	BadQuery                // the provider refuses this query: change it
)

func (k Kind) String() string {
	switch k {
	case RateLimited:
		return "rate limited"
	case Refused:
		return "refused"
	case BadQuery:
		return "bad query"
	}
	return "unavailable"
}

// Error is a provider's failure. Detail is safe to log: it never holds a
// key or an address with credentials.
type Error struct {
	Provider   string
	Kind       Kind
	Status     int           // the HTTP status; 0 when there was no answer
	RetryAfter time.Duration // for RateLimited, when the provider says; 0 when it does not
	Detail     string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s", e.Provider, e.Kind)
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// window is how far back a recency reaches.
func window(recency string) time.Duration {
	switch recency {
	case Day:
		return 24 * time.Hour
	case Week:
		return 7 * 24 * time.Hour
	case Month:
		return 31 * 24 * time.Hour
	case Year:
		return 366 * 24 * time.Hour
	}
	return 0
}

// ValidRecency reports whether r is a recency a Query may ask for.
func ValidRecency(r string) bool {
	return r == "" || window(r) > 0
}
