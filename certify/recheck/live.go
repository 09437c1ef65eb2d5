package recheck

import "github.com/transformer-cookbook/verify/model"

// liveness returns, for the state before each step k (k = len(steps): the
// state the final norm and the output read), the components of m's
// residual stream that step k or a later one, or the output, reads; and,
// for each step, the components of the state before it that its residual
// connection passes on to be read.
//
// Going back from the output: a sublayer reads the columns of its
// weights, or under pre-norm the columns its norm reads (a norm reads
// them even where no sublayer follows: that only reads more); its
// residual connection passes on what is read after it, or everything
// when a post-norm follows (a layer norm reads every component it
// normalises).
func liveness(m *model.Model, steps []step) (live, reads [][]bool) {
	d := m.D
	live = make([][]bool, len(steps)+1)
	reads = make([][]bool, len(steps))
	final := make([]bool, d)
	if m.Norm == model.PreNorm && m.FinalNorm != nil {
		or(final, m.FinalNorm.Reads(d))
	} else {
		or(final, m.Output.W.ReadColumns())
	}
	live[len(steps)] = final
	for k := len(steps) - 1; k >= 0; k-- {
		layer := &m.Layers[steps[k].layer]
		norm, residual := layer.FeedForwardNorm, !layer.NoFeedForwardResidual
		if steps[k].attn {
			norm, residual = layer.AttentionNorm, !layer.NoAttentionResidual
		}
		if m.Norm == model.NoNorm {
			norm = nil // Instantiate ignores norms then
		}
		passed := make([]bool, d)
		if residual {
			if norm != nil && m.Norm == model.PostNorm {
				for c := range passed {
					passed[c] = true
				}
			} else {
				or(passed, live[k+1])
			}
		}
		reads[k] = passed
		before := append([]bool(nil), passed...)
		switch {
		case norm != nil && m.Norm == model.PreNorm:
			or(before, norm.Reads(d))
		case steps[k].attn && layer.Attention != nil:
			for _, h := range layer.Attention.Heads {
				or(before, h.Q.ReadColumns())
				or(before, h.K.ReadColumns())
				or(before, h.V.ReadColumns())
			}
		case !steps[k].attn && layer.FeedForward != nil:
			or(before, layer.FeedForward.W1.ReadColumns())
		}
		live[k] = before
	}
	return live, reads
}

// or sets dst[c] where src[c] is set.
func or(dst, src []bool) {
	for c, on := range src {
		if on && c < len(dst) {
			dst[c] = true
		}
	}
}
