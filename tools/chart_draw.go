package tools

import (
	"bytes"
	"cmp"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The picture: 1200×800 pixels at 96 dots an inch, which is 900×600
// points to the plot.
const (
	chartWidth  = 1200
	chartHeight = 800
	chartDPI    = 96
	margin      = vg.Length(18) // points of white around the plot
)

// The chart's look: a sans-serif face, sizes in points.
var (
	chartFace = font.Font{Typeface: "Liberation", Variant: "Sans"}
	inkColor  = color.RGBA{R: 0x33, G: 0x33, B: 0x33, A: 0xff}
	gridColor = color.RGBA{R: 0xdd, G: 0xdd, B: 0xdd, A: 0xff}
)

// palette is Tableau 20: ten colours that stay apart for most kinds of
// colour blindness, then their lighter halves, for pies of many slices.
var palette = []color.RGBA{
	rgb(0x4e79a7), rgb(0xf28e2b), rgb(0xe15759), rgb(0x76b7b2), rgb(0x59a14f),
	rgb(0xedc948), rgb(0xb07aa1), rgb(0xff9da7), rgb(0x9c755f), rgb(0xbab0ac),
	rgb(0xa0cbe8), rgb(0xffbe7d), rgb(0xff9d9a), rgb(0x86bcb6), rgb(0x8cd17d),
	rgb(0xf1ce63), rgb(0xd4a6c8), rgb(0xfabfd2), rgb(0xd7b5a6), rgb(0x79706e),
}

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// drawChart renders c as a PNG picture of chartWidth×chartHeight pixels.
func drawChart(c *chart) ([]byte, error) {
	p := newPlot(c)
	var err error
	var extra vg.Length // room the X axis' names need left of the plot
	switch c.kind {
	case chartBar:
		extra, err = addBars(p, c)
	case chartLine:
		extra, err = addLines(p, c)
	case chartScatter:
		err = addScatter(p, c)
	case chartHistogram:
		err = addHistogram(p, c)
	case chartPie:
		addPie(p, c)
	}
	if err != nil {
		return nil, fmt.Errorf("draw the %s chart: %w", c.kind, err)
	}
	if len(c.series) > 1 { // room above the data for the legend at the top
		p.Y.Max += (p.Y.Max - p.Y.Min) * 0.05 * float64(len(c.series)+1)
	}
	fitTexts(p, extra)
	canvas := vgimg.NewWith(vgimg.UseImage(image.NewRGBA(image.Rect(0, 0, chartWidth, chartHeight))), vgimg.UseDPI(chartDPI))
	p.Draw(draw.Crop(draw.New(canvas), margin+extra, -margin, margin, -margin))
	var buf bytes.Buffer
	// Flat colours compress well at the fastest level: a tenth larger
	// than at the default, drawn in half the time.
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, canvas.Image()); err != nil {
		return nil, fmt.Errorf("encode the chart: %w", err)
	}
	return buf.Bytes(), nil
}

// newPlot is a plot with the chart's title, axis names and look.
func newPlot(c *chart) *plot.Plot {
	p := plot.New()
	p.Title.Text = c.drawnTitle
	p.Title.TextStyle.Font = font.From(chartFace, 20)
	p.Title.TextStyle.Color = inkColor
	p.Title.Padding = vg.Points(12)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(chartFace, 14)
		a.Label.TextStyle.Color = inkColor
		a.Tick.Label.Font = font.From(chartFace, 12)
		a.Tick.Label.Color = inkColor
		a.Color, a.Tick.Color = inkColor, inkColor
		a.Tick.Marker = numberTicks{}
	}
	p.X.Label.Text = c.xLabel
	p.Y.Label.Text = valueLabel(c.yLabel, c.unit)
	if c.yLabel == "" && len(c.series) == 1 { // one series: its name says what the values are
		p.Y.Label.Text = valueLabel(seriesName(c), c.unit)
	}
	p.Legend.Top = true
	p.Legend.TextStyle.Font = font.From(chartFace, 13)
	p.Legend.TextStyle.Color = inkColor
	p.Legend.ThumbnailWidth = vg.Points(20)
	p.Legend.Padding = vg.Points(4)
	return p
}

// The room the title and the axis names have, in points: the picture's
// width less its margins, and about the data area's height.
const (
	titleRoom  = 900 - 2*margin
	plotHeight = 600 - 2*margin - 130 // less the title and the X axis' ticks and name
)

// fitTexts makes the title and the axis names smaller, to a legible
// least, and then shorter, until each fits its room; extra is the room
// the X axis' names take left of the plot.
func fitTexts(p *plot.Plot, extra vg.Length) {
	p.Title.Text = fitText(&p.Title.TextStyle, p.Title.Text, 12, titleRoom-extra)
	p.X.Label.Text = fitText(&p.X.Label.TextStyle, p.X.Label.Text, 10, plotWidth-extra)
	p.Y.Label.Text = fitText(&p.Y.Label.TextStyle, p.Y.Label.Text, 10, plotHeight)
}

// fitText is s in style made smaller, down to smallest points, and then
// cut short, until s is no wider than room.
func fitText(style *text.Style, s string, smallest, room vg.Length) string {
	for style.Font.Size > smallest && style.Width(s) > room {
		style.Font.Size = max(style.Font.Size-1, smallest)
	}
	for n := len([]rune(s)); n > 1 && style.Width(s) > room; n-- {
		s = clip(s, n)
	}
	return s
}

// valueLabel names the value axis, with the unit in brackets.
func valueLabel(label, unit string) string {
	switch {
	case unit == "":
		return label
	case label == "":
		return unit
	}
	return label + " (" + unit + ")"
}

// numberTicks mark an axis at four to eight round values — 1, 2, 2.5 or
// 5 times a power of ten apart — labelled with thousands separators.
type numberTicks struct{}

func (numberTicks) Ticks(lo, hi float64) []plot.Tick {
	step := niceStep(hi/8 - lo/8)
	if !(step > 0) || math.IsInf(step, 0) {
		return []plot.Tick{{Value: lo, Label: shortNumber(lo)}, {Value: hi, Label: shortNumber(hi)}}
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)))+1)
	var ticks []plot.Tick
	for i := math.Ceil(lo / step); i*step <= hi && len(ticks) < 20; i++ {
		v := i * step
		ticks = append(ticks, plot.Tick{Value: v, Label: tickLabel(v, decimals)})
	}
	return ticks
}

// niceStep is the round step nearest above rough: 1, 2, 2.5 or 5 times a
// power of ten.
func niceStep(rough float64) float64 {
	if !(rough > 0) {
		return 0
	}
	mag := math.Pow(10, math.Floor(math.Log10(rough)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if rough <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

// tickLabel writes a tick's value with no more decimals than its step
// needs, grouped; huge and tiny values in exponent form.
func tickLabel(v float64, decimals int) string {
	if v == 0 {
		return "0"
	}
	if a := math.Abs(v); a >= 1e15 || a < 1e-6 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	s := strconv.FormatFloat(v, 'f', min(decimals, 8), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return groupThousands(s)
}

// groupThousands writes 1234567.5 as 1,234,567.5; a number in exponent
// form is left as it is.
func groupThousands(s string) string {
	if s == "" || strings.ContainsAny(s, "eE") {
		return s
	}
	sign, rest := "", s
	if rest[0] == '-' {
		sign, rest = "-", rest[1:]
	}
	whole, frac, hasFrac := strings.Cut(rest, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// plotWidth is about how wide the data area is, in points, for sizing
// bars: the picture less the value axis and the margins.
const plotWidth = 900 - 110

func addBars(p *plot.Plot, c *chart) (vg.Length, error) {
	n, s := len(c.labels), len(c.series)
	p.Add(horizontalGrid())
	slot := vg.Length(plotWidth) / vg.Length(n)
	width := max(slot*0.8/vg.Length(s), 1)
	for k, values := range c.series {
		bars, err := plotter.NewBarChart(plotter.Values(values), width)
		if err != nil {
			return 0, err
		}
		bars.Color = palette[k]
		bars.LineStyle.Width = 0
		bars.Offset = (vg.Length(k) - vg.Length(s-1)/2) * width
		p.Add(bars)
		if len(c.series) > 1 {
			p.Legend.Add(c.names[k], bars)
		}
		if n*s <= 24 {
			if err := addBarValues(p, values, bars.Offset); err != nil {
				return 0, err
			}
		}
	}
	extra := categoryAxis(p, c.labels)
	lo, hi := valueRange(c.series, true)
	p.Y.Min, p.Y.Max = padRange(lo, hi)
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	return extra, nil
}

// addBarValues writes each bar's value above it (below it, when negative).
func addBarValues(p *plot.Plot, values []float64, offset vg.Length) error {
	for i, v := range values {
		label, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: float64(i), Y: v}}, Labels: []string{shortNumber(v)}})
		if err != nil {
			return err
		}
		style := &label.TextStyle[0]
		style.Font = font.From(chartFace, 11)
		style.Color = inkColor
		style.XAlign = draw.XCenter
		label.Offset = vg.Point{X: offset, Y: vg.Points(4)}
		if v < 0 {
			style.YAlign = draw.YTop
			label.Offset.Y = -vg.Points(4)
		}
		p.Add(label)
	}
	return nil
}

// shortNumber writes v with at most 6 significant digits, grouped, in
// exponent form only when huge or tiny.
func shortNumber(v float64) string {
	rounded, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if a := math.Abs(rounded); a != 0 && (a >= 1e15 || a < 1e-6) {
		return strconv.FormatFloat(rounded, 'g', 6, 64)
	}
	return groupThousands(strconv.FormatFloat(rounded, 'f', -1, 64))
}

func addLines(p *plot.Plot, c *chart) (vg.Length, error) {
	p.Add(horizontalGrid())
	xs, extra := c.xs, vg.Length(0)
	if !c.overXs {
		xs = make([]float64, len(c.labels))
		for i := range xs {
			xs[i] = float64(i)
		}
		extra = categoryAxis(p, c.labels)
	}
	order := sortedBy(xs)
	for k, values := range c.series {
		pts := make(plotter.XYs, len(order))
		for j, i := range order {
			pts[j] = plotter.XY{X: xs[i], Y: values[i]}
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return 0, err
		}
		line.Color, line.Width = palette[k], vg.Points(2.5)
		p.Add(line)
		var dots *plotter.Scatter
		if len(pts) <= 60 {
			if dots, err = plotter.NewScatter(pts); err != nil {
				return 0, err
			}
			dots.GlyphStyle = glyphStyle(k, 3.5)
			p.Add(dots)
		}
		if len(c.series) > 1 {
			p.Legend.Add(c.names[k], line)
		}
	}
	lo, hi := valueRange(c.series, false)
	p.Y.Min, p.Y.Max = padRange(lo, hi)
	p.X.Min, p.X.Max = padRange(slices.Min(xs), slices.Max(xs))
	if !c.overXs {
		p.X.Min, p.X.Max = -0.5, float64(len(xs))-0.5
	}
	return extra, nil
}

// sortedBy is the indexes of xs in ascending order of xs, ties in their
// given order.
func sortedBy(xs []float64) []int {
	order := make([]int, len(xs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case xs[a] < xs[b]:
			return -1
		case xs[a] > xs[b]:
			return 1
		}
		return 0
	})
	return order
}

func addScatter(p *plot.Plot, c *chart) error {
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = gridColor, gridColor
	p.Add(grid)
	radius := vg.Length(4)
	if len(c.xs) > 200 {
		radius = 2.5
	}
	for k, values := range c.series {
		pts := make(plotter.XYs, len(values))
		for i, v := range values {
			pts[i] = plotter.XY{X: c.xs[i], Y: v}
		}
		dots, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		dots.GlyphStyle = glyphStyle(k, radius)
		p.Add(dots)
		if len(c.series) > 1 {
			p.Legend.Add(c.names[k], dots)
		}
	}
	lo, hi := valueRange(c.series, false)
	p.Y.Min, p.Y.Max = padRange(lo, hi)
	p.X.Min, p.X.Max = padRange(slices.Min(c.xs), slices.Max(c.xs))
	return nil
}

// glyphStyle marks series k's points: a circle, a square or a triangle,
// so that the series differ in more than colour.
func glyphStyle(k int, radius vg.Length) draw.GlyphStyle {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}}
	return draw.GlyphStyle{Color: palette[k], Radius: radius, Shape: shapes[k%len(shapes)]}
}

func addHistogram(p *plot.Plot, c *chart) error {
	bins := histogram(c.series[0], c.bins)
	h := &plotter.Histogram{Width: bins[0].To - bins[0].From, FillColor: palette[0],
		LineStyle: draw.LineStyle{Color: color.White, Width: vg.Points(1)}}
	top := 0
	for _, b := range bins {
		h.Bins = append(h.Bins, plotter.HistogramBin{Min: b.From, Max: b.To, Weight: float64(b.Count)})
		top = max(top, b.Count)
	}
	p.Add(horizontalGrid(), h)
	if p.X.Label.Text == "" {
		p.X.Label.Text = valueLabel(seriesName(c), c.unit)
	}
	p.Y.Label.Text = c.yLabel
	if c.yLabel == "" {
		p.Y.Label.Text = "Count"
	}
	p.X.Min, p.X.Max = bins[0].From, bins[len(bins)-1].To
	p.Y.Min, p.Y.Max = 0, float64(top)*1.08+0.5
	return nil
}

// seriesName is the one series' name, when it was given.
func seriesName(c *chart) string {
	if c.namedSeries {
		return c.names[0]
	}
	return ""
}

// horizontalGrid is light lines across the plot at the value ticks.
func horizontalGrid() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	g.Horizontal.Color = gridColor
	return g
}

// shownLabels is the most point labels a category axis shows upright;
// with more points every so many is shown.
const shownLabels = 24

// tiltedLabel is the most characters of a point label shown tilted.
const tiltedLabel = 18

// categoryAxis names the points along the X axis, every so many when
// there are many. Names that would run into each other are tilted and
// shortened; extra is the room the first of them needs left of the plot.
func categoryAxis(p *plot.Plot, labels []string) (extra vg.Length) {
	names := make([]string, len(labels))
	for i, l := range labels {
		names[i] = cmp.Or(l, strconv.Itoa(i+1))
	}
	style := &p.X.Tick.Label
	every := (len(names) + shownLabels - 1) / shownLabels
	p.X.Tick.Length = 0
	if widest(style, names, every)*vg.Length((len(names)+every-1)/every) <= plotWidth*0.9 {
		p.X.Tick.Marker = categoryTicks(names, every)
		return 0
	}
	for i, n := range names {
		names[i] = clip(n, tiltedLabel)
	}
	room := style.Font.Size * 2.2 // between tilted names, along the axis
	every = max(every, int(math.Ceil(float64(vg.Length(len(names))*room/plotWidth))))
	p.X.Tick.Marker = categoryTicks(names, every)
	style.Rotation, style.XAlign, style.YAlign = math.Pi/4, draw.XRight, draw.YCenter
	return max(0, style.Width(names[0])*math.Sqrt2/2-vg.Points(40))
}

func categoryTicks(names []string, every int) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for i := 0; i < len(names); i += every {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: names[i]})
	}
	return ticks
}

// widest is the width of the widest of every so many names.
func widest(style *text.Style, names []string, every int) vg.Length {
	w := vg.Length(0)
	for i := 0; i < len(names); i += every {
		w = max(w, style.Width(names[i]))
	}
	return w
}

// clip cuts s to n characters, the last an ellipsis.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return strings.TrimSpace(string(r[:n-1])) + "…"
	}
	return s
}

// valueRange is the smallest and largest value of all series; with
// zero, it takes in 0, for bars that start there.
func valueRange(series [][]float64, zero bool) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	if zero {
		lo, hi = 0, 0
	}
	for _, values := range series {
		lo, hi = min(lo, slices.Min(values)), max(hi, slices.Max(values))
	}
	return lo, hi
}

// padRange widens [lo, hi] by a twentieth at each end that is not 0, and a
// single value into a range around it, so that nothing is drawn on the
// frame and an axis always has a length.
func padRange(lo, hi float64) (float64, float64) {
	if hi == lo {
		d := math.Max(math.Abs(lo)*0.1, 1)
		return lo - d, hi + d
	}
	pad := hi/20 - lo/20
	if lo != 0 {
		lo -= pad
	}
	if hi != 0 {
		hi += pad
	}
	return lo, hi
}
