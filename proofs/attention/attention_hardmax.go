package attention

import (
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims on the weighting functions themselves: Definition Hardmax
// (§Self-Attention Layers) and Definition tieless (§Simulating
// Average-Hard Attention with Soft Attention), both decided on the same
// table of the engine's weights (hardmaxEngine), computed once.

// ---------------------------------------------------------------------
// §Self-Attention Layers: the weighting functions.

// hardmaxProbe is a one-head model whose scores at every position
// are the input symbols s_1 … s_n ∈ {0, …, k−1} (q = 1, k_j = s_j) and
// whose values are one-hot position vectors e_j, so that the output at
// every position is the weight vector α = S(s_1, …, s_n) itself, read
// out as α1 … αN (0 past n).
func hardmaxProbe(w model.Weighting, k, maxN int) (*model.Model, error) {
	es, as := make([]string, maxN), make([]string, maxN)
	for j := range es {
		es[j], as[j] = fmt.Sprintf("e%d", j+1), fmt.Sprintf("α%d", j+1)
	}
	in := append([]string{"1", "s"}, es...)
	q, key, v := model.Zeros(1, len(in)), model.Zeros(1, len(in)), model.Zeros(maxN, len(in))
	q.Set(0, 0, numeric.LitInt(1))
	key.Set(0, 1, numeric.LitInt(1))
	for j := range es {
		v.Set(j, 2+j, numeric.LitInt(1))
	}
	alphabet := make([]string, k)
	for s := range alphabet {
		alphabet[s] = fmt.Sprint(s)
	}
	head := &stream.Attn{Name: "probe", In: in, Out: as, Q: q, K: key, V: v, Weighting: w, Scale: model.NoScale}
	return stream.New("hardmax-probe-"+recipes.WeightingAcronym(w), in...).
		Symbols(alphabet, func(s int) stream.Values { return stream.Values{"s": numeric.LitInt(int64(s))} }).
		Positions("(1, e_j)", func(i, n int) stream.Values { return stream.Values{"1": numeric.LitInt(1), es[i-1]: numeric.LitInt(1)} }).
		Then(head).Readout(as...).Model()
}

// hardmaxDef is Definition Hardmax, computed from I(s), the indices
// of the maximal scores: lhardmax, rhardmax and avghardmax.
func hardmaxDef(w model.Weighting, s []int) []*big.Rat {
	top := s[0]
	for _, x := range s {
		top = max(top, x)
	}
	var idx []int
	for i, x := range s {
		if x == top {
			idx = append(idx, i)
		}
	}
	alpha := make([]*big.Rat, len(s))
	for i := range alpha {
		alpha[i] = new(big.Rat)
	}
	switch w {
	case model.LeftHardmax:
		alpha[idx[0]] = big.NewRat(1, 1)
	case model.RightHardmax:
		alpha[idx[len(idx)-1]] = big.NewRat(1, 1)
	case model.AverageHardmax:
		for _, i := range idx {
			alpha[i] = big.NewRat(1, int64(len(idx)))
		}
	}
	return alpha
}

var hardmaxes = []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax}

// hardmaxTable caches hardmaxEngine's table by (k, maxN): two
// claims read it.
var hardmaxTable = struct {
	sync.Mutex
	m map[[2]int]*hardmaxEntry
}{m: map[[2]int]*hardmaxEntry{}}

type hardmaxEntry struct {
	once   sync.Once
	table  map[model.Weighting]map[string][]*big.Rat
	inputs [][]int
	err    error
}

// hardmaxEngine returns, for every score vector in {0, …, k−1}^n,
// n ≤ maxN, the engine's weights under each hard weighting (exact),
// computed once per process.
func hardmaxEngine(k, maxN int) (map[model.Weighting]map[string][]*big.Rat, [][]int, error) {
	hardmaxTable.Lock()
	e := hardmaxTable.m[[2]int{k, maxN}]
	if e == nil {
		e = &hardmaxEntry{}
		hardmaxTable.m[[2]int{k, maxN}] = e
	}
	hardmaxTable.Unlock()
	e.once.Do(func() { e.table, e.inputs, e.err = hardmaxCompute(k, maxN) })
	return e.table, e.inputs, e.err
}

func hardmaxCompute(k, maxN int) (map[model.Weighting]map[string][]*big.Rat, [][]int, error) {
	inputs := upToLength(k, maxN)
	out := map[model.Weighting]map[string][]*big.Rat{}
	for _, w := range hardmaxes {
		m, err := hardmaxProbe(w, k, maxN)
		if err != nil {
			return nil, nil, err
		}
		r, err := runner(m, "exact")
		if err != nil {
			return nil, nil, err
		}
		out[w] = map[string][]*big.Rat{}
		for _, in := range inputs {
			res, err := r.Run(in, false)
			if err != nil {
				return nil, nil, err
			}
			alpha := make([]*big.Rat, len(in))
			for j := range in {
				for i := range in { // every position attends with the same query
					v, ok := res.Outputs[i].Values[j].Rat()
					if !ok {
						return nil, nil, fmt.Errorf("weight not exact")
					}
					if i == 0 {
						alpha[j] = v
					} else if v.Cmp(alpha[j]) != 0 {
						return nil, nil, fmt.Errorf("%s on %v: positions 1 and %d get different weights", m.Name, in, i+1)
					}
				}
			}
			out[w][fmt.Sprint(in)] = alpha
		}
	}
	return out, inputs, nil
}

func ratsEqual(a, b []*big.Rat) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Cmp(b[i]) != 0 {
			return false
		}
	}
	return true
}

func ratsText(xs []*big.Rat) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.RatString()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// hardmaxDefinition: the engine's weightings are Definition Hardmax
// on every score vector of {0, …, k−1}^n, n ≤ maxN.
func hardmaxDefinition(def func(model.Weighting, []int) []*big.Rat, k, maxN int) (*proofs.Evidence, error) {
	eng, inputs, err := hardmaxEngine(k, maxN)
	if err != nil {
		return nil, err
	}
	for _, w := range hardmaxes {
		for _, in := range inputs {
			if got, want := eng[w][fmt.Sprint(in)], def(w, in); !ratsEqual(got, want) {
				s := fmt.Sprintf("%s of the scores %v: the engine gives %s, Definition Hardmax %s", w, in, ratsText(got), ratsText(want))
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("lhardmax, rhardmax and avghardmax of the engine equal Definition Hardmax (from I(s)) on every score vector s ∈ {0,…,%d}^n, n ≤ %d (%d vectors each, exact; scores q·k_j of a probe head, weights read through one-hot values)", k-1, maxN, len(inputs))}, nil
}

// tieless: for every tieless score vector of {0, …, k−1}^n, n ≤ maxN,
// the three hardmaxes of Definition Hardmax agree, and so do the engine's.
func tieless(def func(model.Weighting, []int) []*big.Rat, k, maxN int) (*proofs.Evidence, error) {
	eng, inputs, err := hardmaxEngine(k, maxN)
	if err != nil {
		return nil, err
	}
	tieless, ties := 0, 0
	for _, in := range inputs {
		top, count := in[0], 0
		for _, x := range in {
			top = max(top, x)
		}
		for _, x := range in {
			if x == top {
				count++
			}
		}
		if count > 1 {
			ties++
			continue
		}
		tieless++
		l, r, a := def(model.LeftHardmax, in), def(model.RightHardmax, in), def(model.AverageHardmax, in)
		el, er, ea := eng[model.LeftHardmax][fmt.Sprint(in)], eng[model.RightHardmax][fmt.Sprint(in)], eng[model.AverageHardmax][fmt.Sprint(in)]
		if !ratsEqual(l, r) || !ratsEqual(l, a) || !ratsEqual(el, er) || !ratsEqual(el, ea) || !ratsEqual(l, el) {
			s := fmt.Sprintf("the tieless scores %v: Definition Hardmax gives l %s, r %s, avg %s; the engine l %s, r %s, avg %s",
				in, ratsText(l), ratsText(r), ratsText(a), ratsText(el), ratsText(er), ratsText(ea))
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("lhardmax(s) = rhardmax(s) = avghardmax(s) (Definition Hardmax and the engine) for every tieless s ∈ {0,…,%d}^n, n ≤ %d: %d tieless vectors (the other %d have ties, where they differ)", k-1, maxN, tieless, ties)}, nil
}

// hardProbe is the domain of the claims decided on hardmaxEngine's
// table: the score vectors of {0, …, k−1}^n up to length n.
func hardProbe(k, n int) string {
	return fmt.Sprintf("score vectors s ∈ {0,…,%d}^n, n ≤ %d, as the scores of a probe head (q = 1, k_j = s_j, one-hot values), exact arithmetic", k-1, n)
}

var hardmaxClaims = []*proofs.Claim{
	// §Self-Attention Layers: Definition Hardmax.
	claim("attn.hardmax.definition", secAttn,
		"Definition Hardmax: with I(s) = {i | s_i = max s}, [lhardmax(s)]_i = 𝕀[i = min I(s)], [rhardmax(s)]_i = 𝕀[i = max I(s)], [avghardmax(s)]_i = 𝕀[i ∈ I(s)]/|I(s)| (the engine's weightings are these)",
		hardProbe(3, 5), proofs.Holds,
		func() (*proofs.Evidence, error) { return hardmaxDefinition(hardmaxDef, 3, 5) }),

	// §Simulating Average-Hard Attention with Soft Attention: Definition tieless.
	claim("attn.hardmax.tieless", secApprox,
		"\"If s is tieless, then lhardmax(s) = rhardmax(s) = avghardmax(s)\" (Definition tieless: |{i | s_i = max s}| = 1)",
		hardProbe(3, 5)+"; Definition Hardmax and the engine", proofs.Holds,
		func() (*proofs.Evidence, error) { return tieless(hardmaxDef, 3, 5) }),
}
