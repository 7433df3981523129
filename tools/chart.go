package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/toolbus"
)

// Chart kinds.
const (
	chartBar       = "bar"
	chartLine      = "line"
	chartPie       = "pie"
	chartScatter   = "scatter"
	chartHistogram = "histogram"
)

// Bounds of a chart: what a picture 1200 pixels wide can show legibly.
const (
	maxChartPoints = 1000 // line, scatter, histogram
	maxBars        = 100
	maxSlices      = 20
	maxSeries      = 3
	maxBins        = 100
	maxPointLabel  = 40 // characters
	maxTitle       = 100
	maxAxisLabel   = 60
	maxSeriesName  = 40
	maxUnit        = 12
)

// seriesKeys are the fixed keys of a point's values, series by series.
var seriesKeys = [maxSeries]string{"value", "value2", "value3"}

const chartSchema = `{
  "type": "object",
  "properties": {
    "kind": {
      "type": "string",
      "enum": ["bar", "line", "pie", "scatter", "histogram"],
      "description": "bar: values by label; line: values over labels or x; pie: shares of a whole; scatter: (x, value) pairs; histogram: how raw values spread."
    },
    "points": {
      "type": "array",
      "minItems": 1,
      "items": {
        "type": "object",
        "properties": {
          "label": {"type": "string", "description": "The point's name on the axis or slice, up to 40 characters, e.g. \"Mon\"."},
          "x": {"type": "number", "description": "The point's position, for scatter (required) and line charts over numbers."},
          "value": {"type": "number", "description": "The first series' value."},
          "value2": {"type": "number", "description": "The second series' value, on every point or none."},
          "value3": {"type": "number", "description": "The third series' value, on every point or none."}
        },
        "required": ["value"],
        "additionalProperties": false
      },
      "description": "The data, up to 1,000 points (bar 100, pie 20), e.g. [{\"label\":\"Mon\",\"value\":12}]. Series use the fixed keys value, value2, value3."
    },
    "series": {
      "type": "array",
      "items": {"type": "string"},
      "description": "Names of the series, in the order value, value2, value3, each up to 40 characters; shown in the legend."
    },
    "title": {"type": "string", "description": "The chart's title, up to 100 characters; also the photo's caption."},
    "x_label": {"type": "string", "description": "The horizontal axis' name, up to 60 characters."},
    "y_label": {"type": "string", "description": "The vertical axis' name, up to 60 characters."},
    "unit": {"type": "string", "description": "The values' unit, up to 12 characters, e.g. \"$\", \"kg\", \"%\"."},
    "bins": {"type": "integer", "minimum": 1, "maximum": 100, "description": "Histogram only: how many bars; chosen by Sturges' rule if left out."}
  },
  "required": ["kind", "points"],
  "additionalProperties": false
}`

// CreateChart returns the create_chart tool: a bar, line, pie, scatter or
// histogram chart drawn as a PNG picture, which the person gets as a photo
// with the answer; the model gets a description of it.
func CreateChart() toolbus.Spec {
	s := readOnly("create_chart",
		"Draw a bar, line, pie, scatter or histogram chart of up to 1,000 points as a picture sent with your reply. "+
			"Up to 3 series: keys value, value2, value3.",
		toolbus.Charts, chartSchema, createChart,
		example("Chart my weekly spending: 12, 40, 33, 8",
			`{"kind":"bar","title":"Weekly spending","unit":"$","series":["Spending"],`+
				`"points":[{"label":"Week 1","value":12},{"label":"Week 2","value":40},{"label":"Week 3","value":33},{"label":"Week 4","value":8}]}`),
		example("Plot sales and costs for Jan to Mar: sales 120, 135, 160; costs 80, 90, 95",
			`{"kind":"line","title":"Sales and costs","y_label":"Amount","series":["Sales","Costs"],`+
				`"points":[{"label":"Jan","value":120,"value2":80},{"label":"Feb","value":135,"value2":90},{"label":"Mar","value":160,"value2":95}]}`))
	s.Doing = "📊 drawing a chart"
	return s
}

// chart is a chart's data, read and checked.
type chart struct {
	kind                          string
	title                         string // as given, for the caption
	drawnTitle                    string // what the picture shows of it; "" when the font cannot draw it
	xLabel, yLabel, unit          string
	names                         []string        // one per series
	labels                        []string        // one per point; "" when it has none
	xs                            []float64       // one per point, for scatter and line charts over numbers; nil otherwise
	series                        [][]float64     // series[k][i] is point i's value of series k
	written                       [][]json.Number // the same values as the model wrote them, for exact totals
	bins                          int             // histogram only
	namedSeries, labelled, overXs bool
}

type chartArgs struct {
	Kind   string       `json:"kind"`
	Points []chartPoint `json:"points"`
	Series []string     `json:"series"`
	Title  string       `json:"title"`
	XLabel string       `json:"x_label"`
	YLabel string       `json:"y_label"`
	Unit   string       `json:"unit"`
	Bins   *int         `json:"bins"`
}

// chartPoint keeps its numbers as written, so that each can be checked
// and the model told which one is wrong.
type chartPoint struct {
	Label  *string         `json:"label"`
	X      json.RawMessage `json:"x"`
	Value  json.RawMessage `json:"value"`
	Value2 json.RawMessage `json:"value2"`
	Value3 json.RawMessage `json:"value3"`
}

func (p chartPoint) values() [maxSeries]json.RawMessage {
	return [maxSeries]json.RawMessage{p.Value, p.Value2, p.Value3}
}

func createChart(ctx context.Context, raw json.RawMessage) (any, error) {
	var args chartArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	c, err := readChart(args)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	png, err := drawChart(c)
	if err != nil {
		return nil, err
	}
	return toolbus.Attached{Result: describeChart(ctx, c),
		Files: []ryo.Attachment{{Name: "chart.png", MimeType: "image/png", Caption: c.title, Data: png}}}, nil
}

// DrawChart draws the chart create_chart's arguments raw describe, as a
// PNG picture: ryo's own charts (/stats) are drawn as the model's are.
func DrawChart(raw json.RawMessage) ([]byte, error) {
	var args chartArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	c, err := readChart(args)
	if err != nil {
		return nil, err
	}
	return drawChart(c)
}

// invalid is a mistake in the chart's arguments, for the model to correct.
func invalid(format string, a ...any) error {
	return toolbus.Errorf(toolbus.CodeInvalidArgs, format, a...)
}

// readChart checks the arguments and reads them into a chart.
func readChart(a chartArgs) (*chart, error) {
	c := &chart{kind: a.Kind}
	if err := c.readTexts(a); err != nil {
		return nil, err
	}
	if err := c.readPoints(a.Points); err != nil {
		return nil, err
	}
	if err := c.readNames(a.Series); err != nil {
		return nil, err
	}
	if err := c.fitsKind(a); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *chart) readTexts(a chartArgs) error {
	switch c.kind {
	case chartBar, chartLine, chartPie, chartScatter, chartHistogram:
	default:
		return invalid("kind is %q; give one of bar, line, pie, scatter, histogram", c.kind)
	}
	for _, t := range []struct {
		field string
		to    *string
		from  string
		max   int
	}{
		{"x_label", &c.xLabel, a.XLabel, maxAxisLabel},
		{"y_label", &c.yLabel, a.YLabel, maxAxisLabel},
		{"unit", &c.unit, a.Unit, maxUnit},
	} {
		text, err := chartText(t.field, t.from, t.max)
		if err != nil {
			return err
		}
		*t.to = text
	}
	// The caption shows the title as given; the picture what it can of it.
	c.title = oneLine(a.Title)
	if err := fits("title", c.title, maxTitle); err != nil {
		return err
	}
	if drawn, cannot := drawable(c.title); cannot == "" {
		c.drawnTitle = drawn
	}
	return nil
}

// chartText is what the picture shows of s, on one line: refused when
// longer than max characters, or when the chart's font cannot draw it.
func chartText(field, s string, max int) (string, error) {
	s = oneLine(s)
	if err := fits(field, s, max); err != nil {
		return "", err
	}
	drawn, cannot := drawable(s)
	switch {
	case cannot != "":
		return "", invalid("%s has characters the chart cannot draw (%s): it draws Latin, Greek and Cyrillic letters, left to right; "+
			"write it in those, translated or transliterated, and keep the original words in your reply", field, clip(cannot, 20))
	case drawn == "" && s != "":
		return "", invalid("%s is %q, which the chart cannot draw; write it in words or leave it out", field, s)
	}
	return drawn, nil
}

// oneLine is s on one line, its runs of spaces and control characters
// one space.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
}

// fits refuses s when it is longer than max characters.
func fits(field, s string, max int) error {
	if n := len([]rune(s)); n > max {
		return invalid("%s has %d characters, more than the %d a chart shows legibly; shorten it", field, n, max)
	}
	return nil
}

func (c *chart) readPoints(points []chartPoint) error {
	n := len(points)
	if n == 0 {
		return invalid("points is empty; give at least one point, e.g. {\"label\":\"Mon\",\"value\":12}")
	}
	if n > maxChartPoints {
		return invalid("points has %d points, more than the %d a chart takes; summarize them (totals per week, a sample) first", n, maxChartPoints)
	}
	used, err := seriesUsed(points)
	if err != nil {
		return err
	}
	c.series = make([][]float64, used)
	c.written = make([][]json.Number, used)
	for k := range c.series {
		c.series[k] = make([]float64, n)
		c.written[k] = make([]json.Number, n)
	}
	c.labels = make([]string, n)
	for i, p := range points {
		if err := c.readPoint(i, p); err != nil {
			return err
		}
	}
	return nil
}

// seriesUsed says how many series the points carry, refusing a series some
// points have and others lack, and a third without a second.
func seriesUsed(points []chartPoint) (int, error) {
	used := 0
	for k := range maxSeries {
		has, lacks := -1, -1
		for i, p := range points {
			if given(p.values()[k]) {
				has = i
			} else if lacks < 0 {
				lacks = i
			}
		}
		switch {
		case has < 0 && k == 0:
			return 0, invalid("no point has a value; give each point its number as \"value\"")
		case has < 0:
			continue
		case lacks >= 0:
			return 0, invalid("point %d has no %s but point %d has one; give every point the same series (0 where it is nothing)",
				lacks+1, seriesKeys[k], has+1)
		case used < k:
			return 0, invalid("the points have %s but no %s; put the second series in value2 and the third in value3", seriesKeys[k], seriesKeys[used])
		}
		used = k + 1
	}
	return used, nil
}

func given(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

func (c *chart) readPoint(i int, p chartPoint) error {
	if p.Label != nil {
		label, err := chartText(fmt.Sprintf("point %d's label", i+1), *p.Label, maxPointLabel)
		if err != nil {
			return err
		}
		c.labels[i] = label
		c.labelled = c.labelled || label != ""
	}
	for k := range c.series {
		v, err := chartNumber(i, seriesKeys[k], p.values()[k])
		if err != nil {
			return err
		}
		c.series[k][i] = v
		c.written[k][i] = json.Number(bytes.TrimSpace(p.values()[k]))
	}
	if !given(p.X) {
		if c.xs != nil {
			return invalid("point %d has no x but point 1 has one; give every point an x, or none", i+1)
		}
		return nil
	}
	if i > 0 && c.xs == nil {
		return invalid("point %d has an x but point 1 has none; give every point an x, or none", i+1)
	}
	x, err := chartNumber(i, "x", p.X)
	if err != nil {
		return err
	}
	c.xs = append(c.xs, x)
	c.overXs = true
	return nil
}

// chartNumber reads one number of point i, refusing what is not a finite
// number.
func chartNumber(i int, key string, raw json.RawMessage) (float64, error) {
	var v float64
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &v) != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		if len(raw) > 40 {
			raw = append(raw[:40:40], "…"...)
		}
		return 0, invalid("point %d's %s is %s, not a number a chart can draw; give a plain JSON number such as 12.5", i+1, key, raw)
	}
	if math.Abs(v) > 1e300 {
		return 0, invalid("point %d's %s is %g, too large to draw; scale the values (thousands, millions) and say so in the unit", i+1, key, v)
	}
	if v == 0 {
		return 0, nil // not -0, which would be written so
	}
	return v, nil
}

func (c *chart) readNames(names []string) error {
	if len(names) > 0 && len(names) != len(c.series) {
		return invalid("series has %d names but the points carry %d series (%s); give one name per series",
			len(names), len(c.series), strings.Join(seriesKeys[:len(c.series)], ", "))
	}
	c.names = make([]string, len(c.series))
	for k := range c.names {
		if k < len(names) {
			name, err := chartText(fmt.Sprintf("series name %d", k+1), names[k], maxSeriesName)
			if err != nil {
				return err
			}
			c.names[k] = name
			c.namedSeries = c.namedSeries || name != ""
		}
		if c.names[k] == "" {
			c.names[k] = fmt.Sprintf("Series %d", k+1)
		}
	}
	return nil
}

// fitsKind checks what each kind of chart needs of its points.
func (c *chart) fitsKind(a chartArgs) error {
	n := len(c.labels)
	if a.Bins != nil && c.kind != chartHistogram {
		return invalid("bins is for histograms; leave it out of a %s chart", c.kind)
	}
	if c.overXs && c.kind != chartLine && c.kind != chartScatter {
		return invalid("x is for scatter and line charts; a %s chart names each point with a label", c.kind)
	}
	switch c.kind {
	case chartBar:
		if n > maxBars {
			return invalid("a bar chart takes at most %d bars and got %d; use a line chart, or group the points", maxBars, n)
		}
	case chartPie:
		return c.fitsPie()
	case chartScatter:
		if !c.overXs {
			return invalid("a scatter chart places each point at (x, value); give every point an x")
		}
	case chartHistogram:
		return c.fitsHistogram(a.Bins)
	}
	return nil
}

func (c *chart) fitsPie() error {
	n := len(c.labels)
	switch {
	case len(c.series) > 1:
		return invalid("a pie chart shows one series; leave out value2 and value3, or use a bar chart")
	case n > maxSlices:
		return invalid("a pie chart takes at most %d slices and got %d; group the smallest into \"Other\"", maxSlices, n)
	}
	total := 0.0
	for i, v := range c.series[0] {
		if v < 0 {
			return invalid("point %d's value is %g; a pie chart shows shares of a whole, which cannot be negative — use a bar chart", i+1, v)
		}
		if c.labels[i] == "" {
			return invalid("point %d has no label; a pie chart names each slice", i+1)
		}
		total += v
	}
	if total == 0 || math.IsInf(total, 0) {
		return invalid("the values add up to %g; a pie chart needs a positive total to divide", total)
	}
	return nil
}

func (c *chart) fitsHistogram(bins *int) error {
	if len(c.series) > 1 {
		return invalid("a histogram shows how one series' values spread; leave out value2 and value3")
	}
	n := len(c.labels)
	c.bins = sturges(n)
	if bins != nil {
		if *bins < 1 || *bins > maxBins {
			return invalid("bins is %d; give 1 to %d, or leave it out", *bins, maxBins)
		}
		c.bins = *bins
	}
	return nil
}

// sturges is Sturges' rule for the number of bins of n values:
// ⌈log₂ n⌉ + 1.
func sturges(n int) int {
	return int(math.Ceil(math.Log2(float64(n)))) + 1
}
