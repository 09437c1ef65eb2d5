package recheck

import (
	"math/big"
	"slices"
	"strconv"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// maxSoft bounds the partial states softOutputs follows after a
// position; past it the checker refuses.
const maxSoft = 1 << 12

// softChoice is one (key, value) a visible position can hold, scored:
// the model's score and the reference's exact one.
type softChoice[T any] struct {
	pos, kid, vid int
	exact         *big.Rat
	model         T
}

// softState is a partial run of a softmax head along the positions: the
// model's sum of the weights, its output (nil while every term was
// skipped) and whether a position took the maximum; the reference's
// maximal exact score and the choices at it its hardmax reads.
type softState[T any] struct {
	sum T
	out []T
	hit bool
	max *big.Rat
	at  []softChoice[T]
}

// softmax derives the outputs of a softmax head of the model, beside a
// hard head of the reference, at query q over positions lo … hi: every
// choice of one (key, value) per position, run as the model's softmax
// runs (the maximum M, e = fl(exp(fl(s − M))), the sum of the e left to
// right, α = fl(e/S), the weighted sum left to right skipping weights
// 0) and as the reference's hardmax selects. It follows the partial runs
// position by position, merging equal ones, for each M that is one of
// the scores and each sum S a run can reach, keeping the runs whose sum
// is S and that took M somewhere. It does not share the analysis's code
// (certify/softmax.go, softhead.go).
func (h *headCheck[T]) softmax(q State[T], lo, hi int, where func() string) ([]State[T], error) {
	choices, err := h.softChoices(q, lo, hi, where)
	if err != nil {
		return nil, err
	}
	b := h.ck.b
	var outs []State[T]
	seen := map[string]bool{}
	var maxima []T
	for _, cs := range choices {
		for _, c := range cs {
			if !slices.ContainsFunc(maxima, func(m T) bool { return b.Cmp(m, c.model) == numeric.Equal }) {
				maxima = append(maxima, c.model)
			}
		}
	}
	for _, M := range maxima {
		es, ok, err := h.softExps(choices, M, where)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		sums, err := h.softSums(choices, es, M, where)
		if err != nil {
			return nil, err
		}
		for sk, S := range sums {
			runs, err := h.softRuns(choices, es, M, S, where)
			if err != nil {
				return nil, err
			}
			for _, r := range runs {
				if !r.hit || softEnc(b, r.sum) != sk {
					continue
				}
				o, err := h.softOutput(r, len(h.g.vals[h.hd].vecs[choices[0][0].vid].Model), where)
				if err != nil {
					return nil, err
				}
				if k := h.ck.keyOf(o); !seen[k] {
					seen[k] = true
					outs = append(outs, o)
				}
			}
		}
	}
	return outs, nil
}

// softChoices lists, per position lo … hi, every (key, value) choice with
// the reference's exact score and the model's score at query q.
func (h *headCheck[T]) softChoices(q State[T], lo, hi int, where func() string) ([][]softChoice[T], error) {
	ck, b := h.ck, h.ck.b
	keys := h.g.keys[h.hd].vecs
	scored := map[int]softChoice[T]{}
	choices := make([][]softChoice[T], hi-lo+1)
	for p := lo; p <= hi; p++ {
		for _, s := range h.slots[p-1] {
			c, ok := scored[s.kid]
			if !ok {
				e, err := ck.r.Steps().HeadScore(h.l, h.hd, q.Ref, keys[s.kid].Ref)
				if err != nil {
					return nil, refuse("%s: the reference's score: %v", where(), err)
				}
				m, err := ck.m.Steps().HeadScore(h.l, h.hd, q.Model, keys[s.kid].Model)
				if err != nil {
					return nil, refuse("%s: the model's score: %v", where(), err)
				}
				if b.Cmp(m, m) == numeric.Unordered {
					return nil, refuse("%s: a NaN score in the model", where())
				}
				c = softChoice[T]{kid: s.kid, exact: e, model: m}
				scored[s.kid] = c
			}
			for _, v := range s.vids {
				c.pos, c.vid = p, v
				choices[p-lo] = append(choices[p-lo], c)
			}
		}
	}
	return choices, nil
}

// softExps is exp(s − M) for each choice scoring at most M; ok is false
// when a position has none, which rules M out as the maximum.
func (h *headCheck[T]) softExps(choices [][]softChoice[T], M T, where func() string) (es [][]T, ok bool, err error) {
	b := h.ck.b
	es = make([][]T, len(choices))
	for x, cs := range choices {
		es[x] = make([]T, len(cs))
		any := false
		for y, c := range cs {
			if b.Cmp(c.model, M) == numeric.Greater {
				continue
			}
			e, err := b.Exp(b.New(), b.Sub(b.New(), c.model, M))
			if err != nil {
				return nil, false, refuse("%s: exp: %v", where(), err)
			}
			es[x][y], any = e, true
		}
		if !any {
			return nil, false, nil
		}
	}
	return es, true, nil
}

// softSums is every sum of the weights, left to right, that a run under
// the maximum M can reach, by its encoding.
func (h *headCheck[T]) softSums(choices [][]softChoice[T], es [][]T, M T, where func() string) (map[string]T, error) {
	b := h.ck.b
	sums := map[string]T{}
	for x, cs := range choices {
		next := map[string]T{}
		for y, c := range cs {
			if b.Cmp(c.model, M) == numeric.Greater {
				continue
			}
			if x == 0 {
				next[softEnc(b, es[x][y])] = es[x][y]
				continue
			}
			for _, s := range sums {
				t := b.Add(b.New(), s, es[x][y])
				next[softEnc(b, t)] = t
			}
		}
		if len(next) > maxSoft {
			return nil, refuse("%s: more than %d sums of the softmax weights", where(), maxSoft)
		}
		h.ck.work += int64(len(next))
		sums = next
	}
	return sums, nil
}

// softRuns follows the partial runs under the maximum M and the sum S,
// position by position, merging equal ones.
func (h *headCheck[T]) softRuns(choices [][]softChoice[T], es [][]T, M, S T, where func() string) (map[string]softState[T], error) {
	b := h.ck.b
	runs := map[string]softState[T]{"": {}}
	for x, cs := range choices {
		next := map[string]softState[T]{}
		for y, c := range cs {
			if b.Cmp(c.model, M) == numeric.Greater {
				continue
			}
			e := es[x][y]
			alpha, err := b.Div(b.New(), e, S)
			if err != nil {
				return nil, refuse("%s: a softmax weight: %v", where(), err)
			}
			top := b.Cmp(c.model, M) == numeric.Equal
			for _, r := range runs {
				n := h.softExtend(r, c, e, alpha, top, x == 0)
				next[softKey(b, n)] = n
			}
		}
		if len(next) > maxSoft {
			return nil, refuse("%s: more than %d partial runs of the softmax", where(), maxSoft)
		}
		h.ck.work += int64(len(next))
		runs = next
	}
	return runs, nil
}

// softExtend is run r taking choice c, of weight e (α = e/S) at the
// model, first says c is at the first position.
func (h *headCheck[T]) softExtend(r softState[T], c softChoice[T], e, alpha T, top, first bool) softState[T] {
	b := h.ck.b
	vals := h.g.vals[h.hd].vecs
	w := h.ck.r.Steps().Attention(h.l).Weighting
	n := softState[T]{out: r.out, hit: r.hit || top, max: r.max, at: r.at}
	if first {
		n.sum = e
	} else {
		n.sum = b.Add(b.New(), r.sum, e)
	}
	if b.Sign(alpha) != numeric.Equal {
		o := make([]T, len(vals[c.vid].Model))
		for k := range o {
			t := b.Mul(b.New(), alpha, vals[c.vid].Model[k])
			if r.out != nil {
				t = b.Add(b.New(), r.out[k], t)
			}
			o[k] = t
		}
		n.out = o
	}
	switch cmp := 1; {
	case r.max != nil && func() bool { cmp = c.exact.Cmp(r.max); return cmp < 0 }():
	case r.max == nil || cmp > 0:
		n.max, n.at = c.exact, []softChoice[T]{c}
	case w == model.RightHardmax:
		n.at = []softChoice[T]{c}
	case w == model.AverageHardmax:
		n.at = append(slices.Clone(r.at), c)
	}
	return n
}

// softKey tells partial runs apart: equal keys, equal runs from here on.
func softKey[T any](b numeric.Backend[T], n softState[T]) string {
	key := append(appendValue(make([]byte, 0, 64), b, n.sum), '|')
	for _, x := range n.out {
		key = append(appendValue(key, b, x), ',')
	}
	if n.out == nil {
		key = append(key, "none"...)
	}
	if n.hit {
		key = append(key, "|hit|"...)
	}
	if n.max != nil {
		key = append(key, n.max.RatString()...)
	}
	vids := make([]int, len(n.at))
	for k, a := range n.at {
		vids[k] = a.vid
	}
	slices.Sort(vids)
	for _, v := range vids {
		key = strconv.AppendInt(append(key, ','), int64(v), 10)
	}
	return string(key)
}

// softEnc is x's encoding (equal bytes, equal values: appendValue).
func softEnc[T any](b numeric.Backend[T], x T) string { return string(appendValue(nil, b, x)) }

// softOutput is a finished run's output state: the reference's hardmax
// over the choices at its maximum, beside the model's weighted sum (0
// where every term was skipped).
func (h *headCheck[T]) softOutput(r softState[T], d int, where func() string) (State[T], error) {
	b := h.ck.b
	vals := h.g.vals[h.hd].vecs
	scR, valR := make([]*big.Rat, len(r.at)), make([][]*big.Rat, len(r.at))
	for k, a := range r.at {
		scR[k], valR[k] = a.exact, vals[a.vid].Ref
	}
	or, err := h.ck.r.Steps().HeadOutput(h.l, h.hd, scR, valR)
	if err != nil {
		return State[T]{}, refuse("%s: the reference's output: %v", where(), err)
	}
	om := r.out
	if om == nil {
		om = make([]T, d)
		for k := range om {
			om[k] = b.New()
		}
	}
	return State[T]{Ref: or, Model: om}, nil
}

func itoa(v int) string { return big.NewInt(int64(v)).String() }
