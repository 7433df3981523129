package intake

import (
	"bytes"
	"encoding/json"
)

// splitResult reads the updates of a successful getUpdates answer by its
// structure alone, for when encoding/json refuses the whole answer because
// of one update in it (one nested past its depth limit, say): each update
// is then read on its own, and only that one is refused. ok is false when
// data is no object with "ok": true and a "result" array.
func splitResult(data []byte) (updates []json.RawMessage, ok bool) {
	members, ok := split(data, '{', '}')
	if !ok {
		return nil, false
	}
	var succeeded, found bool
	for _, m := range members {
		end, ok := skipString(m, 0)
		if !ok {
			return nil, false
		}
		var key string
		if json.Unmarshal(m[:end], &key) != nil {
			return nil, false
		}
		value := bytes.TrimSpace(m[end:])
		if len(value) == 0 || value[0] != ':' {
			return nil, false
		}
		value = bytes.TrimSpace(value[1:])
		switch key {
		case "ok":
			succeeded = string(value) == "true"
		case "result":
			var elems [][]byte
			if elems, found = split(value, '[', ']'); !found {
				return nil, false
			}
			updates = make([]json.RawMessage, len(elems))
			for i, e := range elems {
				updates[i] = e
			}
		}
	}
	return updates, succeeded && found
}

// split cuts the object or array data, opened by open and closed by end,
// into its members or elements, each trimmed, without decoding them.
func split(data []byte, open, end byte) ([][]byte, bool) {
	data = bytes.TrimSpace(data)
	if len(data) < 2 || data[0] != open || data[len(data)-1] != end {
		return nil, false
	}
	var parts [][]byte
	start := 1
	for i := 1; i < len(data)-1; {
		switch data[i] {
		case '"', '{', '[':
			j, ok := skipValue(data, i)
			if !ok {
				return nil, false
			}
			i = j
		case ',':
			parts = append(parts, bytes.TrimSpace(data[start:i]))
			i++
			start = i
		default:
			i++
		}
	}
	if last := bytes.TrimSpace(data[start : len(data)-1]); len(last) > 0 || len(parts) > 0 {
		parts = append(parts, last)
	}
	for _, p := range parts {
		if len(p) == 0 {
			return nil, false
		}
	}
	return parts, true
}

// skipValue returns where the string, object or array starting at d[i]
// ends. Brackets are counted, not matched: what they hold is read later,
// by encoding/json, one update at a time.
func skipValue(d []byte, i int) (int, bool) {
	if d[i] == '"' {
		return skipString(d, i)
	}
	depth := 0
	for j := i; j < len(d); j++ {
		switch d[j] {
		case '"':
			k, ok := skipString(d, j)
			if !ok {
				return 0, false
			}
			j = k - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return j + 1, true
			}
		}
	}
	return 0, false
}

// skipString returns where the JSON string starting at d[i] ends.
func skipString(d []byte, i int) (int, bool) {
	if i >= len(d) || d[i] != '"' {
		return 0, false
	}
	for j := i + 1; j < len(d); j++ {
		switch d[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}
