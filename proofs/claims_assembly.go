package proofs

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §Assembly (sec:assembly): the Routing Lemma (thm:routing)
// for feed-forward networks and self-attention, Serial Composition
// (thm:serial_comp) and Parallel Composition (thm:parallel_composition),
// with the typos of their proofs as printed. Everything is exact.
//
// §Residual stream states no checkable fact (it says constructions
// "resemble" straight-line programs; the assembler's write-once rule is
// this engine's design, not the paper's claim), so it has no claim.

// ---------------------------------------------------------------------
// Exact matrices.

// asmExact converts a matrix of exact parameters to rationals.
func asmExact(m model.Matrix) (exact.Matrix, error) {
	out := exact.NewMatrix(m.Rows, m.Cols)
	for i := 0; i < m.Rows; i++ {
		for j := 0; j < m.Cols; j++ {
			r, ok, err := m.At(i, j).Rat()
			if err != nil || !ok {
				return exact.Matrix{}, fmt.Errorf("entry (%d, %d) = %v is not rational", i+1, j+1, m.At(i, j))
			}
			out.Set(i, j, r)
		}
	}
	return out, nil
}

// asmExactVector converts a vector (nil: zeros of length n).
func asmExactVector(v model.Vector, n int) (exact.Vector, error) {
	out := exact.NewVector(n)
	for i := range v {
		r, ok, err := v[i].Rat()
		if err != nil || !ok {
			return nil, fmt.Errorf("entry %d = %v is not rational", i+1, v[i])
		}
		out[i] = r
	}
	return out, nil
}

// asmModel converts a rational matrix to exact parameters.
func asmModel(m exact.Matrix) model.Matrix {
	out := model.Zeros(m.Rows, m.Cols)
	for i := 0; i < m.Rows; i++ {
		for j := 0; j < m.Cols; j++ {
			if m.At(i, j).Sign() != 0 {
				out.Set(i, j, numeric.Lit(m.At(i, j)))
			}
		}
	}
	return out
}

func asmModelVector(v exact.Vector) model.Vector {
	out := make(model.Vector, len(v))
	for i, x := range v {
		out[i] = numeric.Lit(x)
	}
	return out
}

// asmInts is an integer matrix (rows as printed).
func asmInts(rows ...[]int64) exact.Matrix {
	m, err := exact.IntMatrix(rows...)
	if err != nil {
		panic(err)
	}
	return m
}

// asmIdentity is the n×n identity.
func asmIdentity(n int) exact.Matrix {
	m := exact.NewMatrix(n, n)
	for i := 0; i < n; i++ {
		m.Set(i, i, big.NewRat(1, 1))
	}
	return m
}

// asmRandom is a rows×cols matrix of rationals p/q, p ∈ [−3, 3],
// q ∈ [1, 3], drawn from rng.
func asmRandom(rng *rand.Rand, rows, cols int) exact.Matrix {
	m := exact.NewMatrix(rows, cols)
	for i := range m.Data {
		m.Data[i] = big.NewRat(int64(rng.IntN(7)-3), int64(1+rng.IntN(3)))
	}
	return m
}

func asmRandomVector(rng *rand.Rand, n int) exact.Vector {
	return asmRandom(rng, n, 1).Data
}

func asmMul(a, b exact.Matrix) exact.Matrix {
	m, err := a.Mul(b)
	if err != nil {
		panic(err)
	}
	return m
}

func asmNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i+1)
	}
	return out
}

// asmMatrixText prints a small rational matrix as [[a, b], [c, d]].
func asmMatrixText(m exact.Matrix) string {
	var rows []string
	for i := 0; i < m.Rows; i++ {
		var xs []string
		for j := 0; j < m.Cols; j++ {
			xs = append(xs, m.At(i, j).RatString())
		}
		rows = append(rows, "["+strings.Join(xs, ", ")+"]")
	}
	return "[" + strings.Join(rows, ", ") + "]"
}

// ---------------------------------------------------------------------
// Routing Lemma, feed-forward part.

// asmRouteCase is an FFN f: ℝ^m → ℝ^k (a block over its own inputs and
// outputs) with linear maps R: ℝ^d → ℝ^m and L: ℝ^k → ℝ^p. The lemma
// takes d = m = k = p; the constructions use it with any shapes (to
// reorder, duplicate or zero out components), as the paper says.
type asmRouteCase struct {
	name string
	f    *stream.FF
	L, R exact.Matrix
}

// asmRoute is the FFN of the lemma's proof, ff′ = L∘ff∘R with
// W1′ = W1 R, b1′ = b1, W2′ = L W2, b2′ = L b2; printed takes
// W2′ = L W1 instead, as the proof prints it.
type asmRoute func(f *stream.FF, L, R exact.Matrix) (*stream.FF, error)

func asmRouteLemma(printed bool) asmRoute {
	return func(f *stream.FF, L, R exact.Matrix) (*stream.FF, error) {
		w1, err := asmExact(f.W1)
		if err != nil {
			return nil, err
		}
		w2, err := asmExact(f.W2)
		if err != nil {
			return nil, err
		}
		b2, err := asmExactVector(f.B2, w2.Rows)
		if err != nil {
			return nil, err
		}
		second := w2
		if printed {
			second = w1 // ff′.W2 = L (ff.W1), as printed
		}
		w1r, err := w1.Mul(R)
		if err != nil {
			return nil, fmt.Errorf("W1 R: %v", err)
		}
		lw, err := L.Mul(second)
		if err != nil {
			return nil, fmt.Errorf("L W: %v", err)
		}
		lb, err := L.MulVec(b2)
		if err != nil {
			return nil, err
		}
		return &stream.FF{Name: f.Name + "′", In: asmNames("x", R.Cols), Out: asmNames("y", L.Rows),
			W1: asmModel(w1r), B1: f.B1, W2: asmModel(lw), B2: asmModelVector(lb)}, nil
	}
}

// asmComposedPieces is L∘ff∘R as a CPWL function, built from ff's own
// linear regions (not from the lemma's formula): on the region of
// activation pattern s, ff is x ↦ M_s x + c_s (cpwl.FFN.RegionMap), so
// L∘ff∘R is x ↦ L M_s R x + L c_s on {x : R x in that region}, whose rows
// are the sign conditions of the hidden units at R x. These pieces cover
// ℝ^d because ff's regions cover ℝ^m.
func asmComposedPieces(f *stream.FF, L, R exact.Matrix) ([]cpwl.Piece, error) {
	g, err := ffnOf(f)
	if err != nil {
		return nil, err
	}
	regions, err := cpwl.Regions(g, space(g.In()), nil)
	if err != nil {
		return nil, err
	}
	w1r, err := g.W1.Mul(R)
	if err != nil {
		return nil, err
	}
	b1 := g.B1
	if b1 == nil {
		b1 = exact.NewVector(g.Hidden())
	}
	lMap := exact.Affine{A: L, C: exact.NewVector(L.Rows)}
	rMap := exact.Affine{A: R, C: exact.NewVector(R.Rows)}
	var pieces []cpwl.Piece
	for _, reg := range regions {
		p := &exact.Polyhedron{Dim: R.Cols, A: exact.NewMatrix(g.Hidden(), R.Cols), B: exact.NewVector(g.Hidden())}
		for h := 0; h < g.Hidden(); h++ {
			// active: (W1 R x + b1)_h ≥ 0, i.e. −(W1 R)_h x ≤ b1_h;
			// inactive: (W1 R)_h x ≤ −b1_h.
			sign := int64(1)
			if reg.Pattern[h] {
				sign = -1
			}
			for c := 0; c < R.Cols; c++ {
				p.A.Set(h, c, new(big.Rat).Mul(big.NewRat(sign, 1), w1r.At(h, c)))
			}
			p.B[h] = new(big.Rat).Mul(big.NewRat(-sign, 1), b1[h])
		}
		m, err := lMap.Compose(reg.Map)
		if err != nil {
			return nil, err
		}
		if m, err = m.Compose(rMap); err != nil {
			return nil, err
		}
		pieces = append(pieces, piece(p, m))
	}
	return pieces, nil
}

// asmCheckRouting proves or refutes route(f, L, R) = L∘ff∘R on all of ℝ^d
// for every case.
func asmCheckRouting(cases []asmRouteCase, route asmRoute) (*Evidence, error) {
	var parts []string
	var last *Evidence
	for _, c := range cases {
		g, err := route(c.f, c.L, c.R)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", c.name, err)
		}
		pieces, err := asmComposedPieces(c.f, c.L, c.R)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", c.name, err)
		}
		ev, err := proveFFN(g, space(c.R.Cols), pieces)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", c.name, err)
		}
		if ev.Verdict != Proved {
			ev.Summary = c.name + ": " + ev.Summary
			ev.Explain = append([]string{fmt.Sprintf("case %s: L = %s, R = %s", c.name, asmMatrixText(c.L), asmMatrixText(c.R))}, ev.Explain...)
			return ev, nil
		}
		parts = append(parts, fmt.Sprintf("%s (ℝ^%d → ℝ^%d, %d hidden units; %d pieces of L∘ff∘R): %s", c.name, c.R.Cols, c.L.Rows, c.f.W1.Rows, len(pieces), ev.Summary))
		last = ev
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("ff′ = L∘ff∘R on all of ℝ^d for each of %d cases (random rational L, R, seed 2032; singular and non-square ones included), decided exactly against L∘ff∘R built from ff's own linear regions", len(cases)),
		Explain: append(parts, last.Explain...)}, nil
}

// asmRouteCases are the cases of the lemma's FFN part: a random FFN on
// ℝ³ with random L, R; the same with L and R that duplicate, reorder and
// zero out components (singular); the Min FFN of §Min and Max read
// through a 2×3 R and duplicated by a 2×1 L (the shapes of routing); a
// random FFN on ℝ².
func asmRouteCases() []asmRouteCase {
	rng := rand.New(rand.NewPCG(2032, 1))
	random := func(name string, d, h int) *stream.FF {
		return &stream.FF{Name: name, In: asmNames("u", d), Out: asmNames("v", d),
			W1: asmModel(asmRandom(rng, h, d)), B1: asmModelVector(asmRandomVector(rng, h)),
			W2: asmModel(asmRandom(rng, d, h)), B2: asmModelVector(asmRandomVector(rng, d))}
	}
	f3 := random("random ff on ℝ³", 3, 4)
	l3, r3 := asmRandom(rng, 3, 3), asmRandom(rng, 3, 3)
	f2 := random("random ff on ℝ²", 2, 3)
	l2, r2 := asmRandom(rng, 2, 2), asmRandom(rng, 2, 2)
	rMin := asmRandom(rng, 2, 3)
	return []asmRouteCase{
		{"random ff on ℝ³, random L, R", f3, l3, r3},
		{"random ff on ℝ³, L and R duplicating, reordering, zeroing", f3,
			asmInts([]int64{1, 0, 0}, []int64{1, 0, 0}, []int64{0, 0, 0}),
			asmInts([]int64{0, 1, 0}, []int64{0, 1, 0}, []int64{1, 0, 0})},
		{"min (§Min and Max), R 2×3, L 2×1", blocks.Min("x", "y", "min"), asmInts([]int64{1}, []int64{-2}), rMin},
		{"random ff on ℝ², random L, R", f2, l2, r2},
	}
}

// asmRoutingTypo is the counterexample to the printed ff′.W2 = L (ff.W1)
// (recipes/stream's TestRoutingLemmaAsPrinted): W1 = [[1, 2], [0, 1]],
// W2 = [[1, 0], [1, 1]], L = R = I, x = (1, 1).
func asmRoutingTypo() asmRouteCase {
	return asmRouteCase{name: "W1 = [[1, 2], [0, 1]], W2 = [[1, 0], [1, 1]], L = R = I",
		f: &stream.FF{Name: "ff", In: []string{"x1", "x2"}, Out: []string{"y1", "y2"},
			W1: model.Ints([]int64{1, 2}, []int64{0, 1}), W2: model.Ints([]int64{1, 0}, []int64{1, 1})},
		L: asmIdentity(2), R: asmIdentity(2)}
}

// asmCheckRoutingAt compares route(f, L, R) with L∘ff∘R at the point x
// exactly (both evaluated as FFNs), and decides the whole domain too.
func asmCheckRoutingAt(c asmRouteCase, route asmRoute, x exact.Vector) (*Evidence, error) {
	g, err := route(c.f, c.L, c.R)
	if err != nil {
		return nil, err
	}
	gf, err := ffnOf(g)
	if err != nil {
		return nil, err
	}
	ff, err := ffnOf(c.f)
	if err != nil {
		return nil, err
	}
	got, err := gf.Eval(x)
	if err != nil {
		return nil, err
	}
	rx, err := c.R.MulVec(x)
	if err != nil {
		return nil, err
	}
	fx, err := ff.Eval(rx)
	if err != nil {
		return nil, err
	}
	want, err := c.L.MulVec(fx)
	if err != nil {
		return nil, err
	}
	pieces, err := asmComposedPieces(c.f, c.L, c.R)
	if err != nil {
		return nil, err
	}
	whole, err := proveFFN(g, space(c.R.Cols), pieces)
	if err != nil {
		return nil, err
	}
	at := fmt.Sprintf("%s, x = %s: the printed ff′ gives %s, L∘ff∘R gives %s", c.name, x, got, want)
	if !got.Equal(want) {
		return &Evidence{Verdict: Refuted, Summary: at, Explain: append([]string{"exact evaluation: " + at, "on all of ℝ^d: " + whole.Summary}, whole.Explain...)}, nil
	}
	if whole.Verdict != Proved {
		return whole, nil
	}
	return &Evidence{Verdict: Proved, Summary: at + "; equal on all of ℝ^d: " + whole.Summary}, nil
}

// ---------------------------------------------------------------------
// Routing Lemma, self-attention part.

// asmAttnCase is a head (W^Q, W^K: d_key×d, W^V: d×d) with L, R: ℝ^d → ℝ^d.
type asmAttnCase struct {
	name    string
	Q, K, V exact.Matrix
	L, R    exact.Matrix
	lo, hi  int64 // the inputs: every sequence over the grid {lo, …, hi}^d
}

// asmRouteHead builds sa′'s projections from sa's, L and R.
type asmRouteHead func(c asmAttnCase) model.Head

// asmRouteHeadLemma is the proof's sa′ = L∘sa∘R: W^Q′ = W^Q R,
// W^K′ = W^K R, W^V′ = L W^V R.
func asmRouteHeadLemma(c asmAttnCase) model.Head {
	return model.Head{Q: asmModel(asmMul(c.Q, c.R)), K: asmModel(asmMul(c.K, c.R)), V: asmModel(asmMul(asmMul(c.L, c.V), c.R))}
}

// asmAttnModel is one self-attention sublayer without its residual
// connection, read out through out (k×d): it computes out∘sa.
func asmAttnModel(d int, h model.Head, mask model.Mask, w model.Weighting, out model.Matrix) *model.Model {
	return &model.Model{Name: "sa", D: d, Alphabet: []string{"·"}, WordEmbedding: []model.Vector{nil},
		Layers: []model.Layer{{Attention: &model.Attention{Heads: []model.Head{h}, Mask: mask, Weighting: w, Scale: model.NoScale},
			NoAttentionResidual: true}},
		Output: model.Output{Kind: model.Readout, W: out, Labels: asmNames("y", out.Rows)}}
}

// asmSequences lists every sequence of 1 … maxLen vectors from set.
func asmSequences(set []exact.Vector, maxLen int) [][]exact.Vector {
	var out [][]exact.Vector
	var rec func(prefix []exact.Vector)
	rec = func(prefix []exact.Vector) {
		if len(prefix) > 0 {
			out = append(out, slices.Clone(prefix))
		}
		if len(prefix) == maxLen {
			return
		}
		for _, v := range set {
			rec(append(prefix, v))
		}
	}
	rec(nil)
	return out
}

// asmGrid is {lo, …, hi}^d.
func asmGrid(d int, lo, hi int64) []exact.Vector {
	out := []exact.Vector{{}}
	for k := 0; k < d; k++ {
		var next []exact.Vector
		for _, v := range out {
			for x := lo; x <= hi; x++ {
				next = append(next, append(v.Clone(), big.NewRat(x, 1)))
			}
		}
		out = next
	}
	return out
}

func asmRows(vs []exact.Vector) [][]*big.Rat {
	out := make([][]*big.Rat, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

var asmAttnWeightings = []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax}
var asmAttnMasks = []model.Mask{model.NoMask, model.Future}

// asmCheckAttnRouting compares sa′ = route(c) with L∘sa∘R on every
// sequence of length ≤ maxLen over the grid {−1, 0, 1}^d, under every
// hard weighting and mask listed, exactly.
func asmCheckAttnRouting(cases []asmAttnCase, route asmRouteHead, maxLen int) (*Evidence, error) {
	total := 0
	for _, c := range cases {
		d := c.L.Rows
		seqs := asmSequences(asmGrid(d, c.lo, c.hi), maxLen)
		for _, w := range asmAttnWeightings {
			for _, mask := range asmAttnMasks {
				routed, err := model.New(numeric.MustParsePrecision("exact"), asmAttnModel(d, route(c), mask, w, asmModel(asmIdentity(d))))
				if err != nil {
					return nil, err
				}
				orig, err := model.New(numeric.MustParsePrecision("exact"), asmAttnModel(d,
					model.Head{Q: asmModel(c.Q), K: asmModel(c.K), V: asmModel(c.V)}, mask, w, asmModel(c.L)))
				if err != nil {
					return nil, err
				}
				for _, seq := range seqs {
					rx := make([]exact.Vector, len(seq))
					for i, x := range seq {
						if rx[i], err = c.R.MulVec(x); err != nil {
							return nil, err
						}
					}
					a, err := routed.RunStream(asmRows(seq), false)
					if err != nil {
						return nil, err
					}
					b, err := orig.RunStream(asmRows(rx), false)
					if err != nil {
						return nil, err
					}
					total++
					for i := range a.Outputs {
						for k := range a.Outputs[i].Values {
							want, ok := b.Outputs[i].Values[k].Rat()
							if !ok || !a.Outputs[i].Values[k].Equals(want) {
								s := fmt.Sprintf("%s, %s, mask %s, input %v: position %d, component %d: sa′ gives %s, L∘sa∘R gives %s",
									c.name, recipes.WeightingAcronym(w), mask, seq, i+1, k+1, a.Outputs[i].Values[k].Text, b.Outputs[i].Values[k].Text)
								return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s,
									"L = " + asmMatrixText(c.L), "R = " + asmMatrixText(c.R), "W^V = " + asmMatrixText(c.V)}}, nil
							}
						}
					}
				}
			}
		}
	}
	var grids []string
	for _, c := range cases {
		grids = append(grids, strings.ReplaceAll(fmt.Sprintf("%s over {%d … %d}²", c.name, c.lo, c.hi), "-", "−"))
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("sa′ = L∘sa∘R at every position of every sequence of length ≤ %d (%d comparisons; %s; random rational W^Q, W^K, W^V, L, R, seed 2036; leftmost and rightmost UHAT, AHAT; unmasked and future-masked), exact", maxLen, total, strings.Join(grids, "; "))}, nil
}

func asmAttnCases() []asmAttnCase {
	rng := rand.New(rand.NewPCG(2036, 1))
	c1 := asmAttnCase{name: "d = 2, d_key = 1", Q: asmRandom(rng, 1, 2), K: asmRandom(rng, 1, 2), V: asmRandom(rng, 2, 2), L: asmRandom(rng, 2, 2), R: asmRandom(rng, 2, 2), lo: -1, hi: 1}
	c2 := asmAttnCase{name: "d = 2, d_key = 2, R singular", Q: asmRandom(rng, 2, 2), K: asmRandom(rng, 2, 2), V: asmRandom(rng, 2, 2), L: asmRandom(rng, 2, 2),
		R: asmInts([]int64{1, 0}, []int64{1, 0}), lo: 0, hi: 1}
	return []asmAttnCase{c1, c2}
}

// ---------------------------------------------------------------------
// Serial and parallel composition, on Dyck-1 (§A Transformer
// Construction for Dyck-1) built from blocks.

// asmDyckAlphabet is the alphabet {(, )}.
var asmDyckAlphabet = []string{"(", ")"}

// asmStrings lists every string over alphabet of length 1 … n.
func asmStrings(alphabet []string, n int) [][]int {
	var out [][]int
	var rec func(prefix []int)
	rec = func(prefix []int) {
		if len(prefix) > 0 {
			out = append(out, slices.Clone(prefix))
		}
		if len(prefix) == n {
			return
		}
		for s := range alphabet {
			rec(append(prefix, s))
		}
	}
	rec(nil)
	return out
}

func asmText(alphabet []string, in []int) string {
	var b strings.Builder
	for _, s := range in {
		b.WriteString(alphabet[s])
	}
	return b.String()
}

// asmLayer1 is the first layer of Dyck-1: o = ±1, Avg← writes B/i, the
// FFN E = ReLU(−B/i).
func asmLayer1() *stream.Program {
	return stream.New("layer1", "o").
		Symbols(asmDyckAlphabet, func(s int) stream.Values { return stream.Values{"o": numeric.LitInt(int64(1 - 2*s))} }).
		Then(blocks.Avg([]string{"o"}, []string{"B/i"}, model.Future, model.AverageHardmax), blocks.NegPart("B/i", "E"))
}

// asmSerialInputs are the components layer 2 reads.
var asmSerialInputs = []string{"o", "B/i", "E"}

// asmLayer2 is the second: Avg← of E writes t, and GTZero_{1/64}(t) g.
func asmLayer2(p *stream.Program) *stream.Program {
	return p.Then(blocks.Avg([]string{"E"}, []string{"t"}, model.Future, model.AverageHardmax),
		blocks.GTZeroEps("t", "g", big.NewRat(1, 64), new(big.Rat)))
}

// asmOutputs runs r on in and returns every output value.
func asmOutputs(r model.Runner, in []int) ([][]*big.Rat, error) {
	res, err := r.Run(in, false)
	if err != nil {
		return nil, err
	}
	return asmValues(res)
}

func asmValues(res *model.Result) ([][]*big.Rat, error) {
	out := make([][]*big.Rat, len(res.Outputs))
	for i, o := range res.Outputs {
		for _, v := range o.Values {
			r, ok := v.Rat()
			if !ok {
				return nil, fmt.Errorf("position %d: output %s is not a number", i+1, v.Text)
			}
			out[i] = append(out[i], r)
		}
	}
	return out, nil
}

func asmSame(a, b [][]*big.Rat) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for k := range a[i] {
			if a[i][k].Cmp(b[i][k]) != 0 {
				return false
			}
		}
	}
	return true
}

func asmRowsText(x [][]*big.Rat) string {
	var ps []string
	for _, row := range x {
		var vs []string
		for _, v := range row {
			vs = append(vs, v.RatString())
		}
		ps = append(ps, "("+strings.Join(vs, ", ")+")")
	}
	return strings.Join(ps, " ")
}

// asmSerialModels builds Serial(a, b), a read out on the components b
// reads (bInputs), and b.
func asmSerialModels(a, b *stream.Program, bInputs []string) (ser, ma, mb *model.Model, err error) {
	if ser, err = stream.Serial(a, b).Model(); err != nil {
		return nil, nil, nil, err
	}
	if ma, err = a.Readout(bInputs...).Model(); err != nil {
		return nil, nil, nil, err
	}
	mb, err = b.Model()
	return ser, ma, mb, err
}

// asmCheckSerial compares the stacked model ser with running ma and then
// mb on ma's outputs (the components bInputs), on every string over
// {(, )} of length ≤ n.
func asmCheckSerial(ser, ma, mb *model.Model, bInputs []string, n int) (*Evidence, error) {
	exactP := numeric.MustParsePrecision("exact")
	rs, err := model.New(exactP, ser)
	if err != nil {
		return nil, err
	}
	ra, err := model.New(exactP, ma)
	if err != nil {
		return nil, err
	}
	rb, err := model.New(exactP, mb)
	if err != nil {
		return nil, err
	}
	inputs := asmStrings(asmDyckAlphabet, n)
	for _, in := range inputs {
		whole, err := asmOutputs(rs, in)
		if err != nil {
			return nil, err
		}
		mid, err := asmOutputs(ra, in)
		if err != nil {
			return nil, err
		}
		pos := make([]map[string]*big.Rat, len(in))
		for i := range pos {
			pos[i] = map[string]*big.Rat{}
			for k, c := range bInputs {
				pos[i][c] = mid[i][k]
			}
		}
		h0, err := stream.Stream(mb, pos)
		if err != nil {
			return nil, err
		}
		res, err := rb.RunStream(h0, false)
		if err != nil {
			return nil, err
		}
		seq, err := asmValues(res)
		if err != nil {
			return nil, err
		}
		if !asmSame(whole, seq) {
			s := fmt.Sprintf("on %q the stacked model gives %s, the two in sequence %s", asmText(asmDyckAlphabet, in), asmRowsText(whole), asmRowsText(seq))
			return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
		}
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("every string over {(, )} of length ≤ %d (%d strings), exact: the %d-layer stack of %s (%d layer) on %s (%d layer) equals running them in sequence",
		n, len(inputs), len(ser.Layers), mb.Name, len(mb.Layers), ma.Name, len(ma.Layers))}, nil
}

// asmOpens is a program over {(, )} of one layer, with components of its
// own: c = 1 for "(" (0 for ")"), Avg← writes O/i, the FFN C/i = 1 − O/i.
func asmOpens() *stream.Program {
	return stream.New("opens", "c").
		Symbols(asmDyckAlphabet, func(s int) stream.Values { return stream.Values{"c": numeric.LitInt(int64(1 - s))} }).
		Then(blocks.Avg([]string{"c"}, []string{"O/i"}, model.Future, model.AverageHardmax), blocks.Not("O/i", "C/i")).
		Readout("O/i", "C/i")
}

// asmCheckConcat compares the model wide with [m1; m2] (outputs
// concatenated) on every string over alphabet of length ≤ n.
func asmCheckConcat(wide, m1, m2 *model.Model, alphabet []string, n int, what string) (*Evidence, error) {
	exactP := numeric.MustParsePrecision("exact")
	rw, err := model.New(exactP, wide)
	if err != nil {
		return nil, err
	}
	r1, err := model.New(exactP, m1)
	if err != nil {
		return nil, err
	}
	r2, err := model.New(exactP, m2)
	if err != nil {
		return nil, err
	}
	inputs := asmStrings(alphabet, n)
	for _, in := range inputs {
		got, err := asmOutputs(rw, in)
		if err != nil {
			return nil, err
		}
		a, err := asmOutputs(r1, in)
		if err != nil {
			return nil, err
		}
		b, err := asmOutputs(r2, in)
		if err != nil {
			return nil, err
		}
		want := make([][]*big.Rat, len(in))
		for i := range want {
			want[i] = append(slices.Clone(a[i]), b[i]...)
		}
		if !asmSame(got, want) {
			s := fmt.Sprintf("%s on %q: the widened transformer gives %s, [tf1; tf2] is %s", what, asmText(alphabet, in), asmRowsText(got), asmRowsText(want))
			return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
		}
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("%s: [tf1(w); tf2(w)] at every position of every string of length ≤ %d (%d strings), exact", what, n, len(inputs))}, nil
}

// asmWidenLayer is the proof's widened layer f′ of width d for the layer
// f of width dOwn placed at offset off (0: the top block, f1′; d1: the
// bottom block, f2′): W^Q′ = [W^Q 0] (or [0 W^Q]), W^K′ likewise,
// W^V′ = [[W^V, 0], [0, 0]] (or [[0, 0], [0, W^V]]), W1′ = [[W1, 0],
// [0, 0]], b1′ = [b1; 0], W2′ = [[W2, 0], [0, 0]], b2′ = [b2; 0] (the
// zero block of the hidden layer has d − dOwn units, as the printed
// square block matrices have). literalW1 puts W2 where W1 goes, as the
// proof prints f1′.ff.W1.
func asmWidenLayer(f model.Layer, dOwn, off, d int, literalW1 bool) (model.Layer, error) {
	if f.AttentionNorm != nil || f.FeedForwardNorm != nil {
		return model.Layer{}, fmt.Errorf("the lemma is for transformers without layer normalization")
	}
	out := model.Layer{NoAttentionResidual: f.NoAttentionResidual, NoFeedForwardResidual: f.NoFeedForwardResidual}
	if a := f.Attention; a != nil {
		wa := *a
		wa.Heads = nil
		for _, h := range a.Heads {
			q, k, v := model.Zeros(h.Q.Rows, d), model.Zeros(h.K.Rows, d), model.Zeros(d, d)
			for c := 0; c < dOwn; c++ {
				for r := 0; r < h.Q.Rows; r++ {
					q.Set(r, off+c, h.Q.At(r, c))
					k.Set(r, off+c, h.K.At(r, c))
				}
				for r := 0; r < dOwn; r++ {
					v.Set(off+r, off+c, h.V.At(r, c))
				}
			}
			wa.Heads = append(wa.Heads, model.Head{Q: q, K: k, V: v})
		}
		out.Attention = &wa
	}
	if ff := f.FeedForward; ff != nil {
		h := ff.W1.Rows
		first := ff.W1
		if literalW1 {
			first = ff.W2
			if first.Rows != h || first.Cols != dOwn {
				return model.Layer{}, fmt.Errorf("the printed f′.ff.W1 = [f.ff.W2 0; 0 0] needs W2 to be %d×%d, it is %d×%d", h, dOwn, first.Rows, first.Cols)
			}
		}
		extra := d - dOwn
		hOff := 0 // own hidden units first in f1′, after the zero block in f2′
		if off > 0 {
			hOff = extra
		}
		w := &model.FeedForward{W1: model.Zeros(h+extra, d), B1: make(model.Vector, h+extra),
			W2: model.Zeros(d, h+extra), B2: make(model.Vector, d), Activation: ff.Activation}
		for u := 0; u < h; u++ {
			for c := 0; c < dOwn; c++ {
				w.W1.Set(hOff+u, off+c, first.At(u, c))
			}
			if ff.B1 != nil {
				w.B1[hOff+u] = ff.B1[u]
			}
			for r := 0; r < dOwn; r++ {
				w.W2.Set(off+r, hOff+u, ff.W2.At(r, u))
			}
		}
		for r := 0; r < dOwn; r++ {
			if ff.B2 != nil {
				w.B2[off+r] = ff.B2[r]
			}
		}
		out.FeedForward = w
	}
	return out, nil
}

// asmWidenStack is the proof of Parallel Composition: tf1 ⊕ tf2 with
// embedding [we1; we2] and [pe1; pe2], the shorter padded with trivial
// layers, and, for each ℓ, f2′ then f1′ ("stack f1′ on top of f2′"), or
// f1′ then f2′ when f1First. The readouts are placed block-diagonally.
func asmWidenStack(m1, m2 *model.Model, f1First, literalW1 bool) (*model.Model, error) {
	if m1.Norm != model.NoNorm || m2.Norm != model.NoNorm {
		return nil, fmt.Errorf("the lemma is for transformers without layer normalization")
	}
	if !slices.Equal(m1.Alphabet, m2.Alphabet) {
		return nil, fmt.Errorf("the alphabets differ")
	}
	if m1.Output.Kind != model.Readout || m2.Output.Kind != model.Readout {
		return nil, fmt.Errorf("only readouts concatenate")
	}
	d1, d2 := m1.D, m2.D
	d := d1 + d2
	cat := func(a, b model.Vector) model.Vector {
		v := make(model.Vector, d)
		copy(v, a)
		copy(v[d1:], b)
		return v
	}
	w := &model.Model{Name: m1.Name + "⊕" + m2.Name, D: d, Alphabet: m1.Alphabet}
	for s := range m1.Alphabet {
		w.WordEmbedding = append(w.WordEmbedding, cat(m1.WordEmbedding[s], m2.WordEmbedding[s]))
	}
	if m1.Position != nil || m2.Position != nil {
		p1, p2 := m1.Position, m2.Position
		w.Position = &model.PositionEncoding{Name: "[pe1; pe2]", Vector: func(i, n int) model.Vector {
			var a, b model.Vector
			if p1 != nil {
				a = p1.Vector(i, n)
			}
			if p2 != nil {
				b = p2.Vector(i, n)
			}
			return cat(a, b)
		}}
	}
	for l := 0; l < max(len(m1.Layers), len(m2.Layers)); l++ {
		var a, b model.Layer // trivial layers: the identity, by the residual connections
		if l < len(m1.Layers) {
			a = m1.Layers[l]
		}
		if l < len(m2.Layers) {
			b = m2.Layers[l]
		}
		f1, err := asmWidenLayer(a, d1, 0, d, literalW1)
		if err != nil {
			return nil, fmt.Errorf("layer %d of %s: %v", l+1, m1.Name, err)
		}
		f2, err := asmWidenLayer(b, d2, d1, d, false)
		if err != nil {
			return nil, fmt.Errorf("layer %d of %s: %v", l+1, m2.Name, err)
		}
		if f1First {
			w.Layers = append(w.Layers, f1, f2)
		} else {
			w.Layers = append(w.Layers, f2, f1)
		}
	}
	o1, o2 := m1.Output.W, m2.Output.W
	out := model.Zeros(o1.Rows+o2.Rows, d)
	for r := 0; r < o1.Rows; r++ {
		for c := 0; c < d1; c++ {
			out.Set(r, c, o1.At(r, c))
		}
	}
	for r := 0; r < o2.Rows; r++ {
		for c := 0; c < d2; c++ {
			out.Set(o1.Rows+r, d1+c, o2.At(r, c))
		}
	}
	w.Output = model.Output{Kind: model.Readout, W: out, Labels: append(slices.Clone(m1.Output.Labels), m2.Output.Labels...)}
	return w, w.Validate()
}

// asmParallelModels are tf1 = dyck1 (AHAT, 2 layers, width 4, no position
// encoding) and tf2 = dyck12 (leftmost UHAT, check=max: 5 layers, width
// 10, strict future and strict past masks, position encoding (1, i/n)):
// different widths, depths, masks and weightings, which one multi-head
// layer per ℓ could not hold.
func asmParallelModels(n int) (*model.Model, *model.Model, error) {
	get := func(name string, w model.Weighting, params map[string]string) (*model.Model, error) {
		r, err := recipes.Get(name)
		if err != nil {
			return nil, err
		}
		con, err := r.Construct(w, n, params)
		if err != nil {
			return nil, err
		}
		return con.Model, nil
	}
	m1, err := get("dyck1", model.AverageHardmax, nil)
	if err != nil {
		return nil, nil, err
	}
	m2, err := get("dyck12", model.LeftHardmax, map[string]string{"check": "max"})
	return m1, m2, err
}

// asmTypoModels are the one-layer transformers of the counterexample to
// the printed f1′.ff.W1: tf1 over the one symbol x, embedded (1, 1), one
// FFN sublayer with W1 = [[1, 2], [0, 1]], W2 = [[1, 0], [1, 1]]; tf2 of
// width 1, embedding 0, no layers.
func asmTypoModels() (*model.Model, *model.Model) {
	tf1 := &model.Model{Name: "tf1", D: 2, Alphabet: []string{"x"}, WordEmbedding: []model.Vector{model.IntVector(1, 1)},
		Layers: []model.Layer{{FeedForward: &model.FeedForward{W1: model.Ints([]int64{1, 2}, []int64{0, 1}), W2: model.Ints([]int64{1, 0}, []int64{1, 1})}}},
		Output: model.Output{Kind: model.Readout, W: model.Identity(2), Labels: []string{"y1", "y2"}}}
	tf2 := &model.Model{Name: "tf2", D: 1, Alphabet: []string{"x"}, WordEmbedding: []model.Vector{model.IntVector(0)},
		Output: model.Output{Kind: model.Readout, W: model.Identity(1), Labels: []string{"z"}}}
	return tf1, tf2
}

func init() {
	Register(
		&Claim{ID: "assembly.routing.ffn", Section: "Routing Lemma", Label: "sec:routing",
			Statement: "L∘ff∘R is an FFN: ff′.W1 = (ff.W1) R, ff′.b1 = ff.b1, ff′.W2 = L (ff.W2), ff′.b2 = L (ff.b2) (thm:routing, with the proof's W2 corrected)",
			Domain:    "x ∈ ℝ^d, for 4 cases: random rational FFNs on ℝ³ and ℝ² with random rational L, R (seed 2032), singular L, R that duplicate, reorder and zero out, and the min FFN with non-square R (2×3) and L (2×1)",
			Recorded:  Proved,
			Check:     func() (*Evidence, error) { return asmCheckRouting(asmRouteCases(), asmRouteLemma(false)) }},
		&Claim{ID: "assembly.routing.ffn-literal", Section: "Routing Lemma", Label: "sec:routing",
			Statement: "the proof's ff′.W2 = L (ff.W1) (as printed) gives L∘ff∘R",
			Domain:    "x ∈ ℝ², W1 = [[1, 2], [0, 1]], W2 = [[1, 0], [1, 1]], L = R = I",
			Recorded:  Refuted,
			Check: func() (*Evidence, error) {
				return asmCheckRoutingAt(asmRoutingTypo(), asmRouteLemma(true), exact.IntVector(1, 1))
			}},
		&Claim{ID: "assembly.routing.attention", Section: "Routing Lemma", Label: "sec:routing",
			Statement: "L∘sa∘R is a self-attention layer: sa′.W^Q = (sa.W^Q) R, sa′.W^K = (sa.W^K) R, sa′.W^V = L (sa.W^V) R",
			Domain:    "sequences of length ≤ 3 over {−1, 0, 1}² (819) and {0, 1}² (84), for 2 heads with random rational projections and L, R (seed 2036; one R singular), under leftmost and rightmost UHAT and AHAT, unmasked and future-masked; exact",
			Recorded:  Proved,
			Check:     func() (*Evidence, error) { return asmCheckAttnRouting(asmAttnCases(), asmRouteHeadLemma, 3) }},
		&Claim{ID: "assembly.serial.stack", Section: "Composition operations", Label: "",
			Statement: "Serial Composition (thm:serial_comp): stacking tl2 on top of the layers of tl1 computes tl2(tl1(w))",
			Domain:    "tl1 = Dyck-1's first layer (Avg←, ReLU(−x)), tl2 = its second (Avg←) with GTZero_{1/64}, built from blocks and stacked by stream.Serial; every string over {(, )} of length ≤ 8; exact",
			Recorded:  Proved,
			Check: func() (*Evidence, error) {
				ser, ma, mb, err := asmSerialModels(asmLayer1(), asmLayer2(stream.New("layer2", "o", "B/i", "E")).Readout("t", "g"), asmSerialInputs)
				if err != nil {
					return nil, err
				}
				return asmCheckSerial(ser, ma, mb, asmSerialInputs, 8)
			}},
		&Claim{ID: "assembly.parallel.widen", Section: "Composition operations", Label: "",
			Statement: "Parallel Composition (thm:parallel_composition): (tf1 ⊕ tf2)(w) = [tf1(w); tf2(w)] at every position; here with the proof's remark \"with multi-head attention, f1 and f2 combine into a single layer\" (stream.Widen: one sublayer per sublayer, heads side by side, hidden units concatenated)",
			Domain:    "tf1 = Dyck-1 (2 layers; outputs B/i, t), tf2 = a 1-layer prefix count (outputs O/i, C/i), built from blocks, both future-masked AHAT; every string over {(, )} of length ≤ 7; exact",
			Recorded:  Proved,
			Check: func() (*Evidence, error) {
				tf1 := asmLayer2(asmLayer1()).Readout("B/i", "t")
				tf2 := asmOpens()
				wide, err := stream.Widen(tf1, tf2)
				if err != nil {
					return nil, err
				}
				m, err := wide.Model()
				if err != nil {
					return nil, err
				}
				m1, err := tf1.Model()
				if err != nil {
					return nil, err
				}
				m2, err := tf2.Model()
				if err != nil {
					return nil, err
				}
				return asmCheckConcat(m, m1, m2, asmDyckAlphabet, 7, fmt.Sprintf("stream.Widen (%d layers, width %d)", len(m.Layers), m.D))
			}},
		&Claim{ID: "assembly.parallel.proof", Section: "Composition operations", Label: "",
			Statement: "the proof of Parallel Composition: widen each layer (W^Q′ = [W^Q 0], W^K′ = [W^K 0], W^V′ = [[W^V, 0], [0, 0]], ff blocks likewise, f2′ on the bottom block), pad the shorter with identity layers, \"stack f1′ on top of f2′, or the other way around\"; the other block passes through each widened layer by the residual connections (with f1′.ff.W1 built from f1.ff.W1)",
			Domain:    "tf1 = dyck1 (AHAT, width 4, 2 layers), tf2 = dyck12 (UHAT, check=max, width 10, 5 layers, strict masks, position encoding); both stacking orders; every string over {(, )} of length ≤ 6; exact",
			Recorded:  Proved,
			Check: func() (*Evidence, error) {
				m1, m2, err := asmParallelModels(6)
				if err != nil {
					return nil, err
				}
				var sums []string
				for _, f1First := range []bool{false, true} {
					w, err := asmWidenStack(m1, m2, f1First, false)
					if err != nil {
						return nil, err
					}
					what := fmt.Sprintf("f1′ on top of f2′ (%d layers, width %d)", len(w.Layers), w.D)
					if f1First {
						what = fmt.Sprintf("f2′ on top of f1′ (%d layers, width %d)", len(w.Layers), w.D)
					}
					ev, err := asmCheckConcat(w, m1, m2, asmDyckAlphabet, 6, what)
					if err != nil || ev.Verdict != Proved {
						return ev, err
					}
					sums = append(sums, ev.Summary)
				}
				return &Evidence{Verdict: Proved, Summary: strings.Join(sums, "; ")}, nil
			}},
		&Claim{ID: "assembly.parallel.proof-literal", Section: "Composition operations", Label: "",
			Statement: "the proof's f1′.ff.W1 = [[f1.ff.W2, 0], [0, 0]] (as printed) widens f1",
			Domain:    "tf1 of width 2, one FFN sublayer W1 = [[1, 2], [0, 1]], W2 = [[1, 0], [1, 1]], embedding (1, 1); tf2 of width 1 with no layers; the input \"x\"; exact",
			Recorded:  Refuted,
			Check: func() (*Evidence, error) {
				tf1, tf2 := asmTypoModels()
				w, err := asmWidenStack(tf1, tf2, false, true)
				if err != nil {
					return nil, err
				}
				ev, err := asmCheckConcat(w, tf1, tf2, []string{"x"}, 1, "f1′.ff.W1 = [[W2, 0], [0, 0]] as printed")
				if err == nil && ev.Verdict == Refuted {
					ev.Explain = append(ev.Explain, "by hand: tf1(x) = (1, 1) + W2 ReLU(W1 (1, 1)) = (1, 1) + W2 (3, 1) = (4, 5); the printed f1′ adds W2 ReLU(W2 (1, 1)) = W2 (1, 2) = (1, 3), giving (2, 4)")
				}
				return ev, err
			}},
	)
}
