package openapi

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// maxName is the longest tool name the registry takes.
const maxName = 64

// snake turns an identifier or a phrase into lower_snake_case ASCII:
// findPetsByStatus → find_pets_by_status, "air-quality" → air_quality,
// HTTPServer → http_server. Letters outside ASCII are dropped.
func snake(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i, c := range r {
		switch {
		case c < unicode.MaxASCII && (unicode.IsLetter(c) || unicode.IsDigit(c)):
			if unicode.IsUpper(c) && i > 0 && wordStartsAt(r, i) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(c))
		default:
			b.WriteByte('_')
		}
	}
	return strings.Trim(underscores.ReplaceAllString(b.String(), "_"), "_")
}

var underscores = regexp.MustCompile(`_+`)

// wordStartsAt reports whether the capital at r[i] starts a word: after a
// lower-case letter or digit (petId), or as the last capital of a run
// before a lower-case letter (HTTPServer).
func wordStartsAt(r []rune, i int) bool {
	prev := r[i-1]
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	return unicode.IsUpper(prev) && i+1 < len(r) && unicode.IsLower(r[i+1])
}

// versionSegment matches path segments that name a version (v1, v2.1)
// or the API itself, which say nothing about the operation.
var versionSegment = regexp.MustCompile(`^(v\d+(\.\d+)*|api|rest)$`)

// pathName names an operation that has no operationId from its method
// and path: GET /v1/forecast → get_forecast, GET /pets/{petId} →
// get_pets_by_pet_id.
func pathName(method, path string) string {
	parts := []string{strings.ToLower(method)}
	params := 0
	for seg := range strings.SplitSeq(path, "/") {
		switch {
		case seg == "" || versionSegment.MatchString(strings.ToLower(seg)):
		case strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}"):
			if params == 0 {
				parts = append(parts, "by")
			} else {
				parts = append(parts, "and")
			}
			parts = append(parts, snake(seg))
			params++
		default:
			parts = append(parts, snake(seg))
		}
	}
	return snake(strings.Join(parts, "_"))
}

// toolName is <api>_<operation>, at most 64 characters: a longer one
// keeps its beginning and ends with a hash of the whole, so that it stays
// the same on every load and differs from its neighbours'.
func toolName(api, op string) string {
	name := api + "_" + op
	if len(name) <= maxName {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	tail := "_" + hex.EncodeToString(sum[:])[:8]
	return strings.TrimRight(name[:maxName-len(tail)], "_") + tail
}

// apiName is the API's name as a tool-name prefix: snake_case, starting
// with a letter, at most 24 characters.
func apiName(name string) string {
	s := snake(name)
	if s == "" || !unicode.IsLetter(rune(s[0])) {
		s = "api_" + s
	}
	return strings.TrimRight(cutBytes(s, 24), "_")
}

func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// candidate is an operation waiting for its name.
type candidate struct {
	name    string // what it wants to be called
	fromID  bool   // the name comes from an operationId
	method  string
	path    string
	ordinal int // its place in the document's order
}

// assignNames gives every candidate a distinct name. When several want
// the same one, a name made from an operationId wins over one made from
// the path, then the first in the document's order (paths by name,
// methods in a fixed order); each loser gets its method added, or failing
// that a hash of its method and path. A name depends only on the
// operations that want it, so adding an unrelated operation renames
// nothing.
func assignNames(cs []candidate) []string {
	names := make([]string, len(cs))
	taken := map[string]bool{}
	order := winnersFirst(cs)
	for _, i := range order {
		c := cs[i]
		name := c.name
		if taken[name] {
			name = toolName(strings.TrimSuffix(c.name, "_"), strings.ToLower(c.method))
			if !strings.Contains(c.name, strings.ToLower(c.method)) && !taken[name] {
				names[i] = name
				taken[name] = true
				continue
			}
			sum := sha256.Sum256([]byte(c.method + " " + c.path))
			name = toolName(c.name, hex.EncodeToString(sum[:])[:6])
		}
		names[i] = name
		taken[name] = true
	}
	return names
}

// winnersFirst orders candidates so that the one that keeps a contested
// name comes first.
func winnersFirst(cs []candidate) []int {
	idx := make([]int, len(cs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case cs[a].fromID && !cs[b].fromID:
			return -1
		case cs[b].fromID && !cs[a].fromID:
			return 1
		}
		return cs[a].ordinal - cs[b].ordinal
	})
	return idx
}
