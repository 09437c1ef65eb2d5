package certify

import "github.com/transformer-cookbook/verify/model"

// liveness returns, for the state after each step (index 0: the
// embedding; k: after step k−1), the components of m's residual stream
// that a later sublayer or the output reads, through a nonzero weight or
// a layer norm; and, for each step, the components of the state before
// it that its residual connection passes on to be read (reads). Going back from the output: a sublayer reads the columns
// of its weights (or, under pre-norm, what its norm normalises), and its
// residual connection passes on what is read after it (all of it, under
// post-norm, whose norm reads the whole sum).
func liveness(m *model.Model, steps []step) (live, reads [][]bool) {
	live = make([][]bool, len(steps)+1)
	reads = make([][]bool, len(steps))
	last := make([]bool, m.D)
	if m.Norm == model.PreNorm && m.FinalNorm != nil {
		orInto(last, m.FinalNorm.Reads(m.D))
	} else {
		orInto(last, m.Output.W.ReadColumns())
	}
	live[len(steps)] = last
	for k := len(steps) - 1; k >= 0; k-- {
		st := steps[k]
		layer := m.Layers[st.layer]
		norm, residual := layer.FeedForwardNorm, !layer.NoFeedForwardResidual
		if st.attn {
			norm, residual = layer.AttentionNorm, !layer.NoAttentionResidual
		}
		if m.Norm == model.NoNorm {
			norm = nil
		}
		before := make([]bool, m.D)
		if residual {
			if norm != nil && m.Norm == model.PostNorm {
				orInto(before, (&model.LayerNorm{}).Reads(m.D))
			} else {
				orInto(before, live[k+1])
			}
		}
		reads[k] = append([]bool(nil), before...)
		var in []bool
		switch {
		case norm != nil && m.Norm == model.PreNorm:
			in = norm.Reads(m.D)
		case st.attn && layer.Attention != nil:
			in = make([]bool, m.D)
			for _, h := range layer.Attention.Heads {
				orInto(in, h.Q.ReadColumns())
				orInto(in, h.K.ReadColumns())
				orInto(in, h.V.ReadColumns())
			}
		case !st.attn && layer.FeedForward != nil:
			in = layer.FeedForward.W1.ReadColumns()
		}
		orInto(before, in)
		live[k] = before
	}
	return live, reads
}

// orInto sets dst[c] where src[c] is set.
func orInto(dst, src []bool) {
	for c, on := range src {
		if on && c < len(dst) {
			dst[c] = true
		}
	}
}
