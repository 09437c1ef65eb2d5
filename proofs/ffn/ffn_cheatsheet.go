package ffn

import (
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/blocks"
)

// ---------------------------------------------------------------------
// The cheat sheet (tab:ffnn_cheatsheet): its "Exact?" column, row by row.
// Each claim cites the section of the row's Reference column.

var cheatsheetClaims = []*proofs.Claim{
	claim("ffn.cheatsheet.identity.exact", secIdentity, "sec:ffnn_identity",
		"cheat sheet: Identity, ℝ^d → ℝ^d, \"returns the input unchanged\", Exact? Yes",
		"x ∈ ℝ^d, every d ≥ 1 (the proof at d = 1, coordinatewise)", proofs.Proved, everyWidth(identityBlock, []int{2, 3, 4, 16}, all(identityCases(1)...))),
	claim("ffn.cheatsheet.minmax.exact", secMinMax, "sec:ffnn_minmax",
		"cheat sheet: Min / Max, ℝ² → ℝ, Exact? Yes",
		"(x, y) ∈ ℝ²", proofs.Proved, all(minCase(blocks.Min("x", "y", "out")), maxCase(blocks.Max("x", "y", "out")))),
	claim("ffn.cheatsheet.addsub.exact", secAdd, "sec:ffnn_addition",
		"cheat sheet: Add / Subtract, ℝ² → ℝ, Exact? Yes",
		"(x, y) ∈ ℝ²", proofs.Proved, all(addCase(blocks.Add("x", "y", "out")), subCase(blocks.Sub("x", "y", "out")))),
	claim("ffn.cheatsheet.scale.exact", "Routing Lemma", "sec:routing",
		"cheat sheet: Multiply by c, ℝ → ℝ, x ↦ c x, Exact? Yes",
		"x ∈ ℝ and every c ∈ ℚ (the identity's proof and the scaling)", proofs.Proved,
		everyConstant(scaleBlock, preScaleBlock, scaleConstants, identityBlock(1))),
	claim("ffn.cheatsheet.mul.not-exact", secMul, "sec:ffnn_multiplication",
		"cheat sheet: Multiply (xy), ℝ² → ℝ, \"via 2nd-order Taylor expansion of GELU\", Exact? No",
		"the GELU product at (x, y) = (1, 1), erf and tanh GELU", proofs.Proved,
		checkCheatsheetMulNotExact),
	claim("ffn.cheatsheet.comparators.not-exact", secCompare, "sec:comparison",
		"cheat sheet: Comparators, ℝ → {0,1}, 𝕀[x > 0], 𝕀[x ≥ 0], 𝕀[x = 0], Exact? No",
		"GTZero_ε, GEZero_ε, EqZero_ε at a point of their gray regions, ε ∈ {1/4, 1, 3}", proofs.Proved,
		func() (*proofs.Evidence, error) { return checkComparatorsNotExact(gtzeroEps, gezeroEps, eqzeroEps) }),
	claim("ffn.cheatsheet.boolean.exact", secBoolean, "sec:ffnn_boolean",
		"cheat sheet: Boolean functions, {0,1}^m → {0,1}, \"any Boolean function of m bits\", Exact? Yes",
		"every φ of m ≤ 3 bits, every x ∈ {0,1}^m", proofs.Holds,
		func() (*proofs.Evidence, error) { return checkBooleanTables(blocks.Boolean, 3) }),
	claim("ffn.cheatsheet.if.exact", secIf, "sec:ffnn_conditional",
		"cheat sheet: Conditional (if), \"if p = 1 then x else y\", Exact? Yes, on the section's domain x, y ∈ [0, 1]",
		"the faces p = 1 and p = 0 with x, y ∈ [0, 1]", proofs.Proved,
		all(ifCases(blocks.If("p", "x", "y", "out"), "0", "1")...)),
	claim("ffn.cheatsheet.if.type", secIf, "sec:ffnn_conditional",
		"cheat sheet: Conditional (if) has type {0,1} × ℝ² → ℝ and is exact: if(p, x, y) for every real x, y",
		"the faces p = 1 and p = 0 with (x, y) ∈ ℝ² (the row's type; §Conditionals assumes x, y ∈ [0, 1])", proofs.Refuted,
		checkCheatsheetIfType),
	claim("ffn.cheatsheet.cpwl.exact", secCPWL, "sec:ffnn_cpwl",
		"cheat sheet: CPWL f, \"any continuous piecewise-linear function with finitely many pieces\", Exact? Yes: the univariate construction",
		"d = 1: x ∈ ℝ, for 4 point sets", proofs.Holds, checkCPWL(cpwlBlock, interpolation)),
	claim("ffn.cheatsheet.cpwl.multivariate", secCPWL, "sec:ffnn_cpwl",
		"cheat sheet: CPWL f: ℝ^d → ℝ for d > 1, exact (\"computed exactly by a FFNN with O(log k) layers\", Arora et al., not reproduced)",
		"d > 1", proofs.OutOfScope,
		checkCheatsheetCpwlMultivariate),
	claim("ffn.cheatsheet.cancel-residual.exact", secCancel, "sec:ffnn_cancel_residual",
		"cheat sheet: Cancel Residual, ℝ^d → ℝ^d, \"builds f′ so that f′(x) + x = f(x)\", Exact? Yes",
		"x ∈ ℝ^d for four f (sort, clip, two seeded random blocks)", proofs.Holds,
		func() (*proofs.Evidence, error) { return checkCancel(blocks.CancelResidual, cancelCases()) }),
}

// checkCheatsheetMulNotExact checks ffn.cheatsheet.mul.not-exact.
func checkCheatsheetMulNotExact() (*proofs.Evidence, error) {
	models := map[string]*model.Model{}
	for _, g := range gelus {
		m, err := mulModel(g.act)
		if err != nil {
			return nil, err
		}
		models[g.name] = m
	}
	return checkMulNotExact(models)
}

// checkCheatsheetIfType checks ffn.cheatsheet.if.type.
func checkCheatsheetIfType() (*proofs.Evidence, error) {
	ev, err := proofs.ProveCases(ifCases(blocks.If("p", "x", "y", "out"), "", ""))
	if err != nil || ev.Verdict != proofs.Refuted {
		return ev, err
	}
	ev.Explain = append(ev.Explain,
		"No ReLU FFN is exact on {0,1} × ℝ²: an FFN f is L-Lipschitz for some L, but |f(1, x, y) − f(0, x, y)| = |x − y| would be unbounded at distance 1.",
		"§Conditionals itself assumes x, y ∈ [0, 1] (or a bounded interval [a, b], with weights depending on it): ffn.if.exact, ffn.if.interval.")
	return ev, nil
}

// checkCheatsheetCpwlMultivariate checks ffn.cheatsheet.cpwl.multivariate.
func checkCheatsheetCpwlMultivariate() (*proofs.Evidence, error) {
	return &proofs.Evidence{Verdict: proofs.OutOfScope,
		Summary: "the multivariate construction is cited (Arora et al. 2018), not given; it needs several layers, which one feed-forward sublayer is not",
		Explain: []string{
			"One hidden layer does not suffice for d ≥ 2: max(0, x₁, x₂) is CPWL but not a two-layer ReLU FFN. A two-layer FFN is non-differentiable on a union of whole hyperplanes (each unit's kink extends along its whole hyperplane unless units on the same hyperplane cancel, and then they cancel everywhere on it), while max(0, x₁, x₂) is non-differentiable on the ray {x₁ = 0, x₂ < 0} but differentiable at (0, 1) on the same line.",
			"So the row's \"Yes\" for ℝ^d → ℝ holds for multi-layer networks, as the section says, not for the single FFN of the other rows."}}, nil
}
