package attention

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
)

// The lookups for every value: §Index Lookup states lookup: (ℝ³)^+ → ℝ^+
// for real values v_i, and the recipes' alphabets hold bits. The claims
// below cover every real value by an argument on the model's weights
// (valueArgument: the attention weights do not depend on the values,
// so c is affine in them) and runs on the value vectors 0 and e_k, which
// fix the affine map.

// valueSets follows the value component through the sublayers: dep
// marks the components that depend on the values, nonlin those that may
// depend on them other than affinely, with coefficients that depend on
// the values themselves.
type valueSets struct{ dep, nonlin []bool }

func (s valueSets) any(read []bool, set []bool) bool {
	for c, r := range read {
		if r && c < len(set) && set[c] {
			return true
		}
	}
	return false
}

// normReads is what a sublayer's inputs are made of: the components
// its norm reads (every input then depends on all of them, through the
// mean and the variance), or nil for none.
func normReads(ln *model.LayerNorm, d int) []bool {
	if ln == nil {
		return nil
	}
	return ln.Reads(d)
}

// valueArgument decides, from m's weights alone, that the readout
// labelled out is affine in the value component col with coefficients
// that do not depend on the values: every sublayer that reads a
// component depending on the values either is an attention head whose
// W^Q and W^K read none of them (so its weights do not depend on the
// values) and whose W^V reads only components affine in them, or writes
// components the readout does not read. It returns "" when the argument
// holds, else why it does not apply.
func valueArgument(m *model.Model, col int, out string) string {
	d := m.D
	if m.Norm == model.PostNorm {
		return "the model places its layer norms after the sublayers: every component is normalised"
	}
	s := valueSets{dep: make([]bool, d), nonlin: make([]bool, d)}
	s.dep[col] = true
	for l, layer := range m.Layers {
		if layer.NoAttentionResidual || layer.NoFeedForwardResidual {
			return fmt.Sprintf("layer %d has no residual connection", l+1)
		}
		s.throughAttention(layer, d)
		s.throughFeedForward(layer, d)
	}
	return s.readout(m, out)
}

// throughAttention follows the values through layer's attention: a
// component a head writes depends on them when the head reads one, and
// not affinely when the weights do.
func (s valueSets) throughAttention(layer model.Layer, d int) {
	a := layer.Attention
	if a == nil {
		return
	}
	dep, nonlin := make([]bool, d), make([]bool, d)
	normed := s.any(normReads(layer.AttentionNorm, d), s.dep)
	for _, h := range a.Heads {
		qk := h.Q.ReadColumns()
		for c, r := range h.K.ReadColumns() {
			qk[c] = qk[c] || r
		}
		v := h.V.ReadColumns()
		written := h.V.WrittenRows()
		// The weights depend on the values when the scores read
		// one (or a norm mixes one into every input); the output
		// is then not affine. Otherwise it is Σ_j w_ij V h_j, as
		// Affine as the components V reads.
		weighted := normed || (layer.AttentionNorm == nil && s.any(qk, s.dep))
		reads := normed || (layer.AttentionNorm == nil && s.any(v, s.dep))
		bent := weighted || normed || (layer.AttentionNorm == nil && s.any(v, s.nonlin))
		for c, w := range written {
			if w && (reads || weighted) {
				dep[c] = true
				nonlin[c] = nonlin[c] || bent
			}
		}
	}
	s.merge(dep, nonlin)
}

// throughFeedForward follows the values through layer's FFN.
func (s valueSets) throughFeedForward(layer model.Layer, d int) {
	f := layer.FeedForward
	if f == nil {
		return
	}
	normed := s.any(normReads(layer.FeedForwardNorm, d), s.dep)
	if normed || (layer.FeedForwardNorm == nil && s.any(f.W1.ReadColumns(), s.dep)) {
		// An activation between two linear maps: not affine.
		written := f.W2.WrittenRows()
		s.merge(written, written)
	}
}

// readout is why the output out is not affine in the values, or "".
func (s valueSets) readout(m *model.Model, out string) string {
	if m.FinalNorm != nil && s.any(m.FinalNorm.Reads(m.D), s.dep) {
		return "the final layer norm reads a component that depends on the values"
	}
	if m.Output.Kind != model.Readout {
		return "the output is not a readout"
	}
	row := slices.Index(m.Output.Labels, out)
	if row < 0 {
		return "the model has no output " + out
	}
	for c := 0; c < m.D; c++ {
		if !m.Output.W.At(row, c).IsZeroLiteral() && s.nonlin[c] {
			return fmt.Sprintf("the readout %s reads %s, which depends on the values other than affinely", out, m.Components[c])
		}
	}
	return ""
}

func (s valueSets) merge(dep, nonlin []bool) {
	for c := range dep {
		s.dep[c] = s.dep[c] || dep[c]
		s.nonlin[c] = s.nonlin[c] || nonlin[c]
	}
}

// lookupValues decides, for the lookup recipe built for N = maxN
// under weighting w, that c_i = v_{q_i} for every real value v: the value
// enters only component v (the word embeddings of q:1 and q:0 differ by
// e_v), c is affine in the values with coefficients that do not depend on
// them (valueArgument), so c_i(v) = c_i(0) + Σ_k v_k (c_i(e_k) −
// c_i(0)); and for every length n ≤ N and every query sequence the runs
// at v = 0 and v = e_k (k ∈ [n]), exact points at precision p, give
// c_i(0) = 0 and c_i(e_k) = [k = q_i]. Then it runs `random` inputs of
// seeded random rationals through the recipe's own value inputs, which
// must agree.
func lookupValues(recipe string, params map[string]string, w model.Weighting, maxN int, p string, random int) (*proofs.Evidence, error) {
	r, err := recipes.Get(recipe)
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(w, maxN, params)
	if err != nil {
		return nil, err
	}
	return valuesOf(con, maxN, p, random)
}

// valuesOf is lookupValues on a lookup construction built for N
// = maxN.
func valuesOf(con *recipes.Construction, maxN int, p string, random int) (*proofs.Evidence, error) {
	m := con.Model
	col := slices.Index(m.Components, "v")
	if col < 0 {
		return nil, fmt.Errorf("%s has no component v", m.Name)
	}
	sym := map[string]int{}
	for s, name := range m.Alphabet {
		sym[name] = s
	}
	for q := 1; q <= maxN; q++ {
		h0, err := embed(m, sym[fmt.Sprintf("%d:0", q)], 1, 1)
		if err != nil {
			return nil, err
		}
		h1, err := embed(m, sym[fmt.Sprintf("%d:1", q)], 1, 1)
		if err != nil {
			return nil, err
		}
		for c := range h0 {
			diff := new(big.Rat).Sub(h1[c], h0[c])
			if want := big.NewRat(int64(btoi(c == col)), 1); diff.Cmp(want) != 0 {
				return nil, fmt.Errorf("%s: the embeddings of %d:1 and %d:0 differ by %s in %s, not by e_v", m.Name, q, q, diff.RatString(), m.Components[c])
			}
		}
	}
	if why := valueArgument(m, col, "c"); why != "" {
		return nil, fmt.Errorf("%s: the linearity argument does not apply: %s", m.Name, why)
	}
	runner, err := runner(m, p)
	if err != nil {
		return nil, err
	}
	k := slices.Index(m.Output.Labels, "c")
	runs := 0
	for n := 1; n <= maxN; n++ {
		for _, qs := range allStrings(n, n) {
			// basis[0] is v = 0, basis[k] is v = e_k.
			for b := 0; b <= n; b++ {
				in := make([]int, n)
				for i, q := range qs {
					in[i] = sym[fmt.Sprintf("%d:%d", q+1, btoi(i+1 == b))]
				}
				res, err := runner.Run(in, false)
				if err != nil {
					return nil, fmt.Errorf("%s on %q: %w", m.Name, symbols(m, in), err)
				}
				runs++
				for i, q := range qs {
					got := res.Outputs[i].Values[k]
					want := big.NewRat(int64(btoi(b > 0 && q+1 == b)), 1)
					if !got.Equals(want) {
						if got.Contains(want) {
							return nil, fmt.Errorf("%s on %q, position %d: c = %s is not a point: undecided at %s", m.Name, symbols(m, in), i+1, got.Text, p)
						}
						s := fmt.Sprintf("%s on %q (v = e_%d), position %d: c = %s, want exactly %s", m.Name, symbols(m, in), b, i+1, got.Text, want.RatString())
						return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
					}
				}
			}
		}
	}
	agreed, err := valueSpotCheck(con, p, maxN, random)
	if err != nil {
		return nil, err
	}
	if agreed != "" {
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: agreed, Explain: []string{agreed}}, nil
	}
	return &proofs.Evidence{Verdict: proofs.Proved,
		Summary: fmt.Sprintf("%s (N = %d): c affine in v with weights free of v, by the weights; %d runs at v = 0 and v = e_k, every c the exact point [k = q_i] (%s); %d inputs of seeded random rationals agree", m.Name, maxN, runs, p, random)}, nil
}

// valuesExplain is the argument of lookupValues.
var valuesExplain = []string{
	"The value enters only the component v: the word embeddings of q:1 and q:0 differ by e_v for every q.",
	"No component read by W^Q or W^K of the lookup head, nor by anything feeding it, depends on v (followed through every sublayer from the weights' nonzero columns and rows, a layer norm mixing all it selects), so the weights w_ij are functions of the queries and positions alone; W^V reads v, which no earlier sublayer changes, so c_i = Σ_j w_ij V h_j is affine in (v_1, …, v_n), and the readout c reads no component that depends on v otherwise.",
	"An affine map is fixed by its values at 0 and at the unit vectors: c_i(0) = 0 and c_i(e_k) = [k = q_i] for every n ≤ N and every query sequence give c_i(v) = Σ_k v_k [k = q_i] = v_{q_i} for every v ∈ ℝ^n.",
	"The random inputs (PCG seed 1: values a/b with |a| ≤ 10000, 1 ≤ b ≤ 999) run through the recipe's own value inputs ('verify run --input \"2:3/7 1:-5/2\"'), checking that the engine's path agrees with the argument.",
}

// valueSpotCheck runs random inputs with seeded random rational
// values (PCG seed 1) through the recipe's own parser and reference: ""
// when every case passes.
func valueSpotCheck(con *recipes.Construction, p string, maxN, random int) (string, error) {
	runner, err := runner(con.Model, p)
	if err != nil {
		return "", err
	}
	rng := rand.New(rand.NewPCG(1, 0x76616c)) // "val"
	for c := 0; c < random; c++ {
		n := 1 + rng.IntN(maxN)
		parts := make([]string, n)
		for i := range parts {
			v := big.NewRat(rng.Int64N(20001)-10000, 1+rng.Int64N(999))
			parts[i] = fmt.Sprintf("%d:%s", 1+rng.IntN(n), v.RatString())
		}
		text := strings.Join(parts, " ")
		cs, err := con.Parse(text)
		if err != nil {
			return "", fmt.Errorf("%s: %q: %w", con.Model.Name, text, err)
		}
		if lr := check.Cases(con, runner, []recipes.Case{cs}); lr.Passed != 1 {
			if lr.Failure != nil {
				return fmt.Sprintf("%s on %q, position %d: %s", con.Model.Name, text, lr.Failure.Position, lr.Failure.Reason), nil
			}
			return "", fmt.Errorf("%s on %q: failed without a failure", con.Model.Name, text)
		}
	}
	return "", nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// valueLookup is one lookup of §Index Lookup whose values claim is
// checked: the recipe, its section, the paper's name for it, and the
// largest N under AHAT and UHAT at the precision p.
type valueLookup struct {
	id, recipe, section, what string
	params                    map[string]string
	ahatN, uhatN              int
	p                         string
}

var valueLookups = []valueLookup{
	{"attn.lookup-qm.values", "lookup", secQM, "qmLookup", nil, 3, 3, "exact"},
	{"attn.lookup-onehot.values", "lookup-onehot", secOneHot, "ohLookup", nil, 3, 3, "exact"},
	{"attn.lookup-ao.values", "lookup-ao", secAO, "aoLookup", aoParams, 3, 3, "exact"},
	// Interval arithmetic (the hash's square roots), every output an
	// exact point; UHAT to N = 2, as attn.lookup-lh.exact.
	{"attn.lookup-lh.values", "lookup-lh", secLH, "lhLookup", nil, 3, 2, iv},
}

// valuesClaims are the claims of valueLookups, a row each.
func valuesClaims() []*proofs.Claim {
	var cs []*proofs.Claim
	for _, l := range valueLookups {
		cs = append(cs, claim(l.id, l.section,
			"§Index Lookup: "+l.what+" retrieves v_{q_i} for every value v_i, lookup: (ℝ³)^+ → ℝ^+ (not only bits)",
			l.domain(), proofs.Holds, l.check))
	}
	return cs
}

// domain is the claim's domain: N under each weighting, and the family's
// parameters where it has them.
func (l valueLookup) domain() string {
	domain := fmt.Sprintf("every real value v_i (so every rational), N = %d under AHAT and N = %d under UHAT (leftmost), every n ≤ N and query sequence; %s", l.ahatN, l.uhatN, l.p)
	if l.params != nil {
		domain += "; ε = 1/4, δ = 9/10"
	}
	return domain
}

// check decides the lookup's values claim under AHAT and UHAT.
func (l valueLookup) check() (*proofs.Evidence, error) {
	ev, err := all(
		func() (*proofs.Evidence, error) {
			return lookupValues(l.recipe, l.params, ahat, l.ahatN, l.p, 20)
		},
		func() (*proofs.Evidence, error) {
			return lookupValues(l.recipe, l.params, uhat, l.uhatN, l.p, 20)
		})
	if ev != nil && ev.Verdict == proofs.Proved {
		ev.Explain = valuesExplain
	}
	return ev, err
}
