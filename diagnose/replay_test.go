package diagnose

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// replayPrecisions are the formats the replay is held to: every IEEE
// format of the frontier and a bigfloat.
var replayPrecisions = []string{"fp8-e4m3", "fp8-e5m2", "bf16", "fp16", "fp32", "fp64", "24"}

// replayTally counts the values compared, and the first disagreement.
type replayTally struct {
	scores, rows int
	first        string
}

func (t *replayTally) differ(format string, args ...any) {
	if t.first == "" {
		t.first = fmt.Sprintf(format, args...)
	}
}

// replayAgainstModel replays every attention sublayer and feed-forward
// sublayer the diagnosis replays (those that read the residual stream
// itself, not a layer norm of it) on one traced run, and compares the
// replayed scores and rows with the model's own (eval.Runner.HeadScores,
// FeedForwardRows) on the same input. edit, if set, changes the replay's
// weights first (a negative control).
func replayAgainstModel(t *testing.T, m *model.Model, runner eval.Runner, res *eval.Result, tally *replayTally, edit func(sparseMatrix) sparseMatrix) {
	t.Helper()
	d, err := newDiagnosis(m, runner, res, res, 1, "", refBits(runner.Precision()))
	if err != nil {
		t.Fatal(err)
	}
	for k, info := range d.infos {
		if k == 0 || info.layer < 0 || info.normedInput {
			continue
		}
		where := fmt.Sprintf("%s %s", runner.Precision(), info.label)
		if info.attn {
			s := d.newAttnScan(k)
			if s == nil {
				continue
			}
			for _, hs := range s.heads {
				if hs == nil || hs.qf == nil {
					continue
				}
				if edit != nil {
					hs.qf, hs.kf = edit(hs.qf), edit(hs.kf)
				}
				for i := range s.hf {
					ks, over := s.replayScores(hs, i)
					if ks == nil || over != nil {
						continue
					}
					js, got, err := runner.HeadScores(info.layer, hs.head, s.hf, i)
					if err != nil {
						t.Fatalf("%s head %d at %d: %v", where, hs.head+1, i+1, err)
					}
					if len(js) != len(ks) {
						tally.differ("%s head %d at %d: the model scores %d keys, the replay %d", where, hs.head+1, i+1, len(js), len(ks))
						continue
					}
					for c, ksc := range ks {
						tally.scores++
						if v, ok := got[c].Rat(); js[c] != ksc.j || !ok || v.Cmp(ksc.f) != 0 {
							tally.differ("%s head %d, query %d, key %d: the model computes %s, the replay %s", where, hs.head+1, i+1, ksc.j+1, got[c].Text, ksc.f.RatString())
						}
					}
				}
			}
			continue
		}
		ff := m.Layers[info.layer].FeedForward
		if ff == nil {
			continue
		}
		w, ok := d.ffWeightsOf(ff)
		if !ok {
			continue
		}
		if edit != nil {
			w.w1f, w.w2f = edit(w.w1f), edit(w.w2f)
		}
		linearish := ff.Activation == model.ReLU || ff.Activation == model.Linear
		for i, vec := range d.got.Trace.States[k-1].Vectors {
			xf, ok := d.ratVector(vec)
			if !ok {
				continue
			}
			pre, out, err := runner.FeedForwardRows(info.layer, xf)
			if err != nil {
				t.Fatalf("%s at %d: %v", where, i+1, err)
			}
			zf, _, overs := d.replayRows(w.w1f, w.b1f, xf, d.component)
			if slices.ContainsFunc(overs, func(o string) bool { return o != "" }) {
				continue // an overflow, which the replay keeps exact
			}
			tally.rows += len(zf)
			if !sameValues(pre, zf) {
				tally.differ("%s at %d: W1 x + b1 is %v in the model, %v in the replay", where, i+1, pre, zf)
			}
			if !linearish {
				continue
			}
			af := make([]*big.Rat, len(zf))
			for r, z := range zf {
				af[r] = w.act(z)
			}
			yf, _, overs := d.replayRows(w.w2f, w.b2f, af, hiddenUnit)
			if slices.ContainsFunc(overs, func(o string) bool { return o != "" }) {
				continue
			}
			tally.rows += len(yf)
			if !sameValues(out, yf) {
				tally.differ("%s at %d: the output is %v in the model, %v in the replay", where, i+1, out, yf)
			}
		}
	}
}

// replayLengths are the input lengths TestReplayOrderMatters replays: 2
// and 5, or 4 alone under the race detector (which slows the replay
// eightfold and finds nothing in it: it runs on one goroutine).
func replayLengths() []int {
	if testenv.Race {
		return quickReplayLengths
	}
	return []int{2, 5}
}

// quickReplayLengths are the lengths TestReplayIsTheModel replays.
var quickReplayLengths = []int{4}

// replayRuns runs every recipe under each of its weightings, built for
// N = 8 (or the smallest N it builds), at each replay precision on two
// inputs of each of lengths, and hands each traced run to f, until done
// (when set) says to stop.
func replayRuns(t *testing.T, lengths []int, f func(m *model.Model, runner eval.Runner, res *eval.Result), done func() bool) {
	t.Helper()
	for _, r := range recipes.All() {
		if done != nil && done() {
			return
		}
		ws := r.Weightings
		if len(ws) == 0 {
			ws = []model.Weighting{r.DefaultWeighting()}
		}
		for _, w := range ws {
			maxN := max(8, r.MinN)
			con, err := r.Construct(w, maxN, nil)
			if err != nil {
				t.Fatalf("%s %s: %v", r.Name, recipes.WeightingAcronym(w), err)
			}
			for _, p := range replayPrecisions {
				runner, err := eval.New(numeric.MustParsePrecision(p), con.Model)
				if err != nil {
					t.Fatalf("%s %s at %s: %v", r.Name, recipes.WeightingAcronym(w), p, err)
				}
				for _, n := range lengths {
					if n < r.MinN || n > maxN {
						continue
					}
					cases, _ := con.Inputs(n, rand.New(rand.NewPCG(uint64(n), 17)), 2)
					for _, c := range cases {
						if c.Stream != nil {
							c.Stream = check.RoundStream(runner, c.Stream)
						}
						res, err := runCase(runner, c)
						if err != nil {
							continue // a run the format cannot make has nothing to replay
						}
						f(con.Model, runner, res)
					}
				}
			}
		}
	}
}

// TestReplayIsTheModel: the diagnosis's replay of the format's arithmetic
// (each product and partial sum of W^Q x, W^K x, q·k, W1 x + b1 and
// W2 act(·) + b2 rounded in turn) computes, bit for bit, what the model
// computes from the same input, on every recipe, every weighting the
// paper gives it, every IEEE format of the frontier and a bigfloat. Its
// explanations therefore describe the model's own computation. It
// replays inputs of length 4; TestLongReplayIsTheModel, of lengths 2 and 5.
func TestReplayIsTheModel(t *testing.T) {
	replayIsTheModel(t, quickReplayLengths)
}

// TestLongReplayIsTheModel is TestReplayIsTheModel on inputs of lengths 2
// and 5.
func TestLongReplayIsTheModel(t *testing.T) {
	testenv.Long(t)
	replayIsTheModel(t, []int{2, 5})
}

// replayIsTheModel compares the replay with the model on the runs of
// replayRuns at lengths.
func replayIsTheModel(t *testing.T, lengths []int) {
	var tally replayTally
	replayRuns(t, lengths, func(m *model.Model, runner eval.Runner, res *eval.Result) {
		replayAgainstModel(t, m, runner, res, &tally, nil)
	}, nil)
	if tally.first != "" {
		t.Fatal(tally.first)
	}
	// The comparison must not be vacuous: the recipes hold attention and
	// feed-forward sublayers that the diagnosis replays.
	if tally.scores < 1000 || tally.rows < 10000 {
		t.Fatalf("only %d scores and %d rows compared", tally.scores, tally.rows)
	}
	t.Logf("%d scores and %d feed-forward rows agree bit for bit", tally.scores, tally.rows)
}

// TestReplayOrderMatters is the negative control of TestReplayIsTheModel:
// a replay that sums each row right to left instead of left to right
// disagrees with the model somewhere, so the comparison sees the order of
// operations and not only the values.
func TestReplayOrderMatters(t *testing.T) {
	reverse := func(w sparseMatrix) sparseMatrix {
		out := make(sparseMatrix, len(w))
		for r, row := range w {
			out[r] = slices.Clone(row)
			slices.Reverse(out[r])
		}
		return out
	}
	var tally replayTally
	replayRuns(t, replayLengths(), func(m *model.Model, runner eval.Runner, res *eval.Result) {
		replayAgainstModel(t, m, runner, res, &tally, reverse)
	}, func() bool { return tally.first != "" })
	if tally.first == "" {
		t.Fatalf("summing right to left agrees with the model on all %d scores and %d rows", tally.scores, tally.rows)
	}
	t.Logf("right to left disagrees: %s", tally.first)
}
