package bot

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/lang"
)

// A tool's schema and its examples, in words.
func TestToolInWords(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"values":{"type":"array","items":{"type":"number"},"maxItems":10000,"description":"The numbers."},
		"precision":{"type":"integer","minimum":0,"maximum":12,"default":6},
		"method":{"type":"string","enum":["tukey","type7"]},
		"verbose":{"type":"boolean"}},
		"required":["values"],"additionalProperties":false}`)
	got := strings.Join(argumentsInWords(lang.Printer{}, schema), "\n")
	want := strings.Join([]string{
		"• values (a list of numbers, up to 10000): The numbers.",
		"• method (text, optional, one of tukey, type7)",
		"• precision (a whole number, optional, from 0 to 12, 6 when left out)",
		"• verbose (yes or no, optional)",
	}, "\n")
	if got != want {
		t.Errorf("arguments in words:\n%s\nwant:\n%s", got, want)
	}
	if got := argumentsInWords(lang.Printer{}, json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)); len(got) != 0 {
		t.Errorf("no arguments = %q", got)
	}
	for _, c := range []struct{ args, want string }{
		{`{"values":[1,2.5,1e3],"method":"tukey"}`, "values: [1,2.5,1e3]; method: tukey"},
		{`{}`, "nothing more"},
		{`{"text":"a\nb <b>"}`, "text: a\nb <b>"},
		{`{"n":9007199254740993}`, "n: 9007199254740993"},
	} {
		if got := exampleInWords(lang.Printer{}, json.RawMessage(c.args)); got != c.want {
			t.Errorf("exampleInWords(lang.Printer{}, %s) = %q; want %q", c.args, got, c.want)
		}
	}
	if got := firstSentence("Evaluate an expression. Knows + and -."); got != "Evaluate an expression." {
		t.Errorf("firstSentence = %q", got)
	}
	if got := []rune(firstSentence(strings.Repeat("é", 200))); len(got) != 90 {
		t.Errorf("firstSentence of 200 characters has %d", len(got))
	}
}
