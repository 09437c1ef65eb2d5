package check_test

// The mutation test of the checker. It sits beside the checker it tests,
// as an external test package (check_test), so that it can only use the
// checker's exported API, as the command line does (check.Run, and a
// Checker's lengths), not its internals; fuzz/ is for native fuzz
// targets. What is wrong is decided without the checker, by a plain
// forward pass of its own (mutation_plain_test.go) against the recipe's
// reference function (Construction.Expected, from package recipes).

import (
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

var mutationSeed = flag.Uint64("mutation.seed", 1, "seed of TestMutantsRefuted: the weights and comparisons it mutates, the vector inputs it draws, the checker's --seed")

// mutationKnobs size the test.
type mutationKnobs struct {
	// maxLen is the longest length, budget the most inputs of one
	// length enumerated (the checker's --exhaustive, the same), total
	// the most positions (an input of length n has n) of all lengths a
	// configuration enumerates: N is the largest length within them.
	maxLen, budget, total int
	// samples is the number of inputs drawn per length where the
	// domain cannot be enumerated (real vectors), for both the plain run
	// and the checker (--cases).
	samples int
	// flips and steps are the most weights whose sign is flipped, and
	// comparisons whose ε is changed, per configuration; perOp, when
	// set, the most mutants of each operator per configuration, drawn.
	flips, steps, perOp int
}

var (
	// mutationParams are the parameters a recipe is mutated with where
	// its defaults do not suit. lookup-ao: δ = 9/10 makes m = 41 at N = 2
	// instead of 266, a model 85 wide instead of 537, which the checker
	// instantiates once per mutant. ln-circumvent: with d = 1 (and its
	// default ε = 0), LN([x; −x]) = [sign x; −sign x] is rational, which
	// the plain run can compute, where √(‖x‖²/d) in general is not.
	// induction-frequent: three symbols instead of four, a model 49 wide
	// instead of 97 (its comparisons grow as |Σ|³).
	mutationParams = map[string]map[string]string{
		"lookup-ao":          {"delta": "9/10"},
		"ln-circumvent":      {"d": "1"},
		"induction-frequent": {"alphabet": "ABC"},
	}
	fullKnobs  = mutationKnobs{maxLen: 5, budget: 256, total: 256, samples: 16, flips: 5, steps: 2}
	shortKnobs = mutationKnobs{maxLen: 3, budget: 32, total: 60, samples: 4, flips: 1, steps: 1, perOp: 1}
)

// The mutation operators.
const (
	opSign = "sign of a weight"
	opMask = "mask strictness"
	opTie  = "tie rule"
	opEps  = "comparison ε"
	opNorm = "layer norm dropped"
)

var operators = []string{opSign, opMask, opTie, opEps, opNorm}

// mutation is one change to a model, applied to a copy.
type mutation struct {
	op, what string
	apply    func(m *model.Model)
}

// domainCase is one input of a configuration with its reference.
type domainCase struct {
	c    recipes.Case
	want []recipes.Want
}

// config is one recipe under one weighting, built for N = maxN, with the
// inputs the plain run covers.
type config struct {
	r          *recipes.Recipe
	w          model.Weighting
	maxN       int
	con        *recipes.Construction
	p          numeric.Precision
	domain     []domainCase
	exhaustive bool
	rs         rats // the values of the weights seen so far
}

// counts lists the domain's lengths with their number of inputs, as
// "n:count".
func (cfg *config) counts() []string {
	per := map[int]int{}
	for _, dc := range cfg.domain {
		per[dc.c.Len()]++
	}
	var out []string
	for n := max(1, cfg.r.MinN); n <= cfg.maxN; n++ {
		out = append(out, fmt.Sprintf("%d:%d", n, per[n]))
	}
	return out
}

func (cfg *config) String() string {
	return fmt.Sprintf("%s %s N = %d", cfg.r.Name, cfg.r.WeightingName(cfg.w), cfg.maxN)
}

// hashName seeds a configuration's own generator: its choices do not
// depend on which other configurations ran.
func hashName(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// inputs returns the inputs of length n the plain run checks, and whether
// they are all of them. Draws come from a stream of their own (the
// checker's are seeded by (seed, n)): a mutant the plain run's draws
// find wrong must be found wrong by the checker's own.
func inputs(con *recipes.Construction, n int, k mutationKnobs) ([]recipes.Case, bool) {
	rng := rand.New(rand.NewPCG(*mutationSeed, hashName(fmt.Sprint("plain draws ", n))))
	cases, all := con.Inputs(n, rng, k.budget)
	if !all {
		cases = cases[:min(len(cases), k.samples)]
	}
	return cases, all
}

// newConfig builds r under w for the largest N whose every length is
// enumerated within the knobs; a domain of real vectors, which no length
// enumerates, is sampled up to N = 3. It returns a reason instead where
// the plain run cannot compute the recipe's own model.
func newConfig(r *recipes.Recipe, w model.Weighting, k mutationKnobs) (*config, string, error) {
	minN := max(1, r.MinN)
	best := 0
	for n := minN; n <= k.maxLen; n++ {
		if r.LimitN > 0 && n > r.LimitN {
			break
		}
		con, err := r.Construct(w, n, mutationParams[r.Name])
		if err != nil {
			return nil, "", err
		}
		total, all := 0, true
		for l := minN; l <= n && all && total <= k.total; l++ {
			cases, ex := con.Inputs(l, rand.New(rand.NewPCG(0, 0)), k.budget)
			all = ex
			total += l * len(cases)
		}
		if !all || total > k.total {
			break
		}
		best = n
	}
	cfg := &config{r: r, w: w, maxN: best, exhaustive: true}
	if best == 0 {
		cfg.maxN, cfg.exhaustive = max(minN, min(k.maxLen, 3)), false
	}
	con, err := r.Construct(w, cfg.maxN, mutationParams[r.Name])
	if err != nil {
		return nil, "", err
	}
	cfg.con, cfg.rs = con, newRats()
	if _, err := newPlain(con.Model, cfg.rs); err != nil {
		return nil, err.Error(), nil
	}
	if cfg.p, _, err = r.PrecisionFor(w, cfg.maxN, mutationParams[r.Name]); err != nil {
		return nil, "", err
	}
	for n := minN; n <= cfg.maxN; n++ {
		cases, all := inputs(con, n, k)
		if !all {
			cfg.exhaustive = false
		}
		for _, c := range cases {
			if con.Valid != nil && con.Valid(c) != nil {
				continue
			}
			cfg.domain = append(cfg.domain, domainCase{c: c, want: con.Expected(c)})
		}
	}
	if v := plainVerdict(cfg, con.Model); !v.wrong && v.undecided != "" {
		return nil, v.undecided, nil
	}
	return cfg, "", nil
}

// verdict is the plain run's finding on a model over a configuration's
// domain.
type verdict struct {
	wrong     bool
	undecided string // why some input has no verdict
	input     string // the first wrong input, where and why
	// failing counts the wrong inputs of each length, as "n:count" for
	// n from the shortest length to N.
	failing []string
}

// plainVerdict runs m on every input of cfg's domain.
func plainVerdict(cfg *config, m *model.Model) verdict {
	p, err := newPlain(m, cfg.rs)
	if err != nil {
		return verdict{undecided: err.Error()}
	}
	var v verdict
	per := map[int]int{}
	for _, dc := range cfg.domain {
		bad, why, err := wrongOn(p, cfg.con, dc.c, dc.want)
		switch {
		case err != nil && v.undecided == "":
			v.undecided = fmt.Sprintf("%q: %v", check.CaseText(cfg.con.Model, dc.c), err)
		case bad:
			per[dc.c.Len()]++
			if !v.wrong {
				v.wrong, v.input = true, fmt.Sprintf("%q: %s", check.CaseText(cfg.con.Model, dc.c), why)
			}
		}
	}
	for n := max(1, cfg.r.MinN); n <= cfg.maxN; n++ {
		v.failing = append(v.failing, fmt.Sprintf("%d:%d", n, per[n]))
	}
	return v
}

// failing counts the failing inputs of each length of a checker's
// reports, as verdict.failing does.
func failing(lrs []check.LengthReport) []string {
	var out []string
	for _, lr := range lrs {
		out = append(out, fmt.Sprintf("%d:%d", lr.N, lr.Cases-lr.Passed))
	}
	return out
}

// wrongOn reports whether p is wrong on c, whose reference is want.
func wrongOn(p *plainModel, con *recipes.Construction, c recipes.Case, want []recipes.Want) (bool, string, error) {
	outs, err := p.run(c)
	if err != nil {
		if errors.Is(err, errUndefined) {
			return true, err.Error(), nil
		}
		return false, "", err
	}
	if len(outs) != len(want) {
		return true, fmt.Sprintf("%d outputs for %d references", len(outs), len(want)), nil
	}
	for i, w := range want {
		ok, why, err := judge(w, outs[i], con.Bounds)
		if err != nil {
			return false, "", err
		}
		if !ok {
			return true, fmt.Sprintf("position %d: %s", i+1, why), nil
		}
	}
	return false, "", nil
}

// confirmation is the plain run's finding on the input a checker names.
type confirmation int

const (
	confirmed    confirmation = iota // wrong by the plain run too
	contradicted                     // right by the plain run, or not an input of the domain
	unconfirmed                      // the plain run cannot compute it (an irrational square root)
)

// confirm runs the checker's counterexample by the plain path: the
// checker's refutation is real only if the input it names is wrong.
func confirm(cfg *config, m *model.Model, f *check.Failure) (confirmation, string) {
	var c recipes.Case
	var err error
	if cfg.con.Parse != nil {
		c, err = cfg.con.Parse(f.Input)
	} else {
		var syms []int
		if syms, err = cfg.con.Model.Tokenize(f.Input); err == nil {
			c = recipes.Case{Symbols: syms}
		}
	}
	if err != nil {
		return contradicted, fmt.Sprintf("cannot read the counterexample %q: %v", f.Input, err)
	}
	if cfg.con.Valid != nil {
		if err := cfg.con.Valid(c); err != nil {
			return contradicted, fmt.Sprintf("the counterexample %q is outside the domain: %v", f.Input, err)
		}
	}
	p, err := newPlain(m, cfg.rs)
	if err != nil {
		return unconfirmed, err.Error()
	}
	bad, why, err := wrongOn(p, cfg.con, c, cfg.con.Expected(c))
	switch {
	case err != nil:
		return unconfirmed, err.Error()
	case !bad:
		return contradicted, fmt.Sprintf("the plain run finds %q right", f.Input)
	}
	return confirmed, why
}

// cloneModel copies what a mutation may change: the layers, their
// attention and feed-forward parameters, the norm pointers.
func cloneModel(m *model.Model) *model.Model {
	c := *m
	c.Layers = slices.Clone(m.Layers)
	for l := range c.Layers {
		layer := &c.Layers[l]
		if a := layer.Attention; a != nil {
			na := *a
			na.Heads = make([]model.Head, len(a.Heads))
			for h, hd := range a.Heads {
				na.Heads[h] = model.Head{Q: cloneMatrix(hd.Q), K: cloneMatrix(hd.K), V: cloneMatrix(hd.V)}
			}
			layer.Attention = &na
		}
		if f := layer.FeedForward; f != nil {
			nf := *f
			nf.W1, nf.W2 = cloneMatrix(f.W1), cloneMatrix(f.W2)
			nf.B1, nf.B2 = slices.Clone(f.B1), slices.Clone(f.B2)
			layer.FeedForward = &nf
		}
	}
	return &c
}

func cloneMatrix(m model.Matrix) model.Matrix {
	m.Data = slices.Clone(m.Data)
	return m
}

// weightSlot names an entry of an attention head's W^Q, W^K, W^V (which
// maps to the residual stream: W^O is folded into it) or of a
// feed-forward layer's W1, b1, W2, b2: entry k of its data, row-major;
// cols is the matrix's width (0 for a vector).
type weightSlot struct {
	layer, head int
	part        string
	k, cols     int
}

func (s weightSlot) data(m *model.Model) []numeric.Expr {
	l := m.Layers[s.layer]
	switch s.part {
	case "W^Q":
		return l.Attention.Heads[s.head].Q.Data
	case "W^K":
		return l.Attention.Heads[s.head].K.Data
	case "W^V":
		return l.Attention.Heads[s.head].V.Data
	case "W1":
		return l.FeedForward.W1.Data
	case "W2":
		return l.FeedForward.W2.Data
	case "b1":
		return l.FeedForward.B1
	}
	return l.FeedForward.B2
}

func (s weightSlot) String() string {
	where := fmt.Sprintf("layer %d", s.layer+1)
	if s.head >= 0 {
		where += fmt.Sprintf(" head %d", s.head+1)
	}
	if s.cols == 0 {
		return fmt.Sprintf("%s %s[%d]", where, s.part, s.k+1)
	}
	return fmt.Sprintf("%s %s[%d][%d]", where, s.part, s.k/s.cols+1, s.k%s.cols+1)
}

// signFlips draws up to k weights that are not 0 with rng and negates
// each (a weight 0 negated is the same model).
func signFlips(m *model.Model, rng *rand.Rand, k int) []mutation {
	var slots []weightSlot
	add := func(l, h int, part string, data []numeric.Expr, cols int) {
		for i, e := range data {
			if r, ok, err := e.Rat(); err == nil && (!ok || r.Sign() != 0) {
				slots = append(slots, weightSlot{l, h, part, i, cols})
			}
		}
	}
	for l, layer := range m.Layers {
		if a := layer.Attention; a != nil {
			for h, hd := range a.Heads {
				add(l, h, "W^Q", hd.Q.Data, hd.Q.Cols)
				add(l, h, "W^K", hd.K.Data, hd.K.Cols)
				add(l, h, "W^V", hd.V.Data, hd.V.Cols)
			}
		}
		if f := layer.FeedForward; f != nil {
			add(l, -1, "W1", f.W1.Data, f.W1.Cols)
			add(l, -1, "b1", f.B1, 0)
			add(l, -1, "W2", f.W2.Data, f.W2.Cols)
			add(l, -1, "b2", f.B2, 0)
		}
	}
	var out []mutation
	for _, i := range rng.Perm(len(slots))[:min(k, len(slots))] {
		s := slots[i]
		out = append(out, mutation{op: opSign, what: s.String() + " negated", apply: func(m *model.Model) {
			d := s.data(m)
			d[s.k] = numeric.Neg(d[s.k])
		}})
	}
	return out
}

// maskFlips makes each strict mask non-strict and each non-strict causal
// mask strict.
func maskFlips(m *model.Model) []mutation {
	flip := map[model.Mask]model.Mask{model.Future: model.StrictFuture, model.StrictFuture: model.Future, model.Past: model.StrictPast, model.StrictPast: model.Past}
	var out []mutation
	for l, layer := range m.Layers {
		if a := layer.Attention; a != nil {
			if to, ok := flip[a.Mask]; ok {
				out = append(out, mutation{op: opMask, what: fmt.Sprintf("layer %d mask %s → %s", l+1, a.Mask, to), apply: func(m *model.Model) {
					m.Layers[l].Attention.Mask = to
				}})
			}
		}
	}
	return out
}

// tieFlips gives each hard attention layer the two other hard weightings.
func tieFlips(m *model.Model) []mutation {
	hard := []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax}
	var out []mutation
	for l, layer := range m.Layers {
		a := layer.Attention
		if a == nil || !slices.Contains(hard, a.Weighting) {
			continue
		}
		for _, to := range hard {
			if to != a.Weighting {
				out = append(out, mutation{op: opTie, what: fmt.Sprintf("layer %d %s → %s", l+1, recipes.WeightingAcronym(a.Weighting), recipes.WeightingAcronym(to)), apply: func(m *model.Model) {
					m.Layers[l].Attention.Weighting = to
				}})
			}
		}
	}
	return out
}

// normDrops removes each layer norm. A sublayer norm with a selection
// matrix W^N (§Layernorm hash: the sublayer reads LN(W^N x)) leaves W^N
// behind, folded into the matrices that read it, so that the sublayer
// reads W^N x: the normalisation is what is dropped, not the routing.
func normDrops(m *model.Model) []mutation {
	var out []mutation
	for l, layer := range m.Layers {
		if ln := layer.AttentionNorm; ln != nil {
			out = append(out, mutation{op: opNorm, what: fmt.Sprintf("layer %d attention norm", l+1), apply: func(m *model.Model) {
				layer := &m.Layers[l]
				layer.AttentionNorm = nil
				if a := layer.Attention; a != nil && ln.Select != nil && m.Norm == model.PreNorm {
					for h := range a.Heads {
						hd := &a.Heads[h]
						hd.Q, hd.K, hd.V = times(hd.Q, *ln.Select), times(hd.K, *ln.Select), times(hd.V, *ln.Select)
					}
				}
			}})
		}
		if ln := layer.FeedForwardNorm; ln != nil {
			out = append(out, mutation{op: opNorm, what: fmt.Sprintf("layer %d feed-forward norm", l+1), apply: func(m *model.Model) {
				layer := &m.Layers[l]
				layer.FeedForwardNorm = nil
				if f := layer.FeedForward; f != nil && ln.Select != nil && m.Norm == model.PreNorm {
					f.W1 = times(f.W1, *ln.Select)
				}
			}})
		}
	}
	if m.FinalNorm != nil {
		out = append(out, mutation{op: opNorm, what: "final norm", apply: func(m *model.Model) { m.FinalNorm = nil }})
	}
	return out
}

// times is the product a·b of weight matrices, as expressions (exact
// whatever the weights are).
func times(a, b model.Matrix) model.Matrix {
	out := model.Zeros(a.Rows, b.Cols)
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < b.Cols; j++ {
			var sum numeric.Expr
			for k := 0; k < a.Cols; k++ {
				x, y := a.At(i, k), b.At(k, j)
				if x.IsZeroLiteral() || y.IsZeroLiteral() {
					continue
				}
				if sum.IsZero() {
					sum = numeric.Mul(x, y)
				} else {
					sum = numeric.Add(sum, numeric.Mul(x, y))
				}
			}
			out.Set(i, j, sum)
		}
	}
	return out
}

// step is a comparison of §Comparisons found in a feed-forward layer:
// hidden units reading the same z = w·x, with biases spaced ε apart and
// output weights ±1/ε (GTZero_ε and GEZero_ε: two units, ReLU(z + β + ε)
// − ReLU(z + β) over ε), or 1/ε, −2/ε, 1/ε (EqZero_ε: three units,
// biases β + ε, β, β − ε). units are in decreasing order of bias.
type step struct {
	layer int
	units []int
	eps   *big.Rat
	bias  []*big.Rat
}

// steps finds the comparisons of m's feed-forward layers. They are found
// by their weights, since the stream assembler leaves no names in the
// model: a unit pair or triple is a comparison when its rows of W1 are
// equal, its biases evenly spaced by ε > 0, and its output columns the
// ones above with every nonzero entry ±1/ε (a step of height 1). A
// clip_δ with 2δ = 1 (clip_δ(x) = ReLU(x + δ) − ReLU(x − δ) − δ) has the
// same weights, and is changed as one.
func steps(m *model.Model) []step {
	var out []step
	for l, layer := range m.Layers {
		f := layer.FeedForward
		if f == nil || f.Activation != model.ReLU {
			continue
		}
		rs := newRats()
		w1, err1 := rs.matrix(f.W1)
		w2, err2 := rs.matrix(f.W2)
		b1, err3 := rs.vector(f.B1)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		bias := func(u int) *big.Rat {
			if b1 == nil {
				return new(big.Rat)
			}
			return b1[u]
		}
		// col reports whether W2's column v is c times column u, with u's
		// nonzero entries all ±1/ε (and at least one).
		col := func(u, v int, c int64, eps *big.Rat) bool {
			any := false
			for r := 0; r < w2.rows; r++ {
				x, y := w2.at(r, u), w2.at(r, v)
				if new(big.Rat).Mul(x, big.NewRat(c, 1)).Cmp(y) != 0 {
					return false
				}
				if x.Sign() != 0 {
					any = true
					if new(big.Rat).Abs(new(big.Rat).Mul(x, eps)).Cmp(big.NewRat(1, 1)) != 0 {
						return false
					}
				}
			}
			return any
		}
		groups := map[string][]int{}
		var keys []string
		for u := 0; u < w1.rows; u++ {
			var b strings.Builder
			for c := 0; c < w1.cols; c++ {
				b.WriteString(w1.at(u, c).RatString() + ",")
			}
			if _, ok := groups[b.String()]; !ok {
				keys = append(keys, b.String())
			}
			groups[b.String()] = append(groups[b.String()], u)
		}
		for _, key := range keys {
			g := slices.Clone(groups[key])
			// Decreasing bias, so that a comparison's units are in the
			// order of the doc comment.
			slices.SortStableFunc(g, func(u, v int) int { return bias(v).Cmp(bias(u)) })
			used := map[int]bool{}
			for a := range g {
				for b := a + 1; b < len(g); b++ {
					for c := b + 1; c < len(g); c++ {
						u, v, w := g[a], g[b], g[c]
						eps := new(big.Rat).Sub(bias(u), bias(v))
						if used[u] || used[v] || used[w] || eps.Sign() <= 0 || new(big.Rat).Sub(bias(v), bias(w)).Cmp(eps) != 0 {
							continue
						}
						if col(u, v, -2, eps) && col(u, w, 1, eps) {
							used[u], used[v], used[w] = true, true, true
							out = append(out, step{layer: l, units: []int{u, v, w}, eps: eps, bias: []*big.Rat{bias(u), bias(v), bias(w)}})
						}
					}
				}
			}
			for a := range g {
				for b := a + 1; b < len(g); b++ {
					u, v := g[a], g[b]
					eps := new(big.Rat).Sub(bias(u), bias(v))
					if used[u] || used[v] || eps.Sign() <= 0 || !col(u, v, -1, eps) {
						continue
					}
					used[u], used[v] = true, true
					out = append(out, step{layer: l, units: []int{u, v}, eps: eps, bias: []*big.Rat{bias(u), bias(v)}})
				}
			}
		}
	}
	return out
}

// epsChanges draws up to k comparisons and changes each one's ε: halved
// and doubled (the output weights rescaled to keep the step's height 1),
// a two-unit step about either of its edges (which one is exact depends
// on whether it is GTZero or GEZero), and ε set to 0 in the biases
// alone, where the units cancel and the comparison outputs 0.
func epsChanges(m *model.Model, rng *rand.Rand, k int) []mutation {
	all := steps(m)
	var out []mutation
	for _, i := range rng.Perm(len(all))[:min(k, len(all))] {
		s := all[i]
		name := fmt.Sprintf("layer %d units %v (ε = %s)", s.layer+1, s.units, s.eps.RatString())
		set := func(to *big.Rat, anchor int, rescale bool) func(*model.Model) {
			return func(m *model.Model) {
				f := m.Layers[s.layer].FeedForward
				if f.B1 == nil {
					f.B1 = make(model.Vector, f.W1.Rows)
				}
				// Biases spaced by the new ε, unit anchor's kept.
				for j, u := range s.units {
					b := new(big.Rat).Mul(to, big.NewRat(int64(anchor-j), 1))
					f.B1[u] = numeric.Lit(b.Add(b, s.bias[anchor]))
				}
				if !rescale {
					return
				}
				r := new(big.Rat).Quo(s.eps, to)
				for _, u := range s.units {
					for row := 0; row < f.W2.Rows; row++ {
						if e := f.W2.At(row, u); !e.IsZeroLiteral() {
							f.W2.Set(row, u, numeric.Mul(numeric.Lit(r), e))
						}
					}
				}
			}
		}
		half := new(big.Rat).Quo(s.eps, big.NewRat(2, 1))
		double := new(big.Rat).Mul(s.eps, big.NewRat(2, 1))
		// Anchors: EqZero's middle unit, its centre; a pair's first unit
		// (the higher bias), its lower edge, where the step leaves 0, or
		// its second, the upper edge, where it reaches 1.
		anchors := []struct {
			unit int
			name string
		}{{1, ""}}
		if len(s.units) == 2 {
			anchors = []struct {
				unit int
				name string
			}{{0, " about the lower edge"}, {1, " about the upper edge"}}
		}
		for _, a := range anchors {
			out = append(out,
				mutation{op: opEps, what: name + " ε halved" + a.name, apply: set(half, a.unit, true)},
				mutation{op: opEps, what: name + " ε doubled" + a.name, apply: set(double, a.unit, true)})
		}
		out = append(out, mutation{op: opEps, what: name + " ε set to 0 in b1", apply: set(new(big.Rat), 0, false)})
	}
	return out
}

// tally counts one operator's mutants: wrong = caught + escaped, and
// generated = wrong + equivalent + undecided. ownRun counts the mutants
// also judged by the recipe's own checker (ownChecker).
type tally struct {
	generated, wrong, caught, equivalent, escaped, undecided, ownRun int
}

func (c *tally) add(d tally) {
	c.generated += d.generated
	c.wrong += d.wrong
	c.caught += d.caught
	c.equivalent += d.equivalent
	c.escaped += d.escaped
	c.undecided += d.undecided
	c.ownRun += d.ownRun
}

func (c tally) String() string {
	return fmt.Sprintf("generated %4d  wrong %4d  caught %4d  equivalent %4d  escaped %d  undecided %d  (both paths: %d)",
		c.generated, c.wrong, c.caught, c.equivalent, c.escaped, c.undecided, c.ownRun)
}

// TestMutantsRefuted: the checker refutes every mutant that is wrong.
//
// Each recipe (the literal versions of printed formulas aside, whose own
// models are wrong) is built under each hard weighting the paper gives it
// (softmax is irrational) for the largest N whose inputs of every length
// can all be enumerated within the knobs (N ≤ 5); recipes over real
// vectors, whose domain cannot be, are run on seeded draws. Its model is
// mutated in memory: the sign of a nonzero weight (drawn), a causal
// mask's strictness, a hard attention's tie rule, a comparison's ε, a
// layer norm removed. The plain run decides whether a mutant is wrong on
// the domain, against the recipe's reference. The checker is then run on
// it as the command line runs a model from a file (check.Run with
// Options.Model, every length enumerated), and, for recipes whose inputs
// are all strings, as it runs a recipe's own model (ownChecker), which
// enumerates a causally masked model depth first. Both must refute every
// wrong mutant, and the input each names must be wrong by the plain run
// too; a mutant right on the whole domain is an equivalent mutant, which
// both must pass. The recipe's own model must pass all three, with every
// input of every length run, or no judge is worth anything.
//
// It runs with shortKnobs: lengths up to 3, one mutant per operator and
// configuration; TestLongMutantsRefuted, with fullKnobs.
func TestMutantsRefuted(t *testing.T) {
	mutantsRefuted(t, shortKnobs)
}

// TestLongMutantsRefuted is TestMutantsRefuted with fullKnobs: lengths up
// to 5, every mutant of every operator (the counts of
// docs/development.md).
func TestLongMutantsRefuted(t *testing.T) {
	testenv.Long(t)
	mutantsRefuted(t, fullKnobs)
}

// mutantsRefuted runs the mutation test of TestMutantsRefuted with k.
func mutantsRefuted(t *testing.T, k mutationKnobs) {
	start := time.Now()
	t.Logf("seed %d (-mutation.seed), lengths up to %d, at most %d inputs per length and %d positions in all", *mutationSeed, k.maxLen, k.budget, k.total)
	tallies := map[string]*tally{}
	for _, op := range operators {
		tallies[op] = &tally{}
	}
	var skipped []string
	configs := 0
	for _, r := range recipes.All() {
		if r.Literal() {
			continue
		}
		ws := []model.Weighting{r.DefaultWeighting()}
		if len(r.Weightings) > 0 {
			ws = slices.DeleteFunc(slices.Clone(r.Weightings), func(w model.Weighting) bool { return w == model.Softmax })
		}
		for _, w := range ws {
			cfg, why, err := newConfig(r, w, k)
			if err != nil {
				t.Errorf("%s %s: %v", r.Name, r.WeightingName(w), err)
				continue
			}
			if cfg == nil {
				skipped = append(skipped, fmt.Sprintf("%s %s (%s)", r.Name, r.WeightingName(w), why))
				continue
			}
			configs++
			mutateConfig(t, cfg, k, tallies)
		}
	}
	t.Logf("%d configurations in %v; skipped, the recipe's own model not computable in exact rationals: %s", configs, time.Since(start).Round(time.Millisecond), strings.Join(skipped, "; "))
	var sum tally
	for _, op := range operators {
		t.Logf("%-20s %v", op, *tallies[op])
		sum.add(*tallies[op])
	}
	t.Logf("%-20s %v", "all", sum)
	// A test that mutated nothing that matters would pass vacuously.
	for _, op := range operators {
		if tallies[op].wrong == 0 {
			t.Errorf("no %s mutant was wrong: the operator tests nothing", op)
		}
	}
	if sum.ownRun == 0 {
		t.Errorf("no mutant was run by the recipe's own checker")
	}
}

// fileChecker runs m as 'verify check --recipe R --model FILE
// --all-lengths' does, at the recipe's precision, or at interval:128
// where exact arithmetic cannot hold m's values (a square root), as the
// error then advises.
func fileChecker(cfg *config, m *model.Model, k mutationKnobs) (*check.Report, error) {
	run := func(p numeric.Precision) (*check.Report, error) {
		return check.Run(cfg.r, check.Options{Precision: p, Weighting: cfg.w, MaxN: cfg.maxN, Params: mutationParams[cfg.r.Name],
			Cases: k.samples, Exhaustive: k.budget, Seed: *mutationSeed, Model: m, Analysis: true, AllLengths: true})
	}
	rep, err := run(cfg.p)
	if err != nil && cfg.p.Kind == numeric.KindExact {
		rep, err = run(numeric.MustParsePrecision("interval:128"))
	}
	return rep, err
}

// ownChecker runs m as the checker runs a recipe's own model ('verify
// check --recipe R'): a Checker built for the recipe, whose
// construction's model and runner are then m's. A model adopted through
// Options.Model has its symbols mapped to the recipe's, which the
// depth-first enumeration (enumerate.go) refuses, so only this path
// reaches it. It applies where every length is enumerated, the inputs are
// all strings and m runs exactly (nil otherwise), and returns the report
// of every length.
func ownChecker(cfg *config, m *model.Model, k mutationKnobs) ([]check.LengthReport, error) {
	if !cfg.exhaustive || !cfg.con.AllStrings || cfg.p.Kind != numeric.KindExact {
		return nil, nil
	}
	runner, err := eval.New(cfg.p, m)
	if err != nil {
		return nil, nil
	}
	// One worker: the enumeration splits the strings into subtrees, at
	// least 16 per worker, and reuses prefixes within a subtree only; at
	// these short lengths more workers would leave one string in each.
	ck, err := check.NewChecker(cfg.r, check.Options{Precision: cfg.p, Weighting: cfg.w, MaxN: cfg.maxN, Params: mutationParams[cfg.r.Name],
		Cases: k.samples, Exhaustive: k.budget, Seed: *mutationSeed, Workers: 1})
	if err != nil {
		return nil, err
	}
	ck.Con.Model, ck.Runner = m, runner
	var lrs []check.LengthReport
	for n := max(1, cfg.r.MinN); n <= cfg.maxN; n++ {
		lrs = append(lrs, ck.Length(n))
	}
	return lrs, nil
}

// firstFailure is the failure of the shortest failing length, or nil.
func firstFailure(lrs []check.LengthReport) *check.Failure {
	for _, lr := range lrs {
		if lr.Failure != nil {
			return lr.Failure
		}
	}
	return nil
}

// mutateConfig checks cfg's own model, then each of its mutants.
func mutateConfig(t *testing.T, cfg *config, k mutationKnobs, tallies map[string]*tally) {
	t.Helper()
	if v := plainVerdict(cfg, cfg.con.Model); v.wrong {
		t.Errorf("%v: the plain run finds the recipe's own model wrong on %s", cfg, v.input)
		return
	}
	rep, err := fileChecker(cfg, cloneModel(cfg.con.Model), k)
	if err != nil {
		t.Errorf("%v: the checker cannot run the recipe's own model: %v", cfg, err)
		return
	}
	if !rep.Passed {
		t.Errorf("%v: the checker refutes the recipe's own model: %s", cfg, failureText(rep.FirstFailure))
		return
	}
	own, err := ownChecker(cfg, cloneModel(cfg.con.Model), k)
	if f := firstFailure(own); err != nil || f != nil {
		t.Errorf("%v: the recipe's own checker refutes the recipe's own model: %v %s", cfg, err, failureText(f))
		return
	}
	// Every input the plain run enumerates, the checker ran: else a
	// mutant wrong on the inputs it skips could pass it.
	if cfg.exhaustive {
		for _, lrs := range [][]check.LengthReport{rep.Lengths, own} {
			if lrs == nil {
				continue
			}
			var got []string
			for _, lr := range lrs {
				if lr.Exhaustive {
					got = append(got, fmt.Sprintf("%d:%d", lr.N, lr.Cases))
				}
			}
			if want := cfg.counts(); !slices.Equal(got, want) {
				t.Errorf("%v: the checker ran every input of lengths:count %v, the domain has %v", cfg, got, want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(*mutationSeed, hashName(cfg.String())))
	m := cfg.con.Model
	var ms []mutation
	for _, of := range [][]mutation{signFlips(m, rng, k.flips), maskFlips(m), tieFlips(m), epsChanges(m, rng, k.steps), normDrops(m)} {
		if k.perOp > 0 && len(of) > k.perOp {
			var some []mutation
			for _, i := range rng.Perm(len(of))[:k.perOp] {
				some = append(some, of[i])
			}
			of = some
		}
		ms = append(ms, of...)
	}
	for _, mu := range ms {
		c := tallies[mu.op]
		c.generated++
		mm := cloneModel(m)
		mu.apply(mm)
		what := fmt.Sprintf("%v, %s", cfg, mu.what)
		v := plainVerdict(cfg, mm)
		if !v.wrong && v.undecided != "" {
			c.undecided++
			t.Logf("%s: undecided: %s", what, v.undecided)
			continue
		}
		rep, err := fileChecker(cfg, mm, k)
		if err != nil {
			t.Errorf("%s: the checker cannot run the mutant: %v", what, err)
			continue
		}
		own, err := ownChecker(cfg, mm, k)
		if err != nil {
			t.Errorf("%s: the recipe's own checker cannot run the mutant: %v", what, err)
			continue
		}
		if own != nil {
			c.ownRun++
		}
		fileRefutes, ownFailure := !rep.Passed, firstFailure(own)
		// A refutation must name an input the plain run finds wrong.
		for _, f := range []*check.Failure{rep.FirstFailure, ownFailure} {
			if f == nil {
				continue
			}
			if conf, why := confirm(cfg, mm, f); conf == contradicted {
				t.Errorf("%s: refuted by %s, but %s", what, failureText(f), why)
			} else if conf == confirmed && !v.wrong && !cfg.exhaustive {
				// Wrong on an input the plain run's draws missed.
				v.wrong, v.input = true, failureText(f)
			}
		}
		// Where both enumerate the same inputs, the checker must find
		// every wrong one, not only some: a verdict reused where it does
		// not hold (the depth-first enumeration reuses those of prefixes)
		// would pass inputs a mutant is wrong on and still refute it on
		// others.
		if cfg.exhaustive && v.undecided == "" {
			for _, lrs := range [][]check.LengthReport{rep.Lengths, own} {
				if got := failing(lrs); lrs != nil && !slices.Equal(got, v.failing) {
					t.Errorf("%s: the checker finds failing inputs per length:count %v, the plain run %v", what, got, v.failing)
				}
			}
		}
		switch {
		case v.wrong && fileRefutes && (own == nil || ownFailure != nil):
			c.wrong++
			c.caught++
		case v.wrong:
			c.wrong++
			c.escaped++
			if !fileRefutes {
				t.Errorf("%s: ESCAPED 'verify check --model': the checker passes it (limit %d), but the plain run finds it wrong on %s", what, rep.Limit, v.input)
			}
			if own != nil && ownFailure == nil {
				t.Errorf("%s: ESCAPED 'verify check': the recipe's own checker passes it, but the plain run finds it wrong on %s", what, v.input)
			}
		case fileRefutes || ownFailure != nil:
			t.Errorf("%s: right on the domain by the plain run, but refuted: %s; %s", what, failureText(rep.FirstFailure), failureText(ownFailure))
		default:
			c.equivalent++
		}
	}
}

func failureText(f *check.Failure) string {
	if f == nil {
		return "no failure"
	}
	return fmt.Sprintf("%q at position %d: %s", f.Input, f.Position, f.Reason)
}

// TestStepsFound: the comparisons the ε operator changes are found by
// their weights, with the ε the recipe was built with, and nothing else
// is taken for one.
func TestStepsFound(t *testing.T) {
	for _, tc := range []struct {
		recipe string
		params map[string]string
		units  []int // the units of each comparison found, in order
		eps    []string
	}{
		{"gtzero", map[string]string{"eps": "1/4"}, []int{2}, []string{"1/4"}},
		{"gezero", map[string]string{"eps": "3/7"}, []int{2}, []string{"3/7"}},
		{"eqzero", map[string]string{"eps": "1/5"}, []int{3}, []string{"1/5"}},
		{"first", nil, []int{2}, []string{"1/3"}},
		// clip_δ is a step from −δ to δ: of height 1 only for δ = 1/2.
		{"clip", map[string]string{"delta": "1/2"}, []int{2}, []string{"1"}},
		{"clip", map[string]string{"delta": "2"}, nil, nil},
		{"gtzero-eps", nil, nil, nil}, // ε is an input there, not a weight
		{"identity-ffn", nil, nil, nil},
		{"min", nil, nil, nil},
	} {
		r, err := recipes.Get(tc.recipe)
		if err != nil {
			t.Fatal(err)
		}
		con, err := r.Construct(r.DefaultWeighting(), 4, tc.params)
		if err != nil {
			t.Fatal(err)
		}
		var units []int
		var eps []string
		for _, s := range steps(con.Model) {
			units = append(units, len(s.units))
			eps = append(eps, s.eps.RatString())
		}
		if !slices.Equal(units, tc.units) || !slices.Equal(eps, tc.eps) {
			t.Errorf("%s %v: comparisons of %v units with ε %v, want %v and %v", tc.recipe, tc.params, units, eps, tc.units, tc.eps)
		}
	}
}

// TestEpsChanges: the ε operator's mutants of GTZero_{1/4} compute the
// steps it names, by hand: ε' = 1/8 or 1/2 with the step leaving 0 at
// x = 0 (the lower edge kept) or reaching 1 at x = 1/4 (the upper), and
// the constant 0.
func TestEpsChanges(t *testing.T) {
	xs := []string{"-1/4", "0", "1/8", "3/16", "1/4", "1/2"}
	want := map[string][]string{
		"ε halved about the lower edge":  {"0", "0", "1", "1", "1", "1"},
		"ε doubled about the lower edge": {"0", "0", "1/4", "3/8", "1/2", "1"},
		"ε halved about the upper edge":  {"0", "0", "0", "1/2", "1", "1"},
		"ε doubled about the upper edge": {"0", "1/2", "3/4", "7/8", "1", "1"},
		"ε set to 0 in b1":               {"0", "0", "0", "0", "0", "0"},
	}
	r, err := recipes.Get("gtzero")
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(r.DefaultWeighting(), 1, map[string]string{"eps": "1/4"})
	if err != nil {
		t.Fatal(err)
	}
	ms := epsChanges(con.Model, rand.New(rand.NewPCG(1, 1)), 1)
	if len(ms) != len(want) {
		t.Fatalf("%d mutants, want %d", len(ms), len(want))
	}
	for _, mu := range ms {
		_, name, _ := strings.Cut(mu.what, ") ")
		mm := cloneModel(con.Model)
		mu.apply(mm)
		p, err := newPlain(mm, newRats())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range xs {
			c, err := con.Parse(x)
			if err != nil {
				t.Fatal(err)
			}
			out, err := p.run(c)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, out[0].values[0].RatString())
		}
		if !slices.Equal(got, want[name]) {
			t.Errorf("%s: at x = %v gives %v, want %v", mu.what, xs, got, want[name])
		}
	}
}
