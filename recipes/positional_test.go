package recipes_test

import (
	"bufio"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestPositionEncodingLimits: where the encodings leave a format's grid,
// derived from the formats: fp16 holds every integer up to 2048 = 2^11
// and then only even ones, so i² is exact up to i = 46 (46² = 2116 is
// even, 47² = 2209 is odd and rounds to 2208) and i up to 2048; 1/3 is
// not a binary fraction, so 1/i fails at i = 3 in every binary format;
// (−1)^i and i/n with n a power of two stay exact.
func TestPositionEncodingLimits(t *testing.T) {
	tests := []struct {
		recipe, precision string
		lengths           []int
		maxN              int
		limit, fail       int
	}{
		{"pe-square", "fp16", []int{45, 46, 47}, 64, 46, 47},
		{"pe-square", "fp32", []int{4096, 4097}, 4097, 4096, 4097}, // 4097² = 16785409 > 2^24, odd
		{"pe-linear", "fp16", []int{2048, 2049}, 2049, 2048, 2049},
		{"pe-inverse", "fp64", []int{1, 2, 3}, 3, 2, 3},
		{"pe-parity", "fp8-e4m3", []int{1, 2, 100}, 100, 100, 0},
		{"pe-ratio", "bf16", []int{64}, 64, 64, 0},
	}
	for _, tc := range tests {
		r, err := recipes.Get(tc.recipe)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := check.Run(r, check.Options{Precision: numeric.MustParsePrecision(tc.precision), MaxN: tc.maxN, Lengths: tc.lengths, Cases: 1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		fail := 0
		if rep.FirstFailure != nil {
			fail = rep.FirstFailure.N
		}
		if rep.Limit != tc.limit || fail != tc.fail {
			t.Errorf("%s at %s: limit %d, first failure %d; want %d and %d", tc.recipe, tc.precision, rep.Limit, fail, tc.limit, tc.fail)
		}
	}
	// Sinusoidal: irrational, so exact arithmetic cannot represent the
	// encoding at all, certified intervals confirm it, and fp64 holds
	// its correct rounding: the model's weights are sin(i·ω) and
	// cos(i·ω) rounded once each, copied to the outputs, which is what a
	// rounding format must give for a real reference (check.CompareAt).
	sin, _ := recipes.Get("pe-sinusoidal")
	if rep, err := check.Run(sin, check.Options{Precision: numeric.MustParsePrecision("exact"), MaxN: 4, Cases: 1}); err == nil &&
		(rep.Passed || !strings.Contains(rep.FirstFailure.Reason, "not a rational number")) {
		t.Errorf("exact arithmetic ran the sinusoidal encoding: %+v", rep.FirstFailure)
	}
	rep, err := check.Run(sin, check.Options{Precision: numeric.MustParsePrecision("interval:96"), MaxN: 40, Lengths: []int{1, 5, 40}, Cases: 1, Params: map[string]string{"d": "6"}})
	if err != nil || !rep.Passed {
		t.Errorf("sinusoidal in intervals: %v %+v", err, rep)
	}
	rep, err = check.Run(sin, check.Options{Precision: numeric.MustParsePrecision("fp64"), MaxN: 2, Cases: 1})
	if err != nil || !rep.Passed {
		t.Errorf("sinusoidal at fp64 is not its correct rounding: %v %+v", err, rep.FirstFailure)
	}
}

// TestPEAlmostOrthogonal: the encodings the model's position embedding
// holds (read back as certified enclosures) form an almost orthogonal
// family: |x_i·x_j| ≤ ε for i ≠ j and x_i·x_i = 1, as §Almost Orthogonal
// Embeddings requires, checked from the outputs, not from the sampler.
func TestPEAlmostOrthogonal(t *testing.T) {
	r, err := recipes.Get("pe-ao")
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	con := construct(t, r, model.Softmax, n, map[string]string{"eps": "1/3"})
	out := runCase(t, con, "interval:128", recipes.Case{Symbols: make([]int, n)})
	eps := rat("1/3")
	for i := range out {
		for j := range out {
			lo, hi := new(big.Rat), new(big.Rat)
			for k := range out[i].Values {
				a, b := out[i].Values[k], out[j].Values[k]
				// The product of two enclosures lies between the
				// extremes of the endpoint products.
				ps := []*big.Rat{new(big.Rat).Mul(a.Lo, b.Lo), new(big.Rat).Mul(a.Lo, b.Hi), new(big.Rat).Mul(a.Hi, b.Lo), new(big.Rat).Mul(a.Hi, b.Hi)}
				pl, ph := ps[0], ps[0]
				for _, p := range ps[1:] {
					if p.Cmp(pl) < 0 {
						pl = p
					}
					if p.Cmp(ph) > 0 {
						ph = p
					}
				}
				lo.Add(lo, pl)
				hi.Add(hi, ph)
			}
			if i == j && (lo.Cmp(rat("1")) > 0 || hi.Cmp(rat("1")) < 0) {
				t.Errorf("x_%d·x_%d ∈ [%s, %s] excludes 1", i+1, i+1, lo.FloatString(6), hi.FloatString(6))
			}
			if i != j && (hi.Cmp(eps) > 0 || lo.Cmp(new(big.Rat).Neg(eps)) < 0) {
				t.Errorf("x_%d·x_%d ∈ [%s, %s] exceeds ε = 1/3", i+1, j+1, lo.FloatString(6), hi.FloatString(6))
			}
		}
	}
}

// TestSinusoidalGolden: the certified enclosures of pe-sinusoidal contain
// mpmath's values of the paper's formula (testdata/sinusoidal.txt, by
// gen_sinusoidal.py): cos on the even components, sin on the odd ones,
// the argument i/M^{2c/d} with the 1-based position i.
func TestSinusoidalGolden(t *testing.T) {
	f, err := os.Open("testdata/sinusoidal.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := recipes.Get("pe-sinusoidal")
	if err != nil {
		t.Fatal(err)
	}
	outs := map[string][]eval.PositionOutput{}
	slack := rat("1/1000000000000000000000000000000000") // 1e-33, ≫ mpmath's 40 digits
	lines := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var d, mBase, i, comp int
		var value string
		if _, err := fmt.Sscan(sc.Text(), &d, &mBase, &i, &comp, &value); err != nil {
			t.Fatalf("bad line %q: %v", sc.Text(), err)
		}
		key := fmt.Sprint(d, mBase)
		if outs[key] == nil {
			con := construct(t, r, model.Softmax, 100, map[string]string{"d": fmt.Sprint(d), "M": fmt.Sprint(mBase)})
			outs[key] = runCase(t, con, "interval:128", recipes.Case{Symbols: make([]int, 100)})
		}
		v := outs[key][i-1].Values[comp]
		want := rat(value)
		if want.Cmp(new(big.Rat).Sub(v.Lo, slack)) < 0 || want.Cmp(new(big.Rat).Add(v.Hi, slack)) > 0 {
			t.Errorf("d = %d, M = %d, i = %d, component %d: enclosure %s does not contain mpmath's %s", d, mBase, i, comp, v.Text, value)
		}
		lines++
	}
	if lines < 50 {
		t.Fatalf("read %d golden lines", lines)
	}
}
