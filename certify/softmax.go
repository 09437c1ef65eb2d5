package certify

import (
	"fmt"
	"slices"

	"github.com/transformer-cookbook/verify/numeric"
)

// maxSoftStates bounds the distinct partial states softmaxOutputs
// follows after one position.
const maxSoftStates = 1 << 12

// softItem is one item a visible position may hold at a query of a
// softmax head: the model's score and value there, and tag, what the
// reference makes of the item (folded by softmaxOutputs's fold).
type softItem[T any] struct {
	score T
	value []T
	tag   int
}

// softOutput is one output of a softmax head over some choice of one
// item per position: ref, the reference's fold of the items' tags in
// position order, and out, the model's output.
type softOutput[T any] struct {
	ref string
	out []T
}

// softmaxOutputs lists the outputs the model's softmax head can give at
// one query where visible position p (in position order) may hold any
// item of items[p], with the reference's fold of each choice beside it
// (fold(state, tag) is the reference's state after one more position,
// from ""). work is the number of partial states it followed.
//
// The model computes (eval's softmaxInto and weightedSum) M = max_k s_k,
// e_k = fl(exp(fl(s_k − M))), the sum S of the e_k left to right (the
// first term e_1, then fl(S + e_k)), α_k = fl(e_k / S), and the output
// Σ_k fl(α_k·v_k) left to right, skipping a term of weight 0 (the values
// are finite here), the first term fl(α·v), then fl(o + fl(α·v)). Its
// output on one input is a function of the choices, made with the
// model's own operations, so the outputs over every choice are found by
// following the partial results position by position, a set of them
// after each position (equal partial results, bit for bit, merged):
//
//   - M is one of the items' scores: for each candidate M, the positions
//     choose among their items scoring at most M (a position with none
//     rules M out), and a choice counts only when some position chose an
//     item scoring M (the flag hit);
//   - the sums S of the first pass, then, for each final S, the outputs
//     of the second (whose weights α_k = fl(e_k/S) need S), which follows
//     the sum again beside the output and keeps the choices whose sum is
//     S. Two choices of a prefix with equal partial results (sum, output,
//     fold and hit) have the same outputs over every way to go on, so
//     merging them loses nothing: the outputs listed, with their folds,
//     are exactly those of the choices (TestSoftmaxOutputsAreHeadOutput
//     compares the two sets).
//
// It gives up (why) at a NaN score, a non-finite value, an operation that
// fails, or more than maxSoftStates partial states after a position.
// TestSoftmaxOutputsAreHeadOutput holds it to HeadOutput on every choice.
func softmaxOutputs[T any](b numeric.Backend[T], items [][]softItem[T], fold func(string, int) string) (outs []softOutput[T], work int, why string) {
	if len(items) == 0 {
		return nil, 0, "no visible position"
	}
	d := -1
	var maxima []T
	for p, its := range items {
		if len(its) == 0 {
			return nil, 0, fmt.Sprintf("visible position %d holds no item", p+1)
		}
		for _, it := range its {
			if b.Cmp(it.score, it.score) == numeric.Unordered {
				return nil, 0, "a NaN score"
			}
			if d < 0 {
				d = len(it.value)
			} else if len(it.value) != d {
				return nil, 0, "values of different lengths"
			}
			for _, v := range it.value {
				if !b.Finite(v) {
					return nil, 0, "a non-finite value (0·∞ is NaN)"
				}
			}
			if !slices.ContainsFunc(maxima, func(m T) bool { return b.Cmp(m, it.score) == numeric.Equal }) {
				maxima = append(maxima, it.score)
			}
		}
	}
	seen := map[string]bool{}
	for _, m := range maxima {
		os, w, why := softmaxAt(b, items, fold, m, d)
		work += w
		if why != "" {
			return nil, work, why
		}
		for _, o := range os {
			k := o.ref + "|" + string(appendValues(nil, b, o.out))
			if !seen[k] {
				seen[k] = true
				outs = append(outs, o)
			}
		}
	}
	return outs, work, ""
}

// softSum is a partial state of the first pass: the sum so far, and
// whether an item scoring M was chosen.
type softSum[T any] struct {
	sum T
	hit bool
}

// softPartial is a partial state of the second pass: the sum of the
// weights so far, the output so far (none while every term was skipped),
// the reference's fold, and hit.
type softPartial[T any] struct {
	sum T
	out []T
	ref string
	hit bool
}

// softmaxAt is softmaxOutputs for the choices whose maximal score is m.
func softmaxAt[T any](b numeric.Backend[T], items [][]softItem[T], fold func(string, int) string, m T, d int) ([]softOutput[T], int, string) {
	// Each position's items scoring at most m, with their e = fl(exp(fl(s − m))).
	type eItem struct {
		it  softItem[T]
		e   T
		top bool
	}
	allowed := make([][]eItem, len(items))
	for p, its := range items {
		for _, it := range its {
			c := b.Cmp(it.score, m)
			if c == numeric.Greater {
				continue
			}
			e, err := b.Exp(b.New(), b.Sub(b.New(), it.score, m))
			if err != nil {
				return nil, 0, "softmax: " + err.Error()
			}
			allowed[p] = append(allowed[p], eItem{it, e, c == numeric.Equal})
		}
		if len(allowed[p]) == 0 {
			return nil, 0, "" // some position scores above m on every item
		}
	}
	work := 0
	// The states' keys are built in one scratch buffer (kb, one): a
	// state's key is its values' bytes (appendValues) and its flags, one
	// byte each.
	var kb []byte
	one := make([]T, 1)
	// The first pass: the sums.
	sums := map[string]softSum[T]{}
	for p, its := range allowed {
		next := map[string]softSum[T]{}
		add := func(s softSum[T]) {
			one[0] = s.sum
			kb = append(appendValues(kb[:0], b, one), flag(s.hit))
			next[string(kb)] = s
		}
		for _, it := range its {
			if p == 0 {
				add(softSum[T]{b.Set(b.New(), it.e), it.top})
				continue
			}
			for _, s := range sums {
				add(softSum[T]{b.Add(b.New(), s.sum, it.e), s.hit || it.top})
			}
		}
		if len(next) > maxSoftStates {
			return nil, work, fmt.Sprintf("softmax: more than %d partial sums of the weights after %d positions", maxSoftStates, p+1)
		}
		work += len(next)
		sums = next
	}
	var outs []softOutput[T]
	for _, s := range sums {
		if !s.hit {
			continue
		}
		// The second pass at this sum: α = fl(e/S), the terms fl(α·v).
		type term struct {
			it    eItem
			zero  bool
			terms []T
		}
		terms := make([][]term, len(allowed))
		for p, its := range allowed {
			for _, it := range its {
				alpha, err := b.Div(b.New(), it.e, s.sum)
				if err != nil {
					return nil, work, "softmax: " + err.Error()
				}
				tm := term{it: it, zero: b.Sign(alpha) == numeric.Equal}
				if !tm.zero {
					tm.terms = make([]T, d)
					for c := range tm.terms {
						tm.terms[c] = b.Mul(b.New(), alpha, it.it.value[c])
					}
				}
				terms[p] = append(terms[p], tm)
			}
		}
		// The second pass, with the first's sum beside it: a choice
		// counts where its own sum is S.
		parts := map[string]softPartial[T]{"": {}}
		for p, tms := range terms {
			next := map[string]softPartial[T]{}
			for _, q := range parts {
				for _, tm := range tms {
					n := softPartial[T]{out: q.out, ref: fold(q.ref, tm.it.it.tag), hit: q.hit || tm.it.top}
					n.sum = softAccumulate(b, q.sum, p == 0, tm.it.e)
					if !tm.zero {
						n.out = softAddTerms(b, q.out, tm.terms)
					}
					kb = append(kb[:0], flag(n.out != nil), flag(n.hit), '|')
					kb = append(append(kb, n.ref...), '|')
					one[0] = n.sum
					kb = appendValues(appendValues(kb, b, one), b, n.out)
					next[string(kb)] = n
				}
			}
			if len(next) > maxSoftStates {
				return nil, work, fmt.Sprintf("softmax: more than %d partial outputs after %d positions", maxSoftStates, p+1)
			}
			work += len(next)
			parts = next
		}
		final := string(appendValues(nil, b, []T{s.sum}))
		for _, q := range parts {
			if !q.hit || string(appendValues(nil, b, []T{q.sum})) != final {
				continue
			}
			out := q.out
			if out == nil { // every weight zero: the runner's zeros
				out = softZeros(b, d)
			}
			outs = append(outs, softOutput[T]{ref: q.ref, out: out})
		}
	}
	return outs, work, ""
}

// flag is a Boolean as one byte of a key.
func flag(x bool) byte {
	if x {
		return '1'
	}
	return '0'
}

// softAccumulate is the runner's sum of the weights after one more term
// e: e itself at the first position, else sum + e rounded.
func softAccumulate[T any](b numeric.Backend[T], sum T, first bool, e T) T {
	if first {
		return b.Set(b.New(), e)
	}
	return b.Add(b.New(), sum, e)
}

// softAddTerms is the weighted sum so far (nil: every term skipped) plus
// one position's terms, rounded component by component.
func softAddTerms[T any](b numeric.Backend[T], out, terms []T) []T {
	next := make([]T, len(terms))
	for c := range next {
		if out == nil {
			next[c] = b.Set(b.New(), terms[c])
		} else {
			next[c] = b.Add(b.New(), out[c], terms[c])
		}
	}
	return next
}

// softZeros is the runner's output where every weight is zero.
func softZeros[T any](b numeric.Backend[T], d int) []T {
	out := make([]T, d)
	for c := range out {
		out[c] = b.New()
	}
	return out
}
