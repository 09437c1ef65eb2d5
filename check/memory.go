package check

import (
	"fmt"
	"runtime"

	"github.com/transformer-cookbook/verify/internal/gcfloor"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// valueBytes bounds what one number takes in a backend: a float64 slot
// for the IEEE and emulated formats, a big.Float (its struct and mantissa
// words) for bigfloats, two for intervals, and for exact rationals two
// small big.Ints (more when denominators grow, which no estimate made
// before the run can know).
func valueBytes(p numeric.Precision) uint64 {
	words := func(bits uint) uint64 { return uint64(bits+63) / 64 * 8 }
	switch p.Kind {
	case numeric.KindFloat32:
		return 4
	case numeric.KindFloat64, numeric.KindEmulated:
		return 8
	case numeric.KindBigFloat:
		return 64 + words(p.Bits)
	case numeric.KindInterval:
		return 2 * (64 + words(p.Bits))
	}
	return 112
}

// Bytes a process holds whatever it checks (the runtime, the binary's
// data), and what each position of an input costs besides its vectors
// (its reference, its outputs and their texts).
const (
	baseBytes     = 32 << 20
	positionBytes = 1024
)

// Weights counts the numbers of a model's weights: its embeddings,
// projections, feed-forward layers and unembedding.
func Weights(m *model.Model) uint64 {
	w, _ := weights(m)
	return w
}

// weights counts the numbers of m's weights, and those that are not 0
// (which the model stores as expressions; a 0 is an empty one).
func weights(m *model.Model) (all, nonzero uint64) {
	count := func(xs []numeric.Expr) {
		all += uint64(len(xs))
		for _, x := range xs {
			if !x.IsZero() {
				nonzero++
			}
		}
	}
	for _, v := range m.WordEmbedding {
		count(v)
	}
	for _, l := range m.Layers {
		if a := l.Attention; a != nil {
			for _, h := range a.Heads {
				count(h.Q.Data)
				count(h.K.Data)
				count(h.V.Data)
			}
		}
		if f := l.FeedForward; f != nil {
			count(f.W1.Data)
			count(f.W2.Data)
			count(f.B1)
			count(f.B2)
		}
	}
	count(m.Output.W.Data)
	return all, nonzero
}

// MemoryEstimate bounds the peak resident memory of a process checking
// inputs of length up to n at precision p with the given number of
// workers (0: GOMAXPROCS), with the analysis (package certify) or
// without. What the process holds at once, live:
//
//   - the model as built (8 bytes a weight, and 160 more a nonzero one,
//     its expression and rational), and the same in the backend's numbers
//     with its position encoding's n rows (valueBytes, and 8 bytes a
//     number besides), and for a bigfloat of at most 25 bits, which runs
//     in float64, the same in float64s;
//   - for each worker, an input's n positions: the residual stream, a
//     sublayer's output, the keys and values of every head and the widest
//     feed-forward hidden layer, in the backend's numbers, and the
//     position's reference and outputs (positionBytes);
//   - with the analysis, the model in exact rationals, the symbols each
//     position may hold (8 bytes each, at most the alphabet a position),
//     and the states that embed them, one per symbol and one per
//     position, in both models.
//
// The garbage collector lets the heap grow to twice what is live before
// it collects (GOGC = 100), and the command line lets it grow to
// gcfloor.Bytes in any case, and so the bound is the larger of the two,
// plus the runtime's own (baseBytes). It was measured against the peak resident
// set of runs of the lookups and the one-hot lookup at the IEEE formats,
// big floats and exact arithmetic (TestMemoryEstimateBounds).
func MemoryEstimate(m *model.Model, p numeric.Precision, n, workers int, analysis bool) uint64 {
	return baseBytes + max(2*liveBytes(m, p, n, workers, analysis), gcfloor.Bytes)
}

// liveBytes is what MemoryEstimate counts live at once.
func liveBytes(m *model.Model, p numeric.Precision, n, workers int, analysis bool) uint64 {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	all, nonzero := weights(m)
	numbers := all
	if m.Position != nil {
		numbers += uint64(n) * uint64(m.D)
	}
	perPosition := uint64(2 * m.D)
	hidden := 0
	for _, l := range m.Layers {
		if a := l.Attention; a != nil {
			kv := 0
			for _, h := range a.Heads {
				kv += h.K.Rows + h.V.Rows
			}
			perPosition = max(perPosition, uint64(2*m.D+kv))
		}
		if f := l.FeedForward; f != nil {
			hidden = max(hidden, f.W1.Rows)
		}
	}
	vb := valueBytes(p)
	live := 8*all + 160*nonzero + (vb+8)*numbers
	if p.Kind == numeric.KindBigFloat && p.Bits <= numeric.NarrowMaxBits {
		// A small bigfloat runs in float64 (eval.New's runner), which
		// keeps its float64 instance beside the big.Float one it builds
		// when a value leaves float64's share of the range.
		live += 16 * numbers
	}
	live += uint64(workers) * uint64(n) * ((perPosition+uint64(hidden))*vb + positionBytes)
	if analysis {
		exact := valueBytes(numeric.Precision{Kind: numeric.KindExact})
		states := uint64(n+len(m.Alphabet)) * uint64(m.D) * (exact + vb)
		live += (exact+8)*numbers + 8*uint64(n)*uint64(len(m.Alphabet)) + states
	}
	return live
}

// ErrMemory is returned (wrapped) when a check would need more memory
// than Options.MemoryLimit.
var ErrMemory = fmt.Errorf("not enough memory")

// GiB prints a byte count in GiB.
func GiB(b uint64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
