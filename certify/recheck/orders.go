package recheck

import (
	"fmt"
	"math/big"
	"strings"
)

// maxOrders bounds the distinct partial sums orderSums keeps for one tie
// set.
const maxOrders = 1 << 16

// orderSums is the model's sums over every order of the values of tie
// set s at the score of key lvl, distinct as numbers. Its weighted sum
// adds left to right: fl(α·v) for the first value, then fl(σ + fl(α·v))
// for each next (docs/model-format.md), with α the weight of one of the
// m tied positions; so an order's sum is a walk that adds the terms
// t_v = fl(α·v) one by one. Each t_v is the model's HeadOutput over v
// followed by m − 1 zero vectors (α·0 = ±0 adds nothing to a value). The
// walks are followed by what remains to add: the partial sums reached
// with the same counts left are merged (their futures are the same), a
// memo by the counts used and the sum.
func (h *headCheck[T]) orderSums(lvl int, s tieSet, where func() string) ([][]T, error) {
	ck, b := h.ck, h.ck.b
	vecs := h.g.vals[h.hd].vecs
	m := 0
	for _, c := range s.counts {
		m += c
	}
	terms := make([][]T, len(s.vids))
	d := len(vecs[s.vids[0]].Model)
	for x, v := range s.vids {
		scM, valM := make([]T, m), make([][]T, m)
		zero := make([]T, d)
		for c := range zero {
			zero[c] = b.New()
		}
		for k := range scM {
			scM[k], valM[k] = h.sc.muOf(lvl), zero
		}
		valM[0] = vecs[v].Model
		t, err := ck.m.Steps().HeadOutput(h.l, h.hd, scM, valM)
		if err != nil {
			return nil, refuse("%s: the model's output: %v", where(), err)
		}
		terms[x] = t
	}
	keyOf := func(left []int, sum []T) string {
		var sb strings.Builder
		fmt.Fprint(&sb, left)
		sb.WriteString(vectorKey(b, nil, sum))
		return sb.String()
	}
	// frontier: the walks after the same number of steps, by counts left
	// and sum.
	type walk struct {
		left []int
		sum  []T
	}
	var frontier []walk
	seen := map[string]bool{}
	for x := range s.vids {
		left := append([]int(nil), s.counts...)
		left[x]--
		w := walk{left, terms[x]}
		if k := keyOf(w.left, w.sum); !seen[k] {
			seen[k] = true
			frontier = append(frontier, w)
		}
	}
	for step := 1; step < m; step++ {
		var next []walk
		seen = map[string]bool{}
		for _, w := range frontier {
			for x := range s.vids {
				if w.left[x] == 0 {
					continue
				}
				left := append([]int(nil), w.left...)
				left[x]--
				sum := make([]T, d)
				for c := range sum {
					sum[c] = b.Add(b.New(), w.sum[c], terms[x][c])
				}
				ck.work += int64(d)
				if k := keyOf(left, sum); !seen[k] {
					seen[k] = true
					next = append(next, walk{left, sum})
				}
			}
		}
		if len(next) > maxOrders {
			return nil, refuse("%s: the orders of a tie set give more than %d partial sums", where(), maxOrders)
		}
		frontier = next
	}
	var out [][]T
	got := map[string]bool{}
	for _, w := range frontier {
		if k := vectorKey(b, []*big.Rat(nil), w.sum); !got[k] {
			got[k] = true
			out = append(out, w.sum)
		}
	}
	return out, nil
}
