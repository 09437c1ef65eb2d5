package proofs

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
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
