package certify

import (
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// softmaxCase draws positions of items for softmaxOutputs at backend b:
// scores and value entries from small pools (so that sums and orders
// collide), each position 1 … 3 items, tags their index in a pool.
func softmaxCase[T any](b numeric.Backend[T], rng *rand.Rand, positions, d int) [][]softItem[T] {
	scores := []string{"0", "1/2", "1", "3", "-1", "7/3", "9", "-13/4"}
	values := []string{"0", "1", "-1", "1/3", "5", "-7/8", "1/1000"}
	rat := func(s string) T {
		r, _ := new(big.Rat).SetString(s)
		return b.SetRat(b.New(), r)
	}
	items := make([][]softItem[T], positions)
	for p := range items {
		for range 1 + rng.IntN(3) {
			it := softItem[T]{score: rat(scores[rng.IntN(len(scores))]), tag: rng.IntN(4)}
			for range d {
				it.value = append(it.value, rat(values[rng.IntN(len(values))]))
			}
			items[p] = append(items[p], it)
		}
	}
	return items
}

// foldTags is a reference fold: the tags in position order.
func foldTags(s string, tag int) string { return s + strconv.Itoa(tag) }

// checkSoftmaxOutputs holds softmaxOutputs to the model's HeadOutput at
// every choice of one item per position (the runner's own softmax and
// weighted sum): the choice's output, with its tags, must be listed. It
// returns how many choices it ran and how many outputs were listed.
func checkSoftmaxOutputs[T any](t *testing.T, inst *eval.Instance[T], items [][]softItem[T]) (choices, listed int) {
	t.Helper()
	b := inst.B
	outs, _, why := softmaxOutputs(b, items, foldTags)
	if why != "" {
		t.Fatalf("gave up: %s", why)
	}
	have := map[string]bool{}
	for _, o := range outs {
		have[o.ref+"|"+string(appendValues(nil, b, o.out))] = true
	}
	given := map[string]bool{}
	pick := make([]int, len(items))
	var walk func(p int)
	walk = func(p int) {
		if p == len(items) {
			choices++
			scores := make([]T, len(items))
			vals := make([][]T, len(items))
			ref := ""
			for q, k := range pick {
				scores[q], vals[q] = items[q][k].score, items[q][k].value
				ref = foldTags(ref, items[q][k].tag)
			}
			got, err := inst.Steps().HeadOutput(0, 0, scores, vals)
			if err != nil {
				t.Fatal(err)
			}
			k := ref + "|" + string(appendValues(nil, b, got))
			if !have[k] {
				t.Fatalf("the choice %v gives %s (tags %s), which softmaxOutputs does not list", pick, valuesText(b, got), ref)
			}
			given[k] = true
			return
		}
		for k := range items[p] {
			pick[p] = k
			walk(p + 1)
		}
	}
	walk(0)
	if len(given) != len(have) {
		t.Fatalf("softmaxOutputs lists %d outputs, the choices give %d", len(have), len(given))
	}
	return choices, len(outs)
}

func valuesText[T any](b numeric.Backend[T], xs []T) string {
	s := ""
	for _, x := range xs {
		s += b.Format(x) + " "
	}
	return s
}

// softmaxHead is a one-head softmax model at precision p with values of
// d components (the value rows of oneHead: the stream's width).
func softmaxHead(t *testing.T, p string) (*eval.Instance[float64], int) {
	t.Helper()
	h := oneHead{alphabet: []string{"a", "b"}, ksym: []int64{1, 0}, kpos: []int64{0, 0}, val: []int64{1, 2}, w: model.Softmax}
	m := h.model("softmax")
	f := numeric.MustParsePrecision(p)
	inst, err := eval.Instantiate[float64](numeric.NewEmulated(f.Format), m)
	if err != nil {
		t.Fatal(err)
	}
	return inst, m.D
}

// TestSoftmaxOutputsAreHeadOutput: at fp8, bf16 and fp16 (where sums in
// another order, or a weight divided by another sum, round differently),
// random positions of items, every choice run through HeadOutput and
// found among the outputs softmaxOutputs lists, with its reference fold.
// A pass that summed in another order, computed the weights before the
// maximum, skipped no zero weight or dropped the choices that do not
// reach M in the first pass would miss some.
func TestSoftmaxOutputsAreHeadOutput(t *testing.T) {
	for _, p := range []string{"fp8-e4m3", "bf16", "fp16"} {
		inst, d := softmaxHead(t, p)
		rng := rand.New(rand.NewPCG(7, uint64(len(p))))
		total, listed := 0, 0
		for trial := range 60 {
			items := softmaxCase(inst.B, rng, 1+trial%5, d)
			c, l := checkSoftmaxOutputs(t, inst, items)
			total += c
			listed += l
		}
		t.Logf("%s: %d choices, %d outputs listed", p, total, listed)
	}
}

// TestSoftmaxOutputsExactOnOneChoice: where every position holds one
// item, softmaxOutputs lists exactly one output, HeadOutput's (a
// candidate maximum that is not the choice's would add outputs no input
// gives).
func TestSoftmaxOutputsExactOnOneChoice(t *testing.T) {
	inst, d := softmaxHead(t, "fp16")
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 100 {
		items := softmaxCase(inst.B, rng, 1+trial%6, d)
		for p := range items {
			items[p] = items[p][:1]
		}
		c, l := checkSoftmaxOutputs(t, inst, items)
		if c != 1 || l != 1 {
			t.Fatalf("trial %d: %d choices, %d outputs listed, want 1 and 1", trial, c, l)
		}
	}
}

// TestSoftmaxOutputsGiveUp: a NaN score and a non-finite value are
// refused, with a reason.
func TestSoftmaxOutputsGiveUp(t *testing.T) {
	inst, d := softmaxHead(t, "fp16")
	b := inst.B
	one := make([]float64, d)
	nan := b.Sub(b.New(), inf(), inf())
	for _, tc := range []struct {
		name  string
		items [][]softItem[float64]
	}{
		{"NaN score", [][]softItem[float64]{{{score: nan, value: one}}}},
		{"infinite value", [][]softItem[float64]{{{score: 0, value: append([]float64{inf()}, one[1:]...)}}}},
		{"no item", [][]softItem[float64]{{}}},
	} {
		if _, _, why := softmaxOutputs(b, tc.items, foldTags); why == "" {
			t.Errorf("%s: not refused", tc.name)
		}
	}
}

func inf() float64 { v, _ := strconv.ParseFloat("+Inf", 64); return v }
