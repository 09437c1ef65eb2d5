package attention

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
)

// The claims of §Simulating Multi-Head Attention with Single-Head
// Attention and the cheat sheet's Multi-head cells.

// ---------------------------------------------------------------------
// §Simulating Multi-Head Attention with Single-Head Attention.

// multiheadForms runs the multihead recipe's two forms, the two-head
// layer and its simulation by two single-head layers and an addition, on
// every input up to maxN and compares every output exactly, and checks
// the forms' shapes (one layer with two heads; only single heads).
func multiheadForms(maxN int, ws ...model.Weighting) (*proofs.Evidence, error) {
	r, err := recipes.Get("multihead")
	if err != nil {
		return nil, err
	}
	total := 0
	for _, w := range ws {
		sim, err := r.Construct(w, maxN, map[string]string{"form": "simulation"})
		if err != nil {
			return nil, err
		}
		multi, err := r.Construct(w, maxN, map[string]string{"form": "multi-head"})
		if err != nil {
			return nil, err
		}
		heads := func(m *model.Model) (most, layers int) {
			for _, l := range m.Layers {
				if l.Attention != nil {
					most, layers = max(most, len(l.Attention.Heads)), layers+1
				}
			}
			return most, layers
		}
		if h, _ := heads(multi.Model); h != 2 {
			return nil, fmt.Errorf("the multi-head form has no two-head layer")
		}
		if h, l := heads(sim.Model); h != 1 || l != 2 {
			return nil, fmt.Errorf("the simulation has %s of up to %s, want 2 single-head layers", plural.Of(l, "attention layer"), plural.Of(h, "head"))
		}
		rs, err := runner(sim.Model, "exact")
		if err != nil {
			return nil, err
		}
		rm, err := runner(multi.Model, "exact")
		if err != nil {
			return nil, err
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for n := 1; n <= maxN; n++ {
			cases, all := sim.Inputs(n, rng, 1<<16)
			if !all {
				return nil, fmt.Errorf("length %d: too many inputs to enumerate", n)
			}
			for _, c := range cases {
				a, err := rs.Run(c.Symbols, false)
				if err != nil {
					return nil, err
				}
				b, err := rm.Run(c.Symbols, false)
				if err != nil {
					return nil, err
				}
				total++
				for i := range a.Outputs {
					for k := range a.Outputs[i].Values {
						x, y := a.Outputs[i].Values[k], b.Outputs[i].Values[k]
						xr, ok1 := x.Rat()
						if !ok1 || !y.Equals(xr) {
							s := fmt.Sprintf("under %s on %q, position %d: %s = %s (simulation) vs %s (two heads)", recipes.WeightingAcronym(w), symbols(sim.Model, c.Symbols), i+1, sim.Model.Output.Labels[k], x.Text, y.Text)
							return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
						}
					}
				}
				for i, want := range sim.Expected(c) {
					if ok, why := check.Compare(want, a.Outputs[i], sim.Bounds, sim.Model.Output.Labels); !ok {
						s := fmt.Sprintf("under %s on %q, position %d: %s", recipes.WeightingAcronym(w), symbols(sim.Model, c.Symbols), i+1, why)
						return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
					}
				}
			}
		}
	}
	var names []string
	for _, w := range ws {
		names = append(names, recipes.WeightingAcronym(w))
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("under %s: two single-head layers and an addition give exactly the outputs (y, c1, c2) of the two-head layer and its addition, and the reference v_{q_i} + v_{n+1−q_i}, on every input of length ≤ %d (%d runs of each form, exact)", strings.Join(names, " and "), maxN, total)}, nil
}

var multiheadClaims = []*proofs.Claim{
	// §Simulating Multi-Head Attention with Single-Head Attention.
	claim("attn.multihead.simulation", secMulti,
		"\"an attention layer with H heads can be simulated by H single-headed attention layers, and the results summed together at the end\"",
		"H = 2 quadratic-maximization heads (v_{q_i} and v_{n+1−q_i}), N = 3, every input of length n ≤ 3; AHAT and UHAT (leftmost); exact, both forms compared output by output", proofs.Holds,
		func() (*proofs.Evidence, error) { return multiheadForms(3, ahat, uhat) }),

	// The cheat sheet (tab:sa_cheatsheet, see cheatsheet): Multi-head.
	claim("attn.cheatsheet.multi-head.smat", secMulti, cheatsheet+"Multi-head, \"simulate multi-headed attention using a single head\": SMAT"+proofs.ReadQK,
		"two quadratic-maximization heads simulated by two single-head layers (softmax simulation, each head rounded), each N ≤ 3, every input of length n ≤ N; interval:64; the rounding FFN by exact/cpwl", proofs.Holds,
		func() (*proofs.Evidence, error) {
			return softmaxSim(proofs.Sweep{Recipe: "multihead", Weighting: smat, MaxN: 3, Precision: iv})
		}),
	claim("attn.cheatsheet.multi-head.ahat", secMulti, cheatsheet+"Multi-head: AHAT",
		"the simulation of two heads, N = 3, every input of length n ≤ 3; exact", proofs.Holds,
		sweepEvidence(proofs.Sweep{Recipe: "multihead", Weighting: ahat, MaxN: 3})),
	claim("attn.cheatsheet.multi-head.uhat", secMulti, cheatsheet+"Multi-head: UHAT",
		"the simulation of two heads, N = 3, every input of length n ≤ 3; leftmost UHAT; exact", proofs.Holds,
		sweepEvidence(proofs.Sweep{Recipe: "multihead", Weighting: uhat, MaxN: 3})),
}
