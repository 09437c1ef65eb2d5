package attention

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
)

// The claims of §Self-Attention Layers (sec:attention and its
// subsections) and of the self-attention cheat sheet (tab:sa_cheatsheet).
// Most are decided by the recipes' own sweeps, exhaustively over every
// input up to a length; the rest by small checkers in these files: the
// scores and gaps computed from the constructions' weights, exact
// binomial probabilities for the almost orthogonal family, a certified
// interval search for Edelman's lemma, and linearity for the trivial
// heads whose inputs are real vectors.
//
// This file holds what several sections share: the section names and
// labels and claim, the sweep runners and their memos, the softmax
// simulation, running models built here, and the sweeps the claims rest
// on. Each attention_*.go file holds the claims of one section (or of a
// few related ones), a table of claims listed in claims.go, beside the
// checkers only they use:
//
//	attention_hardmax.go      §Self-Attention Layers (Definition Hardmax) and Definition tieless
//	attention_trivial.go      §Identity, §Average, §First
//	attention_lookup.go       §Index Lookup, §One-Hot Encodings, §Almost Orthogonal Embeddings,
//	                          §Layernorm hash, §Quadratic Maximization
//	attention_predecessor.go  §Predecessor
//	attention_multihead.go    §Simulating Multi-Head Attention with Single-Head Attention
//	attention_tiebreak.go     §Simulating Unique-Hard Attention with Average-Hard Attention
//	attention_softmax.go      §Simulating Average-Hard Attention with Soft Attention
//	attention_scaled.go       the claims above whose statement depends on the scores' scale,
//	                          read again under Definition def:attn (scores q·k/√d_key)
//
// The cheat sheet's cells are registered with the claims of the section
// each is filed under.

// ---------------------------------------------------------------------
// Sections, labels and claims.

// The sections of the chapter, as Claim.Section.
const (
	secAttn   = "Self-Attention Layers"
	secID     = "Identity"
	secAvg    = "Average"
	secFirst  = "First"
	secLookup = "Index Lookup"
	secOneHot = "One-Hot Encodings"
	secAO     = "Almost Orthogonal Embeddings"
	secLH     = "Layernorm hash"
	secQM     = "Quadratic Maximization"
	secPred   = "Predecessor"
	secMulti  = "Simulating Multi-Head Attention with Single-Head Attention"
	secTie    = "Simulating Unique-Hard Attention with Average-Hard Attention"
	secApprox = "Simulating Average-Hard Attention with Soft Attention"

	// cheatsheet begins the statement of every cell of the cheat sheet.
	// The cheat sheet, tab:sa_cheatsheet: one claim per row and weighting,
	// filed under the row's reference section. Each cell is checked under
	// the weighting it names; UHAT is leftmost unless the row's section
	// uses rightmost, and the domain says which.
	cheatsheet = "cheat sheet (tab:sa_cheatsheet): "
)

// labels is each section's label in the paper.
var labels = map[string]string{
	secAttn:   "sec:attention",
	secID:     "sec:identity-attention",
	secAvg:    "sec:uniform-attention",
	secFirst:  "sec:first",
	secLookup: "sec:table-lookup",
	secOneHot: "sec:one-hot",
	secAO:     "sec:almost_orthogonal",
	secLH:     "sec:layernorm_hash",
	secQM:     "sec:quadratic-maximization",
	secPred:   "sec:predecessor",
	secMulti:  "sec:multi-head",
	secTie:    "sec:tie-breaking",
	secApprox: "sec:att_approx",
}

// claim is a claim of this chapter, labelled by its section.
func claim(id, section, statement, domain string, v proofs.Verdict, check func() (*proofs.Evidence, error)) *proofs.Claim {
	return &proofs.Claim{ID: id, Section: section, Label: labels[section], Statement: statement, Domain: domain, Recorded: v, Check: check}
}

// params is a recipe's parameters from alternating names and values.
func params(xs ...string) map[string]string {
	m := map[string]string{}
	for k := 0; k+1 < len(xs); k += 2 {
		m[xs[k]] = xs[k+1]
	}
	return m
}

// ---------------------------------------------------------------------
// Sweeps: several recipes' exhaustive sweeps as one piece of evidence.

// memo caches sweep reports: several claims (a section's and a cheat
// sheet cell's) rest on the same sweep, which then runs once per process.
var memo = struct {
	sync.Mutex
	m map[string]*memoEntry
}{m: map[string]*memoEntry{}}

type memoEntry struct {
	once sync.Once
	rep  *check.Report
	err  error
}

func key(s proofs.Sweep) string {
	return fmt.Sprintf("%s|%d|%v|%d|%s|%d|%d|%v|%v", s.Recipe, s.Weighting, s.Params, s.MaxN, s.Precision, s.Cases, s.Seed, s.Unlisted, s.SqrtDKey)
}

// run runs s once per process.
func run(s proofs.Sweep) (*check.Report, error) {
	memo.Lock()
	e := memo.m[key(s)]
	if e == nil {
		e = &memoEntry{}
		memo.m[key(s)] = e
	}
	memo.Unlock()
	e.once.Do(func() { e.rep, _, e.err = s.Run() })
	return e.rep, e.err
}

// exhaustive proves a claim by several sweeps, each over every input
// of every length up to its maxN: PROVED when all pass, REFUTED with the
// first failure. With points set the claim is exactness in a backend that
// may return enclosures (interval arithmetic): every output of every case
// must then be an exact point equal to the reference, and an enclosure
// that only contains it leaves the verdict at HOLDS.
func exhaustive(points bool, ss ...proofs.Sweep) (*proofs.Evidence, error) {
	var parts []string
	precision := ""
	total, notPoints := 0, 0
	for _, s := range ss {
		rep, err := run(s)
		if err != nil {
			return nil, err
		}
		cases := 0
		for _, lr := range rep.Lengths {
			if !lr.Exhaustive && rep.Passed {
				return nil, fmt.Errorf("%s: length %d has too many inputs to enumerate; lower maxN", s.Describe(), lr.N)
			}
			cases += lr.Cases
			notPoints += lr.Cases - lr.Exact
		}
		if !rep.Passed {
			if f := rep.FirstFailure; strings.HasPrefix(f.Reason, "undecided") {
				// An enclosure that contains the value but is not a point:
				// neither a proof nor a refutation.
				return nil, fmt.Errorf("%s on %q, position %d: %s", s.Describe(), f.Input, f.Position, f.Reason)
			}
			return proofs.Failure(s, rep), nil
		}
		total += cases
		precision = rep.Precision
		parts = append(parts, fmt.Sprintf("%s, n ≤ %d (%d inputs)", s.Describe(), s.MaxN, cases))
	}
	sum := fmt.Sprintf("every input: %s; %s", strings.Join(parts, "; "), precision)
	if points && notPoints > 0 {
		return &proofs.Evidence{Verdict: proofs.Holds, Summary: fmt.Sprintf("every enclosure contains the reference, but %d of %d cases %s an output that is not an exact point: %s", notPoints, total, plural.Form(notPoints, "has", "have"), sum)}, nil
	}
	if points {
		sum += ", every output an exact point"
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: sum, Explain: parts}, nil
}

// upTo returns s for every N = 1 … s.maxN: a construction whose
// weights depend on N (the softmax simulation's 1/τ = log(8N)/γ) is
// Checked on every length n ≤ N for each of those N.
func upTo(s proofs.Sweep) []proofs.Sweep {
	var ss []proofs.Sweep
	for n := 1; n <= s.MaxN; n++ {
		t := s
		t.MaxN = n
		ss = append(ss, t)
	}
	return ss
}

// sweepsEach is the sweeps of recipe over several weightings.
func sweepsEach(recipe string, maxN int, params map[string]string, precision string, ws ...model.Weighting) []proofs.Sweep {
	var ss []proofs.Sweep
	for _, w := range ws {
		ss = append(ss, proofs.Sweep{Recipe: recipe, Weighting: w, Params: params, MaxN: maxN, Precision: precision})
	}
	return ss
}

// roundProof decides GTZero_{1/2}(c − 1/4) (blocks.Round01) on the
// two half-lines of the softmax simulation: 0 for c ≤ 1/4 and 1 for
// c ≥ 3/4, each on its whole half-line, by the exact decision procedure.
func roundProof() (string, error) {
	row := func(xs ...string) []string { return xs }
	r := func(rows ...[]string) [][]string { return rows }
	low := proofs.Halfspaces(1, row("1", "1/4"))
	high := proofs.Halfspaces(1, row("-1", "-3/4"))
	ev, err := proofs.ProveFFN(blocks.Round01("c", "y"), low, []cpwl.Piece{proofs.Piece(low, proofs.Affine(r(row("0")), "0"))})
	if err != nil {
		return "", err
	}
	ev2, err := proofs.ProveFFN(blocks.Round01("c", "y"), high, []cpwl.Piece{proofs.Piece(high, proofs.Affine(r(row("0")), "1"))})
	if err != nil {
		return "", err
	}
	if ev.Verdict != proofs.Proved || ev2.Verdict != proofs.Proved {
		return "", fmt.Errorf("GTZero_{1/2}(c − 1/4) is not 0 on c ≤ 1/4 and 1 on c ≥ 3/4: %s; %s", ev.Summary, ev2.Summary)
	}
	cert := ev.Cert
	cert.AddAll(ev2.Cert)
	return "GTZero_{1/2}(c − 1/4) proved 0 on c ≤ 1/4 and 1 on c ≥ 3/4 (exact/cpwl; " + cert.Note() + ")", nil
}

// softResult is one softmax-simulation sweep: how many inputs, the
// first failure, and the largest |c − v| over the bounded outputs (an
// upper bound: the enclosure's farthest point).
type softResult struct {
	cases int
	fail  string
	worst *big.Rat
	// dKeys is the model's distinct d_key (dKeySizes).
	dKeys []int
}

var softMemo = struct {
	sync.Mutex
	m map[string]*softEntry
}{m: map[string]*softEntry{}}

type softEntry struct {
	once sync.Once
	res  *softResult
	err  error
}

// softRun runs the construction of s (built for N = s.maxN) at the
// interval precision s.precision on every input of every length n ≤ N,
// once per process. Each output the construction bounds (c, within 1/4 of
// v) must lie within its bound on its whole enclosure; each output it
// claims exact (y, the rounding of c) must contain the reference (its
// exactness is the rounding FFN's, proved apart: an interval enclosure of
// GTZero holds its two ReLU branches apart and is never the point v). An
// enclosure wholly outside is a certified failure; one straddling the
// bound is undecided, an error.
func softRun(s proofs.Sweep) (*softResult, error) {
	softMemo.Lock()
	e := softMemo.m[key(s)]
	if e == nil {
		e = &softEntry{}
		softMemo.m[key(s)] = e
	}
	softMemo.Unlock()
	e.once.Do(func() { e.res, e.err = softCompute(s) })
	return e.res, e.err
}

func softCompute(s proofs.Sweep) (*softResult, error) {
	r, err := recipes.Get(s.Recipe)
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(s.Weighting, s.MaxN, s.Params)
	if err != nil {
		return nil, err
	}
	if s.SqrtDKey {
		con.Model = sqrtDKeyModel(con.Model)
	}
	res, err := softCheck(con, max(1, r.MinN), s.MaxN, s.Precision, s.Seed, fmt.Sprintf("%s, N = %d", s.Describe(), s.MaxN))
	if res != nil {
		res.dKeys = dKeySizes(con.Model)
	}
	return res, err
}

// softCheck is softRun on a construction, for lengths minN …
// maxLen (a construction built for N is claimed for lengths ≤ N).
func softCheck(con *recipes.Construction, minN, maxLen int, precision string, seed uint64, name string) (*softResult, error) {
	runner, err := runner(con.Model, precision)
	if err != nil {
		return nil, err
	}
	res := &softResult{worst: new(big.Rat)}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	labels := con.Model.Output.Labels
	for n := minN; n <= maxLen; n++ {
		cases, all := con.Inputs(n, rng, 1<<16)
		if !all {
			return nil, fmt.Errorf("%s: length %d has too many inputs to enumerate", name, n)
		}
		for _, c := range cases {
			out, err := runner.Run(c.Symbols, false)
			if err != nil {
				return nil, fmt.Errorf("%s on %q: %w", name, check.CaseText(con.Model, c), err)
			}
			res.cases++
			for i, w := range con.Expected(c) {
				// The bounded outputs first: where both fail, the bound
				// |c − v| ≤ 1/4 is the claim's, the rounded y its consequence.
				for _, k := range boundedFirst(len(w.Values), con.Bounds) {
					v := w.Values[k]
					got := out.Outputs[i].Values[k]
					where := fmt.Sprintf("%s, on %q, position %d", name, check.CaseText(con.Model, c), i+1)
					if !got.Finite() {
						res.fail = fmt.Sprintf("%s: %s = %s is not finite", where, labels[k], got.Text)
						return res, nil
					}
					if k < len(con.Bounds) && con.Bounds[k].Max != nil {
						b := con.Bounds[k].Max
						far := got.Error(v)
						if far.Cmp(b) <= 0 {
							if far.Cmp(res.worst) > 0 {
								res.worst = far
							}
							continue
						}
						lo, hi := new(big.Rat).Sub(v, b), new(big.Rat).Add(v, b)
						if got.Hi.Cmp(lo) < 0 || got.Lo.Cmp(hi) > 0 {
							res.fail = fmt.Sprintf("%s: %s = %s, |%s − %s| > %s (certified)", where, labels[k], got.Text, labels[k], v.RatString(), b.RatString())
							return res, nil
						}
						return nil, fmt.Errorf("%s: %s = %s straddles the bound %s around %s: undecided at %s", where, labels[k], got.Text, b.RatString(), v.RatString(), precision)
					}
					if !got.Contains(v) {
						res.fail = fmt.Sprintf("%s: %s = %s excludes %s (certified)", where, labels[k], got.Text, v.RatString())
						return res, nil
					}
				}
			}
		}
	}
	return res, nil
}

// boundedFirst orders the outputs 0 … n−1 with those bounds bounds
// first, each group in order.
func boundedFirst(n int, bounds []recipes.Bound) []int {
	var first, rest []int
	for k := 0; k < n; k++ {
		if k < len(bounds) && bounds[k].Max != nil {
			first = append(first, k)
		} else {
			rest = append(rest, k)
		}
	}
	return append(first, rest...)
}

// softmaxSim proves a softmax simulation (§Simulating Average-Hard
// Attention with Soft Attention): for each N ≤ s.maxN, the model built
// for N keeps |c − v| ≤ 1/4 on every input of every length n ≤ N,
// certified by interval arithmetic (softRun); with the rounding FFN
// proved 0 on c ≤ 1/4 and 1 on c ≥ 3/4, y = GTZero_{1/2}(c − 1/4) is
// then v exactly.
func softmaxSim(ss ...proofs.Sweep) (*proofs.Evidence, error) {
	worst := new(big.Rat)
	var parts []string
	for _, s := range ss {
		cases := 0
		for _, t := range upTo(s) {
			res, err := softRun(t)
			if err != nil {
				return nil, err
			}
			if res.fail != "" {
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: res.fail, Explain: []string{res.fail}}, nil
			}
			cases += res.cases
			if res.worst.Cmp(worst) > 0 {
				worst = res.worst
			}
		}
		parts = append(parts, fmt.Sprintf("%s, each N ≤ %d (%d inputs)", s.Describe(), s.MaxN, cases))
	}
	round, err := roundProof()
	if err != nil {
		return nil, err
	}
	return &proofs.Evidence{Verdict: proofs.Proved,
		Summary: fmt.Sprintf("for each N, every input of every length n ≤ N (%s; %s): |c − v| ≤ 1/4 on the whole enclosure (largest ≤ %s), y's enclosure contains v; and %s, so y = v exactly",
			strings.Join(parts, "; "), ss[0].Precision, decimal(worst, 4), round),
		Explain: parts}, nil
}

// all joins several pieces of evidence: PROVED when all are, else the
// first that is not.
func all(evs ...func() (*proofs.Evidence, error)) (*proofs.Evidence, error) {
	var sums, explain []string
	for _, f := range evs {
		ev, err := f()
		if err != nil {
			return nil, err
		}
		if ev.Verdict != proofs.Proved {
			return ev, nil
		}
		sums = append(sums, ev.Summary)
		explain = append(explain, ev.Explain...)
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: strings.Join(sums, "; "), Explain: explain}, nil
}

func decimal(r *big.Rat, digits int) string {
	f, _ := r.Float64()
	return fmt.Sprintf("%.*g", digits, f)
}

// ---------------------------------------------------------------------
// Running models built here (constructions that are not recipes, and
// probes of the engine).

// allStrings returns every string of length n over k symbols.
func allStrings(k, n int) [][]int {
	total := 1
	for i := 0; i < n; i++ {
		total *= k
	}
	out := make([][]int, 0, total)
	for c := 0; c < total; c++ {
		in := make([]int, n)
		x := c
		for i := n - 1; i >= 0; i-- {
			in[i] = x % k
			x /= k
		}
		out = append(out, in)
	}
	return out
}

// upToLength returns every string over k symbols of length 1 … maxN.
func upToLength(k, maxN int) [][]int {
	var out [][]int
	for n := 1; n <= maxN; n++ {
		out = append(out, allStrings(k, n)...)
	}
	return out
}

// runner instantiates m at precision p.
func runner(m *model.Model, p string) (eval.Runner, error) {
	return eval.New(numeric.MustParsePrecision(p), m)
}

// symbols prints an input by the model's alphabet.
func symbols(m *model.Model, in []int) string {
	parts := make([]string, len(in))
	for i, s := range in {
		parts[i] = m.Alphabet[s]
	}
	return strings.Join(parts, " ")
}

// expected is an intended output at one position: exact values, or, where
// bound[k] is set, values within bound[k].
type expected struct {
	values []*big.Rat
	bound  []*big.Rat
}

// checkInputs runs m at precision p on every input and compares each
// position's outputs with want: exact values must come out as exact
// points (an enclosure is not a proof), bounded ones within their bound
// on the whole enclosure. It returns "" when every case passed, else the
// first failure; the number of cases run.
func checkInputs(m *model.Model, p string, inputs [][]int, want func(in []int) []expected) (string, int, error) {
	r, err := runner(m, p)
	if err != nil {
		return "", 0, err
	}
	for _, in := range inputs {
		res, err := r.Run(in, false)
		if err != nil {
			return "", 0, fmt.Errorf("%s on %q: %w", m.Name, symbols(m, in), err)
		}
		for i, w := range want(in) {
			for k, v := range w.values {
				got := res.Outputs[i].Values[k]
				name := m.Output.Labels[k]
				where := fmt.Sprintf("%s on %q, position %d", m.Name, symbols(m, in), i+1)
				if !got.Finite() {
					return fmt.Sprintf("%s: %s = %s is not finite", where, name, got.Text), len(inputs), nil
				}
				if k < len(w.bound) && w.bound[k] != nil {
					b := w.bound[k]
					if got.Error(v).Cmp(b) <= 0 {
						continue
					}
					if got.Hi.Cmp(new(big.Rat).Sub(v, b)) < 0 || got.Lo.Cmp(new(big.Rat).Add(v, b)) > 0 {
						return fmt.Sprintf("%s: %s = %s, not within %s of %s (certified: the whole enclosure is outside)", where, name, got.Text, b.RatString(), v.RatString()), len(inputs), nil
					}
					return "", 0, fmt.Errorf("%s: %s = %s straddles the bound %s around %s: undecided at %s", where, name, got.Text, b.RatString(), v.RatString(), p)
				}
				if !got.Equals(v) {
					if got.Contains(v) {
						return "", 0, fmt.Errorf("%s: %s = %s contains %s but is not a point: undecided at %s", where, name, got.Text, v.RatString(), p)
					}
					return fmt.Sprintf("%s: %s = %s, want exactly %s (certified: it excludes %s)", where, name, got.Text, v.RatString(), v.RatString()), len(inputs), nil
				}
			}
		}
	}
	return "", len(inputs), nil
}

// isZero reports whether a weight is exactly 0.
func isZero(e numeric.Expr) bool {
	r, ok, err := e.Rat()
	return err == nil && ok && r.Sign() == 0
}

// tieSymbols is the alphabet "k:v" of the tie-breaking and underflow
// models: keys k_j ∈ {0, 1, 2} (gap 1, with ties), values v_j ∈ {0, 1}.
var tieSymbols = []string{"0:0", "0:1", "1:0", "1:1", "2:0", "2:1"}

// ---------------------------------------------------------------------
// The sweeps the claims rest on (shared by a section's claims and the
// cheat sheet's cells, and run once).

var (
	ahat, uhat, uhatRight, smat = model.AverageHardmax, model.LeftHardmax, model.RightHardmax, model.Softmax

	// aoParams: the paper's ε = 1/4, with δ = 9/10 so that m stays
	// small (m = 33 at N = 3; the sampler checks the family, see
	// attn.lookup-ao.probability for why δ means little).
	aoParams = map[string]string{"eps": "1/4", "delta": "9/10", "seed": "1"}
	// aoSoftParams: under SMAT the interval softmax is slow at m = 33;
	// ε = 9/20 gives m = 13 at N = 2 (gap 1/10).
	aoSoftParams = map[string]string{"eps": "9/20", "delta": "9/10", "seed": "1"}
	// aoDefaultParams are the recipe's own defaults (ε = 1/4, δ =
	// 1/2: m = 267 at N = 2), where a claim about every ε must hold too.
	aoDefaultParams = map[string]string{"eps": "1/4", "delta": "1/2", "seed": "1"}
)

// aoSoftSweeps are the almost orthogonal lookup's softmax sweeps: at
// the recipe's default ε = 1/4, δ = 1/2, and at ε = 9/20 (a gap of 1/10,
// near the family's extreme ε → 1/2), δ = 9/10, each for N ≤ 2.
func aoSoftSweeps() []proofs.Sweep {
	at := lookupSoft("lookup-ao")
	def := at
	def.Params = aoDefaultParams
	return []proofs.Sweep{def, at}
}

// iv is the interval precision of the certified sweeps: 64-bit
// endpoints decide every comparison these small lengths need, at about
// half the cost of 128.
const iv = "interval:64"

// lookups are the four index lookups of §Index Lookup.
var lookups = []string{"lookup-onehot", "lookup-ao", "lookup-lh", "lookup"}

// lookupHard is the exhaustive sweep of a lookup under a hard
// weighting.
func lookupHard(recipe string, w model.Weighting) proofs.Sweep {
	switch recipe {
	case "lookup-onehot":
		return proofs.Sweep{Recipe: recipe, Weighting: w, MaxN: 3}
	case "lookup-ao":
		return proofs.Sweep{Recipe: recipe, Weighting: w, MaxN: 3, Params: aoParams}
	case "lookup-lh":
		// Dense interval arithmetic over the 17 components costs about
		// 3 ms an input: every input of length ≤ 3 (254), under every
		// weighting.
		return proofs.Sweep{Recipe: recipe, Weighting: w, MaxN: 3, Precision: iv}
	}
	return proofs.Sweep{Recipe: "lookup", Weighting: w, MaxN: 3}
}

// lookupSoft is the softmax simulation sweep of a lookup (run for
// every N up to maxN by softmaxSim).
func lookupSoft(recipe string) proofs.Sweep {
	switch recipe {
	case "lookup-ao":
		return proofs.Sweep{Recipe: recipe, Weighting: smat, MaxN: 2, Params: aoSoftParams, Precision: iv}
	case "lookup-lh":
		return proofs.Sweep{Recipe: recipe, Weighting: smat, MaxN: 2, Precision: iv}
	case "lookup-onehot":
		return proofs.Sweep{Recipe: "hardmax-softmax", Weighting: smat, MaxN: 3, Precision: iv}
	}
	return proofs.Sweep{Recipe: "lookup", Weighting: smat, MaxN: 3, Precision: iv}
}

// lookupsUnder is every lookup's exhaustive sweep under a hard w.
func lookupsUnder(w model.Weighting) []proofs.Sweep {
	var ss []proofs.Sweep
	for _, r := range lookups {
		ss = append(ss, lookupHard(r, w))
	}
	return ss
}

func sweepEvidence(ss ...proofs.Sweep) func() (*proofs.Evidence, error) {
	return func() (*proofs.Evidence, error) { return exhaustive(false, ss...) }
}

// unlisted decides a blank cell of the cheat sheet's Weighting
// column, "this construction does not work under s.weighting": PROVED by
// a witness, the first input on which the construction, run under that
// weighting, gives a certified wrong output. If every input passes (an
// Exhaustive sweep), the omission is refuted: the construction works
// there too. A search that finds nothing, or an undecided enclosure, is
// neither, and is an error.
func unlisted(s proofs.Sweep) func() (*proofs.Evidence, error) {
	return func() (*proofs.Evidence, error) {
		s.Unlisted = true
		rep, err := run(s)
		if err != nil {
			return nil, err
		}
		if rep.Passed {
			for _, lr := range rep.Lengths {
				if !lr.Exhaustive {
					return nil, fmt.Errorf("%s: no witness in a search of lengths ≤ %d (seed %d); neither a proof nor a refutation", s.Describe(), s.MaxN, s.Seed)
				}
			}
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("%s is right on every input of length ≤ %d (%s): the construction works under %s too", s.Describe(), s.MaxN, rep.Precision, recipes.WeightingAcronym(s.Weighting))}, nil
		}
		f := rep.FirstFailure
		if strings.HasPrefix(f.Reason, "undecided") {
			return nil, fmt.Errorf("%s on %q, position %d: %s", s.Describe(), f.Input, f.Position, f.Reason)
		}
		ev := proofs.Failure(s, rep)
		ev.Verdict = proofs.Proved
		ev.Summary = "witness: " + ev.Summary
		return ev, nil
	}
}

func pointEvidence(ss ...proofs.Sweep) func() (*proofs.Evidence, error) {
	return func() (*proofs.Evidence, error) { return exhaustive(true, ss...) }
}
