package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/toolbus"
)

// drawJSON runs create_chart with args and returns its result and the
// decoded picture, failing unless it is a PNG of the promised size.
func drawJSON(t testing.TB, args string) (ChartResult, *image.RGBA) {
	t.Helper()
	out, err := CreateChart().Tool.Call(t.Context(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("create_chart(%.80s): %v", args, err)
	}
	a, ok := out.(toolbus.Attached)
	if !ok || len(a.Files) != 1 {
		t.Fatalf("create_chart returned %T; want one file attached", out)
	}
	f := a.Files[0]
	if f.Name != "chart.png" || f.MimeType != "image/png" || f.Check() != nil {
		t.Fatalf("file = %s %s, %v", f.Name, f.MimeType, f.Check())
	}
	img, err := png.Decode(bytes.NewReader(f.Data))
	if err != nil {
		t.Fatalf("the picture is no PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != chartWidth || b.Dy() != chartHeight {
		t.Fatalf("the picture is %d×%d; want %d×%d", b.Dx(), b.Dy(), chartWidth, chartHeight)
	}
	r := a.Result.(ChartResult)
	if f.Caption != r.Title {
		t.Fatalf("caption %q; want the title %q", f.Caption, r.Title)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, image.Point{}, draw.Src)
	return r, rgba
}

// points writes values as points labelled by labels.
func points(labels []string, values ...float64) string {
	var ps []string
	for i, v := range values {
		ps = append(ps, fmt.Sprintf(`{"label":%q,"value":%v}`, labels[i], v))
	}
	return "[" + strings.Join(ps, ",") + "]"
}

// barHeights measures the bars of colour c, left to right, in pixels:
// each run of columns holding the colour is a bar, its height the most
// pixels of the colour in one of its columns.
func barHeights(img *image.RGBA, c color.RGBA) []int {
	var heights []int
	inBar := false
	for x := range img.Bounds().Dx() {
		n := 0
		for y := range img.Bounds().Dy() {
			if img.RGBAAt(x, y) == c {
				n++
			}
		}
		switch {
		case n > 0 && !inBar:
			heights = append(heights, n)
		case n > 0:
			heights[len(heights)-1] = max(heights[len(heights)-1], n)
		}
		inBar = n > 0
	}
	return heights
}

// pixels counts the pixels of colour c in the left part of img, up to x.
func pixels(img *image.RGBA, c color.RGBA, upTo int) int {
	n := 0
	for x := range upTo {
		for y := range img.Bounds().Dy() {
			if img.RGBAAt(x, y) == c {
				n++
			}
		}
	}
	return n
}

// "Chart my weekly spending: 12, 40, 33, 8": four bars from a zero
// baseline, as tall as their values, and a description with the
// smallest, the largest, the total and the mean.
func TestBarChartBarsAreAsTallAsTheirValues(t *testing.T) {
	weeks := []string{"Week 1", "Week 2", "Week 3", "Week 4"}
	r, img := drawJSON(t, `{"kind":"bar","title":"Weekly spending","unit":"$","series":["Spending"],"points":`+
		points(weeks, 12, 40, 33, 8)+`}`)
	s := r.Series[0]
	if r.Kind != "bar" || r.Points != 4 || s.Name != "Spending" || s.Min != 8 || s.MinAt != "Week 4" || s.Max != 40 ||
		s.MaxAt != "Week 2" || s.Sum != 93 || s.Mean != 23.25 || r.Unit != "$" {
		t.Fatalf("result = %+v", r)
	}
	heights := barHeights(img, palette[0])
	if len(heights) != 4 {
		t.Fatalf("found %d bars of the series' colour; want 4", len(heights))
	}
	for i, v := range []float64{12, 40, 33, 8} {
		if got := float64(heights[i]) / float64(heights[1]) * 40; math.Abs(got-v) > 0.5 {
			t.Errorf("bar %d is %d pixels, %.2f by the tallest; want %v", i+1, heights[i], got, v)
		}
	}
}

// Three series side by side, each in its own colour, in its own bar.
func TestBarChartWithThreeSeries(t *testing.T) {
	r, img := drawJSON(t, `{"kind":"bar","title":"Quarterly sales","series":["2023","2024","2025"],"points":[
		{"label":"Q1","value":10,"value2":20,"value3":30},{"label":"Q2","value":40,"value2":10,"value3":20}]}`)
	if len(r.Series) != 3 || r.Series[2].Name != "2025" || r.Series[2].Max != 30 || r.Series[1].MaxAt != "Q1" {
		t.Fatalf("result = %+v", r)
	}
	for k, want := range [][]int{{10, 40}, {20, 10}, {30, 20}} {
		h := barHeights(img, palette[k])
		if len(h) != 3 { // two bars, and the legend's box at the right
			t.Fatalf("series %d: bars %v", k+1, h)
		}
		if got := float64(h[0]) / float64(h[1]); math.Abs(got-float64(want[0])/float64(want[1])) > 0.03 {
			t.Errorf("series %d: bars %v; want in the ratio %v", k+1, h, want)
		}
	}
}

// A pie's slices cover the circle in proportion to their values.
func TestPieSlicesAreTheirShareOfTheCircle(t *testing.T) {
	r, img := drawJSON(t, `{"kind":"pie","title":"Monthly budget","unit":"€","points":`+
		points([]string{"Rent", "Food", "Fun"}, 1200, 600, 200)+`}`)
	want := []float64{0.6, 0.3, 0.1}
	for i, s := range r.Slices {
		if s.Share != want[i] {
			t.Errorf("slice %s: share %v; want %v", s.Label, s.Share, want[i])
		}
	}
	area := make([]float64, 3)
	total := 0.0
	for i := range area {
		area[i] = float64(pixels(img, palette[i], chartWidth*55/100))
		total += area[i]
	}
	for i := range area {
		if got := area[i] / total; math.Abs(got-want[i]) > 0.01 {
			t.Errorf("slice %d covers %.3f of the pie; want %v", i+1, got, want[i])
		}
	}
}

// A histogram has as many bins as Sturges' rule gives (NumPy's "sturges":
// ⌈log₂ n + 1⌉ — 5 for 9 values, 8 for 100, 11 for 1,000), of equal
// width from the smallest value to the largest, the largest in the last.
func TestHistogramBinsFollowSturges(t *testing.T) {
	for n, want := range map[int]int{1: 1, 2: 2, 9: 5, 100: 8, 1000: 11} {
		if got := sturges(n); got != want {
			t.Errorf("sturges(%d) = %d; want %d", n, got, want)
		}
	}
	// np.histogram([120,131,118,125,940,122,119,300,250], bins=5)
	r, _ := drawJSON(t, `{"kind":"histogram","title":"Response times","unit":"ms","points":`+
		points(make([]string, 9), 120, 131, 118, 125, 940, 122, 119, 300, 250)+`}`)
	edges := []float64{118, 282.4, 446.8, 611.2, 775.6, 940}
	counts := []int{7, 1, 0, 0, 1}
	if len(r.Bins) != 5 {
		t.Fatalf("bins = %+v; want 5", r.Bins)
	}
	for i, b := range r.Bins {
		if math.Abs(b.From-edges[i]) > 1e-9 || math.Abs(b.To-edges[i+1]) > 1e-9 || b.Count != counts[i] {
			t.Errorf("bin %d = %+v; want [%v, %v) with %d", i+1, b, edges[i], edges[i+1], counts[i])
		}
	}
	r, _ = drawJSON(t, `{"kind":"histogram","bins":2,"points":`+points(make([]string, 4), 1, 2, 3, 4)+`}`)
	if len(r.Bins) != 2 || r.Bins[0].Count != 2 || r.Bins[1].Count != 2 {
		t.Fatalf("bins = %+v; want two of two", r.Bins)
	}
}

// Every kind renders, including the odd cases: one point, values all the
// same, the largest values a chart takes, numbers with an x.
func TestEveryKindRenders(t *testing.T) {
	for name, args := range map[string]string{
		"line by label":      `{"kind":"line","title":"Sales and costs","series":["Sales","Costs"],"points":[{"label":"Jan","value":120,"value2":80},{"label":"Feb","value":135,"value2":90},{"label":"Mar","value":160,"value2":95}]}`,
		"line over x":        `{"kind":"line","x_label":"Year","points":[{"x":2021,"value":3},{"x":2019,"value":1},{"x":2020,"value":2}]}`,
		"scatter":            `{"kind":"scatter","title":"Height and weight","x_label":"cm","y_label":"Weight","unit":"kg","series":["Men","Women"],"points":[{"x":170,"value":70,"value2":60},{"x":180,"value":82,"value2":66}]}`,
		"one point":          `{"kind":"line","points":[{"label":"Today","value":5}]}`,
		"all the same":       `{"kind":"histogram","points":[{"value":7},{"value":7},{"value":7}]}`,
		"huge and negative":  `{"kind":"bar","points":[{"label":"a","value":1e300},{"label":"b","value":-1e300}]}`,
		"tiny":               `{"kind":"scatter","points":[{"x":1e-300,"value":2e-300},{"x":3e-300,"value":1e-300}]}`,
		"zero in a pie":      `{"kind":"pie","points":[{"label":"a","value":0},{"label":"b","value":3}]}`,
		"Cyrillic and emoji": `{"kind":"bar","title":"Расходы за неделю 💸","points":[{"label":"Пн","value":1},{"label":"Вт 🎉","value":2}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			drawJSON(t, args)
		})
	}
	r, _ := drawJSON(t, `{"kind":"line","points":[{"x":2021,"value":3},{"x":2019,"value":1}]}`)
	if r.X == nil || r.X.Min != 2019 || r.X.Max != 2021 {
		t.Fatalf("x range = %+v", r.X)
	}
}

// Everything a chart cannot show is refused with a message that says what
// to do instead.
func TestChartRefusesWhatItCannotShow(t *testing.T) {
	many := func(n int, format string) string {
		var ps []string
		for i := range n {
			ps = append(ps, fmt.Sprintf(format, i+1, i+1))
		}
		return "[" + strings.Join(ps, ",") + "]"
	}
	long := strings.Repeat("x", 41)
	for _, tt := range []struct{ name, args, want string }{
		{"no points", `{"kind":"bar","points":[]}`, "points is empty"},
		{"too many points", `{"kind":"line","points":` + many(1001, `{"label":"%d","value":%d}`) + `}`, "1001 points, more than the 1000"},
		{"too many bars", `{"kind":"bar","points":` + many(101, `{"label":"%d","value":%d}`) + `}`, "at most 100 bars"},
		{"too many slices", `{"kind":"pie","points":` + many(21, `{"label":"%d","value":%d}`) + `}`, `group the smallest into "Other"`},
		{"NaN", `{"kind":"bar","points":[{"label":"a","value":"NaN"}]}`, `point 1's value is "NaN", not a number`},
		{"a number in quotes", `{"kind":"bar","points":[{"label":"a","value":1},{"label":"b","value":"12"}]}`, `point 2's value is "12"`},
		{"infinity", `{"kind":"line","points":[{"label":"a","value":1e400}]}`, "point 1's value is 1e400, not a number"},
		{"too large", `{"kind":"line","points":[{"label":"a","value":1e301}]}`, "too large to draw"},
		{"negative slice", `{"kind":"pie","points":[{"label":"a","value":3},{"label":"b","value":-1}]}`, "point 2's value is -1; a pie chart shows shares"},
		{"nothing to share", `{"kind":"pie","points":[{"label":"a","value":0}]}`, "needs a positive total"},
		{"slice without a label", `{"kind":"pie","points":[{"label":"a","value":1},{"value":2}]}`, "point 2 has no label"},
		{"two series in a pie", `{"kind":"pie","points":[{"label":"a","value":1,"value2":2}]}`, "a pie chart shows one series"},
		{"a series missing", `{"kind":"line","points":[{"label":"a","value":1,"value2":2},{"label":"b","value":3}]}`, "point 2 has no value2 but point 1 has one"},
		{"no first series", `{"kind":"line","points":[{"label":"a","value2":2}]}`, `no point has a value`},
		{"a third without a second", `{"kind":"bar","points":[{"label":"a","value":1,"value3":2}]}`, "the points have value3 but no value2"},
		{"label too long", `{"kind":"bar","points":[{"label":"` + long + `","value":1}]}`, "point 1's label has 41 characters, more than the 40"},
		{"title too long", `{"kind":"bar","title":"` + strings.Repeat("t", 101) + `","points":[{"label":"a","value":1}]}`, "title has 101 characters"},
		{"axis name too long", `{"kind":"bar","y_label":"` + strings.Repeat("y", 61) + `","points":[{"label":"a","value":1}]}`, "y_label has 61 characters"},
		{"unit too long", `{"kind":"bar","unit":"` + strings.Repeat("u", 13) + `","points":[{"label":"a","value":1}]}`, "unit has 13 characters"},
		{"series name too long", `{"kind":"bar","series":["` + long + `"],"points":[{"label":"a","value":1}]}`, "series name 1 has 41 characters"},
		{"names for other series", `{"kind":"bar","series":["A","B"],"points":[{"label":"a","value":1}]}`, "series has 2 names but the points carry 1 series"},
		{"scatter without x", `{"kind":"scatter","points":[{"value":1}]}`, "give every point an x"},
		{"x on some points", `{"kind":"line","points":[{"x":1,"value":1},{"value":2}]}`, "point 2 has no x but point 1 has one"},
		{"x on later points", `{"kind":"line","points":[{"value":1},{"x":1,"value":2}]}`, "point 2 has an x but point 1 has none"},
		{"x on a bar", `{"kind":"bar","points":[{"x":1,"value":1}]}`, "x is for scatter and line charts"},
		{"two histograms", `{"kind":"histogram","points":[{"value":1,"value2":2}]}`, "a histogram shows how one series' values spread"},
		{"bins on a bar", `{"kind":"bar","bins":3,"points":[{"label":"a","value":1}]}`, "bins is for histograms"},
		{"too many bins", `{"kind":"histogram","bins":101,"points":[{"value":1}]}`, "bins is 101; give 1 to 100"},
		{"unknown kind", `{"kind":"radar","points":[{"value":1}]}`, `kind is "radar"`},
		{"unknown field", `{"kind":"bar","colour":"red","points":[{"value":1}]}`, "do not fit the tool's schema"},
	} {
		_, err := CreateChart().Tool.Call(t.Context(), json.RawMessage(tt.args))
		var modelErr *toolbus.Error
		if !errors.As(err, &modelErr) || modelErr.Code != toolbus.CodeInvalidArgs || !strings.Contains(modelErr.Message, tt.want) {
			t.Errorf("%s: err = %v; want invalid_arguments saying %q", tt.name, err, tt.want)
		}
	}
}

// Through the bus, the model's result describes the chart and never holds
// the picture; the picture travels beside it.
func TestChartResultDescribesThePicture(t *testing.T) {
	r := toolbus.NewRegistry()
	if err := r.Register(CreateChart()); err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"kind":"bar","title":"Weekly spending","points":[{"label":"Mon","value":12},{"label":"Tue","value":40}]}`)
	res := r.Run(t.Context(), toolbus.Call{ID: "c", Key: "k", Tool: "create_chart", Args: args})
	if res.Status != toolbus.StatusOK || len(res.Attachments) != 1 || res.Attachments[0].Caption != "Weekly spending" {
		t.Fatalf("Run = %+v", res)
	}
	text := res.Text()
	for _, want := range []string{`"kind":"bar"`, `"max":40`, `"max_at":"Tue"`, "sent to the person as a photo"} {
		if !strings.Contains(text, want) {
			t.Errorf("the model reads %s; want %s in it", text, want)
		}
	}
	if strings.Contains(text, "PNG\r\n") || len(text) > 1000 {
		t.Fatalf("the model reads %d bytes: %.200s", len(text), text)
	}
	if spec, _ := r.Lookup("create_chart"); spec.Doing != "📊 drawing a chart" || spec.Category != toolbus.Charts {
		t.Fatalf("spec = %+v", spec)
	}
}

func TestGroupThousands(t *testing.T) {
	for in, want := range map[string]string{"0": "0", "999": "999", "1000": "1,000", "-1234567.25": "-1,234,567.25", "1e+20": "1e+20", "": ""} {
		if got := groupThousands(in); got != want {
			t.Errorf("groupThousands(%q) = %q; want %q", in, got, want)
		}
	}
}

// A line chart of a thousand points, the most create_chart takes, as
// the person would ask for it: two series over labelled days.
func BenchmarkCreateChartLine1000(b *testing.B) {
	var ps []string
	for i := range maxChartPoints {
		ps = append(ps, fmt.Sprintf(`{"label":"Day %d","value":%.2f,"value2":%.2f}`, i+1,
			100+30*math.Sin(float64(i)/40)+float64(i%7), 90+float64(i)/20))
	}
	args := json.RawMessage(`{"kind":"line","title":"A thousand days","series":["Visits","Trend"],"points":[` + strings.Join(ps, ",") + `]}`)
	spec := CreateChart()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := spec.Tool.Call(b.Context(), args); err != nil {
			b.Fatal(err)
		}
	}
}

// differentPixels counts the pixels where a and b differ.
func differentPixels(a, b *image.RGBA) int {
	n := 0
	for i := 0; i < len(a.Pix); i += 4 {
		if string(a.Pix[i:i+4]) != string(b.Pix[i:i+4]) {
			n++
		}
	}
	return n
}

// The total and the mean a chart's description gives are those of the
// numbers as written, as statistics computes them: rainfall of 0.1 and
// 0.2 mm totals 0.3, not 0.30000000000000004, and a thousand readings of
// 0.1 average 0.1.
func TestChartTotalsAreExact(t *testing.T) {
	r, _ := drawJSON(t, `{"kind":"bar","unit":"mm","points":`+points([]string{"Mon", "Tue"}, 0.1, 0.2)+`}`)
	if s := r.Series[0]; s.Sum != 0.3 || s.Mean != 0.15 {
		t.Errorf("sum %v, mean %v; want 0.3 and 0.15", s.Sum, s.Mean)
	}
	var ps []string
	for range maxChartPoints {
		ps = append(ps, `{"value":0.1,"value2":-0}`)
	}
	r, _ = drawJSON(t, `{"kind":"line","points":[`+strings.Join(ps, ",")+`]}`)
	if s := r.Series[0]; s.Sum != 100 || s.Mean != 0.1 {
		t.Errorf("sum %v, mean %v; want 100 and 0.1", s.Sum, s.Mean)
	}
	if s := r.Series[1]; math.Signbit(s.Sum) || math.Signbit(s.Mean) || math.Signbit(s.Min) {
		t.Errorf("series of -0: %+v; want 0, not -0", s)
	}
}

// A pie of one slice is a whole disc: no seam is drawn from its centre
// to twelve o'clock, as between two slices.
func TestPieOfOneSliceIsWhole(t *testing.T) {
	_, img := drawJSON(t, `{"kind":"pie","title":"Where it went","points":[{"label":"Rent","value":1200}]}`)
	left, right, top, bottom := chartWidth, 0, chartHeight, 0
	for x := range chartWidth * 55 / 100 {
		for y := range chartHeight {
			if img.RGBAAt(x, y) == palette[0] {
				left, right, top, bottom = min(left, x), max(right, x), min(top, y), max(bottom, y)
			}
		}
	}
	cx, cy := (left+right)/2, (top+bottom)/2
	for y := top + 5; y < cy-5; y++ {
		for x := cx - 2; x <= cx+2; x++ {
			if c := img.RGBAAt(x, y); c != palette[0] {
				t.Fatalf("pixel (%d, %d) above the centre (%d, %d) is %v; want the slice's colour", x, y, cx, cy, c)
			}
		}
	}
}

// A pie's key fits in the picture, value and share included, however long
// the labels: a household budget by its long category names.
func TestPieKeyFitsThePicture(t *testing.T) {
	_, img := drawJSON(t, `{"kind":"pie","title":"Household budget","unit":"EUR","points":[`+
		`{"label":"Housing, utilities and home insurance","value":1450.75},`+
		`{"label":"Groceries and household supplies","value":612.4},`+
		`{"label":"Transport, fuel and car maintenance","value":388.9},`+
		`{"label":"Entertainment and subscriptions","value":145.99},`+
		`{"label":"Savings and emergency fund deposits","value":500}]}`)
	white := color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
	for x := chartWidth - 24; x < chartWidth; x++ {
		for y := range chartHeight {
			if c := img.RGBAAt(x, y); c != white {
				t.Fatalf("pixel (%d, %d) in the right margin is %v: the key runs off the picture", x, y, c)
			}
		}
	}
}

// Texts as long as a chart takes — a title of 100 characters, axis names
// of 60 in capitals with a unit — are drawn whole, inside the picture.
func TestLongestTextsFitThePicture(t *testing.T) {
	title := "Monthly electricity consumption of our household compared with the regional average, 2023 to 2025, %"
	axis := "ELECTRICITY CONSUMED PER HOUSEHOLD PER MONTH, ALL APPLIANCES"
	if len(title) != maxTitle || len(axis) != maxAxisLabel {
		t.Fatalf("the title has %d characters, the axis name %d; want %d and %d", len(title), len(axis), maxTitle, maxAxisLabel)
	}
	for name, args := range map[string]string{
		"bar":       `{"kind":"bar","title":"` + title + `","y_label":"` + axis + `","unit":"kWh","x_label":"` + axis + `","points":[{"label":"Jan","value":412},{"label":"Feb","value":380}]}`,
		"histogram": `{"kind":"histogram","title":"` + title + `","x_label":"` + axis + `","y_label":"` + axis + `","points":[{"value":412},{"value":380}]}`,
	} {
		_, img := drawJSON(t, args)
		white := color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
		const border = 8
		for x := range chartWidth {
			for y := range chartHeight {
				inside := x >= border && x < chartWidth-border && y >= border && y < chartHeight-border
				if c := img.RGBAAt(x, y); !inside && c != white {
					t.Fatalf("%s: pixel (%d, %d) at the picture's edge is %v: a text runs off it", name, x, y, c)
				}
			}
		}
	}
}
