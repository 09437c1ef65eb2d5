package ffn

import (
	"fmt"
	"math/big"
	"math/rand/v2"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ---------------------------------------------------------------------
// §Canceling Residual Connections

// regionPieces are the linear regions of f on ℝ^d as pieces, each with
// the map f computes there minus shift·x: the reference "f(x) − x" for
// f′ when shift is 1.
func regionPieces(f *stream.FF, shift int64) ([]cpwl.Piece, error) {
	g, err := proofs.FFNOf(f)
	if err != nil {
		return nil, err
	}
	d := g.In()
	regions, err := proofs.Regions(g, proofs.Space(d), nil)
	if err != nil {
		return nil, err
	}
	var ps []cpwl.Piece
	for _, r := range regions {
		h := g.Hidden()
		p := &exact.Polyhedron{Dim: d, A: exact.NewMatrix(h, d), B: exact.NewVector(h)}
		for i := 0; i < h; i++ {
			sign := int64(1) // inactive: w·x + b ≤ 0
			if r.Pattern[i] {
				sign = -1 // active: −(w·x + b) ≤ 0
			}
			for k := 0; k < d; k++ {
				p.A.Set(i, k, new(big.Rat).Mul(big.NewRat(sign, 1), g.W1.At(i, k)))
			}
			b := new(big.Rat)
			if g.B1 != nil {
				b.Set(g.B1[i])
			}
			p.B[i] = b.Mul(b, big.NewRat(-sign, 1))
		}
		m := exact.Affine{A: exact.NewMatrix(r.Map.A.Rows, r.Map.A.Cols), C: r.Map.C.Clone()}
		for i := 0; i < m.A.Rows; i++ {
			for k := 0; k < m.A.Cols; k++ {
				v := new(big.Rat).Set(r.Map.A.At(i, k))
				if i == k {
					v.Sub(v, big.NewRat(shift, 1))
				}
				m.A.Set(i, k, v)
			}
		}
		ps = append(ps, proofs.Piece(p, m))
	}
	return ps, nil
}

// randomSquareFF is a seeded ReLU block from ℝ^d to itself with h hidden
// units and small rational weights (a generic f to cancel the residual
// of).
func randomSquareFF(names []string, h int, seed uint64) *stream.FF {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	d := len(names)
	small := func() numeric.Expr { return numeric.Frac(int64(rng.IntN(9)-4), int64(1+rng.IntN(3))) }
	f := &stream.FF{Name: fmt.Sprintf("random(seed %d)", seed), In: names, Out: names,
		W1: model.Zeros(h, d), B1: make(model.Vector, h), W2: model.Zeros(d, h), B2: make(model.Vector, d)}
	for i := 0; i < h; i++ {
		for k := 0; k < d; k++ {
			f.W1.Set(i, k, small())
			f.W2.Set(k, i, small())
		}
		f.B1[i] = small()
	}
	for k := 0; k < d; k++ {
		f.B2[k] = small()
	}
	return f
}

// cancelCases are the f's whose residual is cancelled: the sort of the
// cancel-residual recipe, (x, y) ↦ (min, max); clip_{1/2} on ℝ²; and two
// seeded random blocks, on ℝ² (3 units) and ℝ³ (2 units).
func cancelCases() []*stream.FF {
	xy := []string{"x", "y"}
	sort := &stream.FF{Name: "sort", In: xy, Out: xy,
		W1: model.Ints([]int64{1, 0}, []int64{-1, 0}, []int64{1, -1}, []int64{1, 0}, []int64{-1, 0}, []int64{-1, 1}),
		W2: model.Ints([]int64{1, -1, -1, 0, 0, 0}, []int64{0, 0, 0, 1, -1, 1})}
	return []*stream.FF{sort, blocks.ClipVector(xy, xy, proofs.Q("1/2")),
		randomSquareFF(xy, 3, 1), randomSquareFF([]string{"x", "y", "z"}, 2, 2)}
}

// checkCancel proves cancel(f)(x) = f(x) − x on ℝ^d for every f, i.e.
// f′(x) + x = f(x): the reference is f's own linear regions (enumerated
// exactly) with f's map minus the identity.
func checkCancel(cancel func(*stream.FF) (*stream.FF, error), fs []*stream.FF) (*proofs.Evidence, error) {
	var cases []proofs.FFNCase
	for _, f := range fs {
		g, err := cancel(f)
		if err != nil {
			return nil, err
		}
		ps, err := regionPieces(f, 1)
		if err != nil {
			return nil, err
		}
		cases = append(cases, proofs.FFNCase{Label: fmt.Sprintf("f = %s on ℝ^%d", f.Name, len(f.In)), F: g, Domain: proofs.Space(len(f.In)), Pieces: ps})
	}
	return proofs.ProveCases(cases)
}

var residualClaims = []*proofs.Claim{
	claim("ffn.cancel-residual.exact", secCancel, "sec:ffnn_cancel_residual",
		"f′ with W1′ = [f.W1; I; −I], b1′ = [f.b1; 0; 0], W2′ = [f.W2, −I, I], b2′ = f.b2 gives f′(x) + x = f(x)",
		"x ∈ ℝ^d for four f: sort (min, max) on ℝ², clip_{1/2} on ℝ², seeded random ReLU blocks on ℝ² (3 units) and ℝ³ (2 units); f′ is checked against f − x on f's own linear regions", proofs.Holds,
		func() (*proofs.Evidence, error) { return checkCancel(blocks.CancelResidual, cancelCases()) }),
}
