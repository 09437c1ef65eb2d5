package recipes

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The programs of the induction heads (see induction.go for what the paper
// says of each): the one-hot embedding and position terms they share, the
// most-recent head, and the five steps of most-frequent induction.

// inductNames returns prefix+σ for every symbol σ.
func inductNames(prefix string, alphabet []string) []string {
	out := make([]string, len(alphabet))
	for s, a := range alphabet {
		out[s] = prefix + a
	}
	return out
}

// inductOneHot is the one-hot word embedding WE(σ) = e_σ.
func inductOneHot(p *stream.Program, alphabet, we []string) *stream.Program {
	return p.Symbols(alphabet, func(s int) stream.Values { return stream.Values{we[s]: numeric.LitInt(1)} })
}

// inductSelector is the rows×cols matrix that reads the columns offset …
// offset+rows−1 (an identity block placed there, zeros elsewhere).
func inductSelector(rows, cols, offset int) model.Matrix {
	m := model.Zeros(rows, cols)
	for r := 0; r < rows; r++ {
		m.Set(r, offset+r, numeric.LitInt(1))
	}
	return m
}

func buildInductionRecent(cfg Config, literal bool) (*Construction, error) {
	w := cfg.Weighting
	if w != model.RightHardmax && w != model.AverageHardmax {
		return nil, fmt.Errorf("the construction needs rightmost UHAT or AHAT with tie-breaking, not %s", WeightingAcronym(w))
	}
	alphabet, err := inductionAlphabet(cfg, 26)
	if err != nil {
		return nil, err
	}
	k := len(alphabet)
	we, pred, ret := inductNames("e_", alphabet), inductNames("pred_", alphabet), inductNames("ret_", alphabet)
	inputs := append(append([]string(nil), we...), "i/n")
	tComp, tName := "", cfg.Params["t"]
	if w == model.AverageHardmax {
		switch tName {
		case "j/n":
			tComp = "i/n"
		case "-1/j":
			tComp = "-1/i"
			inputs = append(inputs, tComp)
		default:
			return nil, fmt.Errorf("parameter t must be j/n or -1/j (the rightmost tie-breaking terms), got %q", tName)
		}
		inputs = append(inputs, "1")
	}
	name := "induction-recent"
	if literal {
		name += "-literal"
	}
	peName := "(i/n)"
	switch tComp {
	case "i/n":
		peName = "(i/n, 1)"
	case "-1/i":
		peName = "(i/n, −1/i, 1)"
	}
	p := inductOneHot(stream.New(name+"-"+WeightingAcronym(w), inputs...), alphabet, we).
		Positions(peName,
			func(i, n int) stream.Values {
				v := stream.Values{"i/n": numeric.Frac(int64(i), int64(n))}
				if tComp != "" {
					v["1"] = numeric.LitInt(1)
				}
				if tComp == "-1/i" {
					v["-1/i"] = numeric.Frac(-1, int64(i))
				}
				return v
			}).
		Formula(inductTerms(tComp != "", tComp == "-1/i")...)
	// The induction head over (e, pred): q = WE(x_i), k = Pred(x_j),
	// v = WE(x_j); as printed (literal), q = Pred(x_i), k = WE(x_j).
	q, kk := inductSelector(k, 2*k, 0), inductSelector(k, 2*k, k)
	headName := "induct"
	if literal {
		q, kk = kk, q
		headName = "induct(printed q, k)"
	}
	head := &stream.Attn{Name: headName, In: append(append([]string(nil), we...), pred...), Out: ret,
		Q: q, K: kk, V: inductSelector(k, 2*k, 0), Mask: model.Future, Weighting: w, Scale: model.NoScale}
	if w == model.AverageHardmax {
		// γ = 1: the scores are 0 or 1.
		head = blocks.TieBreak(head, "1", tComp, big.NewRat(1, 1))
	}
	rows := make([]stream.Values, k)
	for s := range rows {
		rows[s] = stream.Values{ret[s]: numeric.LitInt(1)}
	}
	m, err := p.Then(blocks.PredStrict("i/n", we, pred, w), head).Argmax(alphabet, rows).Model()
	if err != nil {
		return nil, err
	}
	return &Construction{Model: m, Inputs: inductionInputs(k),
		Expected: func(c Case) []Want { return inductWants(alphabet, InductRightmost(c.Symbols)) }}, nil
}

// inductFrequentNames are the component names of the frequent head.
type inductFrequentNames struct {
	we, pred, has, logit []string
	bigram, count        [][]string // [σ][σ′]
}

func inductNamesFrequent(alphabet []string) inductFrequentNames {
	nm := inductFrequentNames{we: inductNames("e_", alphabet), pred: inductNames("pred_", alphabet),
		has: inductNames("has_", alphabet), logit: inductNames("logit_", alphabet)}
	for _, a := range alphabet {
		big, cnt := inductNames("["+a, alphabet), inductNames("#"+a, alphabet)
		for t := range big {
			big[t] += "]"
			cnt[t] += "/i"
		}
		nm.bigram = append(nm.bigram, big)
		nm.count = append(nm.count, cnt)
	}
	return nm
}

// inductFrequentPrinted selects the printed steps of most-frequent
// induction: count, the counting head Q = [e_σ1; e_σ2], K = Bigram(x_j),
// V = 1; compare, the comparison stage without the fallback to the
// current symbol (no has_σ, no fb_σ).
type inductFrequentPrinted struct{ Count, Compare bool }

// inductFrequent is most-frequent induction being built: what its steps
// share.
type inductFrequent struct {
	alphabet []string
	nm       inductFrequentNames
	printed  inductFrequentPrinted
	w        model.Weighting
	// strict is tiebreak=comparisons: σ′ must beat every σ″ before it
	// strictly, so that only the alphabetically first maximiser passes.
	strict bool
	eps    *big.Rat // the comparisons' ε = 1/N
}

// buildInductionFrequent assembles most-frequent induction from the
// paper's five steps (see inductionFrequent), taking the printed counting
// step or comparison stage where printed selects them.
func buildInductionFrequent(cfg Config, printed inductFrequentPrinted) (*Construction, error) {
	w, maxN := cfg.Weighting, cfg.MaxN
	if w != model.AverageHardmax {
		return nil, fmt.Errorf("the construction needs AHAT (uniform attention averages), not %s", WeightingAcronym(w))
	}
	if maxN < 1 {
		return nil, fmt.Errorf("the maximum length N must be at least 1, got %d", maxN)
	}
	alphabet, err := inductionAlphabet(cfg, 8)
	if err != nil {
		return nil, err
	}
	tiebreak, err := cfg.Choice("tiebreak", "comparisons", "argmax")
	if err != nil {
		return nil, err
	}
	f := &inductFrequent{alphabet: alphabet, nm: inductNamesFrequent(alphabet), printed: printed, w: w,
		strict: tiebreak == "comparisons", eps: big.NewRat(1, int64(maxN))}
	p := f.embed()
	var counting []stream.Block
	if printed.Count {
		counting = f.countPrinted()
	} else if counting, err = f.count(); err != nil {
		return nil, err
	}
	p.Then(counting...)
	compare, err := f.compare()
	if err != nil {
		return nil, err
	}
	logits, err := f.logits()
	if err != nil {
		return nil, err
	}
	m, err := p.Then(compare, logits).Argmax(alphabet, f.unembedding()).Model()
	if err != nil {
		return nil, err
	}
	k := len(alphabet)
	return &Construction{Model: m, Inputs: inductionInputs(k),
		Valid: func(c Case) error {
			if c.Len() > maxN {
				return fmt.Errorf("length %d exceeds N = %d, the length the comparisons' ε = 1/N is built for", c.Len(), maxN)
			}
			return nil
		},
		Expected: func(c Case) []Want { return inductWants(alphabet, InductFrequent(c.Symbols, k)) },
		Notes:    []string{fmt.Sprintf("comparisons GTZero_ε, GEZero_ε with ε = 1/N = 1/%d: exact for n ≤ N", maxN)}}, nil
}

// embed is step 1: WE one-hot and Pred, so that position i holds the
// bigram (e_{x_{i−1}}, e_{x_i}). The printed counting heads also read a
// constant 1 (their query [e_σ1; e_σ2] is a constant).
func (f *inductFrequent) embed() *stream.Program {
	literal := f.printed.Count
	inputs := append(append([]string(nil), f.nm.we...), "i/n")
	peName := "(i/n)"
	name := "induction-frequent"
	if literal {
		inputs = append(inputs, "1")
		peName = "(i/n, 1)"
		name += "-literal"
	} else if f.printed.Compare {
		name += "(no fallback)"
	}
	p := inductOneHot(stream.New(name, inputs...), f.alphabet, f.nm.we).
		Positions(peName, func(i, n int) stream.Values {
			v := stream.Values{"i/n": numeric.Frac(int64(i), int64(n))}
			if literal {
				v["1"] = numeric.LitInt(1)
			}
			return v
		}).
		Formula(inductTerms(literal, false)...)
	return p.Then(blocks.PredStrict("i/n", f.nm.we, f.nm.pred, f.w))
}

// counts lists the count components #σσ′/i, row by row.
func (f *inductFrequent) counts() []string {
	var counts []string
	for s := range f.nm.count {
		counts = append(counts, f.nm.count[s]...)
	}
	return counts
}

// count is steps 2 and 3, corrected: the bigram indicators
// [σσ′]_j = pred_σ ∧ e_σ′ by a feed-forward layer, then Avg← gives
// #σσ′/i.
func (f *inductFrequent) count() ([]stream.Block, error) {
	k := len(f.alphabet)
	var ands []stream.Block
	var bigrams []string
	for s := 0; s < k; s++ {
		for t := 0; t < k; t++ {
			and, err := inductConjunction([]string{f.nm.pred[s], f.nm.we[t]}, f.nm.bigram[s][t])
			if err != nil {
				return nil, err
			}
			ands = append(ands, and)
			bigrams = append(bigrams, f.nm.bigram[s][t])
		}
	}
	return []stream.Block{stream.Parallel(ands...), blocks.Avg(bigrams, f.counts(), model.Future, f.w)}, nil
}

// countPrinted is the printed counting step: one head per bigram σ1σ2,
// q = [e_σ1; e_σ2] (constant, from the component 1),
// k = Bigram(x_j) = [e_{x_j}; pred_j], v = 1.
func (f *inductFrequent) countPrinted() []stream.Block {
	k := len(f.alphabet)
	in := append(append([]string{"1"}, f.nm.we...), f.nm.pred...)
	var heads []stream.Block
	for s := 0; s < k; s++ {
		for t := 0; t < k; t++ {
			q := model.Zeros(2*k, 1+2*k)
			q.Set(s, 0, numeric.LitInt(1))
			q.Set(k+t, 0, numeric.LitInt(1))
			heads = append(heads, &stream.Attn{Name: "count " + f.alphabet[s] + f.alphabet[t] + " (printed)", In: in,
				Out: []string{f.nm.count[s][t]}, Q: q, K: inductSelector(2*k, 1+2*k, 1), V: inductSelector(1, 1+2*k, 0),
				Mask: model.Future, Weighting: f.w, Scale: model.NoScale})
		}
	}
	return []stream.Block{stream.Parallel(heads...)}
}

// strictAgainst reports whether σ′ = t is compared strictly against
// σ″ = u: under tiebreak=comparisons, against every σ″ before it.
func (f *inductFrequent) strictAgainst(t, u int) bool { return f.strict && u < t }

// cmpName is the component of the comparison of count_{σσ′} against
// count_{σσ″}: "σ:σ′>σ″" where it is strict, "σ:σ′≥σ″" otherwise.
func (f *inductFrequent) cmpName(s, t, u int) string {
	if f.strictAgainst(t, u) {
		return f.alphabet[s] + ":" + f.alphabet[t] + ">" + f.alphabet[u]
	}
	return f.alphabet[s] + ":" + f.alphabet[t] + "≥" + f.alphabet[u]
}

// compare is step 4, the comparisons with ε = 1/N, side by side in one
// FFN: [σ:σ′>σ″] = GTZero_ε(#σσ′/i − #σσ″/i) where strict,
// [σ:σ′≥σ″] = GEZero_ε(…) otherwise, and (unless printed) the fallback's
// has_σ = GTZero_ε(Σ_σ′ #σσ′/i).
func (f *inductFrequent) compare() (stream.Block, error) {
	k := len(f.alphabet)
	var cmps []stream.Block
	for s := 0; s < k; s++ {
		for t := 0; t < k; t++ {
			for u := 0; u < k; u++ {
				if u == t {
					continue
				}
				g, err := f.comparison(s, t, u)
				if err != nil {
					return nil, err
				}
				cmps = append(cmps, g)
			}
		}
		if f.printed.Compare {
			continue
		}
		h, err := f.has(s)
		if err != nil {
			return nil, err
		}
		cmps = append(cmps, h)
	}
	return stream.Parallel(cmps...), nil
}

// comparison is cmpName(s, t, u): GTZero_ε or GEZero_ε of
// #σσ′/i − #σσ″/i, the difference read through the Routing Lemma.
func (f *inductFrequent) comparison(s, t, u int) (*stream.FF, error) {
	zero := new(big.Rat)
	c, what := blocks.GEZeroEps("x", f.cmpName(s, t, u), f.eps, zero), "GEZero_ε"
	if f.strictAgainst(t, u) {
		c, what = blocks.GTZeroEps("x", f.cmpName(s, t, u), f.eps, zero), "GTZero_ε"
	}
	a := f.alphabet
	return inductPremultiply(c, what+"(#"+a[s]+a[t]+" − #"+a[s]+a[u]+")",
		[]string{f.nm.count[s][t], f.nm.count[s][u]}, [][]int64{{1, -1}})
}

// has is has_σ = GTZero_ε(Σ_σ′ #σσ′/i): whether σ has a follower yet.
func (f *inductFrequent) has(s int) (*stream.FF, error) {
	ones := make([]int64, len(f.alphabet))
	for t := range ones {
		ones[t] = 1
	}
	return inductPremultiply(blocks.GTZeroEps("x", f.nm.has[s], f.eps, new(big.Rat)),
		"GTZero_ε(Σ #"+f.alphabet[s]+"·)", f.nm.count[s], [][]int64{ones})
}

// logits is step 5, one FFN: logit_σ′ = Σ_σ (e_σ ∧ has_σ ∧ ⋀_{σ″≠σ′}
// cmp) + (e_σ′ ∧ ¬has_σ′); as printed, Σ_σ (e_σ ∧ ⋀_{σ″≠σ′} cmp).
func (f *inductFrequent) logits() (stream.Block, error) {
	k := len(f.alphabet)
	var logits []stream.Block
	for t := 0; t < k; t++ {
		parts, err := f.best(t)
		if err != nil {
			return nil, err
		}
		if !f.printed.Compare {
			fb, err := f.fallback(t)
			if err != nil {
				return nil, err
			}
			parts = append(parts, fb)
		}
		logits = append(logits, inductSum("Σ∧ → "+f.nm.logit[t], f.nm.logit[t], parts...))
	}
	return stream.Parallel(logits...), nil
}

// best is best_σσ′ for σ′ = t and every σ: e_σ ∧ has_σ ∧ ⋀_{σ″≠σ′}
// cmp_σσ′σ″ (without has_σ as printed), 1 only for σ = x_i and its
// selected follower σ′.
func (f *inductFrequent) best(t int) ([]*stream.FF, error) {
	k := len(f.alphabet)
	var parts []*stream.FF
	for s := 0; s < k; s++ {
		xs := []string{f.nm.we[s], f.nm.has[s]}
		if f.printed.Compare {
			xs = xs[:1]
		}
		for u := 0; u < k; u++ {
			if u != t {
				xs = append(xs, f.cmpName(s, t, u))
			}
		}
		and, err := inductConjunction(xs, "best")
		if err != nil {
			return nil, err
		}
		parts = append(parts, and)
	}
	return parts, nil
}

// fallback is fb_σ′ = e_σ′ ∧ ¬has_σ′: the current symbol, when it has no
// follower yet. ff_φ for φ(e, has) = e ∧ ¬has, true at (1, 0) only.
func (f *inductFrequent) fallback(t int) (*stream.FF, error) {
	fb, err := blocks.Boolean([]string{f.nm.we[t], f.nm.has[t]}, "fallback", []bool{false, false, true, false})
	if err != nil {
		return nil, err
	}
	return inductPrune(fb)
}

// unembedding reads logit_σ′ for each σ′: the argmax unembedding's rows.
func (f *inductFrequent) unembedding() []stream.Values {
	rows := make([]stream.Values, len(f.alphabet))
	for t := range rows {
		rows[t] = stream.Values{f.nm.logit[t]: numeric.LitInt(1)}
	}
	return rows
}

// inductTerms is the formula of the induction heads' position embedding:
// i/n, with the constant 1 when one is set and −1/i when invI is.
func inductTerms(one, invI bool) []stream.Term {
	terms := []stream.Term{stream.Pos(model.PosIOverN, "i/n")}
	if one {
		terms = append(terms, stream.Pos(model.PosOne, "1"))
	}
	if invI {
		terms = append(terms, stream.Pos(model.PosInverseI, "-1/i").Times(numeric.LitInt(-1)))
	}
	return terms
}
