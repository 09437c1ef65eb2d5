package frontier

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The figure is 16 cm × 10 cm, the width of a page's text block, so that
// it can go into a paper or a README without scaling the fonts. PNGs are
// rendered at 150 dpi (945 × 591 pixels) rather than gonum's 96, at which
// 9-point legend text is hard to read.
const (
	plotWidth  = 16 * vg.Centimeter
	plotHeight = 10 * vg.Centimeter
	plotDPI    = 150
)

// zeroFloorExp is the decade at which an error of 0 is drawn, unless some
// nonzero error is that small: far below float64's rounding (1e-16), so a
// zero never passes for a small error.
const zeroFloorExp = -20

// rowColors is the Okabe–Ito palette (without its yellow, which does not
// show on white), chosen because it stays distinguishable to readers with
// colour-blindness; rows past the seventh reuse the colours with another
// marker (rowShapes).
var rowColors = []color.Color{
	color.RGBA{0x00, 0x72, 0xb2, 0xff}, // blue
	color.RGBA{0xd5, 0x5e, 0x00, 0xff}, // vermillion
	color.RGBA{0x00, 0x9e, 0x73, 0xff}, // bluish green
	color.RGBA{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	color.RGBA{0xe6, 0x9f, 0x00, 0xff}, // orange
	color.RGBA{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	color.Black,
}

// keyColor draws the legend's key to the marks (limit lines, inf), which
// belong to no row in particular.
var keyColor = color.Gray{0x60}

// Styles of the marks: the measured limit is a dashed line, the predicted
// one a dotted line with a triangle on the floor, an output that was not
// finite a cross at the top, so that each stays readable in greyscale.
var (
	limitDashes     = []vg.Length{vg.Points(6), vg.Points(3)}
	predictedDashes = []vg.Length{vg.Points(1), vg.Points(2.5)}
)

// rowShapes tell apart the rows that share a colour: the first seven rows
// mark their points with discs, the next seven with squares, then rings.
var rowShapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.RingGlyph{}}

func rowShape(i int) draw.GlyphDrawer { return rowShapes[(i/len(rowColors))%len(rowShapes)] }

func pointGlyph(c color.Color, shape draw.GlyphDrawer) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: shape}
}

func infGlyph(c color.Color) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(4), Shape: draw.CrossGlyph{}}
}

// sampledGlyph marks a length checked on sampled inputs only: a ring,
// hollow where the lengths certified or run on every input are filled.
func sampledGlyph(c color.Color) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: draw.RingGlyph{}}
}

// levelName says a row's evidence in the legend.
func levelName(level check.Level) string {
	switch level {
	case check.Certified:
		return "certified"
	case check.Faithful:
		return "faithful to the construction"
	case check.Exhaustive:
		return "all run"
	}
	return "sampled"
}

func predictedGlyph(c color.Color) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(4.5), Shape: draw.PyramidGlyph{}}
}

// WritePlot draws the report's error against n, one line per precision, and
// writes it to path as SVG or PNG by the extension (.svg, .png, in any case;
// anything else is an error naming the extension), atomically
// (atomicfile.Write), so that a failed or interrupted run leaves no file and
// a previous plot at path stays whole.
//
// Both axes are logarithmic: n from 1 to rep.MaxN (further if the report
// holds a larger length, so that nothing is cut off), and the largest
// |output − reference| over the outputs of each checked length, where an
// error of 0 is drawn at a floor decade (1e-20, or lower when a nonzero
// error is that small) named in the axis label, and an output that was not
// finite ("inf") with a cross at the top of the axis, whose tick reads
// "inf". Each row's measured limit, when it has a failure, is a dashed
// vertical line in the row's colour (a row without failure has no limit
// to mark: its Limit is only the last length checked), and a predicted
// limit (Prediction.Limit > 0) a dotted line with a triangle on the floor.
// Rows that cannot run appear in the legend as "cannot run". The report is
// not modified.
//
// It fails, writing nothing, on a MaxError that is not a nonnegative
// decimal or "inf", or a checked length below 1: both mean a malformed
// report, which a plot would misstate.
func WritePlot(rep *Report, path string) error {
	if rep == nil {
		return errors.New("cannot plot a nil report")
	}
	ext := filepath.Ext(path)
	var canvas vg.CanvasWriterTo
	switch strings.ToLower(ext) {
	case ".svg":
		canvas = vgsvg.New(plotWidth, plotHeight)
	case ".png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(plotDPI))}
	case "":
		return fmt.Errorf("cannot plot to %s: no extension (want .svg or .png)", path)
	default:
		return fmt.Errorf("cannot plot to %s: unknown extension %q (want .svg or .png)", path, ext)
	}
	fig, err := newFigure(rep)
	if err != nil {
		return fmt.Errorf("cannot plot to %s: %w", path, err)
	}
	// Render before opening the file, so that a failure leaves nothing
	// behind, not even the temporary file.
	if err := fig.render(draw.New(canvas)); err != nil {
		return fmt.Errorf("cannot plot to %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := canvas.WriteTo(w)
		return err
	})
}

// figure is the plot with its legend, which is drawn beside the data
// rather than on it: failures sit at the top right, where gonum puts its
// legend.
type figure struct {
	title  string
	plot   *plot.Plot
	legend plot.Legend
}

// point is one checked length of a row, with its error: finite (0
// included) or not.
type point struct {
	n   int
	err float64
	inf bool
	// sampled: the length rests on a few inputs (drawn hollow); the
	// others were certified or run on every input.
	sampled bool
}

// rowPoints reads a row's checked lengths: the largest error over the
// outputs of each. A length without outputs (a shard that drew no input)
// has no error and is left out.
func rowPoints(row *Row) ([]point, error) {
	var pts []point
	for _, lr := range row.Checked {
		if lr.N < 1 {
			return nil, fmt.Errorf("%s: checked length %d, want n ≥ 1", row.Precision, lr.N)
		}
		if len(lr.MaxError) == 0 {
			continue
		}
		pt := point{n: lr.N, sampled: lr.Level == check.Sampled}
		for _, s := range lr.MaxError {
			v, err := parseError(s)
			if err != nil {
				return nil, fmt.Errorf("%s at n = %d: %w", row.Precision, lr.N, err)
			}
			if math.IsInf(v, 1) {
				pt.inf = true
			} else if v > pt.err {
				pt.err = v
			}
		}
		pts = append(pts, pt)
	}
	return pts, nil
}

// parseError reads one MaxError entry: "inf", or what %g prints of a
// float64 ("+Inf" when the exact error overflowed it, which is not finite
// either). NaN counts as not finite.
func parseError(s string) (float64, error) {
	if s == "inf" {
		return math.Inf(1), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("max error %q is not a nonnegative decimal or \"inf\"", s)
	}
	if math.IsNaN(v) {
		return math.Inf(1), nil
	}
	return v, nil
}

// errorAxis is the y axis, in decades: errors are drawn at log10(error),
// on a linear axis, because a floor below float64's smallest normal
// (subnormal errors exist) cannot be drawn on gonum's LogScale, which
// would need 10^floor as a float64.
type errorAxis struct {
	// floor is the decade at which 0 is drawn, top the one at which inf
	// is; every label step decades from floor to top-step is a number.
	floor, top, step int
}

// newErrorAxis fits the axis to the errors: the floor at zeroFloorExp or
// a decade below the smallest nonzero error, the highest number at 1 or
// above the largest finite error, and at most 8 numbers, at multiples of
// a round step, with inf one step above the highest: labels any closer
// would overlap on a 10 cm figure with 20 decades.
func newErrorAxis(pts [][]point) errorAxis {
	lo, hi := zeroFloorExp, 0
	for _, row := range pts {
		for _, p := range row {
			if p.inf || p.err == 0 {
				continue
			}
			e := math.Log10(p.err)
			lo = min(lo, int(math.Floor(e))-1)
			hi = max(hi, int(math.Ceil(e)))
		}
	}
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 50, 100, 200} {
		step = s
		if ceilDiv(hi, s)-floorDiv(lo, s) <= 7 {
			break
		}
	}
	floor, top := floorDiv(lo, step)*step, ceilDiv(hi, step)*step
	return errorAxis{floor: floor, top: top + step, step: step}
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func ceilDiv(a, b int) int { return -floorDiv(-a, b) }

// y is where an error is drawn.
func (ax errorAxis) y(p point) float64 {
	switch {
	case p.inf:
		return float64(ax.top)
	case p.err == 0:
		return float64(ax.floor)
	}
	return math.Log10(p.err)
}

// Ticks labels every step-th decade and inf, with minor ticks at every
// fifth of a step (every decade up to steps of 5), and at 2 … 9 within
// each decade when there are few: a minor tick at each of 600 decades
// would draw a solid bar.
func (ax errorAxis) Ticks(_, _ float64) []plot.Tick {
	var ticks []plot.Tick
	hi := ax.top - ax.step
	for k := ax.floor; k <= hi; k += max(ax.step/5, 1) {
		t := plot.Tick{Value: float64(k)}
		if (k-ax.floor)%ax.step == 0 {
			t.Label = decade(k)
		}
		ticks = append(ticks, t)
		if ax.step == 1 && hi-ax.floor <= 6 && k < hi {
			for m := 2; m <= 9; m++ {
				ticks = append(ticks, plot.Tick{Value: float64(k) + math.Log10(float64(m))})
			}
		}
	}
	return append(ticks, plot.Tick{Value: float64(ax.top), Label: "inf"})
}

// decade names 10^k as a reader expects it on an error axis: 0.001 … 1000
// in full, 1e-20 beyond (the default font has no superscript minus).
func decade(k int) string {
	if k >= -3 && k <= 3 {
		return strconv.FormatFloat(math.Pow10(k), 'f', -1, 64)
	}
	return fmt.Sprintf("1e%d", k)
}

// lengthTicks is gonum's log ticker, with labels at 2 and 5 times each
// power of ten when the axis spans less than two decades, and at every
// integer below one decade: a short sweep (MaxN = 8) would otherwise show
// a single label, 1.
type lengthTicks struct{}

func (lengthTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	span := math.Log10(hi / lo)
	for i, t := range ticks {
		if t.Label != "" || span >= 2 {
			continue
		}
		lead := t.Value / math.Pow10(int(math.Floor(math.Log10(t.Value)+1e-9)))
		// LogTicks lists each labelled power of ten a second time,
		// unlabelled; it must stay so.
		if math.Abs(lead-1) < 1e-9 {
			continue
		}
		if span < 1 || math.Abs(lead-2) < 1e-9 || math.Abs(lead-5) < 1e-9 {
			ticks[i].Label = strconv.FormatFloat(t.Value, 'g', -1, 64)
		}
	}
	return ticks
}

// newFigure builds the plot of a report: the data, the marks of the
// limits, the axes and the legend.
func newFigure(rep *Report) (*figure, error) {
	all := make([][]point, len(rep.Rows))
	xmax := max(rep.MaxN, 2)
	for i := range rep.Rows {
		row := &rep.Rows[i]
		if row.Error != "" {
			continue
		}
		pts, err := rowPoints(row)
		if err != nil {
			return nil, err
		}
		all[i] = pts
		for _, p := range pts {
			xmax = max(xmax, p.n)
		}
		if row.Failure != nil {
			xmax = max(xmax, row.Limit)
		}
		if row.Prediction != nil {
			xmax = max(xmax, row.Prediction.Limit)
		}
	}
	ax := newErrorAxis(all)

	title := rep.Recipe
	if rep.Section != "" {
		title += " (§" + rep.Section + ")"
	}
	title += ", " + rep.Weighting + ": max |error| against n"
	if rep.Shard != "" {
		title += " (shard " + rep.Shard + ")"
	}

	p := plot.New()
	p.X.Label.Text = "n (length)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = lengthTicks{}
	p.Y.Label.Text = "max |error| (0 drawn at " + decade(ax.floor) + ")"
	p.Y.Tick.Marker = ax
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(10)
	}

	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font = font.From(plot.DefaultFont, 9)
	leg.ThumbnailWidth = vg.Points(18)
	leg.Padding = vg.Points(2)

	vline := func(n int, c color.Color, dashes []vg.Length) *plotter.Line {
		return &plotter.Line{
			XYs:       plotter.XYs{{X: float64(n), Y: float64(ax.floor)}, {X: float64(n), Y: float64(ax.top)}},
			LineStyle: draw.LineStyle{Color: c, Width: vg.Points(1), Dashes: dashes},
		}
	}
	var limits, predictions bool
	for i := range rep.Rows {
		row := &rep.Rows[i]
		if row.Error != "" {
			leg.Add(row.Precision + ": cannot run")
			continue
		}
		c := rowColors[i%len(rowColors)]
		pts := all[i]
		xys := make(plotter.XYs, len(pts))
		for k, pt := range pts {
			xys[k] = plotter.XY{X: float64(pt.n), Y: ax.y(pt)}
		}
		line := &plotter.Line{XYs: xys, LineStyle: draw.LineStyle{Color: c, Width: vg.Points(1.25)}}
		shape := rowShape(i)
		marks := &plotter.Scatter{XYs: xys, GlyphStyle: pointGlyph(c, shape)}
		marks.GlyphStyleFunc = func(k int) draw.GlyphStyle {
			switch {
			case pts[k].inf:
				return infGlyph(c)
			case pts[k].sampled:
				return sampledGlyph(c)
			}
			return pointGlyph(c, shape)
		}
		p.Add(line, marks)

		text := row.Precision + ": "
		if row.Failure != nil {
			text += "limit " + strconv.Itoa(row.Limit) + " (" + levelName(row.LimitLevel) + ")"
			if row.Limit >= 1 {
				p.Add(vline(row.Limit, c, limitDashes))
				limits = true
			}
		} else {
			text += "no failure (" + levelName(row.LimitLevel) + ")"
		}
		if pr := row.Prediction; pr != nil && pr.Limit > 0 {
			text += ", predicted " + strconv.Itoa(pr.Limit)
			p.Add(vline(pr.Limit, c, predictedDashes), &plotter.Scatter{
				XYs:        plotter.XYs{{X: float64(pr.Limit), Y: float64(ax.floor)}},
				GlyphStyle: predictedGlyph(c),
			})
			predictions = true
		}
		leg.Add(text, line, marks)
	}
	// The key explains only the marks the plot has.
	if limits {
		leg.Add("measured limit", &plotter.Line{LineStyle: draw.LineStyle{Color: keyColor, Width: vg.Points(1), Dashes: limitDashes}})
	}
	if predictions {
		leg.Add("predicted limit",
			&plotter.Line{LineStyle: draw.LineStyle{Color: keyColor, Width: vg.Points(1), Dashes: predictedDashes}},
			&plotter.Scatter{GlyphStyle: predictedGlyph(keyColor)})
	}
	for _, pts := range all {
		if hasInf(pts) {
			leg.Add("not finite (inf)", &plotter.Scatter{GlyphStyle: infGlyph(keyColor)})
			break
		}
	}
	for _, pts := range all {
		if slices.ContainsFunc(pts, func(pt point) bool { return pt.sampled }) {
			leg.Add("hollow: sampled inputs only", &plotter.Scatter{GlyphStyle: sampledGlyph(keyColor)})
			break
		}
	}

	// Add widened the axes to the data; the ranges are fixed here instead,
	// so that every plot of a sweep spans 1 … MaxN and floor … inf.
	p.X.Min, p.X.Max = 1, float64(xmax)
	p.Y.Min, p.Y.Max = float64(ax.floor), float64(ax.top)
	return &figure{title: title, plot: p, legend: leg}, nil
}

func hasInf(pts []point) bool {
	for _, p := range pts {
		if p.inf {
			return true
		}
	}
	return false
}

// render draws the figure: the title across the whole width, shrunk
// until it fits, the legend in a column at the right, and the plot in the
// rest. gonum reports some failures by panicking; they come back as
// errors, so that a sweep that took hours still writes its JSON.
func (f *figure) render(c draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering: %v", r)
		}
	}()
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())

	const margin = vg.Length(4)
	sty := f.plot.Title.TextStyle
	for sty.Font.Size > vg.Points(7) && sty.Width(f.title) > c.Size().X-2*margin {
		sty.Font.Size -= vg.Points(0.5)
	}
	c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y - margin}, f.title)
	c = draw.Crop(c, margin, -margin, margin, -(margin + sty.Rectangle(f.title).Size().Y + vg.Points(4)))

	// The legend takes what it needs, up to 45% of the width; longer
	// entries are cut off at the edge rather than squeezing the data.
	legWidth := min(f.legend.Rectangle(c).Size().X+vg.Points(8), c.Size().X*0.45)
	f.legend.Draw(draw.Crop(c, c.Size().X-legWidth+vg.Points(8), 0, 0, 0))
	f.plot.Draw(draw.Crop(c, 0, -legWidth, 0, 0))
	return nil
}
