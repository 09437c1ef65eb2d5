package diagnose

import (
	"fmt"

	"github.com/transformer-cookbook/verify/model"
)

// stateInfo says which sublayer produced a state of the trace, and how.
type stateInfo struct {
	label string
	// layer is the 0-based layer of an attention or feed-forward state,
	// −1 for the first state and the final norm.
	layer int
	attn  bool
	// sum: the state is the previous one plus the sublayer's output
	// (a residual connection, and no post-norm after it).
	sum bool
	// normedInput: the sublayer reads a layer norm of the previous state
	// (pre-norm), not the state itself.
	normedInput bool
	// residual: the sublayer has its residual connection; postNorm: a
	// layer norm follows the sum; norm is the sublayer's layer norm (pre-
	// or post-), or the final norm.
	residual bool
	postNorm bool
	norm     *model.LayerNorm
}

// stateInfos lists the states model.Run traces, in its order.
func stateInfos(m *model.Model, first string) []stateInfo {
	infos := []stateInfo{{label: first, layer: -1}}
	for l, layer := range m.Layers {
		where := fmt.Sprintf("layer %d", l+1)
		attnNorm, ffNorm := layer.AttentionNorm, layer.FeedForwardNorm
		if m.Norm == model.NoNorm {
			attnNorm, ffNorm = nil, nil
		}
		if layer.Attention != nil || attnNorm != nil {
			infos = append(infos, stateInfo{
				label: where + " attention", layer: l, attn: layer.Attention != nil,
				sum:         !layer.NoAttentionResidual && (attnNorm == nil || m.Norm == model.PreNorm),
				normedInput: attnNorm != nil && m.Norm == model.PreNorm,
				residual:    !layer.NoAttentionResidual, postNorm: attnNorm != nil && m.Norm == model.PostNorm, norm: attnNorm,
			})
		}
		if layer.FeedForward != nil || ffNorm != nil {
			infos = append(infos, stateInfo{
				label: where + " feed-forward", layer: l,
				sum:         !layer.NoFeedForwardResidual && (ffNorm == nil || m.Norm == model.PreNorm),
				normedInput: ffNorm != nil && m.Norm == model.PreNorm,
				residual:    !layer.NoFeedForwardResidual, postNorm: ffNorm != nil && m.Norm == model.PostNorm, norm: ffNorm,
			})
		}
	}
	if m.Norm == model.PreNorm && m.FinalNorm != nil {
		infos = append(infos, stateInfo{label: "final norm", layer: -1, norm: m.FinalNorm})
	}
	return infos
}

// influence returns, for every state, the positions whose values there
// can reach the output at pos: going back from the last state, an
// attention sublayer adds the positions its mask lets an influencing
// position attend to; the other sublayers work position by position.
func (d *diagnosis) influence() [][]bool {
	n := len(d.got.Trace.States[0].Vectors)
	rel := make([][]bool, len(d.infos))
	last := make([]bool, n)
	last[d.pos] = true
	rel[len(rel)-1] = last
	for k := len(d.infos) - 1; k > 0; k-- {
		prev := append([]bool(nil), rel[k]...)
		info := d.infos[k]
		if info.attn {
			attended(d.m.Layers[info.layer].Attention.Mask, rel[k], prev)
		}
		rel[k-1] = prev
	}
	return rel
}

// attended sets keys[j] for every position j that some query position i
// with queries[i] set may attend to under mask m. The masks are
// intervals, so the extreme query decides.
func attended(m model.Mask, queries, keys []bool) {
	lo, hi := -1, -1
	for i, q := range queries {
		if q {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	if lo < 0 {
		return
	}
	for j := range keys {
		switch m {
		case model.Future, model.StrictFuture:
			keys[j] = keys[j] || m.Allows(hi+1, j+1)
		case model.Past, model.StrictPast:
			keys[j] = keys[j] || m.Allows(lo+1, j+1)
		default:
			keys[j] = true
		}
	}
}

// dataflow returns, for every state, the components at every position
// whose value can reach the output at pos through nonzero weights: the
// unembedding's columns at pos; back through a residual connection the
// same components; through a feed-forward sublayer that writes a
// flowing component, the columns its W1 reads; through an attention
// sublayer that writes one at a query position i, the columns of W^Q
// there and those of W^K and W^V at every position i may attend to;
// through a layer norm, every component it normalises. A finite error
// anywhere else is multiplied by zero before it reaches the output.
func (d *diagnosis) dataflow() [][][]bool {
	n, dim := len(d.got.Trace.States[0].Vectors), d.m.D
	newSet := func() [][]bool {
		s := make([][]bool, n)
		for i := range s {
			s[i] = make([]bool, dim)
		}
		return s
	}
	flows := make([][][]bool, len(d.infos))
	last := newSet()
	orInto(last[d.pos], d.m.Output.W.ReadColumns())
	flows[len(flows)-1] = last
	all := make([]bool, dim)
	for c := range all {
		all[c] = true
	}
	for k := len(d.infos) - 1; k > 0; k-- {
		info := d.infos[k]
		cur, prev := flows[k], newSet()
		if info.layer < 0 { // the final norm
			for i := range cur {
				if anyOf(cur[i], nil) {
					orInto(prev[i], info.norm.Reads(dim))
				}
			}
			flows[k-1] = prev
			continue
		}
		if info.postNorm {
			after := newSet()
			for i := range cur {
				if anyOf(cur[i], nil) {
					orInto(after[i], all)
				}
			}
			cur = after
		}
		if info.residual {
			for i := range cur {
				orInto(prev[i], cur[i])
			}
		}
		// reads maps the columns a sublayer reads to the stream's: a
		// pre-norm sublayer reads what its norm normalises.
		reads := func(cols []bool) []bool {
			if !info.normedInput {
				return cols
			}
			if !anyOf(cols, nil) {
				return nil
			}
			return info.norm.Reads(dim)
		}
		layer := d.m.Layers[info.layer]
		if a := layer.Attention; info.attn && a != nil {
			writes := make([]bool, dim)
			var qr, kvr []bool
			for _, h := range a.Heads {
				orInto(writes, h.V.WrittenRows())
				qr = orOf(qr, h.Q.ReadColumns())
				kvr = orOf(orOf(kvr, h.K.ReadColumns()), h.V.ReadColumns())
			}
			qr, kvr = reads(qr), reads(kvr)
			queries := make([]bool, n)
			for i := range cur {
				if anyOf(cur[i], writes) {
					queries[i] = true
					orInto(prev[i], qr)
				}
			}
			keys := make([]bool, n)
			attended(a.Mask, queries, keys)
			for j, on := range keys {
				if on {
					orInto(prev[j], kvr)
				}
			}
		} else if f := layer.FeedForward; !info.attn && f != nil {
			writes := orOf(f.W2.WrittenRows(), nonzeroEntries(f.B2))
			r := reads(f.W1.ReadColumns())
			for i := range cur {
				if anyOf(cur[i], writes) {
					orInto(prev[i], r)
				}
			}
		}
		flows[k-1] = prev
	}
	return flows
}

func nonzeroEntries(v model.Vector) []bool {
	out := make([]bool, len(v))
	for k, e := range v {
		out[k] = !e.IsZero()
	}
	return out
}

// orInto sets dst[c] where src[c] is set (src may be shorter or nil).
func orInto(dst, src []bool) {
	for c, on := range src {
		if on && c < len(dst) {
			dst[c] = true
		}
	}
}

// orOf returns a ∨ b, as long as the longer.
func orOf(a, b []bool) []bool {
	out := make([]bool, max(len(a), len(b)))
	orInto(out, a)
	orInto(out, b)
	return out
}

// anyOf reports whether some s[c] is set where mask[c] is (any, for a nil
// mask).
func anyOf(s, mask []bool) bool {
	for c, on := range s {
		if on && (mask == nil || c < len(mask) && mask[c]) {
			return true
		}
	}
	return false
}

// differs reports whether position i of state k differs from the
// reference by more than one unit of the format's spacing (or is not
// finite) in some component that is set in mask and flows to the output
// (with a post-norm, which mixes the components, in any that flows).
func (d *diagnosis) differs(k, i int, mask []bool) bool {
	if d.infos[k].postNorm {
		mask = nil
	}
	for c, v := range d.got.Trace.States[k].Vectors[i] {
		if !d.flows[k][i][c] || mask != nil && !mask[c] {
			continue
		}
		if !v.Finite() {
			return true
		}
		if _, off := d.offBy(d.ref.Trace.States[k].Vectors[i][c], v, 1); off {
			return true
		}
	}
	return false
}
