package blocks

import (
	"slices"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The blocks of §Putting It All Together: Example Constructions, the
// Dyck languages (sec:dyck-1, sec:dyck-1-2, sec:dyck-k-D), where the
// paper describes a feed-forward or attention step without giving its
// weights ("may be implemented via an FFN", "by running UHAT on the
// sequence …"). The weights below are this package's, derived in each
// doc comment; the tests of package recipes check each block on its
// whole (finite) domain.

// NegPart is the FFN of §A Transformer Construction for Dyck-1, Step 2:
// E = ReLU(−x), "taking the W1 weight to be a negative projection":
// W1 = [−1], b1 = 0, W2 = [1], b2 = 0. Exact on ℝ.
func NegPart(x, out string) *stream.FF {
	return &stream.FF{Name: "ReLU(−x)", In: []string{x}, Out: []string{out},
		W1: model.Ints([]int64{-1}), W2: model.Ints([]int64{1})}
}

// NearestActive is the "Select Nearest Active" head of §A Transformer
// Construction for Dyck-1-2, Step 2 (eqn:dyck_select_nearest), with one
// query row, W^Q = [1] on the constant component one (the bias the paper
// assumes), and one key row, so that the score of position j is
//
//	left  (mask j < i, strict future):  s_j =  j/n + (a_j − 1)
//	right (mask j > i, strict past):    s_j = −j/n + (a_j − 1)
//
// where pos holds j/n and active holds the active bit a_j ∈ {0, 1}. On
// the left an active position scores j/n ∈ (0, 1) and an inactive one
// j/n − 1 ∈ (−1, 0): every active position beats every inactive one, and
// among the active ones the largest j (the nearest) wins; on the right
// the active ones score in [−1, 0), the inactive ones in [−2, −1), and
// the smallest j wins. The maximum is unique (the j/n differ), so
// leftmost and rightmost UHAT and AHAT agree. When no position on that
// side is active, the maximum lands on the nearest inactive one (whose
// active bit, retrieved, says so), and when no position is unmasked at
// all (i = 1 on the left, i = n on the right) the head outputs 0. With
// every bit 1 (the first round) the scores are ±j/n: the predecessor and
// successor of §Predecessor with strict masking and i/n encodings.
//
// literal takes the score as printed, the one sequence j/n − (a_j − 1)
// for both searches: an inactive position then scores 1 more than an
// active one, so the left head selects the nearest inactive position
// whenever there is one, and the right head, which the same sequence
// sends to the largest j, the farthest inactive one (else the farthest
// active one).
//
// W^V copies the components vals (typically o and the active bit) to
// outs. The scores are q·k (d_key = 1, so √d_key = 1 anyway).
func NearestActive(name string, right, literal bool, pos, one, active string, vals, outs []string, w model.Weighting) *stream.Attn {
	in := []string{active, one, pos}
	for _, v := range vals {
		if !slices.Contains(in, v) {
			in = append(in, v)
		}
	}
	at := func(c string) int { return slices.Index(in, c) }
	q := model.Zeros(1, len(in))
	q.Set(0, at(one), numeric.LitInt(1))
	k := model.Zeros(1, len(in))
	sa, s1, sp := int64(1), int64(-1), int64(1) // a_j − 1 + j/n
	if literal {
		sa, s1 = -1, 1 // −(a_j − 1)
	}
	mask := model.StrictFuture
	if right {
		mask = model.StrictPast
		if !literal {
			sp = -1
		}
	}
	k.Set(0, at(active), numeric.LitInt(sa))
	k.Set(0, at(one), numeric.LitInt(s1))
	k.Set(0, at(pos), numeric.LitInt(sp))
	v := model.Zeros(len(outs), len(in))
	for r, c := range vals {
		v.Set(r, at(c), numeric.LitInt(1))
	}
	return &stream.Attn{Name: name, In: in, Out: outs, Q: q, K: k, V: v,
		Mask: mask, Weighting: w, Scale: model.NoScale}
}

// MatchDyck1 is the "Check Match" FFN of §A Transformer Construction for
// Dyck-1-2 (eqn:dyck_mark_matched and eqn:dyck_select_nearest) for one
// bracket type, o ∈ {±1}: it reads the position's own o and active bit
// a, and the o and active bit of the selected left (lo, la) and right
// (ro, ra) neighbours (0 where there is none), updates a in place and
// clears the scratch components, as the paper's diagram does
// ([o, a, l, r, i/n] → [o, a', 0, 0, i/n]); it adds to its outputs:
//
//	m_left  = ReLU( lo + la − o + a − 3)
//	m_right = ReLU(−ro + ra + o + a − 3)
//	a  ← a − m_left − m_right
//	x  ← x − (ReLU(x) − ReLU(−x)) = 0   for x = lo, la, ro, ra
//
// W1 = [[−1, 1, 1, 1, 0, 0], [1, 1, 0, 0, −1, 1], ±e_lo, ±e_la, ±e_ro,
// ±e_ra] over (o, a, lo, la, ro, ra), b1 = [−3; −3; 0 …], and W2 sends
// −m_left − m_right to a and −ReLU(x) + ReLU(−x) to x. On lo, ro ∈ {−1,
// 0, 1}, la, ra, a ∈ {0, 1}, o ∈ {±1}, each of the four terms of m_left
// is at most 1, so the integer lo + la − o + a is 4, and m_left is 1,
// exactly when lo = +1, la = 1, o = −1 and a = 1 (an active ")" whose
// nearest active left neighbour is "("), and m_left = 0 otherwise;
// likewise m_right is 1 exactly for an active "(" whose nearest active
// right neighbour is ")". The two never hold together (they need
// opposite o), so a stays in {0, 1}. Exact on that domain (the clearing
// on all of ℝ).
func MatchDyck1(o, a, lo, la, ro, ra string) *stream.FF {
	return withClearing(&stream.FF{Name: "check-match", In: []string{o, a, lo, la, ro, ra}, Out: []string{a},
		W1: model.Ints([]int64{-1, 1, 1, 1, 0, 0}, []int64{1, 1, 0, 0, -1, 1}), B1: model.IntVector(-3, -3),
		W2: model.Ints([]int64{-1, -1})}, lo, la, ro, ra)
}

// MatchDyck1Types is the "Check Match" FFN of §A Transformer
// Construction for Dyck-1-2 as printed (eqn:dyck_select_nearest): the
// state is [o_i, a_i, l_i, r_i, i/n], with l_i, r_i ∈ {±1} the types of
// the selected left and right neighbours (0 where there is none), and no
// neighbour's active bit: a_i' is decided from o, a, l and r alone. It
// adds to its outputs
//
//	m_left  = ReLU( l − o + a − 2)
//	m_right = ReLU(−r + o + a − 2)
//	a  ← a − m_left − m_right
//	x  ← x − (ReLU(x) − ReLU(−x)) = 0   for x = l, r
//
// On l, r ∈ {−1, 0, 1}, a ∈ {0, 1}, o ∈ {±1}, the integer l − o + a is 3,
// and m_left is 1, exactly when l = +1, o = −1 and a = 1 (an active ")"
// whose selected left neighbour is "("), and 0 otherwise; likewise
// m_right for an active "(" whose selected right neighbour is ")". They
// need opposite o, so a stays in {0, 1}. Exact on that domain. Whether
// the selected neighbour is itself active is not looked at: the printed
// state does not hold it.
func MatchDyck1Types(o, a, l, r string) *stream.FF {
	return withClearing(&stream.FF{Name: "check-match", In: []string{o, a, l, r}, Out: []string{a},
		W1: model.Ints([]int64{-1, 1, 1, 0}, []int64{1, 1, 0, -1}), B1: model.IntVector(-2, -2),
		W2: model.Ints([]int64{-1, -1})}, l, r)
}

// MatchDyckK is the "Check Match" FFN of §Generalization to Dyck-k-D,
// "augmented to handle matching for k different parentheses pairs":
// o ∈ {±1, …, ±k} (sign: open or close; |o|: the type), p = 1 for an
// open bracket and 0 for a close one (GTZero_1(o), computed once), a the
// active bit, and (lo, la), (ro, ra) the o and active bit of the selected
// left and right neighbours (lo, ro ∈ {−k, …, k}, 0 where there is none).
// It updates a in place and clears lo, la, ro, ra as MatchDyck1 does:
//
//	m_left  = EqZero_1(lo + o + K(2 − la − a + p))
//	m_right = EqZero_1(o + ro + K(3 − ra − a − p))
//	a ← a − m_left − m_right
//
// with K = 2k + 1 and EqZero_1(x) = ReLU(x + 1) − 2 ReLU(x) + ReLU(x − 1)
// (§Comparisons, ε = 1): six hidden units, and eight for the clearing.
// The multiple of K counts the conditions that fail among la = 1, a = 1,
// p = 0 (left: a close bracket) or ra = 1, a = 1, p = 1 (right: an
// open one); it is a non-negative integer. When it is 0 the argument is
// lo + o, an integer, and EqZero_1 is 1 exactly when lo = −o, i.e. the
// neighbour opens the type this position closes; when it is c ≥ 1 the
// argument is at least K − 2k = 1 (|lo + o| ≤ 2k), so EqZero_1 is 0.
// The two matches need opposite p, so a stays in {0, 1}. Exact on that
// (integer) domain: one FFN, where testing equality and then conjoining
// would take two.
func MatchDyckK(o, p, a, lo, la, ro, ra string, k int) *stream.FF {
	kk := int64(2*k + 1)
	// Rows over (o, p, a, lo, la, ro, ra).
	left := []int64{1, kk, -kk, 1, -kk, 0, 0}   // lo + o + K(p − la − a), + 2K
	right := []int64{1, -kk, -kk, 0, 0, 1, -kk} // o + ro − K(ra + a + p), + 3K
	return withClearing(&stream.FF{Name: "check-match(k)", In: []string{o, p, a, lo, la, ro, ra}, Out: []string{a},
		W1: model.Ints(left, left, left, right, right, right),
		B1: model.IntVector(2*kk+1, 2*kk, 2*kk-1, 3*kk+1, 3*kk, 3*kk-1),
		W2: model.Ints([]int64{-1, 2, -1, -1, 2, -1})}, lo, la, ro, ra)
}

// withClearing turns f into a block that adds f's outputs to its
// (existing) output components and also sets each of the components
// clear (which f must read) to 0: two more hidden units per component,
// ReLU(x) and ReLU(−x), whose difference x is subtracted from x
// (§Canceling Residual Connections, with f(x) = 0 on those components).
func withClearing(f *stream.FF, clear ...string) *stream.FF {
	h, d := f.W1.Rows, len(f.In)
	g := &stream.FF{Name: f.Name, In: f.In, Out: append(slices.Clone(f.Out), clear...), Accumulate: true,
		W1: model.Zeros(h+2*len(clear), d), B1: make(model.Vector, h+2*len(clear)),
		W2: model.Zeros(len(f.Out)+len(clear), h+2*len(clear))}
	for r := 0; r < h; r++ {
		for c := 0; c < d; c++ {
			g.W1.Set(r, c, f.W1.At(r, c))
		}
		if f.B1 != nil {
			g.B1[r] = f.B1[r]
		}
		for c := range f.Out {
			g.W2.Set(c, r, f.W2.At(c, r))
		}
	}
	for k, x := range clear {
		col := slices.Index(f.In, x)
		g.W1.Set(h+2*k, col, numeric.LitInt(1))
		g.W1.Set(h+2*k+1, col, numeric.LitInt(-1))
		g.W2.Set(len(f.Out)+k, h+2*k, numeric.LitInt(-1))
		g.W2.Set(len(f.Out)+k, h+2*k+1, numeric.LitInt(1))
	}
	return g
}

// AnyActive is an all-matched check under hard attention (a variant of
// Step 3 of §A Transformer Construction for Dyck-1-2, which says only
// that it "is similar to the zero-check in our earlier Dyck-1
// construction"): one unmasked head with W^Q = [1] on the constant
// component one and W^K = [1] on the active bit a, so the score of
// position j is a_j, and W^V copying a. Under UHAT (either end) and AHAT
// the selected positions all have the largest a_j, so the output is
// max_j a_j: 1 if some position is still active, else 0 (all scores tie
// at 0, and the values are all 0). Exact and uniform (no ε depending on
// n), unlike the average (1/n) Σ_j a_j, whose smallest nonzero value 1/n
// only a comparator built for a maximum length can tell from 0. (In
// floating point, AHAT sums c copies of fl(1/c) for c tied ones, which
// is 1 only up to rounding; UHAT's single weight 1 stays exact.)
func AnyActive(one, a, out string, w model.Weighting) *stream.Attn {
	return &stream.Attn{Name: "any-active", In: []string{one, a}, Out: []string{out},
		Q: model.Ints([]int64{1, 0}), K: model.Ints([]int64{0, 1}), V: model.Ints([]int64{0, 1}),
		Weighting: w, Scale: model.NoScale}
}
