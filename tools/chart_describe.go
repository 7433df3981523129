package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
)

// ChartResult is what create_chart tells the model: what the picture
// shows, never the picture.
type ChartResult struct {
	Kind   string          `json:"kind"`
	Title  string          `json:"title,omitempty"`
	Points int             `json:"points"`
	Series []SeriesSummary `json:"series"`
	X      *ValueRange     `json:"x,omitempty"`      // scatter and line charts over numbers
	Bins   []HistogramBin  `json:"bins,omitempty"`   // histogram
	Slices []PieSlice      `json:"slices,omitempty"` // pie
	Unit   string          `json:"unit,omitempty"`
	Image  string          `json:"image"`
	Note   string          `json:"note"`
}

// SeriesSummary describes one series of a chart.
type SeriesSummary struct {
	Name  string  `json:"name"`
	Count int     `json:"count"`
	Min   float64 `json:"min"`
	MinAt string  `json:"min_at,omitempty"` // the label of the point with the smallest value
	Max   float64 `json:"max"`
	MaxAt string  `json:"max_at,omitempty"`
	Sum   float64 `json:"sum"`
	Mean  float64 `json:"mean"`
}

// ValueRange is the smallest and the largest of some numbers.
type ValueRange struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// HistogramBin is one bar of a histogram: how many values fall in
// [From, To) — the last bin includes To.
type HistogramBin struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Count int     `json:"count"`
}

// PieSlice is one slice of a pie chart.
type PieSlice struct {
	Label string  `json:"label"`
	Value float64 `json:"value"`
	Share float64 `json:"share"` // of the whole, 0 to 1, to 4 decimals
}

// chartNote tells the model what becomes of the picture.
const chartNote = "The picture is sent to the person as a photo right after your reply, with the title as its caption. " +
	"Say in a sentence or two what it shows; do not draw it in text or link to it."

func describeChart(ctx context.Context, c *chart) ChartResult {
	r := ChartResult{Kind: c.kind, Title: c.title, Points: len(c.labels), Unit: c.unit,
		Image: fmt.Sprintf("PNG, %d×%d pixels", chartWidth, chartHeight), Note: chartNote}
	for k, values := range c.series {
		r.Series = append(r.Series, c.summarize(ctx, k, values))
	}
	if c.overXs {
		r.X = &ValueRange{Min: slices.Min(c.xs), Max: slices.Max(c.xs)}
	}
	switch c.kind {
	case chartHistogram:
		r.Bins = histogram(c.series[0], c.bins)
	case chartPie:
		r.Slices = pieSlices(c.labels, c.series[0])
	}
	return r
}

func (c *chart) summarize(ctx context.Context, k int, values []float64) SeriesSummary {
	s := SeriesSummary{Name: c.names[k], Count: len(values), Min: math.Inf(1), Max: math.Inf(-1)}
	for i, v := range values {
		if v < s.Min {
			s.Min, s.MinAt = v, c.labels[i]
		}
		if v > s.Max {
			s.Max, s.MaxAt = v, c.labels[i]
		}
		s.Sum += v
	}
	if sum, mean, ok := exactTotal(ctx, c.written[k]); ok {
		s.Sum, s.Mean = sum, mean
		return s
	}
	s.Mean = s.Sum / float64(len(values))
	if math.IsInf(s.Sum, 0) { // values near the largest float64
		s.Mean = 0
		for _, v := range values {
			s.Mean += v / float64(len(values))
		}
	}
	return s
}

// exactTotal is the sum and the mean of numbers as written, computed
// exactly and rounded once, as statistics does; ok is false when they
// cannot be (a number of too many digits, a sum past float64's range).
func exactTotal(ctx context.Context, written []json.Number) (sum, mean float64, ok bool) {
	d, err := readDecimals(ctx, "value", written)
	if err != nil {
		return 0, 0, false
	}
	total, _, err := sumInts(ctx, d.ints)
	if err != nil {
		return 0, 0, false
	}
	sum, ok = exactFloat(scaled(total, big.NewInt(1), d.exp))
	mean, _ = exactFloat(scaled(total, big.NewInt(int64(len(written))), d.exp))
	return sum, mean, ok
}

// histogram counts values in bins equal parts of their range; values all
// the same fall in one bin a unit wide.
func histogram(values []float64, bins int) []HistogramBin {
	lo, hi := slices.Min(values), slices.Max(values)
	width := hi/float64(bins) - lo/float64(bins) // not (hi-lo)/bins, which overflows for values far apart
	if !(width > 0) || math.IsInf(width, 0) {
		return []HistogramBin{{From: lo - 0.5, To: hi + 0.5, Count: len(values)}}
	}
	out := make([]HistogramBin, bins)
	for i := range out {
		out[i].From = lo + float64(i)*width
		out[i].To = lo + float64(i+1)*width
	}
	out[bins-1].To = hi
	for _, v := range values {
		i := min(int((v/width)-(lo/width)), bins-1)
		for i > 0 && v < out[i].From { // rounding put it one bin too far
			i--
		}
		for i < bins-1 && v >= out[i].To {
			i++
		}
		out[i].Count++
	}
	return out
}

func pieSlices(labels []string, values []float64) []PieSlice {
	total := 0.0
	for _, v := range values {
		total += v
	}
	out := make([]PieSlice, len(values))
	for i, v := range values {
		out[i] = PieSlice{Label: labels[i], Value: v, Share: math.Round(v/total*1e4) / 1e4}
	}
	return out
}
