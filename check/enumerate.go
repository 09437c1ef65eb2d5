package check

import (
	"fmt"
	"math/big"
	"runtime"
	"slices"
	"sync"

	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// Exhaustive checks by depth-first enumeration.
//
// For a causally masked model with a length-free position encoding
// (model.NewPrefixRunner), the output at position i of a string is the
// output at position i of its prefix of length i. Enumerating the strings
// depth first, in the lexicographic order of Inputs, each string is its
// parent prefix extended by one symbol: one position computed, not n.
//
// The verdict on a string must still be checkCase's. Its outputs at
// positions 1..n are those of the nodes on its path; the reference is
// con.Expected on the whole string, called for every string as checkCase
// calls it. Where the reference at an earlier position j is the same Want
// as the last string's at j (on the same path, so against the same
// output), the position's verdict is reused: Compare, errorsOf and
// exactlyEqual are functions of the Want and the output alone. So a
// string costs one new position, its reference, and n comparisons of
// Wants, and the report is the one checkLength makes, failure included.
// A construction that declares its reference prefix-closed
// (Construction.ExpectedLast) is asked for the new position's reference
// alone: the verdicts of the earlier positions are those of the prefixes
// on the path, so a string costs one position and one reference.

// Enumeration is what Enumerate returns.
type Enumeration struct {
	// Strings is the number of strings checked, Failures the number that
	// failed (at any position).
	Strings, Failures int
	// Lengths holds a report per length, as Run makes it.
	Lengths []LengthReport
}

// Enumerate checks r, built for opts as Run builds it, on every
// string of every length from max(1, MinN) to maxLen, and returns the
// reports of the lengths. Unless fromScratch is set, the strings are
// enumerated depth first, one depth-first search for all the lengths,
// extending prefixes (the recipe must declare AllStrings and its model be
// prefix-stable, else an error); with fromScratch every string is run
// whole, as Run does without the enumeration (all the inputs of a length
// are then held in memory at once). opts.Exhaustive is raised to the
// number of strings of length maxLen, and opts.Workers goroutines share
// the work. It is what 'verify bench' measures: strings per second, and
// the speed-up of prefix reuse.
func Enumerate(r *recipes.Recipe, opts Options, maxLen int, fromScratch bool) (*Enumeration, error) {
	if opts.MaxN < maxLen {
		opts.MaxN = maxLen
	}
	opts.FromScratch = fromScratch
	ck, err := NewChecker(r, opts)
	if err != nil {
		return nil, err
	}
	if !ck.Con.AllStrings {
		return nil, fmt.Errorf("%s: its inputs are not all the strings over its alphabet, so they cannot be enumerated depth first", r.Name)
	}
	total := 1
	for n := 0; n < maxLen; n++ {
		if total > 1<<40/len(ck.Con.Model.Alphabet) {
			return nil, fmt.Errorf("%s: more than 2^40 strings of length %d", r.Name, maxLen)
		}
		total *= len(ck.Con.Model.Alphabet)
	}
	ck.opts.Exhaustive = max(ck.opts.Exhaustive, total)
	var lengths []int
	for n := max(1, r.MinN); n <= maxLen; n++ {
		lengths = append(lengths, n)
	}
	e := &Enumeration{}
	if fromScratch {
		for _, n := range lengths {
			e.Lengths = append(e.Lengths, ck.Length(n))
		}
	} else {
		var ok bool
		if e.Lengths, ok = ck.enumerate(lengths, 0, total, nil); !ok {
			if _, err := eval.NewPrefixRunner(ck.Runner, maxLen); err != nil {
				return nil, fmt.Errorf("%s cannot be enumerated depth first: %w", r.Name, err)
			}
			return nil, fmt.Errorf("%s cannot be enumerated depth first: its symbols are adapted to another model", r.Name)
		}
	}
	for _, lr := range e.Lengths {
		e.Strings += lr.Cases
		e.Failures += lr.Cases - lr.Passed
	}
	return e, nil
}

// searches returns the depth-first searches that check the given lengths
// (increasing): one prefix runner for all of them, or one per length
// where the position encoding depends on the length (i/n), each with
// that length's encoding; and the number of strings of the longest. It
// reports false when they cannot be enumerated depth first: the check
// asks for inputs run whole, a length is not enumerated exhaustively,
// the construction's inputs are not all strings, its symbols are adapted
// to another model, or the model is not prefix-stable.
func (ck *Checker) searches(lengths []int) (prs []eval.PrefixRunner, total int, ok bool) {
	con := ck.Con
	if ck.opts.FromScratch || !con.AllStrings || con.AdaptSymbols != nil || len(lengths) == 0 || ck.opts.Exhaustive <= 0 {
		return nil, 0, false
	}
	k := len(con.Model.Alphabet)
	maxLen := slices.Max(lengths)
	// Inputs enumerates a length when its k^n strings are within budget.
	total = 1
	for n := 0; n < maxLen; n++ {
		if total *= k; total > ck.opts.Exhaustive {
			return nil, 0, false
		}
	}
	pr, err := eval.NewPrefixRunner(ck.Runner, maxLen)
	if err == nil {
		return []eval.PrefixRunner{pr}, total, true
	}
	if con.Model.Causal() != nil {
		return nil, 0, false
	}
	for _, n := range lengths {
		pr, err := eval.NewPrefixRunnerAt(ck.Runner, n)
		if err != nil {
			return nil, 0, false
		}
		prs = append(prs, pr)
	}
	return prs, total, true
}

// depthFirst reports whether length n is enumerated depth first, and its
// number of strings.
func (ck *Checker) depthFirst(n int) (total int, ok bool) {
	_, total, ok = ck.searches([]int{n})
	return total, ok
}

// enumerate returns the reports of the given lengths (increasing) by one
// depth-first search, or false when they cannot be enumerated depth
// first (searches). Of the longest length it checks the strings of index
// from ≤ k < to (a part of a length: given one length only, since the
// shorter ones are checked whole).
//
// Within a sweep, each subtree holds one of sh's slots while it runs, and
// no more are handed out once sh quits (the reports are then not read).
func (ck *Checker) enumerate(lengths []int, from, to int, sh *shared) ([]LengthReport, bool) {
	prs, _, ok := ck.searches(lengths)
	if !ok {
		return nil, false
	}
	maxLen := slices.Max(lengths)
	if len(prs) == 1 {
		return ck.enumerateWith(prs[0], lengths, maxLen, from, to, sh), true
	}
	out := make([]LengthReport, len(lengths))
	for i, n := range lengths {
		lo, hi := 0, to
		if n == maxLen {
			lo = from
		} else {
			hi = 1
			for range n {
				hi *= len(ck.Con.Model.Alphabet)
			}
		}
		out[i] = ck.enumerateWith(prs[i], []int{n}, n, lo, hi, sh)[0]
	}
	return out, true
}

// enumerateWith is enumerate's depth-first search with the runner pr, for
// the given lengths up to maxLen, of whose strings it checks those of
// index from ≤ k < to.
func (ck *Checker) enumerateWith(pr eval.PrefixRunner, lengths []int, maxLen, from, to int, sh *shared) []LengthReport {
	k := len(ck.Con.Model.Alphabet)
	checked := make([]bool, maxLen+1)
	for _, n := range lengths {
		checked[n] = true
	}
	workers := ck.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// The subtrees below depth split are the units of work: enough of
	// them within [from, to) that the workers finish together. Those
	// that straddle an end are searched, and their strings outside it
	// skipped.
	split, size := 1, 1 // size: the strings of length maxLen in a subtree
	for range maxLen - 1 {
		size *= k
	}
	for split < maxLen && (to-from)/size < 16*workers {
		split++
		size /= k
	}
	first, last := from/size, (to+size-1)/size
	next := make(chan int)
	ws := make([]*enumWorker, workers)
	var wg sync.WaitGroup
	for w := range ws {
		ws[w] = newEnumWorker(ck, pr.Fork(), checked, maxLen, from, to)
		wg.Add(1)
		go func(ew *enumWorker) {
			defer wg.Done()
			for item := range next {
				if !sh.acquire() {
					continue
				}
				ew.item(item, split)
				sh.release()
			}
		}(ws[w])
	}
	for item := first; item < last && !sh.quitting(); item++ {
		next <- item
	}
	close(next)
	wg.Wait()
	out := make([]LengthReport, len(lengths))
	for i, n := range lengths {
		t := &lengthTally{}
		for _, ew := range ws {
			t.merge(ew.tallies[n])
		}
		out[i] = t.report()
		out[i].N, out[i].Exhaustive, out[i].Level = n, true, Exhaustive
	}
	return out
}

// verdict is checkCase's result on some positions: whether every output
// equals the reference exactly, whether every one passed, the largest
// error per output value (a nil entry: not finite), and the first failing
// position's failure (without the string's length, text and index).
type verdict struct {
	exact, passed, decided bool
	errs                   []*big.Rat
	failure                *Failure
}

// then is v followed by the verdict w of the next positions, merged as
// checkCase merges them position by position. Its errs are stored in
// dst's storage (nil: new storage), which must be no other verdict's.
func (v verdict) then(w verdict, dst []*big.Rat) verdict {
	out := verdict{exact: v.exact && w.exact, passed: v.passed && w.passed, decided: v.decided && w.decided, failure: v.failure}
	if dst == nil {
		dst = make([]*big.Rat, 0, max(len(v.errs), len(w.errs)))
	}
	out.errs = append(dst[:0], v.errs...)
	for k, e := range w.errs {
		for len(out.errs) <= k {
			out.errs = append(out.errs, new(big.Rat))
		}
		if e == nil {
			out.errs[k] = nil
		} else if out.errs[k] != nil && e.Cmp(out.errs[k]) > 0 {
			out.errs[k] = e
		}
	}
	if w.failure.before(out.failure) {
		out.failure = w.failure
	}
	return out
}

// positionVerdict is the body of checkCase's loop over positions, at
// position i (0-based), of an output computed at precision p.
func positionVerdict(p numeric.Precision, con *recipes.Construction, w recipes.Want, got eval.PositionOutput, i int) verdict {
	if v, ok := exactVerdict(con, w, got); ok {
		return v
	}
	ts := targetsOf(w)
	v := verdict{exact: exactlyEqualTargets(w, ts, got), passed: true, decided: true, errs: errorsOfTargets(ts, got)}
	if ok, undecided, why := compareTargets(p, w, ts, got, con.Bounds, con.Model.Output.Labels); !ok {
		v.passed = false
		v.decided = Decides(w, got, con.Model.Output.Labels, con.Booleans)
		v.failure = &Failure{Position: i + 1, Expected: wantText(w), Actual: gotText(got), Reason: why, Irrational: irrational(w), Undecided: undecided}
	}
	return v
}

// exactVerdict is positionVerdict where every output value is a point
// equal to its rational reference, the verdict on almost every position
// of a passing check, without the enclosures and differences errorsOf and
// Compare allocate: exact, passed, every error 0. It reports false, to
// leave the case to them, when any value differs, a reference is
// irrational, or a bound is negative (which even an error of 0 exceeds).
func exactVerdict(con *recipes.Construction, w recipes.Want, got eval.PositionOutput) (verdict, bool) {
	if w.Reals != nil || w.Unclaimed != nil || w.Symbol != "" && got.Symbol != w.Symbol || len(got.Values) < len(w.Values) {
		return verdict{}, false
	}
	for k, r := range w.Values {
		g := got.Values[k]
		if g.Lo == nil || !sameRat(g.Lo, r) || !sameRat(g.Hi, r) || negativeBound(con, w, k) {
			return verdict{}, false
		}
	}
	return verdict{exact: true, passed: true, decided: true, errs: zeroErrs(len(w.Values))}, true
}

// pointVerdict is exactVerdict on an output given by its symbol and its
// values, each a point (model.Prefix.PointOutput): without making the
// PositionOutput, whose values Output prints and copies.
func pointVerdict(con *recipes.Construction, w recipes.Want, symbol string, values []*big.Rat) (verdict, bool) {
	if w.Reals != nil || w.Unclaimed != nil || w.Symbol != "" && symbol != w.Symbol || len(values) < len(w.Values) {
		return verdict{}, false
	}
	for k, r := range w.Values {
		if values[k] == nil || !sameRat(values[k], r) || negativeBound(con, w, k) {
			return verdict{}, false
		}
	}
	return verdict{exact: true, passed: true, decided: true, errs: zeroErrs(len(w.Values))}, true
}

// negativeBound reports whether the bound on output value k is negative
// (which even an error of 0 exceeds).
func negativeBound(con *recipes.Construction, w recipes.Want, k int) bool {
	b := boundOf(con.Bounds, k)
	if k < len(w.Tol) && w.Tol[k].Max != nil {
		b = w.Tol[k]
	}
	return b.Max != nil && b.Max.Sign() < 0
}

// prefixVerdict is positionVerdict on the output of p, at position i
// (0-based): by pointVerdict when p gives its output as points and they
// pass exactly, else on p.Output().
func prefixVerdict(prec numeric.Precision, con *recipes.Construction, w recipes.Want, p eval.Prefix, i int) verdict {
	if symbol, values, ok := p.PointOutput(); ok {
		if v, ok := pointVerdict(con, w, symbol, values); ok {
			return v
		}
	}
	return positionVerdict(prec, con, w, p.Output(), i)
}

var ratZero = new(big.Rat)

// zeroErrsShared is read only: verdicts' errs are never written in place
// (then and the tallies copy or replace entries; then writes only into
// the storage of the enumWorker's agg, which it made), so exact verdicts
// of up to its length share it.
var zeroErrsShared = func() []*big.Rat {
	z := make([]*big.Rat, 64)
	for k := range z {
		z[k] = ratZero
	}
	return z
}()

// zeroErrs returns n errors 0.
func zeroErrs(n int) []*big.Rat {
	if n <= len(zeroErrsShared) {
		return zeroErrsShared[:n:n]
	}
	errs := make([]*big.Rat, n)
	for k := range errs {
		errs[k] = ratZero
	}
	return errs
}

// sameRat reports whether x and y are the same rational (or both nil),
// without allocating: Rats are in lowest terms, so equal values have
// equal numerators and denominators (those of fractions are references,
// where Cmp would allocate its cross products).
func sameRat(x, y *big.Rat) bool {
	if x == y {
		return true
	}
	if x == nil || y == nil || x.IsInt() != y.IsInt() || x.Num().Cmp(y.Num()) != 0 {
		return false
	}
	return x.IsInt() || x.Denom().Cmp(y.Denom()) == 0
}

// sameWant reports whether a and b are the same reference, so that every
// comparison against one output gives the same result. Reals compare by
// their printed expressions, which are the same only for the same
// expression (and so the same enclosure).
func sameWant(a, b recipes.Want) bool {
	if a.Symbol != b.Symbol || len(a.Values) != len(b.Values) || len(a.Reals) != len(b.Reals) || len(a.Tol) != len(b.Tol) ||
		!slices.Equal(a.Unclaimed, b.Unclaimed) ||
		(a.Values == nil) != (b.Values == nil) || (a.Reals == nil) != (b.Reals == nil) {
		return false
	}
	for k := range a.Values {
		if !sameRat(a.Values[k], b.Values[k]) {
			return false
		}
	}
	for k := range a.Reals {
		if a.Reals[k].String() != b.Reals[k].String() {
			return false
		}
	}
	for k := range a.Tol {
		if !sameRat(a.Tol[k].Max, b.Tol[k].Max) || a.Tol[k].Source != b.Tol[k].Source {
			return false
		}
	}
	return true
}

// lengthTally adds up the cases of one length as checkLength does.
type lengthTally struct {
	cases, exact, passed, decided int
	maxErr                        []*big.Rat
	inf                           []bool
	failure                       *Failure // the one to report (Failure.before)
}

func (t *lengthTally) add(v verdict, index int, failure func() *Failure) {
	t.cases++
	if v.exact {
		t.exact++
	}
	if v.decided {
		t.decided++
	}
	if v.passed {
		t.passed++
	} else if undecided := v.failure != nil && v.failure.Undecided; (&Failure{Case: index, Undecided: undecided}).before(t.failure) {
		// Only the failure reported is made: failure() prints the input.
		t.failure = failure()
		t.failure.Case = index
	}
	t.addErrs(v.errs, nil)
}

func (t *lengthTally) addErrs(errs []*big.Rat, inf []bool) {
	for k, e := range errs {
		for len(t.maxErr) <= k {
			t.maxErr = append(t.maxErr, new(big.Rat))
			t.inf = append(t.inf, false)
		}
		if e == nil || k < len(inf) && inf[k] {
			t.inf[k] = true
		} else if e.Cmp(t.maxErr[k]) > 0 {
			t.maxErr[k] = e
		}
	}
}

func (t *lengthTally) merge(u *lengthTally) {
	t.cases += u.cases
	t.exact += u.exact
	t.passed += u.passed
	t.decided += u.decided
	t.addErrs(u.maxErr, u.inf)
	if u.failure.before(t.failure) {
		t.failure = u.failure
	}
}

func (t *lengthTally) report() LengthReport {
	lr := LengthReport{Cases: t.cases, Exact: t.exact, Passed: t.passed, Decided: t.decided, Failure: t.failure}
	for k, e := range t.maxErr {
		if t.inf[k] {
			lr.MaxError = append(lr.MaxError, "inf")
			continue
		}
		lr.MaxError = append(lr.MaxError, new(big.Float).SetRat(e).Text('g', 3))
	}
	return lr
}

// enumWorker searches subtrees in one goroutine. Index d of its slices is
// the node at depth d on the current path (the prefix of length d).
type enumWorker struct {
	ck       *Checker
	pr       eval.PrefixRunner
	k        int
	checked  []bool // checked[n]: the strings of length n are checked
	maxLen   int
	from, to int // the strings of length maxLen checked: of index from ≤ k < to

	path  []int
	index []int         // index[d]: the index of path[:d] among the strings of length d
	nodes []eval.Prefix // nodes[d]: the state of path[:d]; nil when it failed to run
	// want[j] and pos[j] are the reference last met at position j on the
	// current path and its verdict; agg[j] merges pos[1..j]. known and
	// merged say how many of them hold for the current path.
	want          []recipes.Want
	pos, agg      []verdict
	known, merged int

	tallies []*lengthTally // by length
}

func newEnumWorker(ck *Checker, pr eval.PrefixRunner, checked []bool, maxLen, from, to int) *enumWorker {
	ew := &enumWorker{ck: ck, pr: pr, k: len(ck.Con.Model.Alphabet), checked: checked, maxLen: maxLen, from: from, to: to,
		path: make([]int, 0, maxLen), index: make([]int, maxLen+1), nodes: make([]eval.Prefix, maxLen+1),
		want: make([]recipes.Want, maxLen+1), pos: make([]verdict, maxLen+1), agg: make([]verdict, maxLen+1),
		tallies: make([]*lengthTally, maxLen+1)}
	ew.agg[0] = verdict{exact: true, passed: true, decided: true}
	for n := range ew.tallies {
		ew.tallies[n] = &lengthTally{}
	}
	return ew
}

// item searches the subtree of the split-th prefix in lexicographic order,
// and the prefixes on the way that it owns: those whose remaining
// symbols up to depth split are all the first, so that each shorter
// prefix is checked once.
func (ew *enumWorker) item(item, split int) {
	symbols := make([]int, split)
	for d := split - 1; d >= 0; d-- {
		symbols[d] = item % ew.k
		item /= ew.k
	}
	ew.path = ew.path[:0]
	ew.known, ew.merged = 0, 0
	failed := false
	for d, s := range symbols {
		failed = ew.push(s, failed)
		if owned := !slices.ContainsFunc(symbols[d+1:], func(x int) bool { return x != 0 }); owned {
			ew.visit()
		}
	}
	ew.descend(failed)
}

// push extends the path by s. A prefix that fails to run (an undecided
// comparison, an irrational value) leaves its whole subtree to checkCase,
// which reports each string's failure as a whole run does.
func (ew *enumWorker) push(s int, failed bool) bool {
	d := len(ew.path)
	ew.path = append(ew.path, s)
	ew.index[d+1] = ew.index[d]*ew.k + s
	ew.known, ew.merged = min(ew.known, d), min(ew.merged, d)
	ew.nodes[d+1] = nil
	if failed {
		return true
	}
	p, err := ew.pr.Extend(ew.nodes[d], s)
	if err != nil {
		return true
	}
	ew.nodes[d+1] = p
	return false
}

func (ew *enumWorker) descend(failed bool) {
	d := len(ew.path)
	if d == ew.maxLen {
		return
	}
	for s := 0; s < ew.k; s++ {
		ew.path = ew.path[:d]
		f := ew.push(s, failed)
		ew.visit()
		ew.descend(f)
	}
	ew.path = ew.path[:d]
}

// visit checks the string on the path, when its length is checked and,
// at the longest length, its index is in range.
func (ew *enumWorker) visit() {
	n := len(ew.path)
	if !ew.checked[n] || n == ew.maxLen && (ew.index[n] < ew.from || ew.index[n] >= ew.to) {
		return
	}
	con, t := ew.ck.Con, ew.tallies[n]
	c := recipes.Case{Symbols: ew.path[:n:n]} // cloned by checkCase's caller below and by failures
	failure := func(f Failure) func() *Failure {
		return func() *Failure {
			f.N, f.Input = n, CaseText(con.Model, recipes.Case{Symbols: slices.Clone(c.Symbols)})
			return &f
		}
	}
	if ew.nodes[n] == nil {
		res := checkCase(con, ew.ck.Runner, recipes.Case{Symbols: slices.Clone(ew.path)})
		t.add(verdict{exact: res.exact, passed: res.passed, decided: res.decided, errs: res.errs, failure: res.failure}, ew.index[n], func() *Failure { return res.failure })
		return
	}
	if con.Valid != nil {
		if err := con.Valid(c); err != nil {
			t.add(verdict{}, ew.index[n], failure(Failure{Reason: "the recipe's input generator left its domain (a bug in the recipe): " + err.Error()}))
			return
		}
	}
	if con.ExpectedLast != nil {
		// A prefix-closed reference: the positions before n are those of
		// the prefixes on the path, whose verdicts hold while the path
		// does; only the new ones are computed.
		for j := ew.known + 1; j <= n; j++ {
			w := con.ExpectedLast(recipes.Case{Symbols: ew.path[:j:j]})
			ew.pos[j] = prefixVerdict(ew.ck.Runner.Precision(), con, w, ew.nodes[j], j-1)
			ew.merged = min(ew.merged, j-1)
		}
		ew.known = n
		ew.tally(n)
		return
	}
	want := con.Expected(c)
	if len(want) != n {
		t.add(verdict{}, ew.index[n], failure(Failure{Reason: fmt.Sprintf("the model gave %s and the reference %d (a bug in the recipe)", plural.Of(n, "output"), len(want))}))
		return
	}
	for j := 1; j <= n; j++ {
		if j <= ew.known && sameWant(ew.want[j], want[j-1]) {
			continue
		}
		ew.want[j] = want[j-1]
		ew.pos[j] = prefixVerdict(ew.ck.Runner.Precision(), con, want[j-1], ew.nodes[j], j-1)
		ew.known = max(ew.known, j)
		ew.merged = min(ew.merged, j-1)
	}
	ew.tally(n)
}

// tally merges the verdicts of positions 1..n of the path, and adds the
// string of length n to its length's tally.
func (ew *enumWorker) tally(n int) {
	for j := ew.merged + 1; j <= n; j++ {
		// agg[j]'s errs are its own storage (made by then), read only
		// by the tallies, which copy their entries: reused.
		ew.agg[j] = ew.agg[j-1].then(ew.pos[j], ew.agg[j].errs)
	}
	ew.merged = n
	v := ew.agg[n]
	ew.tallies[n].add(v, ew.index[n], func() *Failure {
		f := *v.failure
		f.N, f.Input = n, CaseText(ew.ck.Con.Model, recipes.Case{Symbols: slices.Clone(ew.path)})
		return &f
	})
}
