package ffn

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// everyWidth proves a claim about a printed family of blocks f_d on
// ℝ^d, every d ≥ 1, from its proof at d = 1, for a family that acts
// coordinatewise (the identity [I^d; −I^d], [I^d, −I^d]; the zero FFN):
// if every hidden unit that an output k reads (a nonzero entry of W2's
// row k) reads x_k alone, and output k's units (their weight on x_k, b1
// and W2 entries) and b2_k are f_1's, up to the order of the units, then
// f_d(x)_k = f_1(x_k) for every x ∈ ℝ^d, and a claim proved for f_1 on
// ℝ holds coordinatewise on ℝ^d. The printed formulas have this form for
// every d; the engine's blocks are checked to at each d of samples.
func everyWidth(build func(d int) *stream.FF, samples []int, atOne func() (*proofs.Evidence, error)) func() (*proofs.Evidence, error) {
	return func() (*proofs.Evidence, error) {
		ev, err := atOne()
		if err != nil || ev.Verdict != proofs.Proved {
			return ev, err
		}
		one, err := proofs.FFNOf(build(1))
		if err != nil {
			return nil, err
		}
		want := coordinateUnits(one, 0)
		var ds []string
		for _, d := range samples {
			f, err := proofs.FFNOf(build(d))
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
				if got := coordinateUnits(f, k); !slices.Equal(got, want) {
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

// coordinateUnits lists, sorted, the units output k of f reads, each
// as "w1·x_k + b1 → w2", and its bias b2_k: what f(x)_k is made of.
func coordinateUnits(f *cpwl.FFN, k int) []string {
	var units []string
	for h := 0; h < f.Hidden(); h++ {
		if w2 := f.W2.At(k, h); w2.Sign() != 0 {
			units = append(units, fmt.Sprintf("%s·x + %s → %s", f.W1.At(h, k).RatString(), b(f.B1, h), w2.RatString()))
		}
	}
	slices.Sort(units)
	return append(units, "b2 = "+b(f.B2, k))
}

func b(b exact.Vector, i int) string {
	if b == nil {
		return "0"
	}
	return b[i].RatString()
}

// everyConstant proves c·x for every constant c from the identity's
// proof: postmultiplied, the block's W2 and b2 are c times the identity's
// (so f_c = c·id); premultiplied, its W1 is c times the identity's and b1
// = 0 (so f_c(x) = id(cx)). Either is c·x on ℝ for every c once id is;
// the engine's blocks are checked to have that form at each sample c.
func everyConstant(post, pre func(c *big.Rat) *stream.FF, samples []string, identity *stream.FF) func() (*proofs.Evidence, error) {
	return func() (*proofs.Evidence, error) {
		ev, err := proofs.ProveCases([]proofs.FFNCase{{F: identity, Domain: proofs.Space(1), Pieces: []cpwl.Piece{proofs.Piece(proofs.Space(1), proofs.Line("1", "0"))}}})
		if err != nil || ev.Verdict != proofs.Proved {
			return ev, err
		}
		id, err := proofs.FFNOf(identity)
		if err != nil {
			return nil, err
		}
		for _, s := range samples {
			c := proofs.Q(s)
			p, err := proofs.FFNOf(post(c))
			if err != nil {
				return nil, err
			}
			r, err := proofs.FFNOf(pre(c))
			if err != nil {
				return nil, err
			}
			one := big.NewRat(1, 1)
			for _, why := range []string{
				proofs.ScalesAs(p.W1, id.W1, one, "post W1"), proofs.VectorScalesAs(orZeros(p.B1, p.Hidden()), orZeros(id.B1, id.Hidden()), one, "post b1"),
				proofs.ScalesAs(p.W2, id.W2, c, "post W2"), proofs.VectorScalesAs(orZeros(p.B2, p.Out()), orZeros(id.B2, id.Out()), c, "post b2"),
				proofs.ScalesAs(r.W1, id.W1, c, "pre W1"), proofs.VectorScalesAs(orZeros(r.B1, r.Hidden()), orZeros(id.B1, id.Hidden()), new(big.Rat), "pre b1"),
				proofs.ScalesAs(r.W2, id.W2, one, "pre W2"), proofs.VectorScalesAs(orZeros(r.B2, r.Out()), orZeros(id.B2, id.Out()), one, "pre b2"),
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
