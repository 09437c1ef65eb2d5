package positionwise

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// built is a recipe's model with the components of its input.
type built struct {
	name   string
	m      *model.Model
	inputs []int
	names  []string
}

func build(t testing.TB, name string, params map[string]string) built {
	t.Helper()
	r, err := recipes.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Construct(r.DefaultWeighting(), 4, params)
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]int{}
	for k, n := range c.Model.Components {
		at[n] = k
	}
	b := built{name: name, m: c.Model, names: c.Vector.Names}
	for _, n := range c.Vector.Names {
		b.inputs = append(b.inputs, at[n])
	}
	return b
}

// runners are the model at p and in exact arithmetic: the engine's own
// runs, which the analysis is held to.
func runners(t testing.TB, m *model.Model, p numeric.Precision) (eval.Runner, eval.Runner) {
	t.Helper()
	run, err := eval.New(p, m)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := eval.New(numeric.Precision{Kind: numeric.KindExact}, m)
	if err != nil {
		t.Fatal(err)
	}
	return run, ex
}

// streams places points on the residual stream, one position each.
func streams(b built, points [][]*big.Rat) [][]*big.Rat {
	h := make([][]*big.Rat, len(points))
	for i, x := range points {
		h[i] = make([]*big.Rat, b.m.D)
		for c := range h[i] {
			h[i][c] = new(big.Rat)
		}
		for k, c := range b.inputs {
			h[i][c] = x[k]
		}
	}
	return h
}

// unfaithful returns the first point where the run's output is not the
// exact run's (nil: none), with its text.
func unfaithful(t testing.TB, b built, run, ex eval.Runner, points [][]*big.Rat) ([]*big.Rat, string) {
	t.Helper()
	h := streams(b, points)
	got, err := run.RunStream(h, false)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ex.RunStream(h, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range points {
		for k, v := range got.Outputs[i].Values {
			w, _ := want.Outputs[i].Values[k].Rat()
			if !v.Equals(w) {
				return points[i], fmt.Sprintf("output %d: %s, exactly %s", k+1, v.Text, w.RatString())
			}
		}
	}
	return nil, ""
}

// problem is the analysis of b at p, with a check that passes every
// point (so that the search covers the whole domain) and keep recording
// the proved boxes.
func problem(t testing.TB, b built, p numeric.Precision, run eval.Runner, keep func(lo, hi []int64)) Problem {
	return Problem{
		Model: b.m, Precision: p, Inputs: b.inputs, Names: b.names, Domain: "test",
		Round: func(x *big.Rat) (*big.Rat, error) {
			r, ok := run.Round(x).Rat()
			if !ok {
				return nil, fmt.Errorf("no finite value")
			}
			return r, nil
		},
		Check:        func([][]*big.Rat) (int, string, error) { return -1, "", nil },
		MaxEnumerate: 1, MaxBoxes: 1 << 20, Seed: 1, keep: keep,
	}
}

// agreement runs the box analysis of b at p over the whole domain and
// checks every point of every proved box against the engine: the run at
// p equals the exact run there. It returns the boxes proved, the points
// they hold, and the first point that contradicts a proof (nil: none).
func agreement(t testing.TB, b built, p numeric.Precision) (proved int, points int64, bad []*big.Rat, why string) {
	return agreementOn(t, b, p, -1)
}

// agreementOn is agreement over the integer inputs of magnitude at most
// 2^w (AnalyseIntegers), or over the whole domain for w < 0.
func agreementOn(t testing.TB, b built, p numeric.Precision, w int) (proved int, points int64, bad []*big.Rat, why string) {
	t.Helper()
	run, ex := runners(t, b.m, p)
	g, err := gridOf(p)
	if err != nil {
		t.Fatal(err)
	}
	if w >= 0 {
		if g, err = g.onIntegers(w); err != nil {
			t.Fatal(err)
		}
	}
	var boxes [][2][]int64
	pr := problem(t, b, p, run, func(lo, hi []int64) {
		boxes = append(boxes, [2][]int64{append([]int64(nil), lo...), append([]int64(nil), hi...)})
	})
	res, err := analyseOn(pr, g)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict == Undecided {
		t.Fatalf("%s at %s: %s", b.name, p, res.Statement())
	}
	for _, bx := range boxes {
		var pts [][]*big.Rat
		eachPoint(bx[0], bx[1], func(o []int64) {
			if len(o) > 1 && o[0]%5 != 0 && !testenv.LongEnabled() {
				return // a fifth of the pairs; the long tier runs every one
			}
			x := make([]*big.Rat, len(o))
			for k := range o {
				x[k] = g.pointValue(o[k])
			}
			pts = append(pts, x)
		})
		points += int64(len(pts))
		if len(pts) == 0 {
			continue // a box of pairs none of whose first components is sampled
		}
		if x, w := unfaithful(t, b, run, ex, pts); x != nil {
			return len(boxes), points, x, w
		}
	}
	return len(boxes), points, nil, ""
}

// eachPoint calls f with every point of the box lo … hi.
func eachPoint(lo, hi []int64, f func([]int64)) {
	cur := append([]int64(nil), lo...)
	for {
		f(cur)
		k := len(cur) - 1
		for k >= 0 && cur[k] == hi[k] {
			cur[k] = lo[k]
			k--
		}
		if k < 0 {
			return
		}
		cur[k]++
	}
}

// checkAgainst is a Problem.Check that fails a point where the run at
// the precision differs from the exact run (the construction's value,
// which for add and the identity is the reference).
func checkAgainst(t testing.TB, b built, run, ex eval.Runner) func([][]*big.Rat) (int, string, error) {
	return func(points [][]*big.Rat) (int, string, error) {
		for i := range points {
			if x, why := unfaithful(t, b, run, ex, points[i:i+1]); x != nil {
				return i, why, nil
			}
		}
		return -1, "", nil
	}
}
