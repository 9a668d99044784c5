package bench

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WriteLatencyChart draws scenario 1's latency against concurrency (frontend and slowest
// provider called directly, p50 and p99) as a PNG.
func WriteLatencyChart(path string, curve []CurvePoint) error {
	if len(curve) == 0 {
		return fmt.Errorf("no latency points to draw")
	}
	p := plot.New()
	p.Title.Text = "Dry quote latency vs concurrency (providers at 50 ms)"
	p.X.Label.Text = "concurrency"
	p.Y.Label.Text = "latency (ms)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = concurrencyTicks(curve)
	p.Y.Min = 0
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())

	series := []struct {
		name  string
		value func(CurvePoint) float64
		col   color.RGBA
		dash  bool
	}{
		{"frontend p50", func(c CurvePoint) float64 { return c.FrontendP50 }, color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, false},
		{"frontend p99", func(c CurvePoint) float64 { return c.FrontendP99 }, color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, true},
		{"slowest provider direct p50", func(c CurvePoint) float64 { return c.DirectP50 }, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, false},
		{"slowest provider direct p99", func(c CurvePoint) float64 { return c.DirectP99 }, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, true},
	}
	for _, s := range series {
		pts := make(plotter.XYs, len(curve))
		for i, c := range curve {
			pts[i].X, pts[i].Y = float64(c.Concurrency), s.value(c)
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		line.Color, points.Color = s.col, s.col
		line.Width = vg.Points(1.5)
		points.Shape = draw.CircleGlyph{}
		if s.dash {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			points.Shape = draw.TriangleGlyph{}
		}
		p.Add(line, points)
		p.Legend.Add(s.name, line, points)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}

type concurrencyTicks []CurvePoint

func (c concurrencyTicks) Ticks(_, _ float64) []plot.Tick {
	var out []plot.Tick
	for _, p := range c {
		out = append(out, plot.Tick{Value: float64(p.Concurrency), Label: fmt.Sprint(p.Concurrency)})
	}
	return out
}
