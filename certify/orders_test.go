package certify

import (
	"fmt"
	"slices"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// oneHead is a one-layer, one-head model small enough to reason about by
// hand: the residual stream holds a constant 1, a one-hot of the symbol,
// a one-hot of the position (up to len(kpos)) and an output column. The
// query is the constant 1, so the score of a key at position j holding
// symbol s is ksym[s] + kpos[j−1]; the value is val[s], written to the
// output column, which the model reads out. A reference and a checked
// model that differ only in these tables differ only where the head
// selects differently or reads another value.
type oneHead struct {
	alphabet   []string
	ksym, kpos []int64
	val        []int64
	mask       model.Mask
	w          model.Weighting
	// out, when set, is each symbol's embedding in the output column
	// (else 0), which the residual connection adds to the head's output.
	out []int64
	// ffnFirst puts a feed-forward sublayer that adds nothing before the
	// attention, so that the attention reads held states (the analysis's
	// states after a step, with what no later step reads set to 0)
	// instead of the embeddings.
	ffnFirst bool
}

func (h oneHead) model(name string) *model.Model {
	S, P := len(h.alphabet), len(h.kpos)
	D := 1 + S + P + 1
	out := D - 1
	word := make([]model.Vector, S)
	for s := range word {
		row := make(model.Vector, D)
		for c := range row {
			row[c] = num(0)
		}
		row[0], row[1+s] = num(1), num(1)
		if h.out != nil {
			row[out] = num(h.out[s])
		}
		word[s] = row
	}
	q := model.Zeros(1, D)
	q.Data[0] = num(1)
	k := model.Zeros(1, D)
	for s, v := range h.ksym {
		if v != 0 {
			k.Data[1+s] = num(v)
		}
	}
	for j, v := range h.kpos {
		if v != 0 {
			k.Data[1+S+j] = num(v)
		}
	}
	v := model.Zeros(D, D)
	for s, x := range h.val {
		if x != 0 {
			v.Data[out*D+1+s] = num(x)
		}
	}
	r := model.Zeros(1, D)
	r.Data[out] = num(1)
	pos := &model.PositionEncoding{Name: "one-hot", IndependentOfN: true, Vector: func(i, n int) model.Vector {
		row := make(model.Vector, D)
		for c := range row {
			row[c] = num(0)
		}
		if i <= P {
			row[1+S+i-1] = num(1)
		}
		return row
	}}
	layers := []model.Layer{{Attention: &model.Attention{Mask: h.mask, Weighting: h.w, Scale: model.NoScale,
		Heads: []model.Head{{Q: q, K: k, V: v}}}}}
	if h.ffnFirst {
		zero := &model.FeedForward{W1: model.Zeros(1, D), W2: model.Zeros(D, 1)}
		layers = append([]model.Layer{{FeedForward: zero}}, layers...)
	}
	return &model.Model{Name: name, Alphabet: h.alphabet, WordEmbedding: word, Position: pos, D: D,
		Layers: layers, Output: model.Output{Kind: model.Readout, W: r}}
}

// wrongInput runs every input of length n that symbols allows (nil:
// every symbol everywhere) through m at precision p and through ref in
// exact arithmetic, whole (model.Run: none of the analysis's pieces), and
// returns the first input where m is not exactly right, or nil, and the
// number of inputs run.
func wrongInput(t *testing.T, ref, m *model.Model, p string, n int, symbols func(i, n int) []int) (bad []int, count int) {
	t.Helper()
	runner, err := eval.New(numeric.MustParsePrecision(p), m)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := eval.New(numeric.MustParsePrecision("exact"), ref)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]int, n)
	var walk func(i int) []int
	walk = func(i int) []int {
		if i == n {
			count++
			want, err := exact.Run(in, false)
			if err != nil {
				t.Fatal(err)
			}
			got, err := runner.Run(in, false)
			if err != nil {
				t.Fatal(err)
			}
			for k := range want.Outputs {
				if ok, _ := exactlyRight(want.Outputs[k], got.Outputs[k]); !ok {
					return append([]int(nil), in...)
				}
			}
			return nil
		}
		list := symbols
		if list == nil {
			list = func(int, int) []int {
				all := make([]int, len(ref.Alphabet))
				for s := range all {
					all[s] = s
				}
				return all
			}
		}
		for _, s := range list(i+1, n) {
			in[i] = s
			if bad := walk(i + 1); bad != nil {
				return bad
			}
		}
		return nil
	}
	return walk(0), count
}

// orderCase is a reference and a checked model of one head, the lengths
// to analyse, and, derived by hand, the lengths at which some input is
// wrong.
type orderCase struct {
	name       string
	ref, model oneHead
	symbols    func(i, n int) []int
	lengths    []int
	wrong      []int
	precisions []string
	// mayRefuse: every input is right, but only because of the way the
	// model's tie rule breaks a tie the analysis does not follow (it
	// takes a tied key of the model as a possible selection whatever the
	// rule): not certifying is allowed, certifying is not required.
	mayRefuse bool
}

// checkVerdicts analyses each case at each of its lengths and precisions,
// by the default path and by the general code alone (Input.general), and
// requires of both: certified exactly where every input is right, as
// running every input whole says (or, where the case may be refused, not
// certified where one is wrong); and that running every input agrees
// with the hand derivation, so that the case tests what it says it does.
func checkVerdicts(t *testing.T, cases []orderCase) {
	t.Helper()
	var certified, wrong, inputs int
	defer func() {
		t.Logf("%d analyses certified, %d lengths with a wrong input, %d inputs run", certified, wrong, inputs)
		if certified == 0 || wrong == 0 {
			t.Errorf("the cases saw too little: %d certified, %d wrong", certified, wrong)
		}
	}()
	for _, tc := range cases {
		ref, m := tc.ref.model("reference"), tc.model.model("checked")
		precisions := tc.precisions
		if precisions == nil {
			precisions = []string{"exact", "fp64", "fp32", "fp16", "24"}
		}
		for _, p := range precisions {
			for _, n := range tc.lengths {
				name := fmt.Sprintf("%s, %s, %s, n = %d", tc.name, tc.ref.w, p, n)
				bad, count := wrongInput(t, ref, m, p, n, tc.symbols)
				inputs += count
				if bad != nil {
					wrong++
				}
				wantWrong := slices.Contains(tc.wrong, n)
				if (bad != nil) != wantWrong {
					t.Errorf("%s: a wrong input %v among %d, but the hand derivation says wrong = %v: the case is not what it says", name, bad, count, wantWrong)
					continue
				}
				for _, general := range []bool{false, true} {
					in := Input{Reference: ref, Model: m, Precision: numeric.MustParsePrecision(p), Symbols: tc.symbols,
						Right: exactlyRight, general: general}
					res, err := Length(in, n)
					if err != nil {
						t.Fatal(err)
					}
					path := map[bool]string{false: "default path", true: "general code"}[general]
					if res.Certified {
						certified++
					}
					switch {
					case res.Certified && bad != nil:
						t.Errorf("%s (%s): certified, but input %v is wrong", name, path, bad)
					case !res.Certified && bad == nil && !tc.mayRefuse:
						t.Errorf("%s (%s): not certified (%s), but all %d inputs are right", name, path, res.Why, count)
					}
				}
			}
		}
	}
}

// every lists the symbols 0 … k−1.
func every(k int) []int {
	all := make([]int, k)
	for s := range all {
		all[s] = s
	}
	return all
}

// TestOrderTiesByHand: the analysis must see every way the checked
// model's scores can leave the reference's order, on a query with few
// candidates (orderKept, and the fast path's keptRow, keptOneKey and
// kept): a strict order the model ties, a tie the model orders, with
// one key per position and with two, and under a mask that starts the
// visible range after position 1. Values are a = 0, b = 1, so a wrong
// selection shows wherever the two positions hold different symbols.
func TestOrderTiesByHand(t *testing.T) {
	ab := []string{"a", "b"}
	vals := []int64{0, 1}
	pos := func(w model.Weighting, mask model.Mask, kpos ...int64) oneHead {
		return oneHead{alphabet: ab, ksym: []int64{0, 0}, kpos: kpos, val: vals, mask: mask, w: w}
	}
	sym := func(w model.Weighting, ksym ...int64) oneHead {
		return oneHead{alphabet: ab, ksym: ksym, kpos: []int64{0, 0, 0}, val: vals, mask: model.NoMask, w: w}
	}
	var cases []orderCase
	for _, w := range []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax} {
		// Position 2 scores above position 1 in the reference (it is
		// selected); the model ties them, and selects position 1 (left),
		// both (average) or still 2 (right: its tie goes rightwards, to
		// the reference's choice). One key per position, no mask: the
		// fast path's keptRow.
		below := orderCase{name: "a strict order the model ties", ref: pos(w, model.NoMask, 0, 1), model: pos(w, model.NoMask, 1, 1),
			lengths: []int{1, 2}, wrong: []int{2}}
		if w == model.RightHardmax {
			below.wrong, below.mayRefuse = nil, true
		}
		// The mirror: position 1 above position 2, tied in the model:
		// rightmost hardmax selects position 2.
		above := orderCase{name: "a strict order the model ties, leftwards", ref: pos(w, model.NoMask, 1, 0), model: pos(w, model.NoMask, 1, 1),
			lengths: []int{1, 2}, wrong: []int{2}}
		if w == model.LeftHardmax {
			above.wrong, above.mayRefuse = nil, true
		}
		cases = append(cases, below, above)
		// An exact tie the model orders: the reference selects position
		// 1 (left), both (average: the mean depends on the input, which
		// the analysis declines, and the model's single pick is wrong
		// anyway) or position 2 (right); the model selects position 2.
		tie := orderCase{name: "a tie the model orders", ref: pos(w, model.NoMask, 1, 1), model: pos(w, model.NoMask, 0, 1),
			lengths: []int{1, 2}, wrong: []int{2}}
		if w == model.RightHardmax {
			tie.wrong, tie.mayRefuse = nil, true
		}
		cases = append(cases, tie)
		// Under the past mask position i sees i … n, so the query at 2
		// scores a range that starts past the first slot (keptOneKey).
		// Position 1 outscores every other in both models, so the query
		// at 1 keeps its order and only the query at 2 meets the tie.
		past := orderCase{name: "past mask: a strict order the model ties", ref: pos(w, model.Past, 5, 0, 1), model: pos(w, model.Past, 5, 1, 1),
			lengths: []int{2, 3}, wrong: []int{3}}
		pastTie := orderCase{name: "past mask: a tie the model orders", ref: pos(w, model.Past, 5, 1, 1), model: pos(w, model.Past, 5, 0, 1),
			lengths: []int{2, 3}, wrong: []int{3}}
		if w == model.RightHardmax {
			past.wrong, pastTie.wrong = nil, nil
			past.mayRefuse, pastTie.mayRefuse = true, true
		}
		cases = append(cases, past, pastTie)
		// Keys by symbol, two per position (the fast path's kept): b
		// scores above a in the reference and ties it in the model, so
		// on "b a" (left) or "a b" (right, average) the model selects a.
		cases = append(cases, orderCase{name: "keys by symbol: a strict order the model ties", ref: sym(w, 0, 1), model: sym(w, 1, 1),
			lengths: []int{1, 2}, wrong: []int{2}})
		// And a tie by symbol the model orders: every position holds
		// either key, a and b tie in the reference; the model puts a
		// above b. Left and right hardmax select by position in the
		// reference and by symbol in the model.
		cases = append(cases, orderCase{name: "keys by symbol: a tie the model orders", ref: sym(w, 1, 1), model: sym(w, 2, 1),
			lengths: []int{1, 2}, wrong: []int{2}})
		// Position 1 holds a or b, the others b. In the reference a
		// scores 0 and b 1, so the smallest score of position 2 is 1 and
		// a at position 1 is no candidate: only a candidate's own
		// comparisons can see its order lost (from a's side there are
		// none). And both candidates hold b's key, at two positions, so
		// neither stands for the other. The model puts a above b: on
		// "a b" every weighting selects a.
		aThenB := func(i, n int) []int {
			if i == 1 {
				return []int{0, 1}
			}
			return []int{1}
		}
		cases = append(cases, orderCase{name: "b after position 1: a non-candidate the model puts above", ref: sym(w, 0, 1), model: sym(w, 2, 1),
			symbols: aThenB, lengths: []int{1, 2, 3}, wrong: []int{2, 3}})
		// The same with a third symbol c at position 1, above b in both
		// models, and a tied with b in the model: position 1's keys are
		// then a (no candidate, tied with b in the model) and c (a
		// candidate, above b in both), and none ties b exactly. On "a b"
		// leftmost hardmax selects a, average hardmax averages a and b.
		abc := func(ksym ...int64) oneHead {
			return oneHead{alphabet: []string{"a", "b", "c"}, ksym: ksym, kpos: []int64{0, 0, 0}, val: []int64{0, 1, 2}, mask: model.NoMask, w: w}
		}
		acThenB := func(i, n int) []int {
			if i == 1 {
				return []int{0, 2}
			}
			return []int{1}
		}
		tieB := orderCase{name: "b after a or c: a non-candidate the model ties", ref: abc(0, 1, 2), model: abc(1, 1, 2),
			symbols: acThenB, lengths: []int{1, 2, 3}, wrong: []int{2, 3}}
		if w == model.RightHardmax {
			tieB.wrong, tieB.mayRefuse = nil, true
		}
		cases = append(cases, tieB)
		// The residual connection carries each symbol's embedding, which
		// the output reads beside the head's: the checked model's b adds 1
		// there, so every input holding b is wrong, however the head
		// selects. States whose head outputs agree must still be told apart
		// by what their residual carries.
		for _, held := range []bool{false, true} {
			ref := pos(w, model.NoMask, 1, 2, 3)
			ref.ffnFirst = held
			m := ref
			m.out = []int64{0, 1}
			cases = append(cases, orderCase{name: fmt.Sprintf("b's embedding wrong in the residual (after a feed-forward sublayer: %v)", held), ref: ref, model: m,
				lengths: []int{1, 2, 3}, wrong: []int{1, 2, 3}})
		}
	}
	checkVerdicts(t, cases)
}

// TestManyCandidatesByHand: with more than maxLinear candidates the
// general code sorts the items once (checkOrder) instead of comparing
// each candidate with every item; the same breaks must be seen there. Ten
// positions, nine of which tie at the top in the reference.
func TestManyCandidatesByHand(t *testing.T) {
	ab := []string{"a", "b"}
	vals := []int64{0, 1}
	pos := func(w model.Weighting, kpos ...int64) oneHead {
		return oneHead{alphabet: ab, ksym: []int64{0, 0}, kpos: kpos, val: vals, mask: model.NoMask, w: w}
	}
	top9 := []int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 0}
	all10 := []int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	last := []int64{1, 1, 1, 1, 1, 1, 1, 1, 2}
	cases := []orderCase{
		// Rightmost hardmax: the reference selects position 9 of the
		// nine tied; the model ties position 10 with them and selects it.
		{name: "nine tied above one the model ties with them", ref: pos(model.RightHardmax, top9...), model: pos(model.RightHardmax, all10...),
			lengths: []int{10}, wrong: []int{10}},
		// The same nine, position 10 apart in both: right.
		{name: "nine tied above one, kept", ref: pos(model.RightHardmax, top9...), model: pos(model.RightHardmax, top9...),
			lengths: []int{10}},
		// Leftmost hardmax over nine exact ties (position 1 selected);
		// the model puts position 9 above the others.
		{name: "nine tied, one raised by the model", ref: pos(model.LeftHardmax, all10[:9]...), model: pos(model.LeftHardmax, last...),
			lengths: []int{9}, wrong: []int{9}},
		// And lowered: the model puts position 1 below the others, so
		// leftmost hardmax selects position 2.
		{name: "nine tied, one lowered by the model", ref: pos(model.LeftHardmax, all10[:9]...), model: pos(model.LeftHardmax, 0, 1, 1, 1, 1, 1, 1, 1, 1),
			lengths: []int{9}, wrong: []int{9}},
	}
	checkVerdicts(t, cases)
}

// TestStrictFutureByHand: under the strict-future mask position i sees
// 1 … i − 1, so position 1 sees nothing and outputs 0 in both models.
// The checked model's value of b is 2 where the reference's is 1: no
// input of length 1 reads a value, so every one is right and the length
// must be certified; at length 2, position 2 reads position 1's value, so
// "b a" and "b b" are wrong. A visible range one position too long
// (1 … i) reads b's value at length 1 and refuses it; one too short
// (1 … i − 2) reads nothing at length 2 and certifies it. Keys are equal,
// or rise with the position, under each weighting; and the head reads the
// embeddings, or the states after a feed-forward sublayer, where only
// the value reads the symbol's columns (so that those must stay live).
func TestStrictFutureByHand(t *testing.T) {
	ab := []string{"a", "b"}
	var cases []orderCase
	for _, w := range []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax} {
		for _, kpos := range [][]int64{{0, 0, 0}, {1, 2, 3}} {
			for _, held := range []bool{false, true} {
				ref := oneHead{alphabet: ab, ksym: []int64{0, 0}, kpos: kpos, val: []int64{0, 1}, mask: model.StrictFuture, w: w, ffnFirst: held}
				m := ref
				m.val = []int64{0, 2}
				prefix := map[bool]string{false: "strict future", true: "after a feed-forward sublayer, strict future"}[held]
				cases = append(cases, orderCase{name: fmt.Sprintf("%s, keys %v, b's value wrong", prefix, kpos), ref: ref, model: m,
					lengths: []int{1, 2, 3}, wrong: []int{2, 3}})
				// The model right, against itself: every length certified,
				// but where average hardmax averages two positions' values
				// (equal keys at length 3), which the analysis declines.
				lengths := []int{1, 2, 3}
				if w == model.AverageHardmax && kpos[0] == kpos[1] {
					lengths = lengths[:2]
				}
				cases = append(cases, orderCase{name: fmt.Sprintf("%s, keys %v, right", prefix, kpos), ref: ref, model: ref,
					lengths: lengths})
			}
		}
	}
	checkVerdicts(t, cases)
}

// num is the exact integer k as a model weight.
func num(k int64) numeric.Expr { return numeric.LitInt(k) }

// TestAverageCountsByHand: average hardmax over m positions of equal
// value v gives v in exact arithmetic, but a format rounds the weight
// 1/m and each partial sum: in fp16, m copies of 1 average to 1 for m ≤
// 5 and not for m = 6 (nor 7, 9 and 11, up to 12; the run of every input
// below shows it too). So the analysis must follow every count of tied
// positions a query can meet, in the reference and in the model.
func TestAverageCountsByHand(t *testing.T) {
	ones := func(mask model.Mask, kpos ...int64) oneHead {
		return oneHead{alphabet: []string{"a"}, ksym: []int64{0}, kpos: kpos, val: []int64{1}, mask: mask, w: model.AverageHardmax}
	}
	cases := []orderCase{
		// Future mask, every key equal: position i averages i ones.
		{name: "future mask, all tied", ref: ones(model.Future, 0, 0, 0, 0, 0, 0), model: ones(model.Future, 0, 0, 0, 0, 0, 0),
			lengths: []int{5, 6}, wrong: []int{6}, precisions: []string{"fp16"}},
		{name: "future mask, all tied, exactly", ref: ones(model.Future, 0, 0, 0, 0, 0, 0), model: ones(model.Future, 0, 0, 0, 0, 0, 0),
			lengths: []int{5, 6}, precisions: []string{"exact"}},
		// The reference selects position 1 alone; the model ties every
		// other position above it, and averages n − 1 ones: 1 at n = 6,
		// not at n = 7. The order is broken, but the values agree, so only
		// the model's count decides.
		{name: "one in the reference, the rest in the model", ref: ones(model.NoMask, 1, 0, 0, 0, 0, 0, 0), model: ones(model.NoMask, 0, 1, 1, 1, 1, 1, 1),
			lengths: []int{6, 7}, wrong: []int{7}, precisions: []string{"fp16"}},
	}
	checkVerdicts(t, cases)
}

// TestSuspectWitnesses: a suspect's witness is a partial input that
// produces the state whose output is wrong; where the state's history
// needs two symbols at one position, it has none. At length 1 under the
// future mask, position 1 sees itself, and the analysis pairs each query
// with each key the position can hold, also the other symbol's (its sets
// over-approximate). The checked model moves δ = 1 of b's value into b's
// embedding (the output column), so that b's own output, e + v, is right,
// but a's state with b's value is not: a state no input makes. Every input
// is right, the length is not certified, and no suspect may name an input
// that is right.
func TestSuspectWitnesses(t *testing.T) {
	ref := oneHead{alphabet: []string{"a", "b"}, ksym: []int64{0, 0}, kpos: []int64{0}, val: []int64{0, 2}, mask: model.Future, w: model.LeftHardmax}
	m := ref
	m.val, m.out = []int64{0, 1}, []int64{0, 1}
	rm, mm := ref.model("reference"), m.model("checked")
	if bad, _ := wrongInput(t, rm, mm, "exact", 1, nil); bad != nil {
		t.Fatalf("input %v is wrong: the case is not what it says", bad)
	}
	for _, general := range []bool{false, true} {
		res, err := Length(Input{Reference: rm, Model: mm, Precision: numeric.MustParsePrecision("exact"), Right: exactlyRight, general: general}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if res.Certified || len(res.Suspects) == 0 {
			t.Fatalf("certified %v, %d suspects: the impossible state was not followed (%s)", res.Certified, len(res.Suspects), res.Why)
		}
		for _, s := range res.Suspects {
			if s.Witness == nil {
				continue
			}
			in := []int{0}
			for _, a := range s.Witness {
				in[a.Pos] = a.Symbol
			}
			if bad, _ := wrongInput(t, rm, mm, "exact", 1, func(int, int) []int { return in }); bad == nil {
				t.Errorf("general %v: suspect %q has the witness %v, but input %v is right", general, s.Detail, s.Witness, in)
			}
		}
	}
}
