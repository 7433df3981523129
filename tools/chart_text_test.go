package tools

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/toolbus"
)

// The chart's font, Liberation Sans, draws Latin, Greek and Cyrillic
// letters, left to right, and no emoji. Text it would leave blank — Chinese
// city names, an Arabic series, a Hindi axis — or draw backwards — Hebrew —
// is refused with what to do instead; symbols it lacks (emoji) and
// invisible characters (zero-width spaces, direction overrides) are left
// out of the picture; a title it cannot draw is left to the caption.
func TestChartTextTheFontCannotDraw(t *testing.T) {
	for _, tt := range []struct{ name, args, want string }{
		{"Chinese labels", `{"kind":"bar","points":[{"label":"北京","value":21},{"label":"上海","value":24}]}`,
			"point 1's label has characters the chart cannot draw (北京)"},
		{"an Arabic series", `{"kind":"line","series":["مبيعات"],"points":[{"label":"Jan","value":1}]}`,
			"series name 1 has characters the chart cannot draw (مبيعات)"},
		{"a Hebrew axis", `{"kind":"bar","x_label":"חודש","points":[{"label":"a","value":1}]}`,
			"x_label has characters the chart cannot draw (חודש)"},
		{"a Hindi axis", `{"kind":"bar","y_label":"बिक्री","points":[{"label":"a","value":1}]}`,
			"y_label has characters the chart cannot draw"},
		{"Japanese in a pie", `{"kind":"pie","points":[{"label":"Rent","value":1},{"label":"食費","value":2}]}`,
			"point 2's label has characters the chart cannot draw (食費)"},
		{"the rouble sign", `{"kind":"bar","unit":"₽","points":[{"label":"a","value":1}]}`,
			`unit is "₽", which the chart cannot draw`},
		{"an emoji for a label", `{"kind":"pie","points":[{"label":"🍎","value":1},{"label":"Pears","value":2}]}`,
			`point 1's label is "🍎", which the chart cannot draw`},
	} {
		_, err := CreateChart().Tool.Call(t.Context(), json.RawMessage(tt.args))
		var modelErr *toolbus.Error
		if !errors.As(err, &modelErr) || modelErr.Code != toolbus.CodeInvalidArgs || !strings.Contains(modelErr.Message, tt.want) {
			t.Errorf("%s: err = %v; want invalid_arguments saying %q", tt.name, err, tt.want)
		}
	}

	for _, tt := range []struct{ name, with, without, caption string }{
		{"emoji", `{"kind":"bar","title":"Weekly spending 💸","points":[{"label":"Пн","value":1},{"label":"Вт 🎉","value":2}]}`,
			`{"kind":"bar","title":"Weekly spending","points":[{"label":"Пн","value":1},{"label":"Вт","value":2}]}`, "Weekly spending 💸"},
		{"zero-width and direction marks", `{"kind":"line","title":"\u202eevil\u202c","series":["A\u200b","B\u200d"],"points":[{"label":"x\u200e","value":1,"value2":2}]}`,
			`{"kind":"line","title":"evil","series":["A","B"],"points":[{"label":"x","value":1,"value2":2}]}`, "\u202eevil\u202c"},
		{"a title in Chinese", `{"kind":"bar","title":"每周开支","points":[{"label":"W1","value":12},{"label":"W2","value":40}]}`,
			`{"kind":"bar","points":[{"label":"W1","value":12},{"label":"W2","value":40}]}`, "每周开支"},
	} {
		got, img := drawJSON(t, tt.with)
		_, want := drawJSON(t, tt.without)
		if got.Title != tt.caption {
			t.Errorf("%s: title %q; want %q, the caption", tt.name, got.Title, tt.caption)
		}
		if differ := differentPixels(img, want); differ > 0 {
			t.Errorf("%s: %d pixels differ from the chart without what the font cannot draw", tt.name, differ)
		}
	}
}
