package examples

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §The Dyck Languages, §A Transformer Construction for
// Dyck-1, §A Transformer Construction for Dyck-1-2 and §Generalization to
// Dyck-k-D. Shared helpers are in example_shared.go.

// ---------------------------------------------------------------------
// Dyck languages.

// dyckGrammar decides w ∈ L(S → ε | ( S ) S) by recursive descent:
// the grammar is LL(1) (S → ( S ) S exactly when the next symbol is "(").
func dyckGrammar(w string) bool {
	pos := 0
	var s func() bool
	s = func() bool {
		if pos < len(w) && w[pos] == '(' {
			pos++
			if !s() || pos >= len(w) || w[pos] != ')' {
				return false
			}
			pos++
			return s()
		}
		return true
	}
	return s() && pos == len(w)
}

// dyckDepth is the largest nesting depth of w (the largest prefix
// balance).
func dyckDepth(w string) int {
	depth, deepest := 0, 0
	for i := range w {
		if w[i] == '(' {
			depth++
		} else {
			depth--
		}
		deepest = max(deepest, depth)
	}
	return deepest
}

// dyckProperties are the paper's Property 1 (every prefix has at least
// as many "(" as ")") and Property 2 (equal counts in the whole string).
func dyckProperties(w string) (prefix, balance bool) {
	o, c := 0, 0
	prefix = true
	for i := range w {
		if w[i] == '(' {
			o++
		} else {
			c++
		}
		if o < c {
			prefix = false
		}
	}
	return prefix, o == c
}

// dyckStrings lists every string over {(, )} of length 1 … n.
func dyckStrings(n int) []string {
	var out []string
	for _, in := range proofs.Strings(proofs.DyckAlphabet, n) {
		out = append(out, proofs.Text(proofs.DyckAlphabet, in))
	}
	return out
}

func checkDyckDefinition(n int) (*proofs.Evidence, error) {
	all := append([]string{""}, dyckStrings(n)...)
	members := 0
	for _, w := range all {
		p1, p2 := dyckProperties(w)
		g := dyckGrammar(w)
		if g != (p1 && p2) {
			s := fmt.Sprintf("%q: grammar %v, Property 1 %v, Property 2 %v", w, g, p1, p2)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		if g {
			members++
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("every string over {(, )} of length ≤ %d (%d strings, %d members): in L(S → ε | (S)S) iff Properties 1 and 2 hold", n, len(all), members)}, nil
}

// checkDyckExamples: "()(())" ∈ Dyck-1 and "())(()" ∉, by the
// grammar, the two properties, the uniform construction's external check
// and the nonuniform construction's accept.
func checkDyckExamples() (*proofs.Evidence, error) {
	uni, err := proofs.Construct("dyck1", model.AverageHardmax, 6, nil)
	if err != nil {
		return nil, err
	}
	non, err := proofs.Construct("dyck1-n", model.AverageHardmax, 6, nil)
	if err != nil {
		return nil, err
	}
	var parts []string
	for _, tc := range []struct {
		w      string
		member bool
	}{{"()(())", true}, {"())(()", false}} {
		p1, p2 := dyckProperties(tc.w)
		res, err := proofs.RunExact(uni.Model, tc.w, false)
		if err != nil {
			return nil, err
		}
		last := res.Outputs[len(tc.w)-1].Values
		external := last[0].Equals(new(big.Rat)) && last[1].Equals(new(big.Rat))
		resN, err := proofs.RunExact(non.Model, tc.w, false)
		if err != nil {
			return nil, err
		}
		accept := resN.Outputs[len(tc.w)-1].Values[0]
		got := []bool{dyckGrammar(tc.w), p1 && p2, external, accept.Equals(big.NewRat(1, 1))}
		for k, g := range got {
			if g != tc.member {
				how := []string{"the grammar", "Properties 1 and 2", "dyck1's external check (B_6/6 = t_6 = 0)", "dyck1-n's accept_6"}[k]
				s := fmt.Sprintf("%q: %s says member = %v, the paper %v", tc.w, how, g, tc.member)
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
			}
		}
		if !accept.Equals(big.NewRat(0, 1)) && !accept.Equals(big.NewRat(1, 1)) {
			return nil, fmt.Errorf("dyck1-n's accept is %s", accept.Text)
		}
		rel := "∈"
		if !tc.member {
			rel = "∉"
		}
		parts = append(parts, fmt.Sprintf("%s %s Dyck-1 (B_6/6 = %s, t_6 = %s, accept_6 = %s)", tc.w, rel, last[0].Text, last[1].Text, accept.Text))
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: strings.Join(parts, "; ") + ": by the grammar, Properties 1 and 2, dyck1 (AHAT) and dyck1-n (N = 6), exact"}, nil
}

// panel is one brace of fig:dyck_1_examples: w's prefix of length k
// has O opens and C closes, and the relation rel holds between them.
type panel struct {
	w    string
	k    int
	o, c int
	rel  string // ≥, <, =, ≠
}

var figure = []panel{
	{"()(())", 4, 3, 1, "≥"}, {"()(())", 6, 3, 3, "="},
	{"())(()", 3, 1, 2, "<"}, {"())(()", 6, 3, 3, "="},
	{"()((()", 3, 2, 1, "≥"}, {"()((()", 6, 4, 2, "≠"},
}

func checkFigure() (*proofs.Evidence, error) {
	con, err := proofs.Construct("dyck1", model.AverageHardmax, 6, nil)
	if err != nil {
		return nil, err
	}
	fail := func(s string) (*proofs.Evidence, error) {
		return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
	}
	for _, p := range figure {
		o := strings.Count(p.w[:p.k], "(")
		c := p.k - o
		if o != p.o || c != p.c {
			return fail(fmt.Sprintf("%s: O_%d = %d, C_%d = %d, printed %d, %d", p.w, p.k, o, p.k, c, p.o, p.c))
		}
		holds := map[string]bool{"≥": o >= c, "<": o < c, "=": o == c, "≠": o != c}[p.rel]
		if !holds {
			return fail(fmt.Sprintf("%s: O_%d %s C_%d fails", p.w, p.k, p.rel, p.k))
		}
		res, err := proofs.RunExact(con.Model, p.w, false)
		if err != nil {
			return nil, err
		}
		if want := big.NewRat(int64(o-c), int64(p.k)); !res.Outputs[p.k-1].Values[0].Equals(want) {
			return fail(fmt.Sprintf("%s: dyck1's B_%d/%d = %s, want (O − C)/k = %s", p.w, p.k, p.k, res.Outputs[p.k-1].Values[0].Text, want.RatString()))
		}
	}
	// The caption: (left) O_k ≥ C_k for all k < N and O_N = C_N; (centre)
	// O_N = C_N but O_3 < C_3; (right) O_k ≥ C_k for all k, O_N ≠ C_N.
	for _, tc := range []struct {
		w               string
		prefix, balance bool
		member          bool
	}{{"()(())", true, true, true}, {"())(()", false, true, false}, {"()((()", true, false, false}} {
		p1, p2 := dyckProperties(tc.w)
		if p1 != tc.prefix || p2 != tc.balance || dyckGrammar(tc.w) != tc.member {
			return fail(fmt.Sprintf("%s: Property 1 %v, Property 2 %v, member %v; the caption says %v, %v, %v", tc.w, p1, p2, dyckGrammar(tc.w), tc.prefix, tc.balance, tc.member))
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: "the six braces (O_4 = 3, C_4 = 1 and O_6 = C_6 = 3 for ()(()); O_3 = 1 < C_3 = 2 and O_6 = C_6 = 3 for ())((); O_3 = 2 ≥ C_3 = 1 and O_6 = 4 ≠ C_6 = 2 for ()((()), the caption's Property 1/2 verdicts, and dyck1's B_k/k = (O_k − C_k)/k there, exact"}, nil
}

// checkViolations checks the statements of Steps 2 and 3 on dyck1
// (AHAT) at every position of every string of length ≤ n: E_i ≥ 0 and
// E_i > 0 iff B_i < 0; t_i ≥ 0 and t_i > 0 iff B_j < 0 for some j ≤ i;
// and t_i = 0 ∧ B_i/i = 0 iff w_{:i} ∈ Dyck-1 (the grammar).
func checkViolations(n int) (*proofs.Evidence, error) {
	con, err := proofs.Construct("dyck1", model.AverageHardmax, n, nil)
	if err != nil {
		return nil, err
	}
	all := dyckStrings(n)
	for _, w := range all {
		res, err := proofs.RunExact(con.Model, w, true)
		if err != nil {
			return nil, err
		}
		var vals [3][]*big.Rat
		for k, name := range []string{"B/i", "E", "t"} {
			vs, err := component(res, "", name)
			if err != nil {
				return nil, err
			}
			if vals[k], err = rats(vs); err != nil {
				return nil, err
			}
		}
		b, e, t := vals[0], vals[1], vals[2]
		balance, violated := 0, false
		for i := range w {
			if w[i] == '(' {
				balance++
			} else {
				balance--
			}
			violated = violated || balance < 0
			why := ""
			switch {
			case e[i].Sign() < 0 || (e[i].Sign() > 0) != (balance < 0):
				why = fmt.Sprintf("E_%d = %s with B_%d = %d", i+1, e[i].RatString(), i+1, balance)
			case t[i].Sign() < 0 || (t[i].Sign() > 0) != violated:
				why = fmt.Sprintf("t_%d = %s, and the balance was violated: %v", i+1, t[i].RatString(), violated)
			case (t[i].Sign() == 0 && b[i].Sign() == 0) != dyckGrammar(w[:i+1]):
				why = fmt.Sprintf("t_%d = %s, B_%d/%d = %s, but w_{:%d} ∈ Dyck-1 is %v", i+1, t[i].RatString(), i+1, i+1, b[i].RatString(), i+1, dyckGrammar(w[:i+1]))
			}
			if why != "" {
				s := fmt.Sprintf("on %q: %s", w, why)
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("at every position i of every string of length ≤ %d (%d strings; dyck1 under AHAT, exact): E_i > 0 iff B_i < 0, t_i > 0 iff some B_j < 0 (j ≤ i), and t_i = B_i/i = 0 iff w_{:i} ∈ Dyck-1 (the grammar)", n, len(all))}, nil
}

// dyck1Minima runs dyck1 exactly on every string of length ≤ n and
// returns, at each position i, the smallest nonzero |B_i/i| and t_i (nil:
// none nonzero), and how many strings it ran.
func dyck1Minima(n int) (minB, minT []*big.Rat, strings int, err error) {
	con, err := proofs.Construct("dyck1", model.AverageHardmax, n, nil)
	if err != nil {
		return nil, nil, 0, err
	}
	r, err := eval.New(numeric.MustParsePrecision("exact"), con.Model)
	if err != nil {
		return nil, nil, 0, err
	}
	minB = make([]*big.Rat, n+1) // smallest nonzero |B_i/i| at position i
	minT = make([]*big.Rat, n+1)
	update := func(m []*big.Rat, i int, x *big.Rat) {
		if x.Sign() != 0 && (m[i] == nil || x.Cmp(m[i]) < 0) {
			m[i] = x
		}
	}
	all := proofs.Strings(proofs.DyckAlphabet, n)
	for _, in := range all {
		res, err := r.Run(in, false)
		if err != nil {
			return nil, nil, 0, err
		}
		for i, o := range res.Outputs {
			b, ok1 := o.Values[0].Rat()
			t, ok2 := o.Values[1].Rat()
			if !ok1 || !ok2 {
				return nil, nil, 0, fmt.Errorf("not a number")
			}
			update(minB, i+1, new(big.Rat).Abs(b))
			update(minT, i+1, t)
		}
	}
	return minB, minT, len(all), nil
}

// checkMagnitudes checks the smallest nonzero magnitudes on dyck1's
// outputs over every string of length ≤ n: |B_i/i| ≥ 1/i and t_i ≥ 1/i²
// where nonzero; and records where the bounds are attained.
func checkMagnitudes(n int) (*proofs.Evidence, error) {
	minB, minT, strings, err := dyck1Minima(n)
	if err != nil {
		return nil, err
	}
	var attained []string
	for i := 1; i <= n; i++ {
		lb, lt := big.NewRat(1, int64(i)), big.NewRat(1, int64(i*i))
		if minB[i].Cmp(lb) < 0 || minT[i] != nil && minT[i].Cmp(lt) < 0 {
			s := fmt.Sprintf("position %d: smallest nonzero |B_i/i| = %s, t_i = %s, below 1/i = %s or 1/i² = %s", i, minB[i].RatString(), minT[i].RatString(), lb.RatString(), lt.RatString())
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		if minT[i] != nil {
			attained = append(attained, fmt.Sprintf("i = %d: |B/i| ≥ %s, t ≥ %s", i, minB[i].RatString(), minT[i].RatString()))
		}
	}
	// The bounds are attained at odd i only: B_i = ±1 and a single
	// violation E_i = 1/i need i odd. At even i the minima are 2/i and
	// 1/(i(i − 1)) (one violation at the odd j = i − 1).
	for i := 2; i <= n; i++ {
		wantB, wantT := big.NewRat(1, int64(i)), big.NewRat(1, int64(i*i))
		if i%2 == 0 {
			wantB, wantT = big.NewRat(2, int64(i)), big.NewRat(1, int64(i*(i-1)))
		}
		if minB[i].Cmp(wantB) != 0 || minT[i] == nil || minT[i].Cmp(wantT) != 0 {
			return nil, fmt.Errorf("position %d: minima %s, %v; the attainment analysis expects %s, %s", i, minB[i].RatString(), minT[i], wantB.RatString(), wantT.RatString())
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("at every position i of every string of length ≤ %d (%d strings; dyck1 under AHAT, exact): B_i/i = 0 or |B_i/i| ≥ 1/i, and t_i = 0 or t_i ≥ 1/i²; both bounds are attained exactly at odd i (e.g. t_7 = 1/49 on ()()())), while at even i the minima are 2/i and 1/(i(i−1))", n, strings),
		Explain: attained}, nil
}

// checkMagnitudesAttained checks the paper's magnitudes as equalities:
// at every length i ≤ n the smallest nonzero t_i is 1/i² (and |B_i/i|,
// 1/i). REFUTED at the first length where a minimum differs (every even
// one: B_i is even there, and one violation costs 1/(i(i − 1))).
func checkMagnitudesAttained(n int) (*proofs.Evidence, error) {
	minB, minT, strings, err := dyck1Minima(n)
	if err != nil {
		return nil, err
	}
	var wrong []string
	for i := 1; i <= n; i++ {
		if minT[i] == nil || minB[i] == nil {
			continue
		}
		lb, lt := big.NewRat(1, int64(i)), big.NewRat(1, int64(i*i))
		if minB[i].Cmp(lb) != 0 || minT[i].Cmp(lt) != 0 {
			wrong = append(wrong, fmt.Sprintf("n = %d: the smallest nonzero t_n is %s, not 1/n² = %s, and of |B_n/n| %s, not 1/n = %s", i, minT[i].RatString(), lt.RatString(), minB[i].RatString(), lb.RatString()))
		}
	}
	if len(wrong) == 0 {
		return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("at every length n ≤ %d (%d strings, exact) the smallest nonzero t_n is 1/n² and |B_n/n| 1/n", n, strings)}, nil
	}
	s := fmt.Sprintf("%s (every string of length ≤ %d, %d strings; dyck1 under AHAT, exact); %d of the %d lengths miss, every even one: 1/n² and 1/n are lower bounds, attained at odd n only, which is all GTZero_{1/n²} and EqZero_{1/n} need", wrong[0], n, strings, len(wrong), n)
	return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: wrong}, nil
}

// checkEdges shows the thresholds of dyck1-n at their edges (N = 7).
func checkEdges() (*proofs.Evidence, error) {
	type probe struct {
		n      int
		params map[string]string
		w      string
		comp   string
		want   string
	}
	probes := []probe{
		{7, nil, "()()())", "t", "1/49"},                                    // t_7 = 1/N² = ε_g
		{7, nil, "()()())", "g", "1"},                                       // GTZero_{1/49}(1/49) = 1
		{7, nil, "()()()(", "B/i", "1/7"},                                   // |B_7/7| = 1/N = ε_e
		{7, nil, "()()()(", "e", "0"},                                       // EqZero_{1/7}(1/7) = 0
		{7, nil, "()()()(", "accept", "0"},                                  //
		{7, map[string]string{"gt-eps": "1/48"}, "()()())", "g", "48/49"},   // a larger ε_g: g is no longer [t > 0]
		{7, map[string]string{"eq-eps": "1/6"}, "()()()(", "e", "1/7"},      // a larger ε_e: e is no longer [B = 0]
		{7, map[string]string{"eq-eps": "1/6"}, "()()()(", "accept", "1/7"}, // and accept_7 is wrong
		// N = 8: the smallest nonzero t_i over i ≤ 8 is t_8 = 1/56 (one
		// violation, at 7), the smallest |B_i/i| is 1/7 (at i = 7).
		{8, map[string]string{"gt-eps": "1/56"}, "()()())(", "g", "1"},     // 1/56 still suffices
		{8, map[string]string{"gt-eps": "1/55"}, "()()())(", "g", "55/56"}, // 1/55 does not
		{8, map[string]string{"eq-eps": "1/7"}, "()()()((", "accept", "0"}, // at position 7: B_7/7 = 1/7
		{8, map[string]string{"eq-eps": "2/13"}, "()()()((", "e", "1/14"},  // 2/13 does not
	}
	var parts []string
	for _, p := range probes {
		con, err := proofs.Construct("dyck1-n", model.AverageHardmax, p.n, p.params)
		if err != nil {
			return nil, err
		}
		res, err := proofs.RunExact(con.Model, p.w, true)
		if err != nil {
			return nil, err
		}
		vs, err := component(res, "", p.comp)
		if err != nil {
			return nil, err
		}
		want, _ := new(big.Rat).SetString(p.want)
		setting := fmt.Sprintf("ε_g = 1/%d, ε_e = 1/%d", p.n*p.n, p.n)
		for k, v := range p.params {
			setting = k + " = " + v
		}
		at := p.n
		if p.comp == "e" || p.comp == "accept" || p.comp == "B/i" {
			at = 7 // the odd position whose |B_i/i| = 1/7 is the smallest
		}
		got := vs[at-1]
		if !got.Equals(want) {
			s := fmt.Sprintf("N = %d, %s, %s: %s_%d = %s, want %s", p.n, setting, p.w, p.comp, at, got.Text, p.want)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		parts = append(parts, fmt.Sprintf("N = %d, %s, %s: %s_%d = %s", p.n, setting, p.w, p.comp, at, got.Text))
	}
	// At N = 8 the looser thresholds decide every string: room to spare.
	ev, err := exhaustive(proofs.Sweep{Recipe: "dyck1-n", Weighting: model.AverageHardmax, MaxN: 8, Params: map[string]string{"gt-eps": "1/56", "eq-eps": "1/7"}})
	if err != nil {
		return nil, err
	}
	if ev.Verdict != proofs.Proved {
		return ev, nil
	}
	parts = append(parts, "N = 8, ε_g = 1/56, ε_e = 1/7: "+ev.Summary)
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: "N = 7, exact: t_7 = 1/49 = ε_g on ()()()) (g_7 = 1) and B_7/7 = 1/7 = ε_e on ()()()( (e_7 = 0): the thresholds are met exactly; with ε_g = 1/48, g_7 = 48/49, and with ε_e = 1/6, accept_7 = 1/7 (wrong). N = 8 (even): the smallest magnitudes are t_8 = 1/56 = 1/(N(N − 1)) and |B_7/7| = 1/7 = 1/(N − 1), so ε_g = 1/56 and ε_e = 1/7 still decide every string of length ≤ 8 (exhaustive), while 1/55 and 2/13 do not (g_8 = 55/56 on ()()())(, e_7 = 1/14 on ()()()((): the paper's 1/64 and 1/8 leave room",
		Explain: parts}, nil
}

// singleUnit is Dyck-1 (two layers, built from blocks) whose second
// FFN is one unit: accept = ReLU(1 − N·B_i/i − λ·t_i).
func singleUnit(maxN int, lambda *big.Rat) (*model.Model, error) {
	n := big.NewRat(int64(maxN), 1)
	unit := &stream.FF{Name: "accept", In: []string{"B/i", "t"}, Out: []string{"accept"},
		W1: model.Matrix{Rows: 1, Cols: 2, Data: []numeric.Expr{numeric.Lit(new(big.Rat).Neg(n)), numeric.Lit(new(big.Rat).Neg(lambda))}},
		B1: model.IntVector(1), W2: model.Ints([]int64{1})}
	return stream.New("dyck1-single-unit", "o").
		Symbols(proofs.DyckAlphabet, func(s int) stream.Values { return stream.Values{"o": numeric.LitInt(int64(1 - 2*s))} }).
		Then(blocks.Avg([]string{"o"}, []string{"B/i"}, model.Future, model.AverageHardmax), blocks.NegPart("B/i", "E"),
			blocks.Avg([]string{"E"}, []string{"t"}, model.Future, model.AverageHardmax), unit).
		Readout("accept").Model()
}

// checkAcceptModel runs m on every string of length ≤ n and requires
// its only output to be [w_{:i} ∈ Dyck-1] (the grammar) exactly at every
// position.
func checkAcceptModel(m *model.Model, n int) (int, string, error) {
	r, err := eval.New(numeric.MustParsePrecision("exact"), m)
	if err != nil {
		return 0, "", err
	}
	all := dyckStrings(n)
	for _, w := range all {
		in, err := m.Tokenize(w)
		if err != nil {
			return 0, "", err
		}
		res, err := r.Run(in, false)
		if err != nil {
			return 0, "", err
		}
		for i, o := range res.Outputs {
			want := int64(0)
			if dyckGrammar(w[:i+1]) {
				want = 1
			}
			if !o.Values[0].Equals(big.NewRat(want, 1)) {
				return len(all), fmt.Sprintf("on %q, position %d: accept = %s, want %d", w, i+1, o.Values[0].Text, want), nil
			}
		}
	}
	return len(all), "", nil
}

// checkSingleUnit proves, for N = 1 … maxN, that the single unit with
// λ = lambda(N) decides Dyck-1 at every position of every string of
// length ≤ N.
func checkSingleUnit(maxN int, lambda func(n int) *big.Rat) (*proofs.Evidence, error) {
	total := 0
	for n := 1; n <= maxN; n++ {
		m, err := singleUnit(n, lambda(n))
		if err != nil {
			return nil, err
		}
		if len(m.Layers) != 2 {
			return nil, fmt.Errorf("the model has %s, not 2", plural.Of(len(m.Layers), "layer"))
		}
		cases, wrong, err := checkAcceptModel(m, n)
		if err != nil {
			return nil, err
		}
		if wrong != "" {
			s := fmt.Sprintf("N = %d, λ = %s: %s", n, lambda(n).RatString(), wrong)
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		total += cases
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("for each N = 1 … %d, at every position of every string of length ≤ N (%d strings in all; 2 layers, exact): accept_i = ReLU(1 − N·B_i/i − 2N²·t_i) = [w_{:i} ∈ Dyck-1]", maxN, total),
		Explain: []string{"why, for every N: with z = B_i/i + 2N·t_i, z = 0 on members; if t_i = 0 and B_i > 0, z = B_i/i ≥ 1/N; if B_i < 0, t_i ≥ E_i/i = −B_i/i², so z ≥ (−B_i/i)(2N/i − 1) ≥ −B_i/i ≥ 1/N; if t_i > 0 and B_i ≥ 0, t_i ≥ 1/i² so z ≥ 2N/N² = 2/N. So N·z is 0 on members and ≥ 1 otherwise, and ReLU(1 − N z) is the membership bit. (λ = N instead of 2N fails: \")\" at N = 1 gives z = 0.)"}}, nil
}

// uniform01 is a uniform Dyck-1 transformer with a 0/1 output (AHAT,
// no layer norm, no weight depending on n): Dyck-1's two layers, plus
//
//	s_b = Attn(q = B_i/i, k = o_j, v = c_j)  (c = 1 for "(", 0 for ")")
//	h   = Attn(q = t_i, k = −o_j, v = c_j)
//	e   = EqZero_{1/2}(s_b − 1/2),  g = GTZero_{1/2}(h),  accept = min(e, g)
//
// in four layers (s_b beside t in layer 2, h in layer 3, the comparisons
// in layer 3's FFN, the AND in a fourth, FFN-only layer).
func uniform01() (*model.Model, error) {
	half := big.NewRat(1, 2)
	sign := &stream.Attn{Name: "sign(B/i)", In: []string{"B/i", "o", "c"}, Out: []string{"s_b"},
		Q: model.Ints([]int64{1, 0, 0}), K: model.Ints([]int64{0, 1, 0}), V: model.Ints([]int64{0, 0, 1}),
		Mask: model.Future, Weighting: model.AverageHardmax, Scale: model.NoScale}
	viol := &stream.Attn{Name: "violated(t)", In: []string{"t", "o", "c"}, Out: []string{"h"},
		Q: model.Ints([]int64{1, 0, 0}), K: model.Ints([]int64{0, -1, 0}), V: model.Ints([]int64{0, 0, 1}),
		Mask: model.Future, Weighting: model.AverageHardmax, Scale: model.NoScale}
	return stream.New("dyck1-uniform-01", "o", "c").
		Symbols(proofs.DyckAlphabet, func(s int) stream.Values {
			return stream.Values{"o": numeric.LitInt(int64(1 - 2*s)), "c": numeric.LitInt(int64(1 - s))}
		}).
		Then(blocks.Avg([]string{"o"}, []string{"B/i"}, model.Future, model.AverageHardmax), blocks.NegPart("B/i", "E"),
			stream.Parallel(blocks.Avg([]string{"E"}, []string{"t"}, model.Future, model.AverageHardmax), sign),
			viol,
			stream.Parallel(blocks.EqZeroEps("s_b", "e", half, half), blocks.GTZeroEps("h", "g", half, new(big.Rat))),
			blocks.And("e", "g", "accept")).
		Readout("accept").Model()
}

// checkUniform01 refutes "a uniform model cannot produce a single 0/1
// output" with uniform01, checked at every position of every string of
// length ≤ n (and argued for every n). If the counter-construction failed
// it would be no counterexample: HOLDS, with the failure.
func checkUniform01(m *model.Model, n int) (*proofs.Evidence, error) {
	cases, wrong, err := checkAcceptModel(m, n)
	if err != nil {
		return nil, err
	}
	if wrong != "" {
		s := "the candidate uniform construction fails, so it is no counterexample: " + wrong
		return &proofs.Evidence{Verdict: proofs.Holds, Summary: s, Explain: []string{s}}, nil
	}
	return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("counterexample: a uniform AHAT transformer without layer norm (%d layers, width %d, fixed rational weights, none depending on n) outputs accept_i = [w_{:i} ∈ Dyck-1] ∈ {0, 1} exactly at every position of every string of length ≤ %d (%d strings); the argument in --explain covers every n", len(m.Layers), m.D, n, cases),
		Explain: []string{
			"construction: Dyck-1's layers (B_i/i = Avg←(o), E = ReLU(−B/i), t = Avg←(E)), and heads s_b (q = B_i/i, k = o_j, v = c_j, c = 1 for \"(\") beside t, h (q = t_i, k = −o_j, v = c_j) in layer 3, e = EqZero_{1/2}(s_b − 1/2), g = GTZero_{1/2}(h), accept = min(e, g); all future-masked AHAT.",
			"s_b: the scores are B_i/i·o_j. If B_i > 0 the maximum is at the \"(\" positions (some exist) and s_b = 1; if B_i < 0 at the \")\" positions, s_b = 0; if B_i = 0 every score is 0 and s_b = O_i/i = 1/2. So s_b ∈ {0, 1/2, 1}, and e = [B_i = 0] exactly.",
			"h: the scores are −t_i·o_j. If t_i > 0 some B_j < 0, so some \")\" exists and maximises the score: h = 0. If t_i = 0 every score ties and h = O_i/i ≥ 1/2, since no prefix has more \")\" than \"(\". So h ∈ {0} ∪ [1/2, 1] and g = [t_i = 0] exactly.",
			"accept = min(e, g) = [B_i = 0 ∧ t_i = 0] = membership of w_{:i} (Properties 2 and 1), for every n, with fixed weights: uniform and 0/1. The comparisons' ε is 1/2 because the attention heads, not the FFN, turn the vanishing magnitudes 1/i and 1/i² into the fixed values 1/2 and 1.",
		}}, nil
}

var dyckClaims = []*proofs.Claim{
	// The Dyck languages.
	{ID: "example.dyck.definition", Section: "The Dyck Languages", Label: "",
		Statement: "Dyck-1, defined by Property 1 (every prefix has #( ≥ #)) and Property 2 (#( = #) overall), is the language of S → ε | ( S ) S",
		Domain:    "every string over {(, )} of length ≤ 14 (the grammar by recursive descent); exact",
		Recorded:  proofs.Holds,
		Check:     func() (*proofs.Evidence, error) { return checkDyckDefinition(14) }},
	{ID: "example.dyck.examples", Section: "The Dyck Languages", Label: "",
		Statement: "()(()) is in Dyck-1, ())(() is not",
		Domain:    "the two strings; the grammar, the two properties, dyck1 (external check) and dyck1-n (N = 6) under AHAT, exact",
		Recorded:  proofs.Proved,
		Check:     checkDyckExamples},
	{ID: "example.dyck1.figure", Section: "A Transformer Construction for Dyck-1", Label: "sec:dyck-1",
		Statement: "fig:dyck_1_examples: O_4 = 3, C_4 = 1, O_6 = C_6 = 3 for ()(()); O_3 = 1 < C_3 = 2, O_6 = C_6 = 3 for ())((); O_3 = 2 ≥ C_3 = 1, O_6 = 4 ≠ C_6 = 2 for ()((() (and the caption's verdicts)",
		Domain:    "the three strings; counted, and B_k/k from dyck1 under AHAT, exact",
		Recorded:  proofs.Proved,
		Check:     checkFigure},
	{ID: "example.dyck1.values", Section: "A Transformer Construction for Dyck-1", Label: "sec:dyck-1",
		Statement: "the two layers compute (Avg←(o))_i = (O_i − C_i)/i = B_i/i (eqn:dyck1_B_write), E_i = ReLU(−B_i/i) and t_i = (1/i) Σ_{j≤i} E_j (eqn:dyck1-states)",
		Domain:    "every string over {(, )} of length ≤ 9; dyck1 under AHAT; exact",
		Recorded:  proofs.Holds,
		Check: func() (*proofs.Evidence, error) {
			return exhaustive(proofs.Sweep{Recipe: "dyck1", Weighting: model.AverageHardmax, MaxN: 9})
		}},
	{ID: "example.dyck1.violation", Section: "A Transformer Construction for Dyck-1", Label: "sec:dyck-1",
		Statement: "E_i > 0 iff the non-negativity of the running balance is violated; t_n > 0 iff it was violated at some position, t_n = 0 otherwise; accept iff t_n = 0 (Property 1) and B_n/n = 0 (Property 2)",
		Domain:    "every position of every string over {(, )} of length ≤ 9; dyck1 under AHAT; exact",
		Recorded:  proofs.Holds,
		Check:     func() (*proofs.Evidence, error) { return checkViolations(9) }},
	{ID: "example.dyck1.magnitudes", Section: "A Transformer Construction for Dyck-1", Label: "sec:dyck-1",
		Statement: "\"the smallest nonzero magnitude of the (scaled) running balance B_i is 1/i … the smallest nonzero magnitude of t_n is 1/n²\", read as the lower bounds the thresholds need: B_i/i = 0 or |B_i/i| ≥ 1/i, and t_i = 0 or t_i ≥ 1/i²",
		Domain:    "every position of every string over {(, )} of length ≤ 10; dyck1 under AHAT; exact",
		Recorded:  proofs.Holds,
		Check:     func() (*proofs.Evidence, error) { return checkMagnitudes(10) }},
	{ID: "example.dyck1.magnitudes.literal", Section: "A Transformer Construction for Dyck-1", Label: "sec:dyck-1",
		Statement: "\"the smallest nonzero magnitude of the (scaled) running balance B_i is 1/i … the smallest nonzero magnitude of t_n is 1/n²\", as equalities at every length n",
		Domain:    "every string over {(, )} of length ≤ 10, the minima at each length; dyck1 under AHAT; exact",
		Recorded:  proofs.Refuted,
		Check:     func() (*proofs.Evidence, error) { return checkMagnitudesAttained(10) }},
	{ID: "example.dyck1-n.thresholds", Section: "A Transformer Construction for Dyck-1", Label: "sec:dyck-1",
		Statement: "with GTZero_{1/n²} on t, EqZero_{1/n} on B/i and a logical AND (one additional layer), a transformer built for length N outputs the 0/1 decision",
		Domain:    "for each N = 1 … 8: every string over {(, )} of length ≤ N, at every position (membership of the prefix); dyck1-n (3 layers) under AHAT; exact",
		Recorded:  proofs.Holds,
		Check:     checkDyck1NThresholds},
	{ID: "example.dyck1-n.edges", Section: "A Transformer Construction for Dyck-1", Label: "sec:dyck-1",
		Statement: "GTZero_{1/N²} and EqZero_{1/N} \"would suffice\", with no room to spare at odd N (1/N² and 1/N are then attained); at even N the smallest magnitudes are 1/(N(N − 1)) and 1/(N − 1), and those thresholds suffice",
		Domain:    "N = 7, the strings ()()()) and ()()()(, with the paper's thresholds and with 1/48, 1/6; N = 8, ()()())( and ()()()((, with 1/56, 1/7, 1/55 and 2/13, and every string of length ≤ 8 with 1/56, 1/7; dyck1-n under AHAT; exact",
		Recorded:  proofs.Holds,
		Check:     checkEdges},
	{ID: "example.dyck1-n.one-ffn", Section: "A Transformer Construction for Dyck-1", Label: "sec:dyck-1",
		Statement: "the additional layer's one FFN, \"built from the components GTZero_ε, EqZero_ε and logical AND\", renders the 0/1 decision",
		Domain:    "every ReLU FFN of (t, B/i) on the comparisons' exact domain (t ≤ 0 or t ≥ ε_g) × (B/i = 0 or |B/i| ≥ ε_e)",
		Recorded:  proofs.OutOfScope,
		Check:     checkDyck1NOneFfn},
	{ID: "example.dyck1-n.single-unit", Section: "A Transformer Construction for Dyck-1", Label: "sec:dyck-1",
		Statement: "(refining \"one could add an additional transformer layer\") no layer needs to be added: one ReLU unit in layer 2's FFN, accept_i = ReLU(1 − N·B_i/i − 2N²·t_i), is the 0/1 decision for inputs of length ≤ N",
		Domain:    "for each N = 1 … 8: every string over {(, )} of length ≤ N, at every position; Dyck-1's two layers from blocks plus the unit, AHAT; exact",
		Recorded:  proofs.Holds,
		Check: func() (*proofs.Evidence, error) {
			return checkSingleUnit(8, func(n int) *big.Rat { return big.NewRat(int64(2*n*n), 1) })
		}},
	{ID: "example.dyck1.uniform-01", Section: "A Transformer Construction for Dyck-1", Label: "sec:dyck-1",
		Statement: "\"Since a uniform model cannot use length-dependent comparison functions …, it cannot produce a single 0/1 output\"",
		Domain:    "uniform transformers without layer norm under AHAT; the counter-construction checked at every position of every string over {(, )} of length ≤ 8, exact, and argued for every n",
		Recorded:  proofs.Refuted,
		Check:     checkDyck1Uniform01},
}

// checkDyck1NThresholds checks example.dyck1-n.thresholds.
func checkDyck1NThresholds() (*proofs.Evidence, error) {
	var ss []proofs.Sweep
	for n := 1; n <= 8; n++ {
		ss = append(ss, proofs.Sweep{Recipe: "dyck1-n", Weighting: model.AverageHardmax, MaxN: n})
	}
	ev, err := sweeps(ss...)
	if err == nil && ev.Verdict == proofs.Proved {
		total := 0
		for _, s := range ss {
			total += 1<<(s.MaxN+1) - 2
		}
		ev.Explain = strings.Split(ev.Summary, "; ")
		ev.Summary = fmt.Sprintf("for each N = 1 … %d, built for N (3 layers: the comparisons in layer 2's FFN, the AND in one more layer): accept_i = [w_{:i} ∈ Dyck-1] at every position of every string of length ≤ N (%d strings in all), exact, AHAT", len(ss), total)
	}
	return ev, err
}

// checkDyck1NOneFfn checks example.dyck1-n.one-ffn.
func checkDyck1NOneFfn() (*proofs.Evidence, error) {
	return &proofs.Evidence{Verdict: proofs.OutOfScope, Summary: "an impossibility over all one-hidden-layer FFNs, which the engine cannot decide; by the argument in --explain no single ReLU FFN computes ¬GTZero_ε(t) ∧ EqZero_ε(B/i) on the comparisons' exact domain, so the composition takes two FFN depths: dyck1-n puts the comparisons in layer 2's (empty) FFN and the AND in the additional layer (example.dyck1-n.thresholds), and on the values the construction produces one unit in layer 2 suffices (example.dyck1-n.single-unit)",
		Explain: []string{
			"Let f(t, b) = Σ_k a_k ReLU(w_k·(t, b) + c_k) + c equal F = [t ≤ 0 ∧ b = 0] on D = {t ≤ 0 or t ≥ ε_g} × {b = 0 or |b| ≥ ε_e}.",
			"Across each line H in ℝ² that is the kink of some units, f's gradient jumps by the same vector all along H (the sum of a_k w_k over the units with that kink); a line on which f is affine on both sides somewhere has jump 0 everywhere, so it is no kink.",
			"f = 0 on the open sets (ε_g, ∞) × (ε_e, ∞) and (ε_g, ∞) × (−∞, −ε_e) ⊂ D. Every line except the vertical ones t = const and the horizontal ones b = const with |const| < ε_e meets one of them, so f's kinks are vertical or horizontal lines, and f(t, b) = φ(t) + ψ(b) for CPWL φ, ψ.",
			"On t > ε_g: φ(t) + ψ(b) = 0 for b = 0 and |b| ≥ ε_e, so φ = c₁ there and ψ(b) = −c₁ at those b. At t ≤ 0: φ(t) + ψ(0) = 1 gives φ(t) = 1 + c₁, and then φ(t) + ψ(b) = 1 ≠ 0 for |b| ≥ ε_e. Contradiction: no single FFN, whatever its width.",
		}}, nil
}

// checkDyck1Uniform01 checks example.dyck1.uniform-01.
func checkDyck1Uniform01() (*proofs.Evidence, error) {
	m, err := uniform01()
	if err != nil {
		return nil, err
	}
	return checkUniform01(m, 8)
}
