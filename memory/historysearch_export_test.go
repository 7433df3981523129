package memory

// Excerpt and HistoryTerms are excerpt and historyTerms, for tests.
var (
	Excerpt      = excerpt
	HistoryTerms = historyTerms
)
