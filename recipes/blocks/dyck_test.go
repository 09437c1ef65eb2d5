package blocks_test

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
)

// TestNegPart: Step 2 of §A Transformer Construction for Dyck-1,
// E = ReLU(−B/i), "taking the W1 weight to be a negative projection":
// W1 = [−1], b1 = 0, W2 = [1], b2 = 0.
func TestNegPart(t *testing.T) {
	f := blocks.NegPart("B/i", "E")
	ok(t, checkFF(f, ffWeights{in: []string{"B/i"}, out: []string{"E"}, w1: "-1", w2: "1"}))
	ok(t, checkPoints(f, []point{
		{"B/i=-1/3", "E=1/3"}, // a violated prefix, ")" at i = 3 of "()))": ReLU(1/3)
		{"B/i=0", "E=0"},      // balanced prefix: ReLU(0)
		{"B/i=2", "E=0"},      // ReLU(−2)
	}))
}

// The Dyck-1-2 example of the tests below: "(())(" with positions 2, 3
// already matched (step 1 marks the adjacent pair "()"), so
// o = (1, 1, −1, −1, 1), a = (1, 0, 0, 1, 1) and pos = i/5.
var dyckSeq = []string{
	"o=1 a=1 one=1 pos=1/5",
	"o=1 a=0 one=1 pos=2/5",
	"o=-1 a=0 one=1 pos=3/5",
	"o=-1 a=1 one=1 pos=4/5",
	"o=1 a=1 one=1 pos=1",
}

// TestNearestActive: the "Select Nearest Active" head of §A Transformer
// Construction for Dyck-1-2, Step 2, with the scores of the block's doc
// comment (s_j = ±j/n + (a_j − 1)), and with the scores as the paper
// prints them (literal: s_j = j/n − (a_j − 1)).
func TestNearestActive(t *testing.T) {
	vals, outs := []string{"o", "a"}, []string{"l", "la"}
	in := []string{"a", "one", "pos", "o"} // active, one, pos, then the vals not yet read
	for _, w := range hard {
		for _, c := range []struct {
			name           string
			right, literal bool
			wk             string
			mask           model.Mask
			want           []string
		}{
			// Left, s_j = j/5 + a_j − 1 = (1/5, −3/5, −2/5, 4/5, 1) over j < i:
			// i = 1 sees nothing (0); i = 2, 3, 4 pick j = 1 (the nearest active,
			// o = 1); i = 5 picks j = 4 (o = −1).
			{"left", false, false, "1 -1 1 0", model.StrictFuture,
				[]string{"l=0 la=0", "l=1 la=1", "l=1 la=1", "l=1 la=1", "l=-1 la=1"}},
			// Right, s_j = −j/5 + a_j − 1 = (−1/5, −7/5, −8/5, −4/5, −1) over j > i:
			// i = 1, 2, 3 pick j = 4 (o = −1); i = 4 picks j = 5 (o = 1); i = 5 sees nothing.
			{"right", true, false, "1 -1 -1 0", model.StrictPast,
				[]string{"l=-1 la=1", "l=-1 la=1", "l=-1 la=1", "l=1 la=1", "l=0 la=0"}},
			// As printed, s_j = j/5 − (a_j − 1) = (1/5, 7/5, 8/5, 4/5, 1): i = 2 picks
			// j = 1; i = 3 picks j = 2 (inactive); i = 4, 5 pick j = 3 (inactive,
			// o = −1) where the nearest active is j = 1 (for i = 4) and j = 4 (i = 5).
			{"left literal", false, true, "-1 1 1 0", model.StrictFuture,
				[]string{"l=0 la=0", "l=1 la=1", "l=1 la=0", "l=-1 la=0", "l=-1 la=0"}},
			// As printed, the same sequence on the right: s_j = j/5 − (a_j − 1)
			// = (1/5, 7/5, 8/5, 4/5, 1) over j > i: i = 1, 2 pick j = 3 (the
			// inactive one with the largest j, o = −1); i = 3, 4 pick j = 5
			// (active, o = 1; the nearest active for i = 3 is j = 4, o = −1).
			{"right literal", true, true, "-1 1 1 0", model.StrictPast,
				[]string{"l=-1 la=0", "l=-1 la=0", "l=1 la=1", "l=1 la=1", "l=0 la=0"}},
		} {
			a := blocks.NearestActive(c.name, c.right, c.literal, "pos", "one", "a", vals, outs, w)
			// W^Q = [1] on one; W^V copies o (column 4) to l and a (column 1) to la.
			ok(t, checkAttn(a, attnWeights{in: in, out: outs, wq: "0 1 0 0", wk: c.wk, wv: "0 0 0 1; 1 0 0 0", mask: c.mask, w: w}))
			if err := checkSeq("exact", a, dyckSeq, c.want, new(big.Rat)); err != nil {
				t.Errorf("%s %v: %v", c.name, w, err)
			}
		}
		// No active position on the left: a = (0, 0, 1), o = (1, −1, 1), n = 3;
		// s_j = j/3 + a_j − 1 = (−2/3, −1/3, 1): i = 3 picks the nearest
		// inactive j = 2, whose retrieved bit la = 0 says so; i = 2 picks j = 1.
		a := blocks.NearestActive("left", false, false, "pos", "one", "a", []string{"o"}, []string{"l"}, w)
		ok(t, checkAttn(a, attnWeights{in: in, out: []string{"l"}, wq: "0 1 0 0", wk: "1 -1 1 0", wv: "0 0 0 1", mask: model.StrictFuture, w: w}))
		ok(t, checkSeq("exact", blocks.NearestActive("left", false, false, "pos", "one", "a", vals, outs, w),
			[]string{"o=1 a=0 one=1 pos=1/3", "o=-1 a=0 one=1 pos=2/3", "o=1 a=1 one=1 pos=1"},
			[]string{"l=0 la=0", "l=1 la=0", "l=-1 la=0"}, new(big.Rat)))
		// Every bit 1 (the first round): s_j = ±j/n, the predecessor and
		// successor: l_i = o_{i−1}, r_i = o_{i+1} on "(()" (o = 1, 1, −1).
		all := []string{"o=1 a=1 one=1 pos=1/3", "o=1 a=1 one=1 pos=2/3", "o=-1 a=1 one=1 pos=1"}
		ok(t, checkSeq("exact", blocks.NearestActive("pred", false, false, "pos", "one", "a", vals, outs, w),
			all, []string{"l=0 la=0", "l=1 la=1", "l=1 la=1"}, new(big.Rat)))
		ok(t, checkSeq("exact", blocks.NearestActive("succ", true, false, "pos", "one", "a", vals, outs, w),
			all, []string{"l=1 la=1", "l=-1 la=1", "l=0 la=0"}, new(big.Rat)))
	}
}

// TestMatchDyck1: the "Check Match" FFN of §A Transformer Construction for
// Dyck-1-2 (eqn:dyck_mark_matched: a_i = 0 for an active "(" whose right
// neighbour is ")" or an active ")" whose left neighbour is "("), with
// m_left = ReLU(lo + la − o + a − 3), m_right = ReLU(−ro + ra + o + a − 3),
// a ← a − m_left − m_right, and lo, la, ro, ra cleared.
func TestMatchDyck1(t *testing.T) {
	f := blocks.MatchDyck1("o", "a", "lo", "la", "ro", "ra")
	ok(t, checkFF(f, dyck1Weights))
	ok(t, checkPoints(f, []point{
		// ")" after an active "(": m_left = ReLU(1 + 1 + 1 + 1 − 3) = 1, a = 0.
		{"o=-1 a=1 lo=1 la=1 ro=0 ra=0", "a=0 lo=0 la=0 ro=0 ra=0"},
		// "(" before an active ")": m_right = ReLU(1 + 1 + 1 + 1 − 3) = 1, a = 0.
		{"o=1 a=1 lo=0 la=0 ro=-1 ra=1", "a=0 lo=0 la=0 ro=0 ra=0"},
		// "(((": m_left = ReLU(1 + 1 − 1 + 1 − 3) = 0, m_right = ReLU(−1 + 1 + 1 + 1 − 3) = 0.
		{"o=1 a=1 lo=1 la=1 ro=1 ra=1", "a=1 lo=0 la=0 ro=0 ra=0"},
		// ")" between ")" and "(": m_left = ReLU(−1 + 1 + 1 + 1 − 3) = 0,
		// m_right = ReLU(−1 + 1 − 1 + 1 − 3) = 0.
		{"o=-1 a=1 lo=-1 la=1 ro=1 ra=1", "a=1 lo=0 la=0 ro=0 ra=0"},
		// ")" at position 1 (no left neighbour: lo = la = 0): ReLU(0 + 0 + 1 + 1 − 3) = 0.
		{"o=-1 a=1 lo=0 la=0 ro=1 ra=1", "a=1 lo=0 la=0 ro=0 ra=0"},
		// an inactive ")": m_left = ReLU(1 + 1 + 1 + 0 − 3) = 0, a stays 0.
		{"o=-1 a=0 lo=1 la=1 ro=0 ra=0", "a=0 lo=0 la=0 ro=0 ra=0"},
		// the selected "(" is inactive: m_left = ReLU(1 + 0 + 1 + 1 − 3) = 0.
		{"o=-1 a=1 lo=1 la=0 ro=0 ra=0", "a=1 lo=0 la=0 ro=0 ra=0"},
		// clearing is exact on all of ℝ: x − (ReLU(x) − ReLU(−x)) = 0; m_left =
		// ReLU(5/2 − 3 − 1 + 1 − 3) = 0, m_right = ReLU(−7 + 1/2 + 1 + 1 − 3) = 0.
		{"o=1 a=1 lo=5/2 la=-3 ro=7 ra=1/2", "a=1 lo=0 la=0 ro=0 ra=0"},
		// outside the domain (lo = 2): m_left = ReLU(2 + 1 + 1 + 1 − 3) = 2, a = −1.
		{"o=-1 a=1 lo=2 la=1 ro=0 ra=0", "a=-1 lo=0 la=0 ro=0 ra=0"},
	}))
}

// dyck1Weights: over (o, a, lo, la, ro, ra), the rows of m_left and
// m_right, then ±e_x for x = lo, la, ro, ra; W2 sends −m_left − m_right
// to a and −ReLU(x) + ReLU(−x) to x.
var dyck1Weights = ffWeights{
	in: []string{"o", "a", "lo", "la", "ro", "ra"}, out: []string{"a", "lo", "la", "ro", "ra"}, acc: true,
	w1: "-1 1 1 1 0 0; 1 1 0 0 -1 1;" +
		"0 0 1 0 0 0; 0 0 -1 0 0 0; 0 0 0 1 0 0; 0 0 0 -1 0 0;" +
		"0 0 0 0 1 0; 0 0 0 0 -1 0; 0 0 0 0 0 1; 0 0 0 0 0 -1",
	b1: "-3 -3 0 0 0 0 0 0 0 0",
	w2: "-1 -1 0 0 0 0 0 0 0 0;" +
		"0 0 -1 1 0 0 0 0 0 0;" +
		"0 0 0 0 -1 1 0 0 0 0;" +
		"0 0 0 0 0 0 -1 1 0 0;" +
		"0 0 0 0 0 0 0 0 -1 1",
}

// TestMatchDyckK: the "Check Match" FFN of §Generalization to Dyck-k-D for
// k = 2 (K = 2k + 1 = 5): m_left = EqZero_1(lo + o + K(2 − la − a + p)),
// m_right = EqZero_1(o + ro + K(3 − ra − a − p)), EqZero_1(x) =
// ReLU(x + 1) − 2ReLU(x) + ReLU(x − 1) (§Comparisons, ε = 1).
func TestMatchDyckK(t *testing.T) {
	f := blocks.MatchDyckK("o", "p", "a", "lo", "la", "ro", "ra", 2)
	ok(t, checkFF(f, ffWeights{
		in: []string{"o", "p", "a", "lo", "la", "ro", "ra"}, out: []string{"a", "lo", "la", "ro", "ra"}, acc: true,
		// left: lo + o + K(p − la − a) (+ 2K ± 1); right: o + ro − K(ra + a + p) (+ 3K ± 1).
		w1: "1 5 -5 1 -5 0 0; 1 5 -5 1 -5 0 0; 1 5 -5 1 -5 0 0;" +
			"1 -5 -5 0 0 1 -5; 1 -5 -5 0 0 1 -5; 1 -5 -5 0 0 1 -5;" +
			"0 0 0 1 0 0 0; 0 0 0 -1 0 0 0; 0 0 0 0 1 0 0; 0 0 0 0 -1 0 0;" +
			"0 0 0 0 0 1 0; 0 0 0 0 0 -1 0; 0 0 0 0 0 0 1; 0 0 0 0 0 0 -1",
		b1: "11 10 9 16 15 14 0 0 0 0 0 0 0 0",
		w2: "-1 2 -1 -1 2 -1 0 0 0 0 0 0 0 0;" +
			"0 0 0 0 0 0 -1 1 0 0 0 0 0 0;" +
			"0 0 0 0 0 0 0 0 -1 1 0 0 0 0;" +
			"0 0 0 0 0 0 0 0 0 0 -1 1 0 0;" +
			"0 0 0 0 0 0 0 0 0 0 0 0 -1 1",
	}))
	ok(t, checkPoints(f, []point{
		// ")₂" after an active "(₂": left argument 2 − 2 + 5(2 − 1 − 1 + 0) = 0, a = 0.
		{"o=-2 p=0 a=1 lo=2 la=1 ro=0 ra=0", "a=0 lo=0 la=0 ro=0 ra=0"},
		// ")₂" after "(₁": left argument 1 − 2 = −1, EqZero_1(−1) = 0; right
		// argument −2 + 0 + 5(3 − 0 − 1 − 0) = 8: a = 1.
		{"o=-2 p=0 a=1 lo=1 la=1 ro=0 ra=0", "a=1 lo=0 la=0 ro=0 ra=0"},
		// "(₂" before an active ")₂": right argument 2 − 2 + 5(3 − 1 − 1 − 1) = 0, a = 0.
		{"o=2 p=1 a=1 lo=0 la=0 ro=-2 ra=1", "a=0 lo=0 la=0 ro=0 ra=0"},
		// "(₂" before ")₁": right argument 2 − 1 = 1, EqZero_1(1) = 0: a = 1.
		{"o=2 p=1 a=1 lo=0 la=0 ro=-1 ra=1", "a=1 lo=0 la=0 ro=0 ra=0"},
		// "(₁" after ")₁" and before "(₁": left argument −1 + 1 + 5(2 − 1 − 1 + 1) = 5,
		// right argument 1 + 1 + 0 = 2: a = 1.
		{"o=1 p=1 a=1 lo=-1 la=1 ro=1 ra=1", "a=1 lo=0 la=0 ro=0 ra=0"},
		// an inactive ")₂": left argument 0 + 5(2 − 1 − 0 + 0) = 5: a stays 0.
		{"o=-2 p=0 a=0 lo=2 la=1 ro=0 ra=0", "a=0 lo=0 la=0 ro=0 ra=0"},
		// the selected "(₂" inactive: left argument 0 + 5(2 − 0 − 1) = 5: a = 1.
		{"o=-2 p=0 a=1 lo=2 la=0 ro=0 ra=0", "a=1 lo=0 la=0 ro=0 ra=0"},
		// the doc's worst case, one failed condition and lo + o = −2k:
		// −4 + 5(2 − 0 − 1 + 0) = 1 = K − 2k, EqZero_1(1) = 0: a = 1.
		{"o=-2 p=0 a=1 lo=-2 la=0 ro=0 ra=0", "a=1 lo=0 la=0 ro=0 ra=0"},
		// outside the integer domain (lo = 5/2): left argument 1/2,
		// EqZero_1(1/2) = 1/2 (gray region), so a = 1/2.
		{"o=-2 p=0 a=1 lo=5/2 la=1 ro=0 ra=0", "a=1/2 lo=0 la=0 ro=0 ra=0"},
	}))
	// k = 1 (K = 3), the Dyck-1 case: b1 = [2K + 1, 2K, 2K − 1, 3K + 1, 3K, 3K − 1].
	ok(t, vecEq(blocks.MatchDyckK("o", "p", "a", "lo", "la", "ro", "ra", 1).B1, 14, "7 6 5 10 9 8 0 0 0 0 0 0 0 0"))
}

// TestAnyActive: the all-matched check (Step 3 of §A Transformer
// Construction for Dyck-1-2, a hard-attention variant): W^Q = [1, 0] on
// (one, a), W^K = [0, 1], W^V = [0, 1]: score a_j, value a_j, so the
// output is max_j a_j under UHAT and AHAT.
func TestAnyActive(t *testing.T) {
	for _, w := range hard {
		a := blocks.AnyActive("one", "a", "any", w)
		ok(t, checkAttn(a, attnWeights{in: []string{"one", "a"}, out: []string{"any"}, wq: "1 0", wk: "0 1", wv: "0 1", w: w}))
		for _, c := range []struct{ in, want []string }{
			// one active position (j = 2): max = 1 at every position.
			{[]string{"one=1 a=0", "one=1 a=1", "one=1 a=0"}, []string{"any=1", "any=1", "any=1"}},
			// two active: UHAT picks one of them, AHAT averages two 1s: 1.
			{[]string{"one=1 a=1", "one=1 a=0", "one=1 a=1"}, []string{"any=1", "any=1", "any=1"}},
			// none active: all scores tie at 0, every value is 0.
			{[]string{"one=1 a=0", "one=1 a=0", "one=1 a=0"}, []string{"any=0", "any=0", "any=0"}},
		} {
			if err := checkSeq("exact", a, c.in, c.want, new(big.Rat)); err != nil {
				t.Errorf("any-active %v: %v", w, err)
			}
		}
	}
}

// TestDyckNegativeControls: perturbed copies fail the checks above.
func TestDyckNegativeControls(t *testing.T) {
	// MatchDyck1 with b1[1] = −2: an inactive ")" after "(" gets
	// m_left = ReLU(1 + 1 + 1 + 0 − 2) = 1, so a = −1, not 0.
	f := cloneFF(blocks.MatchDyck1("o", "a", "lo", "la", "ro", "ra"))
	f.B1[0] = numeric.LitInt(-2)
	mustFail(t, "check-match b1[1] weights", checkFF(f, dyck1Weights))
	mustFail(t, "check-match b1[1] values", checkPoints(f, []point{{"o=-1 a=0 lo=1 la=1 ro=0 ra=0", "a=0 lo=0 la=0 ro=0 ra=0"}}))

	// NearestActive (left) with the active bit's key weight −1 instead of 1:
	// s_j = j/5 − a_j − 1 favours inactive positions, so on dyckSeq
	// position 3 selects j = 2 (la = 0), not j = 1 (la = 1).
	a := cloneAttn(blocks.NearestActive("left", false, false, "pos", "one", "a", []string{"o", "a"}, []string{"l", "la"}, model.LeftHardmax))
	a.K.Set(0, 0, numeric.LitInt(-1))
	mustFail(t, "nearest-active W^K values", checkSeq("exact", a, dyckSeq,
		[]string{"l=0 la=0", "l=1 la=1", "l=1 la=1", "l=1 la=1", "l=-1 la=1"}, new(big.Rat)))

	// AnyActive with W^V = [0, 1/2]: one active position gives 1/2, not 1.
	any := cloneAttn(blocks.AnyActive("one", "a", "any", model.AverageHardmax))
	any.V.Set(0, 1, numeric.Frac(1, 2))
	mustFail(t, "any-active W^V values", checkSeq("exact", any, []string{"one=1 a=0", "one=1 a=1"}, []string{"any=1", "any=1"}, new(big.Rat)))
}
