package frontier

import (
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/check"
)

// plotReport is a small frontier by hand: fp16 fails at n = 4 with a
// prediction of 3 and goes to inf at 8, certified up to its limit; bf16
// never fails, on sampled inputs; and a third precision cannot run.
func plotReport() *Report {
	lr := func(n int, errs ...string) check.LengthReport {
		level := check.Sampled
		if n <= 3 {
			level = check.Certified
		}
		return check.LengthReport{N: n, Cases: 2, Passed: 2, Exact: 2, MaxError: errs, Level: level}
	}
	return &Report{
		Recipe:    "lookup",
		Section:   "Quadratic Maximization",
		Weighting: "AHAT",
		MaxN:      8,
		Rows: []Row{
			{
				Precision:  "fp16",
				Checked:    []check.LengthReport{lr(1, "0", "0"), lr(2, "0", "0"), lr(3, "0", "1e-3"), lr(4, "0.5", "0"), lr(8, "inf", "0.25")},
				Limit:      3,
				LimitLevel: check.Certified,
				Failure:    &Failure{Failure: check.Failure{N: 4}},
				Prediction: &Prediction{Gap: "1", Magnitude: "n^2", Limit: 3, Why: "by hand"},
			},
			{
				Precision:  "bf16",
				Checked:    []check.LengthReport{lr(1, "0", "0"), lr(2, "0", "0"), lr(4, "0", "0"), lr(8, "0", "0")},
				Limit:      8,
				LimitLevel: check.Sampled,
			},
			{Precision: "fp8e4m3", Error: "the weights overflow"},
		},
	}
}

// svgText parses an SVG as XML and returns all of its text, so that the
// checks see what a reader sees, escapes resolved.
func svgText(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	var text strings.Builder
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not XML: %v", path, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
		case xml.CharData:
			text.Write(tok)
			text.WriteByte('\n')
		}
	}
	if root != "svg" {
		t.Fatalf("root element of %s is %q, want svg", path, root)
	}
	return text.String()
}

// dirEntries lists a directory, to see that nothing, not even a
// temporary file, was left in it.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestPlotSVG(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "frontier.svg")
	if err := WritePlot(plotReport(), path); err != nil {
		t.Fatal(err)
	}
	text := svgText(t, path)
	for _, want := range []string{
		"lookup (§Quadratic Maximization), AHAT: max |error| against n",
		"fp16: limit 3 (certified), predicted 3",
		"bf16: no failure (sampled)",
		"hollow: sampled inputs only",
		"fp8e4m3: cannot run",
		"max |error| (0 drawn at 1e-20)",
		"\ninf\n", // the top tick
		"measured limit",
		"predicted limit",
		"not finite (inf)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the SVG's text lacks %q; it is:\n%s", want, text)
		}
	}
	if got := dirEntries(t, dir); len(got) != 1 {
		t.Errorf("directory holds %v, want only frontier.svg", got)
	}
}

// TestPlotNothingToDraw checks that a report without a single point
// (every precision failed to run, MaxN unset) still makes a plot.
func TestPlotNothingToDraw(t *testing.T) {
	rep := &Report{Recipe: "lookup", Weighting: "SMAT", Rows: []Row{{Precision: "fp8e4m3", Error: "the weights overflow"}}}
	path := filepath.Join(t.TempDir(), "frontier.svg")
	if err := WritePlot(rep, path); err != nil {
		t.Fatal(err)
	}
	if text := svgText(t, path); !strings.Contains(text, "fp8e4m3: cannot run") {
		t.Errorf("the SVG's text lacks the row that cannot run; it is:\n%s", text)
	}
}

func TestPlotPNG(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "frontier.PNG")
	if err := WritePlot(plotReport(), path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", path, err)
	}
	// 16 cm × 10 cm at 150 dpi.
	if b := img.Bounds(); b.Dx() != 945 || b.Dy() != 591 {
		t.Errorf("PNG is %d × %d pixels, want 945 × 591", b.Dx(), b.Dy())
	}
}

// TestPlotBadExtension checks that a format other than SVG and PNG is
// refused before anything is written, with the extension in the error.
func TestPlotBadExtension(t *testing.T) {
	for _, name := range []string{"frontier.pdf", "frontier.txt", "frontier"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			err := WritePlot(plotReport(), filepath.Join(dir, name))
			if err == nil {
				t.Fatal("no error")
			}
			if ext := filepath.Ext(name); ext != "" && !strings.Contains(err.Error(), ext) {
				t.Errorf("error %q does not name %s", err, ext)
			}
			if got := dirEntries(t, dir); len(got) != 0 {
				t.Errorf("directory holds %v, want nothing", got)
			}
		})
	}
}

func TestPlotUnwritable(t *testing.T) {
	dir := t.TempDir()
	if err := WritePlot(plotReport(), filepath.Join(dir, "missing", "frontier.svg")); err == nil {
		t.Fatal("writing into a directory that does not exist: no error")
	}
	if got := dirEntries(t, dir); len(got) != 0 {
		t.Errorf("directory holds %v, want nothing", got)
	}
}

// TestPlotMalformed checks that an error that is neither a decimal nor
// "inf" fails the plot and leaves no file, rather than being drawn as 0.
func TestPlotMalformed(t *testing.T) {
	for _, bad := range []string{"", "x", "-0.5"} {
		rep := plotReport()
		rep.Rows[1].Checked[2].MaxError[1] = bad
		dir := t.TempDir()
		err := WritePlot(rep, filepath.Join(dir, "frontier.svg"))
		if err == nil || !strings.Contains(err.Error(), "bf16 at n = 4") {
			t.Errorf("MaxError %q: error %v, want one naming bf16 at n = 4", bad, err)
		}
		if got := dirEntries(t, dir); len(got) != 0 {
			t.Errorf("MaxError %q: directory holds %v, want nothing", bad, got)
		}
	}
	if err := WritePlot(nil, filepath.Join(t.TempDir(), "frontier.svg")); err == nil {
		t.Error("nil report: no error")
	}
}

// TestPlotErrorAxis checks where errors are drawn: 0 at the floor, a
// decade below the smallest nonzero error when that is below 1e-20, inf
// one label step above the largest finite error, and the labels.
func TestPlotErrorAxis(t *testing.T) {
	tests := []struct {
		errs              []point
		floor, top, step  int
		zeroY, infY, oneY float64
	}{
		// Errors 0, 0.5 and inf: 1e-20 … 1 in steps of 5 decades.
		{[]point{{err: 0}, {err: 0.5}, {inf: true}}, -20, 5, 5, -20, 5, 0},
		// An error of 3e-25 moves the floor below it, to a step multiple.
		{[]point{{err: 0}, {err: 3e-25}, {inf: true}}, -30, 5, 5, -30, 5, 0},
		// A subnormal error: the floor goes below float64's range.
		{[]point{{err: 5e-324}}, -350, 50, 50, -350, 50, 0},
		// Large finite errors raise the top.
		{[]point{{err: 0}, {err: 3e4}, {inf: true}}, -20, 10, 5, -20, 10, 0},
	}
	for _, tc := range tests {
		ax := newErrorAxis([][]point{tc.errs})
		if ax.floor != tc.floor || ax.top != tc.top || ax.step != tc.step {
			t.Errorf("%v: axis %+v, want floor %d, top %d, step %d", tc.errs, ax, tc.floor, tc.top, tc.step)
			continue
		}
		if y := ax.y(point{}); y != tc.zeroY {
			t.Errorf("%v: 0 drawn at %g, want %g", tc.errs, y, tc.zeroY)
		}
		if y := ax.y(point{inf: true}); y != tc.infY {
			t.Errorf("%v: inf drawn at %g, want %g", tc.errs, y, tc.infY)
		}
		if y := ax.y(point{err: 1}); y != tc.oneY {
			t.Errorf("%v: 1 drawn at %g, want %g", tc.errs, y, tc.oneY)
		}
		ticks, labels := ax.Ticks(0, 0), 0
		for _, tk := range ticks {
			if tk.Label != "" {
				labels++
			}
		}
		if labels > 9 || len(ticks) > 80 {
			t.Errorf("%v: %d ticks, %d labelled, want at most 80 and 9", tc.errs, len(ticks), labels)
		}
	}
	for k, want := range map[int]string{-20: "1e-20", -3: "0.001", 0: "1", 3: "1000", 5: "1e5"} {
		if got := decade(k); got != want {
			t.Errorf("decade(%d) = %q, want %q", k, got, want)
		}
	}
}
