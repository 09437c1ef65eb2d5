package certify

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/certify/recheck"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// TestRecheckAcceptsAnalysis: on every recipe the analysis reads, at five
// precisions and two lengths, the independent checker accepts every
// certificate of a length the analysis certifies (a refusal withdraws the
// conclusion, and says so in Refused). The test counts the certificates
// checked, so that it cannot pass by certifying nothing.
func TestRecheckAcceptsAnalysis(t *testing.T) {
	checked := 0
	eachAnalysis(t, []int{2, 5}, func(name string, in Input, n int) {
		res, err := Length(in, n)
		if err != nil {
			t.Fatal(err)
		}
		if res.Refused {
			t.Errorf("%s: the checker refused the analysis's certificate: %s", name, res.Why)
		}
		if res.Certified || res.Decided {
			checked++
			if res.CheckWork == 0 {
				t.Errorf("%s: certified, but the checker did no work", name)
			}
		}
	})
	if checked < 100 {
		t.Errorf("only %d certificates checked", checked)
	}
	t.Logf("%d certificates checked", checked)
}

// certificateOf runs the analysis of con's own model at precision p and
// length n without the checker, and returns its certificate and the
// checker's input.
func certificateOf[T any](t *testing.T, recipe string, w model.Weighting, maxN int, m *model.Model, p string, n int) (*recheck.Certificate[T], recheck.Input[T]) {
	t.Helper()
	con := construct(t, recipe, w, maxN)
	if m == nil {
		m = con.Model
	}
	prec := numeric.MustParsePrecision(p)
	runner, err := eval.New(prec, m)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := eval.Instantiate[*big.Rat](numeric.Exact{}, con.Model)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Length(Input{Reference: con.Model, Model: m, Precision: prec, Exact: exact, Runner: runner,
		Symbols: con.Symbols, Right: exactlyRight, noRecheck: true, keepTyped: true}, n)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Certified {
		t.Fatalf("%s at %s, n = %d: not certified: %s", recipe, p, n, res.Why)
	}
	inst, err := eval.Underlying(runner)
	if err != nil {
		t.Fatal(err)
	}
	return res.typed.(*recheck.Certificate[T]), recheck.Input[T]{Reference: exact, Model: inst.(*eval.Instance[T]),
		Symbols: con.Symbols, Right: exactlyRight}
}

// clone copies a certificate deep enough that a tampering changes nothing
// the analysis holds: the lists and facts are copied, the vectors
// themselves shared (a tampering replaces a vector, never writes one).
func clone[T any](c *recheck.Certificate[T]) *recheck.Certificate[T] {
	out := *c
	out.Steps = append([]recheck.Step[T](nil), c.Steps...)
	for k := range out.Steps {
		st := &out.Steps[k]
		st.States = append([][]recheck.State[T](nil), st.States...)
		for i := range st.States {
			st.States[i] = append([]recheck.State[T](nil), st.States[i]...)
		}
		st.Queries = append([][]recheck.QueryFact[T](nil), st.Queries...)
		for h := range st.Queries {
			st.Queries[h] = append([]recheck.QueryFact[T](nil), st.Queries[h]...)
			for x := range st.Queries[h] {
				f := &st.Queries[h][x]
				f.Candidates = append([]recheck.Item[T](nil), f.Candidates...)
				f.Outputs = append([]recheck.State[T](nil), f.Outputs...)
			}
		}
	}
	return &out
}

// tampering is one change to a certificate, which the checker must refuse
// with a fact that contains want.
type tampering[T any] struct {
	name, want string
	apply      func(c *recheck.Certificate[T]) bool // false: nothing to change
}

// tamperings are changes to a certificate of the lookup (one attention
// sublayer, pooled states after it) that make it false.
func tamperings[T any](b numeric.Backend[T]) []tampering[T] {
	firstFact := func(c *recheck.Certificate[T]) *recheck.QueryFact[T] {
		for k := range c.Steps {
			for h := range c.Steps[k].Queries {
				for x := range c.Steps[k].Queries[h] {
					if f := &c.Steps[k].Queries[h][x]; len(f.Candidates) > 0 {
						return f
					}
				}
			}
		}
		return nil
	}
	bump := func(s recheck.State[T]) recheck.State[T] {
		m := append([]T(nil), s.Model...)
		for c := range m {
			m[c] = b.Add(b.New(), m[c], b.SetInt64(b.New(), 1))
		}
		return recheck.State[T]{Ref: s.Ref, Model: m}
	}
	return []tampering[T]{
		{"a state left out", "does not list", func(c *recheck.Certificate[T]) bool {
			last := &c.Steps[len(c.Steps)-1]
			if len(last.States[0]) == 0 {
				return false
			}
			last.States[0] = last.States[0][1:]
			return true
		}},
		{"a state's values changed", "does not list", func(c *recheck.Certificate[T]) bool {
			last := &c.Steps[len(c.Steps)-1]
			for x := range last.States[0] {
				last.States[0][x] = bump(last.States[0][x])
			}
			return len(last.States[0]) > 0
		}},
		{"the order said broken", "breaks the exact order, but it keeps it", func(c *recheck.Certificate[T]) bool {
			f := firstFact(c)
			if f == nil {
				return false
			}
			f.Kept = false
			return true
		}},
		{"a candidate left out", "can be selected", func(c *recheck.Certificate[T]) bool {
			f := firstFact(c)
			if f == nil {
				return false
			}
			var rest []recheck.Item[T]
			for _, it := range f.Candidates {
				if it.Pos != f.Candidates[0].Pos {
					rest = append(rest, it)
				}
			}
			f.Candidates = rest
			return true
		}},
		{"a candidate's value left out", "of its", func(c *recheck.Certificate[T]) bool {
			f := firstFact(c)
			if f == nil || len(f.Candidates) < 2 || f.Candidates[1].Pos != f.Candidates[0].Pos {
				return false
			}
			f.Candidates = f.Candidates[1:]
			return true
		}},
		{"a candidate's key changed", "cannot hold", func(c *recheck.Certificate[T]) bool {
			f := firstFact(c)
			if f == nil {
				return false
			}
			f.Candidates[0].Key = bump(f.Candidates[0].Key)
			return true
		}},
		{"an output left out", "which the certificate does not list", func(c *recheck.Certificate[T]) bool {
			f := firstFact(c)
			if f == nil || len(f.Outputs) == 0 {
				return false
			}
			f.Outputs = f.Outputs[1:]
			return true
		}},
		{"an output added", "which the head cannot give", func(c *recheck.Certificate[T]) bool {
			f := firstFact(c)
			if f == nil || len(f.Outputs) == 0 {
				return false
			}
			f.Outputs = append(f.Outputs, bump(f.Outputs[0]))
			return true
		}},
		{"a fact's range changed", "has no fact", func(c *recheck.Certificate[T]) bool {
			f := firstFact(c)
			if f == nil {
				return false
			}
			f.Hi++
			return true
		}},
		{"a step's layer changed", "in the certificate", func(c *recheck.Certificate[T]) bool {
			c.Steps[0].Layer++
			return true
		}},
		{"a step left out", "sublayers", func(c *recheck.Certificate[T]) bool {
			c.Steps = c.Steps[1:]
			return true
		}},
	}
}

// TestRecheckRefusesTampering: the checker refuses each false change to a
// true certificate of the lookup, at fp16 and exact arithmetic, naming
// the fact that fails; the certificate itself it accepts.
func TestRecheckRefusesTampering(t *testing.T) {
	t.Run("fp16", func(t *testing.T) {
		c, in := certificateOf[float64](t, "lookup", model.AverageHardmax, 8, nil, "fp16", 8)
		tamper(t, c, in, tamperings(in.Model.B))
	})
	t.Run("exact", func(t *testing.T) {
		con := construct(t, "lookup", model.AverageHardmax, 8)
		m := withEmbedding(t, con.Model, "8:1", "1", 0) // a copy: the model checked is not the reference
		c, in := certificateOf[*big.Rat](t, "lookup", model.AverageHardmax, 8, m, "exact", 6)
		tamper(t, c, in, tamperings(in.Model.B))
	})
}

func tamper[T any](t *testing.T, c *recheck.Certificate[T], in recheck.Input[T], ts []tampering[T]) {
	t.Helper()
	if _, err := recheck.Check(in, c); err != nil {
		t.Fatalf("the true certificate is refused: %v", err)
	}
	for _, tc := range ts {
		bad := clone(c)
		if !tc.apply(bad) {
			t.Errorf("%s: nothing to change", tc.name)
			continue
		}
		_, err := recheck.Check(in, bad)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: refused with %q, want it to say %q", tc.name, err, tc.want)
		}
	}
	if _, err := recheck.Check(in, c); err != nil {
		t.Fatalf("the true certificate is refused after the tamperings (a clone wrote through): %v", err)
	}
}

// TestRecheckRefusesWrongClaims: a certificate of a model that is wrong
// on some input, its states and facts true (the order broken) but its
// verdict changed to certified, is refused at the outputs.
func TestRecheckRefusesWrongClaims(t *testing.T) {
	con := construct(t, "lookup", model.AverageHardmax, 4)
	// The lookup with 1:0's j raised: certified at n = 1, wrong at 2.
	m := withEmbedding(t, con.Model, "1:0", "j", 1)
	prec := numeric.MustParsePrecision("fp32")
	runner, err := eval.New(prec, m)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := eval.Instantiate[*big.Rat](numeric.Exact{}, con.Model)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Length(Input{Reference: con.Model, Model: m, Precision: prec, Exact: exact, Runner: runner,
		Symbols: con.Symbols, Right: exactlyRight, noRecheck: true, keepTyped: true}, 2)
	if err != nil || res.Certified {
		t.Fatalf("n = 2 certified (%v): the reproducer changed", err)
	}
	inst, _ := eval.Underlying(runner)
	in := recheck.Input[float32]{Reference: exact, Model: inst.(*eval.Instance[float32]), Symbols: con.Symbols, Right: exactlyRight}
	a, why := newAnalysis(Input{Reference: con.Model, Model: m, Precision: prec, Symbols: con.Symbols, Right: exactlyRight}, 2, exact, inst.(*eval.Instance[float32]), &Result{N: 2})
	if why != "" {
		t.Fatal(why)
	}
	if why := a.run(); why != "" {
		t.Fatal(why)
	}
	c := a.certificate()
	c.Certified = true
	if _, err := recheck.Check(in, c); err == nil || !strings.Contains(err.Error(), "wrong output") {
		t.Errorf("a wrong model's certificate claimed certified: %v", err)
	}

}

// TestRecheckOnePassIsPasses: where the checker holds a query's
// candidates against every key in one pass (exact scores of small
// integers, machine floats), it accepts and refuses as the passes over
// scored tables do, on true certificates and on each tampering.
func TestRecheckOnePassIsPasses(t *testing.T) {
	c, in := certificateOf[float64](t, "lookup", model.AverageHardmax, 16, nil, "bf16", 16)
	compare := func(name string, c *recheck.Certificate[float64]) {
		_, fused := recheck.Check(in, c)
		slow := in
		slow.Passes = true
		_, passes := recheck.Check(slow, c)
		if fmt.Sprint(fused) != fmt.Sprint(passes) {
			t.Errorf("%s: one pass %v, passes %v", name, fused, passes)
		}
	}
	compare("true", c)
	for _, tc := range tamperings(in.Model.B) {
		bad := clone(c)
		if tc.apply(bad) {
			compare(tc.name, bad)
		}
	}
}

// TestRecheckEncodeDecode: a certificate written out and read back is
// the same certificate (the checker accepts it, and it writes out the
// same), at every kind of backend: exact, a bigfloat, fp64, fp32, fp16.
func TestRecheckEncodeDecode(t *testing.T) {
	roundTrip(t, "exact", func(t *testing.T) {
		con := construct(t, "lookup", model.AverageHardmax, 6)
		m := withEmbedding(t, con.Model, "6:1", "1", 0)
		c, in := certificateOf[*big.Rat](t, "lookup", model.AverageHardmax, 6, m, "exact", 5)
		encodeDecode(t, c, in)
	})
	roundTrip(t, "53", func(t *testing.T) {
		c, in := certificateOf[*big.Float](t, "lookup", model.AverageHardmax, 6, nil, "53", 5)
		encodeDecode(t, c, in)
	})
	for _, p := range []string{"fp64", "fp16"} {
		roundTrip(t, p, func(t *testing.T) {
			c, in := certificateOf[float64](t, "pred", model.RightHardmax, 6, nil, p, 6)
			encodeDecode(t, c, in)
		})
	}
	roundTrip(t, "fp32", func(t *testing.T) {
		c, in := certificateOf[float32](t, "induction-recent", model.RightHardmax, 5, nil, "fp32", 5)
		encodeDecode(t, c, in)
	})
}

func roundTrip(t *testing.T, name string, f func(t *testing.T)) { t.Run(name, f) }

func encodeDecode[T any](t *testing.T, c *recheck.Certificate[T], in recheck.Input[T]) {
	t.Helper()
	b := in.Model.B
	e := recheck.Encode(b, c)
	back, err := recheck.Decode(b, e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := recheck.Check(in, back); err != nil {
		t.Fatalf("read back, refused: %v", err)
	}
	if a, z := fmt.Sprint(recheck.Encode(b, back)), fmt.Sprint(e); a != z {
		t.Errorf("written out again, it differs")
	}
}

// TestRecheckRefusesCandidateLeftOut: the lookup for N = 4 under leftmost
// hardmax, with symbol 1:0's j² lowered by 1 and 1:0 allowed at position
// 1 only, checked against itself in fp32 (whose scores the one-pass check
// reads as machine floats). At query 2, position 1 holding 1:0 scores
// 2·2·1 − (1 − 1) = 4, as position 2 does (2·2·2 − 4): two candidates at
// two positions, tied exactly, and leftmost hardmax takes position 1.
// Each certificate with a candidate key left out of a fact (with every
// value it comes with there, and with or without each output) is
// refused, by the one-pass check and the passes alike. Where one key
// remains, the one left out ties with it exactly: only the check that a
// key at the bar is listed catches it. The test counts those, so that it
// cannot pass by leaving out nothing.
func TestRecheckRefusesCandidateLeftOut(t *testing.T) {
	con := construct(t, "lookup", model.LeftHardmax, 4)
	m := withEmbedding(t, con.Model, "1:0", "j²", -1)
	s10 := slices.Index(m.Alphabet, "1:0")
	symbols := func(i, n int) []int {
		var l []int
		for _, s := range con.Symbols(i, n) {
			if s != s10 || i == 1 {
				l = append(l, s)
			}
		}
		return l
	}
	prec := numeric.MustParsePrecision("fp32")
	exact, err := eval.Instantiate[*big.Rat](numeric.Exact{}, m)
	if err != nil {
		t.Fatal(err)
	}
	runner, err := eval.New(prec, m)
	if err != nil {
		t.Fatal(err)
	}
	inst, _ := eval.Underlying(runner)
	in := recheck.Input[float32]{Reference: exact, Model: inst.(*eval.Instance[float32]), Symbols: symbols, Right: exactlyRight}
	slow := in
	slow.Passes = true
	leftOut, toOne := 0, 0
	for n := 2; n <= 4; n++ {
		res, err := Length(Input{Reference: m, Model: m, Precision: prec, Exact: exact, Runner: runner,
			Symbols: symbols, Right: exactlyRight, noRecheck: true, keepTyped: true}, n)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Certified {
			t.Fatalf("n = %d: not certified: %s", n, res.Why)
		}
		c := res.typed.(*recheck.Certificate[float32])
		for k := range c.Steps {
			for h := range c.Steps[k].Queries {
				for x, f := range c.Steps[k].Queries[h] {
					if oneKey(in.Model.B, f.Candidates) {
						continue
					}
					for drop := range f.Candidates {
						for out := -1; out < len(f.Outputs); out++ {
							bad := clone(c)
							g := &bad.Steps[k].Queries[h][x]
							d := f.Candidates[drop]
							g.Candidates = g.Candidates[:0:0]
							for _, it := range f.Candidates {
								if it.Pos != d.Pos || !sameState(in.Model.B, it.Key, d.Key) {
									g.Candidates = append(g.Candidates, it)
								}
							}
							if out >= 0 {
								g.Outputs = append(g.Outputs[:out:out], g.Outputs[out+1:]...)
							}
							name := fmt.Sprintf("n = %d, the key at position %d left out, output %d", n, d.Pos, out)
							for _, ci := range []recheck.Input[float32]{in, slow} {
								if _, err := recheck.Check(ci, bad); err == nil {
									t.Errorf("%s: accepted (passes: %v)", name, ci.Passes)
								}
							}
							leftOut++
							if oneKey(in.Model.B, g.Candidates) {
								toOne++
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d candidate keys left out, %d of them leaving one", leftOut, toOne)
	if toOne < 5 {
		t.Errorf("only %d candidate keys left out leaving one (%d in all)", toOne, leftOut)
	}
}

// oneKey reports whether the items are one key at one position (with its
// values), or none.
func oneKey[T any](b numeric.Backend[T], items []recheck.Item[T]) bool {
	for _, it := range items {
		if it.Pos != items[0].Pos || !sameState(b, it.Key, items[0].Key) {
			return false
		}
	}
	return true
}

// TestRecheckRefusesOrderSaidKept: the lookup for N = 4 under leftmost
// hardmax against the same lookup with 1:0's j² lowered by 1, in fp32,
// 1:0 allowed at position 1 only and position 2 holding only symbols of
// value 0. At query 2 the changed model scores position 1 holding 1:0 at
// 2·2·1 − (1 − 1) = 4, as position 2 (the reference: 3 and 4), and takes
// it: the order is broken, but both output 0, so the lengths are
// certified with the fact that the order is broken. Each such fact said
// kept is refused, by the one-pass check and the passes alike.
func TestRecheckRefusesOrderSaidKept(t *testing.T) {
	con := construct(t, "lookup", model.LeftHardmax, 4)
	m := withEmbedding(t, con.Model, "1:0", "j²", -1)
	symbols := func(i, n int) []int {
		var l []int
		for _, s := range con.Symbols(i, n) {
			name := con.Model.Alphabet[s]
			if (name != "1:0" || i == 1) && (i != 2 || strings.HasSuffix(name, ":0")) {
				l = append(l, s)
			}
		}
		return l
	}
	prec := numeric.MustParsePrecision("fp32")
	exact, err := eval.Instantiate[*big.Rat](numeric.Exact{}, con.Model)
	if err != nil {
		t.Fatal(err)
	}
	runner, err := eval.New(prec, m)
	if err != nil {
		t.Fatal(err)
	}
	inst, _ := eval.Underlying(runner)
	in := recheck.Input[float32]{Reference: exact, Model: inst.(*eval.Instance[float32]), Symbols: symbols, Right: exactlyRight}
	slow := in
	slow.Passes = true
	said := 0
	for n := 2; n <= 4; n++ {
		res, err := Length(Input{Reference: con.Model, Model: m, Precision: prec, Exact: exact, Runner: runner,
			Symbols: symbols, Right: exactlyRight, noRecheck: true, keepTyped: true}, n)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Certified {
			t.Fatalf("n = %d: not certified: %s", n, res.Why)
		}
		c := res.typed.(*recheck.Certificate[float32])
		for k := range c.Steps {
			for h := range c.Steps[k].Queries {
				for x, f := range c.Steps[k].Queries[h] {
					if f.Kept || len(f.Candidates) == 0 {
						continue
					}
					bad := clone(c)
					bad.Steps[k].Queries[h][x].Kept = true
					for _, ci := range []recheck.Input[float32]{in, slow} {
						if _, err := recheck.Check(ci, bad); err == nil || !strings.Contains(err.Error(), "keeps the exact order, but it does not") {
							t.Errorf("n = %d, query over %d … %d: the order said kept: %v (passes: %v)", n, f.Lo, f.Hi, err, ci.Passes)
						}
					}
					said++
				}
			}
		}
	}
	t.Logf("%d broken orders said kept", said)
	if said < 3 {
		t.Errorf("only %d broken orders said kept", said)
	}
}
