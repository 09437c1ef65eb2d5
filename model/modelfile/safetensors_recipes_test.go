package modelfile_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/modelfile"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// dtypeGrid describes a dtype's numbers by hand, from its definition, for
// a test independent of numeric.Format: x ≠ 0 is a number of the dtype
// when x = a × 2^q with an odd integer a of at most p bits, q ≥ emin − p + 1
// (the grid of the subnormals) and |x| ≤ max.
type dtypeGrid struct {
	p, emin int
	max     *big.Rat
}

func pow2(k int) *big.Rat {
	if k >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(k)))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-k)))
}

// (2 − 2^(1−p)) × 2^emax, or for F8_E4M3 (no infinities) 1.75 × 2^8.
func largest(mant int64, bits, emax int) *big.Rat {
	return new(big.Rat).Mul(big.NewRat(mant, 1<<bits), pow2(emax))
}

var grids = map[string]dtypeGrid{
	"F64":     {53, -1022, largest(1<<53-1, 52, 1023)},
	"F32":     {24, -126, largest(1<<24-1, 23, 127)},
	"F16":     {11, -14, big.NewRat(65504, 1)},
	"BF16":    {8, -126, largest(255, 7, 127)},
	"F8_E4M3": {4, -6, big.NewRat(448, 1)},
	"F8_E5M2": {3, -14, big.NewRat(57344, 1)},
}

// holds reports whether the exact value of e is a number of the grid,
// and if not, why: "irrational", "not dyadic" (a denominator that is not a
// power of two), "too many bits", "too small" or "beyond the range".
func (g dtypeGrid) holds(e numeric.Expr) (bool, string) {
	if e.IsZero() {
		return true, ""
	}
	r, rational, err := e.Rat()
	if err != nil || !rational {
		return false, "irrational"
	}
	abs := new(big.Rat).Abs(r)
	if abs.Cmp(g.max) > 0 {
		return false, "beyond the range"
	}
	if r.Sign() == 0 {
		return true, ""
	}
	den := r.Denom()
	k := den.BitLen() - 1
	if den.TrailingZeroBits() != uint(k) {
		return false, "not dyadic"
	}
	num := new(big.Int).Abs(r.Num())
	tz := int(num.TrailingZeroBits())
	a := num.Rsh(num, uint(tz))
	switch {
	case a.BitLen() > g.p:
		return false, "too many bits"
	case tz-k < g.emin-g.p+1:
		return false, "too small"
	}
	return true, ""
}

// TestSafetensorsEveryRecipeEveryDtype writes every recipe's model, under
// each of its weightings, in each dtype. Where the hand-written grid
// above holds every weight, the file must read back to exactly the same
// rational weights, its dtype reported; where it does not, the write must
// refuse, write nothing, and name exactly the weights the grid does not
// hold (or a weight beyond the largest finite number), and the rounded
// write must store every other weight exactly and list the rounded ones,
// each now a number of the grid. N is 6, or 4 for the recipes whose width
// or alphabet grows with N.
func TestSafetensorsEveryRecipeEveryDtype(t *testing.T) {
	type tally struct {
		exact, inexact, overflow int
		why                      map[string]int // the first weight refused in each model, by reason
	}
	counts := map[string]*tally{}
	dtypes := modelfile.SafetensorsDtypes()
	for _, d := range dtypes {
		counts[d] = &tally{why: map[string]int{}}
	}
	for _, r := range recipes.All() {
		weightings := r.Weightings
		if len(weightings) == 0 {
			weightings = []model.Weighting{r.DefaultWeighting()}
		}
		for _, w := range weightings {
			maxN := 6
			if r.LimitN > 0 {
				maxN = min(4, r.LimitN)
			}
			maxN = max(min(r.DefaultMaxN, maxN), r.MinN, 1)
			con, err := r.Construct(w, maxN, nil)
			if err != nil {
				t.Fatalf("%s/%v: %v", r.Name, w, err)
			}
			tensors, err := modelfile.Tensors(con.Model, maxN)
			if err != nil {
				t.Fatalf("%s/%v: %v", r.Name, w, err)
			}
			for _, dtype := range dtypes {
				name := fmt.Sprintf("%s/%v/%s", r.Name, w, dtype)
				how, why := roundTripDtype(t, name, con.Model, maxN, tensors, dtype)
				switch how {
				case "exact":
					counts[dtype].exact++
				case "inexact":
					counts[dtype].inexact++
				case "overflow":
					counts[dtype].overflow++
				}
				if why != "" {
					counts[dtype].why[why]++
				}
			}
		}
	}
	for _, d := range dtypes {
		c := counts[d]
		t.Logf("%-8s %3d models round-tripped exactly, %3d refused for weights not in %s, %d for a weight beyond its range; first refused weights: %v", d, c.exact, c.inexact, d, c.overflow, c.why)
	}
	// Integer weights survive every dtype: some models must round-trip
	// even in F8_E5M2, and some be refused in F64 (1/3, log n).
	if counts["F8_E5M2"].exact == 0 || counts["F64"].inexact == 0 {
		t.Errorf("F8_E5M2: %d exact round trips; F64: %d refusals; want some of each", counts["F8_E5M2"].exact, counts["F64"].inexact)
	}
}

// roundTripDtype checks one model in one dtype and says which way it went
// and why the first weight refused was.
func roundTripDtype(t *testing.T, name string, m *model.Model, maxN int, tensors []modelfile.TestTensor, dtype string) (how, why string) {
	grid := grids[dtype]
	var missing []string
	beyond := false
	for _, ts := range tensors {
		for k, e := range ts.Data {
			ok, reason := grid.holds(e)
			beyond = beyond || reason == "beyond the range"
			if !ok {
				if why == "" {
					why = reason
				}
				missing = append(missing, ts.Name+modelfile.Index(ts.Shape, k))
			}
		}
	}
	var b bytes.Buffer
	err := modelfile.WriteSafetensors(context.Background(), &b, m, maxN, dtype)
	var ue *modelfile.UnrepresentableError
	switch {
	case len(missing) == 0 && err != nil:
		t.Errorf("%s: every weight is a number of %s, but the write fails: %v", name, dtype, err)
		return "", why
	case len(missing) == 0:
		back, gotN, dts, err := modelfile.ReadSafetensorsDtypes(bytes.NewReader(b.Bytes()))
		if err != nil || gotN != maxN || len(dts) != 1 || dts[0] != dtype {
			t.Errorf("%s: read back: %v, max_n %d, dtypes %v", name, err, gotN, dts)
			return "", why
		}
		compareTensors(t, name, tensors, back, maxN, nil)
		return "exact", why
	case err == nil:
		t.Errorf("%s: %d weights are not numbers of %s (%s first), but the write succeeds", name, len(missing), dtype, missing[0])
		return "", why
	case b.Len() != 0:
		t.Errorf("%s: refused, and %d bytes written", name, b.Len())
		return "", why
	case errors.As(err, &ue):
		var named []string
		for _, w := range ue.Weights {
			named = append(named, w.Name())
		}
		if strings.Join(named, " ") != strings.Join(missing, " ") {
			t.Errorf("%s: the refusal names\n%v\nwant\n%v", name, named, missing)
		}
		if !strings.Contains(err.Error(), ue.Weights[0].Name()) {
			t.Errorf("%s: the message %q does not name %s", name, err, ue.Weights[0].Name())
		}
	default:
		if !beyond || !strings.Contains(err.Error(), "overflows "+dtype) {
			t.Errorf("%s: refused with %v", name, err)
		}
		return "overflow", why
	}
	// Rounded: each listed weight becomes its nearest number, which the
	// grid holds; every other weight is stored exactly.
	b.Reset()
	rounded, err := modelfile.WriteSafetensorsRounded(context.Background(), &b, m, maxN, dtype)
	if err != nil || len(rounded) != len(missing) {
		t.Errorf("%s: rounded write: %v, %d rounded, want %d", name, err, len(rounded), len(missing))
		return "", why
	}
	nearest := map[entry]*big.Rat{}
	for _, w := range rounded {
		x := new(big.Rat).SetFloat64(w.Nearest)
		if ok, _ := grid.holds(numeric.Lit(x)); !ok {
			t.Errorf("%s: %s rounded to %v, not a number of %s", name, w.Name(), w.Nearest, dtype)
		}
		nearest[entryOf(tensors, w)] = x
	}
	back, _, _, err := modelfile.ReadSafetensorsDtypes(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Errorf("%s: the rounded file does not read: %v", name, err)
		return "", why
	}
	compareTensors(t, name, tensors, back, maxN, nearest)
	return "inexact", why
}

// entry locates a weight: a tensor's name and the entry's row-major index.
type entry struct {
	tensor string
	k      int
}

// entryOf locates a rounded weight.
func entryOf(tensors []modelfile.TestTensor, w modelfile.RoundedWeight) entry {
	for _, ts := range tensors {
		if ts.Name == w.Tensor {
			k := 0
			for a, i := range w.Index {
				k = k*ts.Shape[a] + i
			}
			return entry{w.Tensor, k}
		}
	}
	return entry{}
}

// compareTensors checks that the model read back holds every weight of
// the original exactly, or its nearest number where rounded.
func compareTensors(t *testing.T, name string, want []modelfile.TestTensor, back *model.Model, maxN int, nearest map[entry]*big.Rat) {
	got, err := modelfile.Tensors(back, maxN)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	gotNames, wantNames := tensorNames(got), tensorNames(want)
	if gotNames != wantNames {
		t.Errorf("%s: tensors read back %s, want %s", name, gotNames, wantNames)
		return
	}
	bad := 0
	for i, ts := range want {
		for k, e := range ts.Data {
			x, rounded := nearest[entry{ts.Name, k}]
			if !rounded && e.IsZero() && got[i].Data[k].IsZero() {
				continue
			}
			w, ok, _ := e.Rat()
			if rounded {
				w, ok = x, true
			}
			g, gok, _ := got[i].Data[k].Rat()
			if !ok || !gok || w.Cmp(g) != 0 {
				if bad++; bad <= 3 {
					t.Errorf("%s: %s = %v reads back as %v", name, ts.Name+modelfile.Index(ts.Shape, k), e, got[i].Data[k])
				}
			}
		}
	}
}

func tensorNames(ts []modelfile.TestTensor) string {
	var names []string
	for _, t := range ts {
		names = append(names, fmt.Sprintf("%s%v", t.Name, t.Shape))
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// TestSafetensorsLargeArchitecture: a model whose architecture, stored as
// one string in the header's metadata, is longer than the 1 MiB a string
// of a model's JSON may take (the lookup built for N = 60,000: 120,000
// symbols) reads back whole: the header's strings are bounded by the
// header, the architecture's own by the JSON's limit.
func TestSafetensorsLargeArchitecture(t *testing.T) {
	const maxN = 60000
	r, err := recipes.Get("lookup")
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, maxN, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := modelfile.WriteSafetensors(context.Background(), &b, con.Model, maxN, "F64"); err != nil {
		t.Fatal(err)
	}
	back, gotN, err := modelfile.ReadSafetensors(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("reading back the lookup for N = %d: %v", maxN, err)
	}
	if gotN != maxN || len(back.Alphabet) != 2*maxN || back.Alphabet[2*maxN-1] != fmt.Sprintf("%d:1", maxN) {
		t.Fatalf("read back N = %d and %d symbols (last %q), want N = %d and %d", gotN, len(back.Alphabet), back.Alphabet[len(back.Alphabet)-1], maxN, 2*maxN)
	}
}
