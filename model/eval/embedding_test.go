package eval

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// positionModel has no layers, so its readout (the identity) shows the
// embedding h⁽⁰⁾_i = we(x_i) + pe_n(i) itself. The position encoding uses
// the cookbook's functions of i and n: i/n, 1/i, (−1)^i and i².
func positionModel() *model.Model {
	return &model.Model{
		Name:          "positions",
		Alphabet:      []string{"a", "b"},
		WordEmbedding: []model.Vector{model.IntVector(1, 1, 1, 1), model.IntVector(-1, 0, 2, 0)},
		Position: &model.PositionEncoding{
			Name: "(i/n, 1/i, (-1)^i, i^2)",
			Vector: func(i, n int) model.Vector {
				sign := int64(1)
				if i%2 == 1 {
					sign = -1
				}
				return model.Vector{numeric.Frac(int64(i), int64(n)), numeric.Frac(1, int64(i)), numeric.LitInt(sign), numeric.LitInt(int64(i * i))}
			},
		},
		D:          4,
		Components: []string{"i/n", "1/i", "(-1)^i", "i^2"},
		Output:     model.Output{Kind: model.Readout, W: model.Identity(4)},
	}
}

func TestEmbeddingWithPosition(t *testing.T) {
	// we(a) = (1, 1, 1, 1), we(b) = (−1, 0, 2, 0); each row below is
	// we(x_i) + (i/n, 1/i, (−1)^i, i²) worked out by hand.
	tests := []struct {
		input string
		want  [][]string
	}{
		{"a", [][]string{split("2 2 0 2")}},
		{"ab", [][]string{split("3/2 2 0 2"), split("0 1/2 3 4")}},
		{"abb", [][]string{split("4/3 2 0 2"), split("-1/3 1/2 3 4"), split("0 1/3 1 9")}},
		{"bbbb", [][]string{split("-3/4 1 1 1"), split("-1/2 1/2 3 4"), split("-1/4 1/3 1 9"), split("0 1/4 3 16")}},
	}
	m := positionModel()
	r, err := New(numeric.MustParsePrecision("exact"), m)
	if err != nil {
		t.Fatal(err)
	}
	// One instance for every length, in an order that revisits n = 2
	// after n = 3, so that a position cache keyed wrongly would show.
	for _, k := range []int{1, 2, 0, 3, 1} {
		tc := tests[k]
		res, err := r.Run(tokens(t, m, tc.input), true)
		if err != nil {
			t.Fatalf("%q: %v", tc.input, err)
		}
		if diff := cmp.Diff(tc.want, outputs(t, res)); diff != "" {
			t.Errorf("%q: outputs (-want +got):\n%s", tc.input, diff)
		}
		if diff := cmp.Diff(tc.want, state(t, res, "embedding")); diff != "" {
			t.Errorf("%q: embedding state (-want +got):\n%s", tc.input, diff)
		}
		if diff := cmp.Diff(m.Components, res.Trace.Components); diff != "" {
			t.Errorf("trace components (-want +got):\n%s", diff)
		}
	}
}

// TestPositionCacheManyLengths runs more lengths than the position cache
// holds, twice, and checks the first and last position of "a"^n against
// the formula each time: evicting or mixing up cached lengths would give
// some n the encoding of another.
func TestPositionCacheManyLengths(t *testing.T) {
	m := positionModel()
	r, err := New(numeric.MustParsePrecision("exact"), m)
	if err != nil {
		t.Fatal(err)
	}
	expect := func(i, n int) []string {
		sign := int64(1)
		if i%2 == 1 {
			sign = -1
		}
		return []string{
			new(big.Rat).Add(big.NewRat(1, 1), big.NewRat(int64(i), int64(n))).RatString(),
			new(big.Rat).Add(big.NewRat(1, 1), big.NewRat(1, int64(i))).RatString(),
			big.NewRat(1+sign, 1).RatString(),
			big.NewRat(1+int64(i*i), 1).RatString(),
		}
	}
	for pass := 0; pass < 2; pass++ {
		for n := 1; n <= 40; n += 1 + pass {
			res, err := r.Run(make([]int, n), false)
			if err != nil {
				t.Fatalf("n = %d: %v", n, err)
			}
			got := outputs(t, res)
			for _, i := range []int{1, n} {
				if diff := cmp.Diff(expect(i, n), got[i-1]); diff != "" {
					t.Errorf("pass %d, n = %d, position %d (-want +got):\n%s", pass, n, i, diff)
				}
			}
		}
	}
}

func TestPositionEncodingErrors(t *testing.T) {
	tests := []struct {
		name string
		pe   func(i, n int) model.Vector
		is   error
		subs []string
	}{
		{"wrong length", func(i, n int) model.Vector { return model.IntVector(1, 2, 3) }, nil,
			[]string{"position encoding", "i = 1, n = 2", "3 entries", "D = 4"}},
		{"irrational in exact mode", func(i, n int) model.Vector {
			return model.Vector{numeric.Sqrt(numeric.LitInt(int64(i))), {}, {}, {}}
		}, numeric.ErrIrrational, []string{"position encoding", "i = 2, n = 2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := positionModel()
			m.Position = &model.PositionEncoding{Name: tc.name, Vector: tc.pe}
			_, err := runPrec(t, "exact", m, "ab")
			wantErr(t, err, tc.subs...)
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
		})
	}
}

func TestTraceWrite(t *testing.T) {
	m := positionModel()
	res := mustRun(t, "exact", m, "ab")
	var b strings.Builder
	if err := res.Trace.Write(&b, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// The table has the state label, a header with the input symbols, and
	// a row per component holding each position's value.
	lines := strings.Split(out, "\n")
	want := [][]string{{"embedding"}, {"a", "b"}, split("i/n 3/2 0"), split("1/i 2 1/2"), split("(-1)^i 0 3"), split("i^2 2 4"), nil, nil}
	var got [][]string
	for _, l := range lines {
		got = append(got, strings.Fields(l))
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("trace table (-want +got):\n%s\n%s", diff, out)
	}
}
