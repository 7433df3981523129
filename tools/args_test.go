package tools

import (
	"encoding/json"
	"testing"
)

// A whole number however JSON writes it fills an integer field, anywhere in
// the arguments; a fraction, a string or an unknown field does not.
func TestDecodeArgsTakesWholeNumbers(t *testing.T) {
	type point struct {
		N int `json:"n"`
	}
	type args struct {
		Count  int     `json:"count"`
		Points []point `json:"points"`
		Ratio  float64 `json:"ratio"`
	}
	for raw, want := range map[string]args{
		`{"count":5}`:                               {Count: 5},
		`{"count":5.0}`:                             {Count: 5},
		`{"count":1e1,"ratio":2.50}`:                {Count: 10, Ratio: 2.5},
		`{"count":-0.0}`:                            {},
		`{"points":[{"n":2.000},{"n":3E0}]}`:        {Points: []point{{2}, {3}}},
		`{"count":9007199254740992.0,"ratio":0.25}`: {Count: 9007199254740992, Ratio: 0.25},
	} {
		var got args
		if err := decodeArgs(json.RawMessage(raw), &got); err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		b1, _ := json.Marshal(got)
		b2, _ := json.Marshal(want)
		if string(b1) != string(b2) {
			t.Errorf("%s = %s; want %s", raw, b1, b2)
		}
	}
	for _, raw := range []string{`{"count":5.5}`, `{"count":"5"}`, `{"count":1e300}`, `{"count":5,"extra":1}`, `[1]`} {
		var got args
		if err := decodeArgs(json.RawMessage(raw), &got); err == nil {
			t.Errorf("%s decoded as %+v; want it refused", raw, got)
		}
	}
}
