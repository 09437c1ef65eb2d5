package mutation

// The rows. Each names one mutant: the file, the original text (exactly
// once in it), the mutated text, and the tests that must catch it. Kill
// patterns are narrow, so that the whole run stays within a few minutes
// (TestLongSourceMutants -mutation.survey runs every test that can see
// the mutant instead).
var mutants = []mutant{
	// certify, the general comparison of a query's keys (orderKept, and
	// checkOrder past maxLinear candidates): a model tie against a key of
	// lower exact score is an order lost (average hardmax averages the
	// two, leftmost or rightmost hardmax may take the lower one).
	{name: "orderKept: a model tie below a candidate kept", file: "certify/order.go",
		from: "case e < 0 && m != -1:", to: "case e < 0 && m == 1:",
		run: "^TestOrderTiesByHand$", pkgs: certify},
	{name: "checkOrder: a model tie below a candidate kept", file: "certify/order.go",
		from: "p != nil && b.Cmp(p.checked, it.checked) != -1 {", to: "p != nil && b.Cmp(p.checked, it.checked) == 1 {",
		run: "^TestManyCandidatesByHand$", pkgs: certify},
	// Exact ties must stay ties in the model.
	{name: "orderKept: a broken tie not reported", file: "certify/order.go",
		from: "\t\tcase tie != nil:\n\t\t\ta.broken(h, qw, i, c, tie, \"tie\")\n", to: "",
		run: "^TestOrderTiesByHand$", pkgs: certify},
	{name: "orderKept: a broken tie not looked for", file: "certify/order.go",
		from: "\t\t\tcase e == 0 && m != 0 && tie == nil:\n\t\t\t\ttie = it\n", to: "",
		run: "^TestOrderTiesByHand$", pkgs: certify},
	{name: "checkOrder: the tie check dropped", file: "certify/order.go",
		from: "range []*scored[T]{hi.other(it.pos), lo.other(it.pos)} {", to: "range []*scored[T]{} {",
		run: "^TestManyCandidatesByHand$", pkgs: certify},
	// The strict-future mask: position i sees 1 … i − 1. One more is
	// safe by luck on the recipes (it refuses what it should certify),
	// one fewer unsound.
	{name: "visible: a strict-future query sees itself", file: "certify/head.go",
		from: "return 1, i - 1", to: "return 1, i",
		run: "^TestStrictFutureByHand$", pkgs: certify},
	{name: "visible: a strict-future query misses its predecessor", file: "certify/head.go",
		from: "return 1, i - 1", to: "return 1, i - 2",
		run: "^TestStrictFutureByHand$", pkgs: certify},
	// certify's fast path (slots.go): the same conditions on float64s.
	// m <= mc in the first term also breaks every kept exact tie, which
	// only sends the query to the general code: its one unsound change
	// is the tie below.
	{name: "kept: a model tie below a candidate kept", file: "certify/fast.go",
		from: "broken |= (bit(f < fc) ^ bit(m < mc)) | (bit(f > fc) ^ bit(m > mc))",
		to:   "broken |= (bit(f < fc) ^ bit(m <= mc)) | (bit(f > fc) ^ bit(m > mc))",
		run:  "^TestOrderTiesByHand$", pkgs: certify},
	{name: "kept: the precedence slip, ((a ^ b) | c) ^ d", file: "certify/fast.go",
		from: "broken |= (bit(f < fc) ^ bit(m < mc)) | (bit(f > fc) ^ bit(m > mc))",
		to:   "broken |= bit(f < fc) ^ bit(m < mc) | bit(f > fc) ^ bit(m > mc)",
		run:  "^(TestOrderTiesByHand|TestMixedEmbeddingReproducer)$", pkgs: certify},
	{name: "keptOneKey: a model tie with the maximum kept", file: "certify/fast.go",
		from: "broken |= bit(f >= top) ^ bit(ms[k] >= most)", to: "broken |= bit(f >= top) &^ bit(ms[k] >= most)",
		run: "^TestOrderTiesByHand$", pkgs: certify},
	{name: "keptOneKey: tied candidates apart in the model kept", file: "certify/fast.go",
		from: "broken |= bit(f >= top) ^ bit(ms[k] >= most)", to: "broken |= bit(ms[k] >= most) &^ bit(f >= top)",
		run: "^TestOrderTiesByHand$", pkgs: certify},
	{name: "keptRow: a model tie with the candidates kept", file: "certify/fast.go",
		from: "below && low >= lo", to: "below && low > lo",
		run: "^TestOrderTiesByHand$", pkgs: certify},
	{name: "keptRow: tied candidates apart in the model kept", file: "certify/fast.go",
		from: "nan != 0 || lo != hi || below", to: "nan != 0 || below",
		run: "^TestOrderTiesByHand$", pkgs: certify},
	{name: "fastOutputs: non-finite values let through", file: "certify/fast.go",
		from: "if sc.slow > 0 || x.nonFinite[hi] != x.nonFinite[lo-1] {", to: "if sc.slow > 0 {",
		run: "^TestNonFiniteRefused$", pkgs: certify},

	// certify: the candidates, the outputs a query can give, their
	// counts, the cache of averaged outputs, liveness, witnesses.
	{name: "candidates: a key tied with the threshold dropped", file: "certify/order.go",
		from: "cand[x] = thr == nil || cmp(&items[x], thr) >= 0", to: "cand[x] = thr == nil || cmp(&items[x], thr) > 0",
		run: "^TestOrderTiesByHand$", pkgs: certify},
	{name: "orderKept: the same key elsewhere taken for a duplicate", file: "certify/order.go",
		from: "if items[y].pos == items[x].pos && items[y].kid == items[x].kid {", to: "if items[y].kid == items[x].kid {",
		run: "^TestOrderTiesByHand$", pkgs: certify},
	{name: "headOutputs: exactly tied pairs of a broken order dropped", file: "certify/general.go",
		from: "ix.pos != iy.pos && cmpExact(ix, iy) >= 0", to: "ix.pos != iy.pos && cmpExact(ix, iy) > 0",
		run: "^TestOrderTiesByHand$", pkgs: certify},
	{name: "ties: the tie count dropped", file: "certify/headoutputs.go",
		from: "return 1 + len(partners), \"\"", to: "return 1, \"\"",
		run: "^TestAverageCountsByHand$", pkgs: certify},
	{name: "averaged: the model's value left out of the cache key", file: "certify/headoutputs.go",
		from: "key := [4]int{x.vid, mr, y.vid, mm}", to: "key := [4]int{x.vid, mr, x.vid, mm}",
		run: "^TestOrderTiesByHand$", pkgs: certify},
	{name: "averaged: the model's tie count left out of the cache key", file: "certify/headoutputs.go",
		from: "key := [4]int{x.vid, mr, y.vid, mm}", to: "key := [4]int{x.vid, mr, y.vid, mr}",
		run: "^TestAverageCountsByHand$", pkgs: certify},
	{name: "liveness: the values' columns not live", file: "certify/live.go",
		from: "\t\t\t\torInto(in, h.V.ReadColumns())\n", to: "",
		run: "^TestStrictFutureByHand$", pkgs: certify},
	{name: "liveness: the residual passes nothing on", file: "certify/live.go",
		from: "\t\t\t\torInto(before, live[k+1])\n", to: "",
		run: "^TestOrderTiesByHand$", pkgs: certify},
	{name: "union: a conflict at one position ignored", file: "certify/witness.go",
		from: "if a.at[i].Symbol != b.at[j].Symbol {", to: "if false && a.at[i].Symbol != b.at[j].Symbol {",
		run: "^TestSuspectWitnesses$", pkgs: certify},

	// certify's chain: a conclusion carried to the next length stands only
	// where the new position's keys score strictly below every candidate.
	{name: "chained: a new key tied with the candidates in the model carried", file: "certify/chain.go",
		from: "if a.backend.Cmp(sm[x], c.minM) != numeric.Less {", to: "if a.backend.Cmp(sm[x], c.minM) == numeric.Greater {",
		run: "^TestChainIsEachLength$", pkgs: certify},
	{name: "chained: a new key tied with the candidates exactly carried", file: "certify/chain.go",
		from: "if err != nil || e.Cmp(c.minE) >= 0 {", to: "if err != nil || e.Cmp(c.minE) > 0 {",
		run: "^TestChainExactTieByHand$", pkgs: certify},
	{name: "chained: a new key tied with the candidates exactly carried (float64)", file: "certify/chain.go",
		from: "if f >= *c.minEf {", to: "if f > *c.minEf {",
		run: "^TestChainExactTieByHand$", pkgs: certify},

	// certify/recheck, the independent checker: a key at the bar must be
	// listed; within a session, a fact is carried only where the new keys
	// fall below, and only while the items stay the same.
	{name: "recheck held: a key at the bar not required listed", file: "certify/recheck/held.go",
		from: "if (b.top < 0 || sl.pos == b.top || e[sl.kid] >= e[b.kid]) && !listedAt(cands, sl.pos, sl.kid) {",
		to:   "if (b.top < 0 || sl.pos == b.top || e[sl.kid] > e[b.kid]) && !listedAt(cands, sl.pos, sl.kid) {",
		run:  "^(TestRecheckRefusesCandidateLeftOut|TestRecheckSessionRefusesStaleFacts)$", pkgs: certify},
	{name: "recheck onePassOne: a key at the bar not required listed", file: "certify/recheck/held.go",
		from: "if (top < 0 || pos == top || e >= bar) && !(pos == cpos && kid == ckid) {",
		to:   "if (top < 0 || pos == top || e > bar) && !(pos == cpos && kid == ckid) {",
		run:  "^TestRecheckRefusesCandidateLeftOut$", pkgs: certify},
	{name: "recheck onePassOne: an order lost in the model kept", file: "certify/recheck/held.go",
		from: "if cmpInt(ec, e) != cmpFloat(mc, m) {", to: "if cmpInt(ec, e) != cmpFloat(mc, m) && false {",
		run: "^TestRecheckRefusesOrderSaidKept$", pkgs: certify},
	{name: "recheck carried: the new keys not required below", file: "certify/recheck/session.go",
		from: "if ok, err := h.below(q, hi, v, where); err != nil || !ok {", to: "if _, err := h.below(q, hi, v, where); err != nil {",
		run: "^TestRecheckSessionRefusesStaleFacts$", pkgs: certify},
	{name: "recheck carried: the items of the range not required the same", file: "certify/recheck/session.go",
		from: "case v.hi == hi-1 && sh.stable(lo, hi-1):", to: "case v.hi == hi-1:",
		run: "^TestRecheckSessionRefusesStaleFacts$", pkgs: certify},

	// exact/cpwl: the certificate check must compare both sides, both
	// maps, and cover the domain.
	{name: "sameOn: only the maximum of f − g checked", file: "exact/cpwl/certificate.go",
		from: "for _, sign := range []int64{1, -1} {", to: "for _, sign := range []int64{1} {",
		run: forged, pkgs: cpwl},
	{name: "sameOn: only the minimum of f − g checked", file: "exact/cpwl/certificate.go",
		from: "for _, sign := range []int64{1, -1} {", to: "for _, sign := range []int64{-1} {",
		run: forged, pkgs: cpwl},
	{name: "sameOn: a constant difference skipped", file: "exact/cpwl/certificate.go",
		from: "if delta.IsZero() && gamma.Sign() == 0 {", to: "if delta.IsZero() {",
		run: forged, pkgs: cpwl},
	{name: "CheckEquivalent: g's map taken for f's", file: "exact/cpwl/certificate.go",
		from: "gm, err := patternMap(g, cell.PatternG)", to: "gm, err := patternMap(f, cell.Pattern)",
		run: forged, pkgs: cpwl},
	{name: "CheckEquivalent: g's pattern left out of the cell", file: "exact/cpwl/certificate.go",
		from: "sg, err := signPolyhedron(g, cell.PatternG)", to: "sg, err := signPolyhedron(f, cell.Pattern)",
		run: forged, pkgs: cpwl},
	{name: "CheckVerify: the pieces' cover not required", file: "exact/cpwl/certificate.go",
		from: "\tif !cov.Covered {\n\t\treturn nil, &CertificateError{Reason: fmt.Sprintf(\"the pieces miss",
		to:   "\tif false {\n\t\treturn nil, &CertificateError{Reason: fmt.Sprintf(\"the pieces miss",
		run:  forged, pkgs: cpwl},

	// frontier: the bisections must close their gaps, phase 2 must
	// bisect what phase 1 leaves, and the merge must keep every shard.
	{name: "bisect: the limit's bisection stops at a gap of 2", file: "frontier/frontier.go",
		from: "for hi > 0 && hi-lo > 1 && row.Error", to: "for hi > 0 && hi-lo > 2 && row.Error",
		run: "^TestFrontierBisection$", pkgs: frontier},
	{name: "bisect: the decisions' bisection stops at a gap of 2", file: "frontier/frontier.go",
		from: "for len(row.Decisions) > 0 && hi > 0 && hi-lo > 1", to: "for len(row.Decisions) > 0 && hi > 0 && hi-lo > 2",
		run: "^TestFrontierDecisionBisection$", pkgs: frontier},
	{name: "phase 2: a gap of 2 not bisected", file: "frontier/shard.go",
		from: "bisects := c.rep.Bisect && (hi > 0 && hi-lo > 1 ||", to: "bisects := c.rep.Bisect && (hi > 0 && hi-lo > 2 ||",
		run: "^TestPhase2WithoutDecisions$", pkgs: frontier},
	{name: "sweepLengths: the length after the predicted limit left out", file: "frontier/predict.go",
		from: "range []int{pr.Limit, pr.Limit + 1} {", to: "range []int{pr.Limit} {",
		run: "^TestSweepLengths$", pkgs: frontier},
	{name: "compose: one shard's part of a length kept", file: "frontier/shard.go",
		from: "parts[pt.N] = append(parts[pt.N], pt)", to: "parts[pt.N] = []check.LengthPart{pt}",
		run: "^TestFrontierShardsMerge$/^exhaustive_lengths_in_parts$", pkgs: frontier},
	{name: "apply: a length bisected twice accepted", file: "frontier/shard.go",
		from: "if have[lr.N] || j > 0 && lr.N <= bisected[j-1].N {", to: "if j > 0 && lr.N < bisected[j-1].N {",
		run: "^TestMergeRefusesContradictions$", pkgs: frontier},
	// check, the comparison with a real reference (irrational.go): the
	// correct rounding required, each side of a disjoint enclosure, a
	// straddle left undecided, the refinement, the literals kept exact.
	{name: "correctlyRounded: any finite output passes", file: "check/irrational.go",
		from: "\tcase got.Equals(want):", to: "\tcase true:",
		run: "^TestCorrectRoundingGolden$", pkgs: checkPkg},
	{name: "realExact: an enclosure below the real not refuted", file: "check/irrational.go",
		from: "case got.Hi.Cmp(lo) < 0 || hi.Cmp(got.Lo) < 0:", to: "case got.Hi.Cmp(lo) < 0:",
		run: "^TestRealComparisonsByHand$", pkgs: checkPkg},
	{name: "realExact: an enclosure above the real not refuted", file: "check/irrational.go",
		from: "case got.Hi.Cmp(lo) < 0 || hi.Cmp(got.Lo) < 0:", to: "case hi.Cmp(got.Lo) < 0:",
		run: "^TestRealComparisonsByHand$", pkgs: checkPkg},
	{name: "realBound: a straddled bound refuted", file: "check/irrational.go",
		from: "\t\tcase near.Cmp(max) > 0:\n\t\t\treturn fails\n\t\t}\n\t\treturn straddles", to: "\t\tcase near.Cmp(max) > 0:\n\t\t\treturn fails\n\t\t}\n\t\treturn fails",
		run: "^TestRealComparisonsByHand$", pkgs: checkPkg},
	{name: "settle: no refinement", file: "check/irrational.go",
		from: "var refineBits = []uint{realBits, 2 * realBits, 4 * realBits, 8 * realBits}", to: "var refineBits = []uint{realBits}",
		run: "^TestRefinementDecides$", pkgs: checkPkg},
	{name: "realExact: a rational literal judged by its rounding", file: "check/irrational.go",
		from: "if rounds(p) && !t.literal {", to: "if rounds(p) {",
		run: "^TestLiteralRealIsExact$", pkgs: checkPkg},
}

// The packages of the rows, and a pattern several share.
var (
	certify  = []string{"./certify/"}
	cpwl     = []string{"./exact/cpwl/"}
	frontier = []string{"./frontier/"}
	checkPkg = []string{"./check/"}
)

const forged = "^TestForgedCertificatesRejected$"

// equivalent holds mutants that no test can catch, each with the
// argument that it computes what the original does (or, where said, the
// same verdicts). They are not run; TestMutantRows keeps their text
// current, so that the argument stays attached to the code it is about.
var equivalent = []struct {
	mutant
	why string
}{
	{mutant{name: "checkOrder: a model tie above a candidate kept", file: "certify/order.go",
		from: "q != nil && b.Cmp(q.checked, it.checked) != 1 {", to: "q != nil && b.Cmp(q.checked, it.checked) == -1 {"},
		"the same verdicts: an item q above candidate it in exact score is itself a candidate (its score exceeds it's, " +
			"which reaches the largest smallest score of the positions other than it's own, so q's exceeds every threshold), " +
			"and q's own check of the groups below it finds it, tied with q in the model; only which of the two breaks is " +
			"recorded first can change"},
	{mutant{name: "candidates: a tie for the top replaces it", file: "certify/order.go",
		from: "case top1 == nil || cmp(m, top1) > 0:", to: "case top1 == nil || cmp(m, top1) >= 0:"},
		"a position whose smallest score ties top1 becomes top1 and the old top1 top2; either way top1 and top2 are " +
			"two positions of that one score, so every item's threshold has the same value and the candidates are the same"},
	{mutant{name: "sweepLengths: a predicted length at max n left out", file: "frontier/predict.go",
		from: "if n >= max(1, minN) && n <= maxN {", to: "if n >= max(1, minN) && n < maxN {"},
		"the predicted lengths are added only where the sweep bisects, that is where no lengths are given, and then " +
			"the lengths are check.DefaultLengths(minN, maxN), which always end at maxN: a predicted length at maxN is " +
			"checked anyway"},
	{mutant{name: "sameOn: an empty cell passed over rather than accepted", file: "exact/cpwl/certificate.go",
		from: "return nil // the cell is empty", to: "continue // the cell is empty"},
		"an infeasible LP means the cell is empty, and the LPs of every other sign and output over the same cell are " +
			"infeasible too, so going on reaches the same nil at the end"},
}
