package positionwise

import (
	"fmt"
	"math"
	"math/big"

	"github.com/transformer-cookbook/verify/numeric"
)

// The enumeration runs a domain of up to 2^17 points. Through the
// engine's runner each point costs some 26 µs, most of it formatting the
// output's text (a profile of every fp16 value of zero-ffn: 60% in
// numeric.Emulated.Format); the analysis's own evaluator of the program,
// in float64 with the format's rounding after every operation, costs a
// few hundred nanoseconds. It is the engine's fast path for the IEEE
// formats (model's matVecMachine: each product rounded, then each sum,
// left to right over every column, then the bias; ReLU as max(0, x); the
// residual sum; the readout), written again here: the tests hold it to
// the engine's runner bit for bit on every fp8 input of the recipes'
// models, and every point it finds failing is run again by the engine
// (Problem.Check) before it is reported. A float32 operation is the
// float64 one rounded to float32 (53 ≥ 2·24 + 2: the double rounding of
// a sum or product is innocuous), and float64's needs no rounding.

// fastRound is the rounding after each operation of p's fast path (nil:
// p has none: big floats run through the engine).
func fastRound(p numeric.Precision) func(float64) float64 {
	switch p.Kind {
	case numeric.KindEmulated:
		return p.Format.Round
	case numeric.KindFloat32:
		return func(x float64) float64 { return float64(float32(x)) }
	case numeric.KindFloat64:
		return func(x float64) float64 { return x }
	}
	return nil
}

// evalFast is the program on one position's stream h (overwritten).
func evalFast(p *program, h []float64, round func(float64) float64) []float64 {
	for _, L := range p.layers {
		hidden := matVecFast(L.w1, h, L.b1, round)
		if L.relu {
			for k, z := range hidden {
				hidden[k] = math.Max(0, z)
			}
		}
		f := matVecFast(L.w2, hidden, L.b2, round)
		if L.residual {
			for c := range f {
				f[c] = round(f[c] + h[c])
			}
		}
		h = f
	}
	return matVecFast(p.out, h, nil, round)
}

func matVecFast(w matrix, x []float64, b []weight, round func(float64) float64) []float64 {
	out := make([]float64, w.rows)
	for r := range out {
		row := w.w[r*w.cols : (r+1)*w.cols]
		acc := round(row[0].stored * x[0])
		for c := 1; c < w.cols; c++ {
			acc = round(acc + round(row[c].stored*x[c]))
		}
		if b != nil {
			acc = round(acc + b[r].stored)
		}
		out[r] = acc
	}
	return out
}

// enumerateFast runs every point of the grid's box with evalFast and
// compares each output with the reference's exact value; a point that
// differs is run by the engine, which decides.
func (s *search) enumerateFast(round func(float64) float64) error {
	for _, b := range s.initialBoxes() {
		if err := s.enumerateFastBox(round, b[0], b[1]); err != nil {
			return err
		}
	}
	return nil
}

func (s *search) enumerateFastBox(round func(float64) float64, lo, hi []int64) error {
	d := len(s.pr.Names)
	cur := append([]int64(nil), lo...)
	h := make([]float64, s.prog.d)
	var batch [][]*big.Rat
	var outs [][]float64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		want, ok := s.pr.Reference(batch)
		if !ok {
			return errNoReference
		}
		for i, x := range batch {
			if same(outs[i], want[i]) {
				continue
			}
			if err := s.runPoints([][]*big.Rat{x}); err != nil {
				return err
			}
			return fmt.Errorf("the fast evaluator computes %v at (%s), which the engine's run finds right: the two disagree (a bug)", outs[i], ratsText(x))
		}
		s.res.Points += int64(len(batch))
		batch, outs = batch[:0], outs[:0]
		return nil
	}
	for {
		x := make([]*big.Rat, d)
		for c := range h {
			h[c] = 0
		}
		for k, o := range cur {
			v := s.g.value(o)
			h[s.pr.Inputs[k]] = v
			x[k] = rat(v)
		}
		if s.pr.Valid == nil || s.pr.Valid(x) == nil {
			batch = append(batch, x)
			outs = append(outs, evalFast(s.prog, h, round))
			if len(batch) == 4096 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		k := d - 1
		for k >= 0 && cur[k] == hi[k] {
			cur[k] = lo[k]
			k--
		}
		if k < 0 {
			return flush()
		}
		cur[k]++
	}
}

// same reports whether the format's outputs are the exact values.
func same(got []float64, want []*big.Rat) bool {
	if len(got) != len(want) {
		return false
	}
	for k, w := range want {
		f, exact := w.Float64()
		if !exact || f != got[k] {
			return false
		}
	}
	return true
}

// screen runs the points with evalFast against the reference: the index
// of the first that differs (−1: none), and ok false where the reference
// is not exact values. A point that differs and that the engine finds
// right is a disagreement of the two, an error.
func (s *search) screen(points [][]*big.Rat) (int, bool, error) {
	want, ok := s.pr.Reference(points)
	if !ok {
		return -1, false, nil
	}
	h := make([]float64, s.prog.d)
	for i, x := range points {
		for c := range h {
			h[c] = 0
		}
		for k, v := range x {
			f, _ := v.Float64() // a value of the grid: exact
			h[s.pr.Inputs[k]] = f
		}
		if out := evalFast(s.prog, h, s.fast); !same(out, want[i]) {
			if bad, _, err := s.pr.Check([][]*big.Rat{x}); err != nil || bad < 0 {
				if err == nil {
					err = fmt.Errorf("the fast evaluator computes %v at (%s), which the engine's run finds right: the two disagree (a bug)", out, ratsText(x))
				}
				return -1, true, err
			}
			return i, true, nil
		}
	}
	return -1, true, nil
}
