package tools

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plot has no pie chart: pie draws one, as a plotter, with its key beside
// it — each slice's colour, label, value and share.
type pie struct {
	labels []string
	values []float64
	shares []float64 // of the whole, exact
	unit   string
}

func addPie(p *plot.Plot, c *chart) {
	p.HideAxes()
	p.X.Label.Text, p.Y.Label.Text = "", "" // the key says what the values are
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	pc := &pie{labels: c.labels, values: c.series[0], unit: c.unit}
	total := 0.0
	for _, v := range pc.values {
		total += v
	}
	for _, v := range pc.values {
		pc.shares = append(pc.shares, v/total)
	}
	p.Add(pc)
}

// Plot draws the pie in the left part of the canvas, starting at twelve
// o'clock and going clockwise in the order given, and its key at the right.
func (pc *pie) Plot(c draw.Canvas, p *plot.Plot) {
	w, h := c.Max.X-c.Min.X, c.Max.Y-c.Min.Y
	radius := min(w*0.55, h) / 2 * 0.92
	center := vg.Point{X: c.Min.X + w*0.55/2, Y: c.Min.Y + h/2}
	label := text.Style{Color: color.White, Font: font.From(chartFace, 13), XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: p.TextHandler}
	last := 0
	for i, v := range pc.values {
		if v > 0 {
			last = i
		}
	}
	start := math.Pi / 2
	for i, share := range pc.shares {
		if share == 0 {
			continue
		}
		sweep := -2 * math.Pi * share
		if i == last {
			sweep = math.Pi/2 - 2*math.Pi - start // the last slice closes the circle, whatever the rounding
		}
		wedge(c, center, radius, start, sweep, palette[i%len(palette)])
		if share >= 0.04 {
			mid := start + sweep/2
			at := vg.Point{X: center.X + radius*0.68*vg.Length(math.Cos(mid)), Y: center.Y + radius*0.68*vg.Length(math.Sin(mid))}
			c.FillText(label, at, fmt.Sprintf("%.0f%%", share*100))
		}
		start += sweep
	}
	pc.key(c, p, vg.Point{X: c.Min.X + w*0.58, Y: c.Max.Y})
}

// wedge fills one slice, outlined in white so that neighbours stand apart;
// a slice that is the whole pie is a disc, with no seam at its start.
func wedge(c draw.Canvas, center vg.Point, radius vg.Length, start, sweep float64, fill color.Color) {
	var path vg.Path
	rim := vg.Point{X: center.X + radius*vg.Length(math.Cos(start)), Y: center.Y + radius*vg.Length(math.Sin(start))}
	if math.Abs(sweep) < 2*math.Pi-1e-9 {
		path.Move(center)
		path.Line(rim)
	} else {
		path.Move(rim)
	}
	path.Arc(center, radius, start, sweep)
	path.Close()
	c.SetColor(fill)
	c.Fill(path)
	c.SetLineStyle(draw.LineStyle{Color: color.White, Width: vg.Points(2)})
	c.Stroke(path)
}

// key lists the slices from top at the top left corner at: a square of
// the slice's colour, its label, value and share.
func (pc *pie) key(c draw.Canvas, p *plot.Plot, at vg.Point) {
	style := text.Style{Color: inkColor, Font: font.From(chartFace, 13), XAlign: draw.XLeft, YAlign: draw.YCenter, Handler: p.TextHandler}
	step := min(vg.Points(26), (c.Max.Y-c.Min.Y)/vg.Length(len(pc.labels)))
	box := vg.Points(12)
	for i, label := range pc.labels {
		y := at.Y - step*vg.Length(i) - step/2
		c.FillPolygon(palette[i%len(palette)], []vg.Point{
			{X: at.X, Y: y - box/2}, {X: at.X + box, Y: y - box/2}, {X: at.X + box, Y: y + box/2}, {X: at.X, Y: y + box/2}})
		value := shortNumber(pc.values[i])
		if pc.unit != "" {
			value += " " + pc.unit
		}
		from := at.X + box*1.6
		c.FillText(style, vg.Point{X: from, Y: y}, keyEntry(style, c.Max.X-from, label, value, pc.shares[i]))
	}
}

// keyEntry is a slice's line in the key — its label, value and share —
// its label shortened until the line is no wider than room.
func keyEntry(style text.Style, room vg.Length, label, value string, share float64) string {
	entry := func(label string) string { return fmt.Sprintf("%s — %s (%.1f%%)", label, value, share*100) }
	for n := len([]rune(label)); n > 1 && style.Width(entry(label)) > room; n-- {
		label = clip(label, n)
	}
	return entry(label)
}
