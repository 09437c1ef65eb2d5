package proofs

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ffEveryEps proves a claim about a printed family of blocks f_ε, ε > 0,
// for every ε at once, from a region proof at ε = 1. The family's weights
// scale with ε as the paper prints them: W1 fixed, b1 = ε·b1(1), W2 =
// ε^(k−1)·W2(1), b2 = ε^k·b2(1) (k = 0 for the comparisons, whose outputs
// are 0 and 1; k = 1 for clip_δ, whose output is a length). ReLU is
// positively homogeneous, ReLU(εt) = ε·ReLU(t) for ε > 0, so
//
//	f_ε(x) = ε^(k−1)·W2(1)·ReLU(ε(W1 x/ε + b1(1))) + ε^k b2(1) = ε^k f_1(x/ε),
//
// and the claimed pieces (breakpoints at multiples of ε, values ε^k times
// those at ε = 1, as printed) scale the same way: f_ε matches them at x
// exactly when f_1 matches them at x/ε. atOne proves the claim at ε = 1
// on all of ℝ; the engine's blocks are checked to follow the printed
// scaling at every ε of samples (the blocks are code, the family is
// the paper's formula).
func ffEveryEps(build func(eps *big.Rat) *stream.FF, k int, samples []string, atOne func() (*Evidence, error)) func() (*Evidence, error) {
	return func() (*Evidence, error) {
		ev, err := atOne()
		if err != nil || ev.Verdict != Proved {
			return ev, err
		}
		one, err := ffnOf(build(big.NewRat(1, 1)))
		if err != nil {
			return nil, err
		}
		for _, s := range samples {
			eps := q(s)
			f, err := ffnOf(build(eps))
			if err != nil {
				return nil, err
			}
			pow := func(p int) *big.Rat { // ε^p for p ∈ {−1, 0, 1}
				switch p {
				case -1:
					return new(big.Rat).Inv(eps)
				case 0:
					return big.NewRat(1, 1)
				}
				return eps
			}
			if why := ffScalesAs(f.W1, one.W1, pow(0), "W1"); why != "" {
				return nil, fmt.Errorf("ε = %s: %s", s, why)
			}
			for _, c := range []struct {
				got, at1 exact.Vector
				by       *big.Rat
				name     string
			}{{f.B1, one.B1, eps, "b1"}, {f.B2, one.B2, pow(k), "b2"}} {
				if why := ffVectorScalesAs(c.got, c.at1, c.by, c.name); why != "" {
					return nil, fmt.Errorf("ε = %s: %s", s, why)
				}
			}
			if why := ffScalesAs(f.W2, one.W2, pow(k-1), "W2"); why != "" {
				return nil, fmt.Errorf("ε = %s: %s", s, why)
			}
		}
		scale := map[int]string{0: "f_ε(x) = f_1(x/ε)", 1: "f_ε(x) = ε·f_1(x/ε)"}[k]
		w2 := map[int]string{0: "W2 ∝ 1/ε", 1: "W2 fixed, b2 ∝ ε"}[k]
		ev.Summary = fmt.Sprintf("for every ε > 0: %s by ReLU's positive homogeneity (the printed b1 ∝ ε, %s; the engine's blocks follow that scaling at ε = %s), and the claimed pieces scale the same way, so the proof at ε = 1 covers every ε: %s",
			scale, w2, strings.Join(samples, ", "), ev.Summary)
		return ev, nil
	}
}

// ffScalesAs says why m ≠ c·at1, or "".
func ffScalesAs(m, at1 exact.Matrix, c *big.Rat, name string) string {
	if m.Rows != at1.Rows || m.Cols != at1.Cols {
		return fmt.Sprintf("%s is %d×%d, at ε = 1 %d×%d", name, m.Rows, m.Cols, at1.Rows, at1.Cols)
	}
	for i := range m.Data {
		if want := new(big.Rat).Mul(c, at1.Data[i]); m.Data[i].Cmp(want) != 0 {
			return fmt.Sprintf("%s has %s where the printed scaling gives %s", name, m.Data[i].RatString(), want.RatString())
		}
	}
	return ""
}

// ffVectorScalesAs says why v ≠ c·at1, or "".
func ffVectorScalesAs(v, at1 exact.Vector, c *big.Rat, name string) string {
	if len(v) != len(at1) {
		return fmt.Sprintf("%s has %d entries, at ε = 1 %d", name, len(v), len(at1))
	}
	for i := range v {
		if want := new(big.Rat).Mul(c, at1[i]); v[i].Cmp(want) != 0 {
			return fmt.Sprintf("%s has %s where the printed scaling gives %s", name, v[i].RatString(), want.RatString())
		}
	}
	return ""
}

// ffEveryWidth proves a claim about a printed family of blocks f_d on
// ℝ^d, every d ≥ 1, from its proof at d = 1, for a family that acts
// coordinatewise (the identity [I^d; −I^d], [I^d, −I^d]; the zero FFN):
// if every hidden unit that an output k reads (a nonzero entry of W2's
// row k) reads x_k alone, and output k's units (their weight on x_k, b1
// and W2 entries) and b2_k are f_1's, up to the order of the units, then
// f_d(x)_k = f_1(x_k) for every x ∈ ℝ^d, and a claim proved for f_1 on
// ℝ holds coordinatewise on ℝ^d. The printed formulas have this form for
// every d; the engine's blocks are checked to at each d of samples.
func ffEveryWidth(build func(d int) *stream.FF, samples []int, atOne func() (*Evidence, error)) func() (*Evidence, error) {
	return func() (*Evidence, error) {
		ev, err := atOne()
		if err != nil || ev.Verdict != Proved {
			return ev, err
		}
		one, err := ffnOf(build(1))
		if err != nil {
			return nil, err
		}
		want := ffCoordinateUnits(one, 0)
		var ds []string
		for _, d := range samples {
			f, err := ffnOf(build(d))
			if err != nil {
				return nil, err
			}
			if f.In() != d || f.Out() != d {
				return nil, fmt.Errorf("d = %d: the block maps ℝ^%d to ℝ^%d", d, f.In(), f.Out())
			}
			for k := 0; k < d; k++ {
				for h := 0; h < f.Hidden(); h++ {
					if f.W2.At(k, h).Sign() == 0 {
						continue
					}
					for j := 0; j < d; j++ {
						if j != k && f.W1.At(h, j).Sign() != 0 {
							return nil, fmt.Errorf("d = %d: output %d reads hidden unit %d, which reads x_%d: not coordinatewise", d, k+1, h+1, j+1)
						}
					}
				}
				if got := ffCoordinateUnits(f, k); !slices.Equal(got, want) {
					return nil, fmt.Errorf("d = %d: output %d is computed by units %v plus b2, f_1 by %v", d, k+1, got, want)
				}
			}
			ds = append(ds, fmt.Sprint(d))
		}
		ev.Summary = fmt.Sprintf("for every d ≥ 1: f_d(x)_k = f_1(x_k), since each output reads only units that read its own coordinate, as at d = 1 (the printed weights have that form for every d; the engine's blocks at d = %s), so the proof at d = 1 holds coordinatewise: %s",
			strings.Join(ds, ", "), ev.Summary)
		return ev, nil
	}
}

// ffCoordinateUnits lists, sorted, the units output k of f reads, each
// as "w1·x_k + b1 → w2", and its bias b2_k: what f(x)_k is made of.
func ffCoordinateUnits(f *cpwl.FFN, k int) []string {
	var units []string
	for h := 0; h < f.Hidden(); h++ {
		if w2 := f.W2.At(k, h); w2.Sign() != 0 {
			units = append(units, fmt.Sprintf("%s·x + %s → %s", f.W1.At(h, k).RatString(), ffB(f.B1, h), w2.RatString()))
		}
	}
	slices.Sort(units)
	return append(units, "b2 = "+ffB(f.B2, k))
}

func ffB(b exact.Vector, i int) string {
	if b == nil {
		return "0"
	}
	return b[i].RatString()
}

// ffEveryConstant proves c·x for every constant c from the identity's
// proof: postmultiplied, the block's W2 and b2 are c times the identity's
// (so f_c = c·id); premultiplied, its W1 is c times the identity's and b1
// = 0 (so f_c(x) = id(cx)). Either is c·x on ℝ for every c once id is;
// the engine's blocks are checked to have that form at each sample c.
func ffEveryConstant(post, pre func(c *big.Rat) *stream.FF, samples []string, identity *stream.FF) func() (*Evidence, error) {
	return func() (*Evidence, error) {
		ev, err := ffProveCases([]ffnCase{{f: identity, domain: space(1), pieces: []cpwl.Piece{piece(space(1), ffLine("1", "0"))}}})
		if err != nil || ev.Verdict != Proved {
			return ev, err
		}
		id, err := ffnOf(identity)
		if err != nil {
			return nil, err
		}
		for _, s := range samples {
			c := q(s)
			p, err := ffnOf(post(c))
			if err != nil {
				return nil, err
			}
			r, err := ffnOf(pre(c))
			if err != nil {
				return nil, err
			}
			one := big.NewRat(1, 1)
			for _, why := range []string{
				ffScalesAs(p.W1, id.W1, one, "post W1"), ffVectorScalesAs(orZeros(p.B1, p.Hidden()), orZeros(id.B1, id.Hidden()), one, "post b1"),
				ffScalesAs(p.W2, id.W2, c, "post W2"), ffVectorScalesAs(orZeros(p.B2, p.Out()), orZeros(id.B2, id.Out()), c, "post b2"),
				ffScalesAs(r.W1, id.W1, c, "pre W1"), ffVectorScalesAs(orZeros(r.B1, r.Hidden()), orZeros(id.B1, id.Hidden()), new(big.Rat), "pre b1"),
				ffScalesAs(r.W2, id.W2, one, "pre W2"), ffVectorScalesAs(orZeros(r.B2, r.Out()), orZeros(id.B2, id.Out()), one, "pre b2"),
			} {
				if why != "" {
					return nil, fmt.Errorf("c = %s: %s", s, why)
				}
			}
		}
		ev.Summary = fmt.Sprintf("for every c: postmultiplied, W2 and b2 are c times the identity's, so f = c·id; premultiplied, W1 is c times the identity's with b1 = 0, so f(x) = id(cx) (the engine's blocks at c = %s); and id(x) = x on ℝ: %s",
			strings.Join(samples, ", "), ev.Summary)
		return ev, nil
	}
}

func orZeros(v exact.Vector, n int) exact.Vector {
	if v != nil {
		return v
	}
	out := make(exact.Vector, n)
	for i := range out {
		out[i] = new(big.Rat)
	}
	return out
}
