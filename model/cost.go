package model

// ScoreTerms counts the attention work of one forward pass at length n:
// the scores (query–key pairs, over every head of every attention layer,
// masks honoured) and the score terms (a score of a head whose key width
// is d_key has d_key multiply-adds). They are the units in which the
// benchmarks report the cost of attention.
func (m *Model) ScoreTerms(n int) (scores, terms int) {
	for _, l := range m.Layers {
		a := l.Attention
		if a == nil {
			continue
		}
		pairs := n * n
		switch a.Mask {
		case Future, Past:
			pairs = n * (n + 1) / 2
		case StrictFuture, StrictPast:
			pairs = n * (n - 1) / 2
		}
		for _, h := range a.Heads {
			scores += pairs
			terms += pairs * h.Q.Rows
		}
	}
	return scores, terms
}
