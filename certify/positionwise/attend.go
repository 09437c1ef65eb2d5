package positionwise

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// Attention whose scores do not depend on the input (attend.go). The
// argument is in the package documentation (# Attention with fixed
// scores); this file recognises such models, strips the heads that add
// exactly 0, and compiles a model at one length into a straight-line
// program over the stacked inputs of its positions.

// FixedScores says why the analysis of attention with fixed scores does
// not treat m ("" when it does): every attention sublayer comes before
// every feed-forward sublayer (so the stream it reads is the input,
// finite on the domain), every head's query or key projection is exactly
// 0 (nothing else reaches a score: a head has no biases, and the model no
// position encoding), its temperature is rational and nonzero, and the
// rest of the model is one the position-wise analysis treats
// (Applicable, with the attention removed).
func FixedScores(m *model.Model) string {
	if m.Position != nil {
		return "the model adds a position encoding, which reaches the scores"
	}
	attends, fed := false, false
	for k, l := range m.Layers {
		a := l.Attention
		if a == nil {
			if l.FeedForward != nil {
				fed = true
			}
			continue
		}
		attends = true
		if fed {
			return fmt.Sprintf("layer %d attends after a feed-forward sublayer: the stream it reads may not be finite, and then no score is fixed", k+1)
		}
		if l.AttentionNorm != nil {
			return fmt.Sprintf("layer %d normalises before it attends: the analysis bounds no square root", k+1)
		}
		if e := a.Temperature; !e.IsZero() {
			r, ok, err := e.Rat()
			if err != nil || !ok || r.Sign() == 0 {
				return fmt.Sprintf("layer %d's temperature %v is not a nonzero rational", k+1, e)
			}
		}
		for h, hd := range a.Heads {
			if !zeroMatrix(hd.Q) && !zeroMatrix(hd.K) {
				return fmt.Sprintf("layer %d head %d: neither W^Q nor W^K is 0, so its scores depend on the input", k+1, h+1)
			}
			if hd.Q.Rows == 0 {
				return fmt.Sprintf("layer %d head %d has no key dimension", k+1, h+1)
			}
		}
		if l.FeedForward != nil {
			fed = true
		}
	}
	if !attends {
		return "the model does not attend"
	}
	return Applicable(withoutAttention(m))
}

// zeroMatrix reports whether every entry of w is exactly the rational 0.
func zeroMatrix(w model.Matrix) bool {
	for _, e := range w.Data {
		r, ok, err := e.Rat()
		if err != nil || !ok || r.Sign() != 0 {
			return false
		}
	}
	return true
}

// withoutAttention is m with every attention sublayer removed (its
// residual kept: a nil sublayer with its residual is the identity).
func withoutAttention(m *model.Model) *model.Model {
	c := *m
	c.Layers = make([]model.Layer, len(m.Layers))
	for k, l := range m.Layers {
		l.Attention, l.NoAttentionResidual = nil, false
		c.Layers[k] = l
	}
	return &c
}

// ZeroValues returns m without its attention, and "", when every head of
// m has fixed scores (FixedScores) and a value projection that is
// exactly 0 as a rational, with the residual connection on: each head
// then adds exactly 0 at every position of every length, so m computes
// each position on its own, as the returned model does. Otherwise it
// returns nil and why not. A W^V entry that is nonzero, however small,
// is refused even where the format rounds it to 0: the construction's
// exact value then differs from the stripped model's.
func ZeroValues(m *model.Model) (*model.Model, string) {
	if why := FixedScores(m); why != "" {
		return nil, why
	}
	for k, l := range m.Layers {
		if l.Attention == nil {
			continue
		}
		if l.NoAttentionResidual {
			return nil, fmt.Sprintf("layer %d attends without its residual connection", k+1)
		}
		for h, hd := range l.Attention.Heads {
			if !zeroMatrix(hd.V) {
				return nil, fmt.Sprintf("layer %d head %d's value projection W^V is not 0", k+1, h+1)
			}
		}
	}
	return withoutAttention(m), ""
}

// stacked is a model with fixed scores at one length n, as the analysis
// walks it: the inputs of the n positions side by side, and each
// sublayer in the model's order.
type stacked struct {
	n, d   int
	stages []stage
	out    matrix
	// flat is the model's position-wise program without its attention,
	// whose feed-forward sublayers the stages hold: what the search asks
	// of a program besides running it (opaque, hasNorm).
	flat *program
}

// stage is one sublayer: attention (att) or feed-forward (ff).
type stage struct {
	att *attStage
	ff  *ffLayer
}

type attStage struct {
	heads    []attHead
	residual bool
}

// attHead is one head: its projections, and at each position i the
// positions it attends to with their weights, in the runner's order.
type attHead struct {
	q, k, v matrix
	terms   [][]attTerm
}

// attTerm is one position j of a weighted sum, with its weight: the
// exact construction's (1/m, or 1 and 0 for a hard pick) and the one the
// format computes.
type attTerm struct {
	j int
	w weight
}

// attentionWeights are the weights of the m positions a query attends
// to, as the runner computes them at the format when every score is 0
// (model/eval: weightedSum, softmaxInto, hardmax, hardAttendMachine):
//
//   - softmax: exp(s − max) = exp(0) = 1 at every position, their sum
//     accumulated left to right, each addition rounded (fl(fl(1+1)+1)…,
//     which stalls where the format no longer holds the next integer),
//     then 1/sum rounded once;
//   - average hardmax: every score ties (+0 and −0 compare equal), each
//     gets 1/m rounded once (averageWeight);
//   - leftmost (rightmost) hardmax: the first (last) position gets 1, the
//     others 0.
//
// The construction's exact weights are 1/m (softmax of equal scores,
// average hardmax) or the same picks. round is the format's rounding.
func attentionWeights(w model.Weighting, m int, round func(*big.Rat) (*big.Rat, error)) ([]weight, error) {
	out := make([]weight, m)
	one, zero := big.NewRat(1, 1), new(big.Rat)
	switch w {
	case model.LeftHardmax, model.RightHardmax:
		pick := 0
		if w == model.RightHardmax {
			pick = m - 1
		}
		for k := range out {
			out[k] = newWeight(zero, zero)
			if k == pick {
				out[k] = newWeight(one, one)
			}
		}
		return out, nil
	case model.Softmax, model.AverageHardmax:
	default:
		return nil, fmt.Errorf("weighting %v: not treated", w)
	}
	exact := big.NewRat(1, int64(m))
	var stored *big.Rat
	var err error
	if w == model.AverageHardmax || mutation == "softmax-count" {
		stored, err = round(exact)
	} else {
		sum := big.NewRat(1, 1)
		for k := 1; k < m && err == nil; k++ {
			sum, err = round(new(big.Rat).Add(sum, one))
		}
		if err == nil {
			stored, err = round(new(big.Rat).Inv(sum))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("the weight of %s: %w", plural.Of(m, "position"), err)
	}
	if stored.Sign() == 0 {
		return nil, fmt.Errorf("the weight of each of %s rounds to 0, and the runner then skips its terms: not treated", plural.Of(m, "position"))
	}
	for k := range out {
		out[k] = newWeight(exact, stored)
	}
	return out, nil
}

// compileStacked builds m's program at length n, each parameter rounded
// by round.
func compileStacked(m *model.Model, n int, round func(*big.Rat) (*big.Rat, error)) (*stacked, error) {
	if why := FixedScores(m); why != "" {
		return nil, fmt.Errorf("%s", why)
	}
	if n < 1 {
		return nil, fmt.Errorf("length %d: want at least 1", n)
	}
	// The feed-forward sublayers and the readout as the position-wise
	// program compiles them.
	flat, err := compile(withoutAttention(m), round)
	if err != nil {
		return nil, err
	}
	// The stages run a feed-forward sublayer as matrices and ReLU: a
	// pre-norm, or an activation the analysis does not follow (GELU),
	// would be taken for the identity or for a linear unit.
	for _, L := range flat.layers {
		switch {
		case L.norm != nil:
			return nil, fmt.Errorf("layer %d's feed-forward sublayer reads a layer norm: not treated after attention", L.index+1)
		case L.opaque:
			return nil, fmt.Errorf("layer %d's feed-forward activation is not ReLU or linear: not treated after attention", L.index+1)
		}
	}
	p := &stacked{n: n, d: m.D, out: flat.out, flat: flat}
	for k, l := range m.Layers {
		if l.Attention == nil || l.Attention.Temperature.IsZero() {
			continue
		}
		tau, _, _ := l.Attention.Temperature.Rat() // rational: FixedScores
		if t, err := round(tau); err != nil || t.Sign() == 0 {
			return nil, fmt.Errorf("layer %d's temperature %s is no nonzero finite value of the format: a score 0/τ would not be 0", k+1, tau.RatString())
		}
	}
	ff := 0
	for k, l := range m.Layers {
		if a := l.Attention; a != nil {
			st := &attStage{residual: !l.NoAttentionResidual}
			for h, hd := range a.Heads {
				where := fmt.Sprintf("layer %d head %d", k+1, h+1)
				var H attHead
				if H.q, err = compileMatrix(hd.Q, round, where+" W^Q"); err != nil {
					return nil, err
				}
				if H.k, err = compileMatrix(hd.K, round, where+" W^K"); err != nil {
					return nil, err
				}
				if H.v, err = compileMatrix(hd.V, round, where+" W^V"); err != nil {
					return nil, err
				}
				if H.q.cols != m.D || H.k.cols != m.D || H.v.cols != m.D || H.v.rows != m.D || H.k.rows != H.q.rows {
					return nil, fmt.Errorf("%s: projections of shapes %d×%d, %d×%d, %d×%d on a stream of width %d", where, H.q.rows, H.q.cols, H.k.rows, H.k.cols, H.v.rows, H.v.cols, m.D)
				}
				H.terms = make([][]attTerm, n)
				for i := range H.terms {
					var js []int
					for j := 0; j < n; j++ {
						if a.Mask.Allows(i+1, j+1) {
							js = append(js, j)
						}
					}
					if len(js) == 0 {
						continue // nothing to attend to: the head outputs 0
					}
					ws, err := attentionWeights(a.Weighting, len(js), round)
					if err != nil {
						return nil, fmt.Errorf("%s at position %d: %w", where, i+1, err)
					}
					for t, j := range js {
						H.terms[i] = append(H.terms[i], attTerm{j: j, w: ws[t]})
					}
				}
				st.heads = append(st.heads, H)
			}
			p.stages = append(p.stages, stage{att: st})
		}
		if l.FeedForward != nil {
			L := flat.layers[ff]
			ff++
			p.stages = append(p.stages, stage{ff: &L})
		}
	}
	return p, nil
}

// finiteAll reports whether every value is certainly finite.
func finiteAll(xs []aval) bool {
	for _, x := range xs {
		if x.top {
			return false
		}
	}
	return true
}

// runStacked is the program on the values of the n positions' streams,
// to each position's readout; ok is false where a score may not be 0
// (a query or key that may not be finite: 0·∞ is NaN).
func (g *grid) runStacked(p *stacked, h [][]aval) (out [][]aval, ok bool) {
	for _, st := range p.stages {
		if L := st.ff; L != nil {
			for i := range h {
				hidden := g.matVec(L.w1, h[i], L.b1)
				if L.relu {
					for k := range hidden {
						hidden[k] = relu(hidden[k])
					}
				}
				f := g.matVec(L.w2, hidden, L.b2)
				if L.residual {
					for c := range f {
						f[c] = g.add(f[c], h[i][c])
					}
				}
				h[i] = f
			}
			continue
		}
		a := st.att
		next := make([][]aval, len(h))
		for hi, H := range a.heads {
			vals := make([][]aval, len(h))
			for j := range h {
				// The scores are q·k with q or k exactly 0: 0 when both
				// are finite (0·x = 0, 0 + 0 = 0, 0/c = 0 for the finite
				// nonzero √d_key and τ).
				if (!finiteAll(g.matVec(H.q, h[j], nil)) || !finiteAll(g.matVec(H.k, h[j], nil))) && mutation != "scores-unchecked" {
					return nil, false
				}
				vals[j] = g.matVec(H.v, h[j], nil)
			}
			for i := range h {
				o := make([]aval, p.d)
				for c := range o {
					acc := zeroVal
					for _, t := range H.terms[i] {
						acc = g.add(acc, g.mul(t.w, vals[t.j][c]))
					}
					o[c] = acc
				}
				if hi == 0 {
					next[i] = o
					continue
				}
				for c := range o {
					next[i][c] = g.add(next[i][c], o[c])
				}
			}
		}
		for i := range h {
			if a.residual {
				for c := range next[i] {
					next[i][c] = g.add(next[i][c], h[i][c])
				}
			}
			h[i] = next[i]
		}
	}
	out = make([][]aval, len(h))
	for i := range h {
		out[i] = g.matVec(p.out, h[i], nil)
	}
	return out, true
}

// exactStacked is exact for a stacked program: the box's components are
// the inputs of position 1, then of position 2, and so on.
func (s *search) exactStacked(lo, hi []int64) bool {
	k := len(s.pr.Inputs)
	h := make([][]aval, s.stacked.n)
	for i := range h {
		h[i] = make([]aval, s.stacked.d)
		for c := range h[i] {
			h[i][c] = zeroVal
		}
		for t, c := range s.pr.Inputs {
			o := i*k + t
			h[i][c] = exactVal(span{s.g.value(lo[o]), s.g.value(hi[o])}, s.g.quantum(lo[o], hi[o]))
		}
	}
	out, ok := s.g.runStacked(s.stacked, h)
	if !ok {
		return false
	}
	for _, o := range out {
		for _, v := range o {
			if v.top || !v.exact {
				return false
			}
		}
	}
	return true
}

// AnalyseLength decides the cell at length n of a model whose attention
// has fixed scores (FixedScores): every input of n positions, each
// position's components in the domain pr describes for one position.
// pr.Names, Inputs, Ranges and Valid describe one position, as for
// Analyse; pr.Check and pr.Reference take points of n·len(Names)
// components (position 1's, then position 2's, …), each point one input
// of length n, Reference giving every position's outputs in turn. The
// domain is enumerated where it has at most pr.MaxEnumerate points, and
// split into boxes elsewhere. A Finite domain is not treated. A big float
// above 53 bits is analysed on the wide grid, as by Analyse.
func AnalyseLength(pr Problem, n int) (*Result, error) {
	return analyseLength(pr, n, pr.Precision.Kind == numeric.KindBigFloat && pr.Precision.Bits > 53)
}

// analyseLength is AnalyseLength on the wide grid (wide.go) or on the
// float64 path; a big float of at most 53 bits may take either (the tests
// hold the two to each other).
func analyseLength(pr Problem, n int, wide bool) (*Result, error) {
	if pr.Finite != nil {
		return nil, fmt.Errorf("a finite list of points per position is not treated at length %d", n)
	}
	if pr.Check == nil || pr.Round == nil || pr.Model == nil {
		return nil, fmt.Errorf("the problem has no model, rounding or check")
	}
	if wide && pr.Precision.Kind != numeric.KindBigFloat {
		return nil, fmt.Errorf("precision %s is not a big float", pr.Precision)
	}
	var g *grid
	if !wide {
		var err error
		if g, err = gridOf(pr.Precision); err != nil {
			return nil, err
		}
	}
	prog, err := compileStacked(pr.Model, n, pr.Round)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(pr.Seed, 0x9e3779b97f4a7c15^uint64(n)))
	s := &search{pr: stackedProblem(pr, n), g: g, prog: prog.flat, stacked: prog, rng: rng}
	if wide {
		// A big float above 53 bits: the wide grid (wide.go), as Analyse.
		s.g, s.w = nil, newWgrid(pr.Precision.String()+"-bit", int(pr.Precision.Bits))
		s.res = &Result{Length: n, Domain: lengthDomain(pr, s.w.name, false, n)}
		return settled(s.res, s.wideSearch())
	}
	res := &Result{Length: n, Domain: lengthDomain(pr, g.name, g.sub, n)}
	s.res = res
	limit := pr.MaxEnumerate
	if limit == 0 {
		limit = DefaultMaxEnumerate
	}
	if s.domainPoints() <= float64(limit) {
		return settled(res, s.enumerate())
	}
	return settled(res, s.boxes())
}

// stackedProblem is pr, whose Names, Ranges and Valid describe one
// position, for the n positions of a length side by side.
func stackedProblem(pr Problem, n int) Problem {
	one := len(pr.Names)
	sp := pr
	sp.Names, sp.Ranges = nil, nil
	for i := 1; i <= n; i++ {
		for k, name := range pr.Names {
			sp.Names = append(sp.Names, fmt.Sprintf("%s@%d", name, i))
			if k < len(pr.Ranges) {
				sp.Ranges = append(sp.Ranges, pr.Ranges[k])
			} else {
				sp.Ranges = append(sp.Ranges, Range{})
			}
		}
	}
	if valid := pr.Valid; valid != nil {
		sp.Valid = func(x []*big.Rat) error {
			for i := 0; i < n; i++ {
				if err := valid(x[i*one : (i+1)*one]); err != nil {
					return fmt.Errorf("position %d: %w", i+1, err)
				}
			}
			return nil
		}
	}
	return sp
}

// lengthDomain states the domain of length n on the grid named name
// (sub: with the format's subnormals; else a big float's normal range).
func lengthDomain(pr Problem, name string, sub bool, n int) string {
	names := strings.Join(pr.Names, ", ")
	if len(pr.Names) > 1 {
		names = "(" + names + ")"
	}
	what := "finite " + name + " components"
	if !sub {
		what = name + " components in float64's normal range (2^-1022 ≤ |x| < 2^1024) or 0"
	}
	return fmt.Sprintf("of length %d, each position's %s with %s, in the claimed domain %s", n, names, what, pr.Domain)
}

// lengthStatement is Statement for a result of AnalyseLength.
func (r *Result) lengthStatement() string {
	fixed := "; the attention's scores do not depend on the input, so its weights are numbers the format computes the same way on every input of the length"
	switch r.Verdict {
	case Run:
		return fmt.Sprintf("every input %s, was run (%s), each right", r.Domain, plural.Of(int(r.Points), "input"))
	case Proved:
		s := fmt.Sprintf("every input %s, is right: on %s covering them the analysis proved every operation exact, so the format computes the construction's exact value", r.Domain, plural.Of(r.ProvedBoxes, "box"))
		if r.RunBoxes > 0 {
			s += fmt.Sprintf("; the %s of %s it could not prove were run, each right", plural.Of(int(r.Points), "input"), plural.Of(r.RunBoxes, "box"))
		}
		return s + fixed
	case Fails:
		s := fmt.Sprintf("fails on the inputs %s: at (%s), %s", r.Domain, ratsText(r.Counterexample), r.Why)
		if r.Unreachable {
			s += "; the exact output there is no finite value of the format, so no computation in it could be right"
		}
		return s
	}
	return fmt.Sprintf("undecided on the inputs %s: %s", r.Domain, r.Why)
}

// evalStacked is the program on the n positions' streams h (overwritten)
// in float64 with the format's rounding after every operation, as the
// runner computes it (fast.go's evaluator, with the attention's weighted
// sums): the concrete semantics runStacked encloses, which the tests hold
// to the engine's runner bit for bit.
func evalStacked(p *stacked, h [][]float64, round func(float64) float64) [][]float64 {
	for _, st := range p.stages {
		if L := st.ff; L != nil {
			for i := range h {
				hidden := matVecFast(L.w1, h[i], L.b1, round)
				if L.relu {
					for k, z := range hidden {
						hidden[k] = max(0, z)
					}
				}
				f := matVecFast(L.w2, hidden, L.b2, round)
				if L.residual {
					for c := range f {
						f[c] = round(f[c] + h[i][c])
					}
				}
				h[i] = f
			}
			continue
		}
		a := st.att
		next := make([][]float64, len(h))
		for hi, H := range a.heads {
			vals := make([][]float64, len(h))
			qs, ks := make([][]float64, len(h)), make([][]float64, len(h))
			for j := range h {
				vals[j] = matVecFast(H.v, h[j], nil, round)
				qs[j], ks[j] = matVecFast(H.q, h[j], nil, round), matVecFast(H.k, h[j], nil, round)
			}
			for i := range h {
				o := make([]float64, p.d)
				// A score q·k is 0 where q and k are finite (one of them
				// is the zero vector), NaN otherwise; a NaN score gives
				// every weight, and so every output, NaN (hardmax,
				// softmax).
				nan := false
				for _, t := range H.terms[i] {
					nan = nan || !finite64(qs[i]) || !finite64(ks[t.j])
				}
				for c := range o {
					if nan {
						o[c] = math.NaN()
						continue
					}
					acc := 0.0
					for _, t := range H.terms[i] {
						acc = round(acc + round(t.w.stored*vals[t.j][c]))
					}
					o[c] = acc
				}
				if hi == 0 {
					next[i] = o
					continue
				}
				for c := range o {
					next[i][c] = round(next[i][c] + o[c])
				}
			}
		}
		for i := range h {
			if a.residual {
				for c := range next[i] {
					next[i][c] = round(next[i][c] + h[i][c])
				}
			}
			h[i] = next[i]
		}
	}
	out := make([][]float64, len(h))
	for i := range h {
		out[i] = matVecFast(p.out, h[i], nil, round)
	}
	return out
}

func finite64(xs []float64) bool {
	for _, x := range xs {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return false
		}
	}
	return true
}

// wideExactStacked is exactStacked on the wide grid.
func (s *search) wideExactStacked(lo, hi []*big.Int) bool {
	k := len(s.pr.Inputs)
	h := make([][]wval, s.stacked.n)
	for i := range h {
		h[i] = make([]wval, s.stacked.d)
		for c := range h[i] {
			h[i][c] = wzero
		}
		for t, c := range s.pr.Inputs {
			o := i*k + t
			h[i][c] = wexact(rspan{s.w.value(lo[o]), s.w.value(hi[o])}, s.w.quantum(lo[o], hi[o]))
		}
	}
	out, ok := s.w.runStacked(s.stacked, h)
	if !ok {
		return false
	}
	for _, o := range out {
		for _, v := range o {
			if v.top || !v.exact {
				return false
			}
		}
	}
	return true
}

// runStacked is grid.runStacked on the wide grid: the same sublayers in
// the same order, each operation by the wide grid's rules.
func (g *wgrid) runStacked(p *stacked, h [][]wval) (out [][]wval, ok bool) {
	finite := func(xs []wval) bool {
		for _, x := range xs {
			if x.top {
				return false
			}
		}
		return true
	}
	for _, st := range p.stages {
		if L := st.ff; L != nil {
			for i := range h {
				hidden := g.matVec(L.w1, h[i], L.b1)
				if L.relu {
					for k := range hidden {
						hidden[k] = wrelu(hidden[k])
					}
				}
				f := g.matVec(L.w2, hidden, L.b2)
				if L.residual {
					for c := range f {
						f[c] = g.add(f[c], h[i][c])
					}
				}
				h[i] = f
			}
			continue
		}
		a := st.att
		next := make([][]wval, len(h))
		for hi, H := range a.heads {
			vals := make([][]wval, len(h))
			for j := range h {
				// As on the float64 path: a score 0 needs q and k finite.
				if (!finite(g.matVec(H.q, h[j], nil)) || !finite(g.matVec(H.k, h[j], nil))) && mutation != "scores-unchecked" {
					return nil, false
				}
				vals[j] = g.matVec(H.v, h[j], nil)
			}
			for i := range h {
				o := make([]wval, p.d)
				for c := range o {
					acc := wzero
					for _, t := range H.terms[i] {
						acc = g.add(acc, g.mul(newWweight(t.w), vals[t.j][c]))
					}
					o[c] = acc
				}
				if hi == 0 {
					next[i] = o
					continue
				}
				for c := range o {
					next[i][c] = g.add(next[i][c], o[c])
				}
			}
		}
		for i := range h {
			if a.residual {
				for c := range next[i] {
					next[i][c] = g.add(next[i][c], h[i][c])
				}
			}
			h[i] = next[i]
		}
	}
	out = make([][]wval, len(h))
	for i := range h {
		out[i] = g.matVec(p.out, h[i], nil)
	}
	return out, true
}
