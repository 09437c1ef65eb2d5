package cpwl

import (
	"errors"
	"testing"

	"github.com/transformer-cookbook/verify/exact"
)

func TestEquivalent(t *testing.T) {
	minFFN := ffn(t, 2, "1 0; -1 0; 1 -1", "", "1 -1 -1", "")
	ifFFN := ffn(t, 3, "1 1 0; -1 0 1", "-1 0", "1 1", "")
	// x read off (p, x, y) by the identity FFN: ReLU(x) − ReLU(−x).
	pickX := ffn(t, 3, "0 1 0; 0 -1 0", "", "1 -1", "")
	tests := []struct {
		name    string
		f, g    *FFN
		domain  *exact.Polyhedron
		want    Verdict
		regions int // Equal: regions of the common refinement, by hand
	}{
		{
			// min(x, y) = x − ReLU(x − y) = y − ReLU(y − x): the lines
			// x = 0, y = 0 and x = y through the origin make 6 regions.
			name: "min two ways", f: minFFN, g: ffn(t, 2, "0 1; 0 -1; -1 1", "", "1 -1 -1", ""),
			domain: poly(t, 2), want: Equal, regions: 6,
		},
		{
			// ReLU(2x)/2 − ReLU(−2x)/2 = x = ReLU(x) − ReLU(−x): 2 regions.
			name: "identity rescaled", f: ffn(t, 1, "1; -1", "", "1 -1", ""), g: ffn(t, 1, "2; -2", "", "1/2 -1/2", ""),
			domain: poly(t, 1), want: Equal, regions: 2,
		},
		{
			// ReLU(x − 1) split into ReLU(x − 1)/2 + ReLU(2x − 2)/4.
			name: "split unit", f: ffn(t, 1, "1", "-1", "1", ""), g: ffn(t, 1, "1; 2", "-1 -2", "1/2 1/4", ""),
			domain: poly(t, 1), want: Equal, regions: 2,
		},
		{
			name: "if on p = 1", f: ifFFN, g: pickX,
			domain: poly(t, 3, "1 0 0 = 1", "0 1 0 >= 0", "0 1 0 <= 1", "0 0 1 >= 0", "0 0 1 <= 1"),
			want:   Equal, regions: 1,
		},
		{
			name: "if on p = 1, x from −1", f: ifFFN, g: pickX,
			domain: poly(t, 3, "1 0 0 = 1", "0 1 0 >= -1", "0 1 0 <= 1", "0 0 1 >= 0", "0 0 1 <= 1"),
			want:   Differ,
		},
		{
			name: "min vs max", f: minFFN, g: ffn(t, 2, "1 0; -1 0; -1 1", "", "1 -1 1", ""),
			domain: poly(t, 2), want: Differ,
		},
		{
			// min and max agree on the diagonal x = y, a 1-dimensional
			// domain.
			name: "min vs max on the diagonal", f: minFFN, g: ffn(t, 2, "1 0; -1 0; -1 1", "", "1 -1 1", ""),
			domain: poly(t, 2, "1 -1 = 0"), want: Equal, regions: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Equivalent(tc.f, tc.g, tc.domain, &Options{Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != tc.want {
				t.Fatalf("verdict %v, want %v", res.Verdict, tc.want)
			}
			if tc.want == Equal {
				if res.Regions != tc.regions || res.Cells != tc.regions {
					t.Errorf("%d regions, %d cells; want %d", res.Regions, res.Cells, tc.regions)
				}
				for _, c := range res.Explained {
					fx, _ := tc.f.Eval(c.Point)
					gx, _ := tc.g.Eval(c.Point)
					if !fx.Equal(gx) {
						t.Errorf("explained cell at %v: f = %v, g = %v", c.Point, fx, gx)
					}
				}
				if _, err := CheckEquivalent(tc.f, tc.g, tc.domain, res.Certificate); err != nil {
					t.Errorf("certificate rejected: %v", err)
				}
				return
			}
			ce := res.Counterexample
			if in, _ := tc.domain.Contains(ce.X); !in {
				t.Errorf("counterexample %v outside the domain", ce.X)
			}
			fx, _ := tc.f.Eval(ce.X)
			gx, _ := tc.g.Eval(ce.X)
			if fx.Equal(gx) || !fx.Equal(ce.F) || !gx.Equal(ce.G) {
				t.Errorf("counterexample %v: f = %v, g = %v (reported %v, %v)", ce.X, fx, gx, ce.F, ce.G)
			}
		})
	}
}

// TestEquivalentMinMaxByHand checks the min/max counterexample with the
// two functions written by hand: they differ exactly off the diagonal.
func TestEquivalentMinMaxByHand(t *testing.T) {
	res, err := Equivalent(ffn(t, 2, "1 0; -1 0; 1 -1", "", "1 -1 -1", ""), ffn(t, 2, "1 0; -1 0; -1 1", "", "1 -1 1", ""), poly(t, 2), nil)
	if err != nil || res.Verdict != Differ {
		t.Fatalf("verdict %v, err %v", res.Verdict, err)
	}
	x, y := res.Counterexample.X[0], res.Counterexample.X[1]
	lo, hi := x, y
	if y.Cmp(x) < 0 {
		lo, hi = y, x
	}
	if x.Cmp(y) == 0 || res.Counterexample.F[0].Cmp(lo) != 0 || res.Counterexample.G[0].Cmp(hi) != 0 {
		t.Errorf("at (%v, %v): f = %v, g = %v; want min %v, max %v", x, y, res.Counterexample.F[0], res.Counterexample.G[0], lo, hi)
	}
}

func TestRegions(t *testing.T) {
	minFFN := ffn(t, 2, "1 0; -1 0; 1 -1", "", "1 -1 -1", "")
	// By hand: 101 (x > 0, x > y): y; 100 (x > 0, x < y): x; 010 (x < 0,
	// x < y): x; 011 (x < 0, x > y): y.
	want := map[string]string{"101": "0 1", "100": "1 0", "010": "1 0", "011": "0 1"}
	regions, err := Regions(minFFN, poly(t, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(regions) != len(want) {
		t.Fatalf("%d regions, want %d", len(regions), len(want))
	}
	for _, reg := range regions {
		w, ok := want[reg.Pattern.String()]
		if !ok {
			t.Errorf("unexpected region %v", reg.Pattern)
			continue
		}
		delete(want, reg.Pattern.String())
		if !reg.Map.A.Equal(mat(t, 2, w)) || !reg.Map.C.IsZero() {
			t.Errorf("region %v: map %v+%v, want [%s]", reg.Pattern, reg.Map.A, reg.Map.C, w)
		}
		fx, _ := minFFN.Eval(reg.Point)
		mx, _ := reg.Map.Apply(reg.Point)
		if s, _ := minFFN.PatternAt(reg.Point); s.String() != reg.Pattern.String() || !fx.Equal(mx) {
			t.Errorf("region %v: point %v has pattern %v, f = %v, map = %v", reg.Pattern, reg.Point, s, fx, mx)
		}
	}

	// The CPWL FFN on [2, 3]: only x > 1 is there, pattern 0111.
	cp := ffn(t, 1, "-1; 1; 1; 1", "0 0 0 -1", "1 -1 2 1", "-1")
	regions, err = Regions(cp, poly(t, 1, "1 >= 2", "1 <= 3"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(regions) != 1 || regions[0].Pattern.String() != "0111" {
		t.Errorf("regions on [2, 3]: %v, want the one of pattern 0111", regions)
	}
	// No hidden units: one region, f constant.
	regions, err = Regions(&FFN{W1: exact.NewMatrix(0, 2), W2: exact.NewMatrix(1, 0), B2: exact.IntVector(7)}, poly(t, 2), nil)
	if err != nil || len(regions) != 1 || !regions[0].Map.C.Equal(exact.IntVector(7)) {
		t.Errorf("no hidden units: %v, %v", regions, err)
	}
}

func TestErrors(t *testing.T) {
	minFFN := ffn(t, 2, "1 0; -1 0; 1 -1", "", "1 -1 -1", "")
	good := []Piece{piece(t, 2, "1 0 | 0")}
	strict := poly(t, 2, "1 0 <= 1")
	strict.Strict = []bool{true}
	tests := []struct {
		name string
		run  func() error
		is   error
	}{
		{"domain dimension", func() error { _, err := Verify(minFFN, poly(t, 3), good, nil); return err }, nil},
		{"piece dimension", func() error { _, err := Verify(minFFN, poly(t, 2), []Piece{piece(t, 1, "1 | 0")}, nil); return err }, nil},
		{"piece outputs", func() error {
			_, err := Verify(minFFN, poly(t, 2), []Piece{piece(t, 2, "1 0 | 0; 0 1 | 0")}, nil)
			return err
		}, nil},
		{"strict piece", func() error {
			_, err := Verify(minFFN, poly(t, 2), []Piece{{Domain: strict, Map: good[0].Map}}, nil)
			return err
		}, nil},
		{"strict domain", func() error { _, err := Verify(minFFN, strict, good, nil); return err }, nil},
		{"empty domain", func() error { _, err := Verify(minFFN, poly(t, 2, "1 0 <= 0", "1 0 >= 1"), good, nil); return err }, ErrEmptyDomain},
		{"empty domain (equivalent)", func() error {
			_, err := Equivalent(minFFN, minFFN, poly(t, 2, "1 0 = 0", "1 0 = 1"), nil)
			return err
		}, ErrEmptyDomain},
		{"too many regions", func() error {
			id := ffn(t, 3, "1 0 0; 0 1 0; 0 0 1; -1 0 0; 0 -1 0; 0 0 -1", "", "1 0 0 -1 0 0; 0 1 0 0 -1 0; 0 0 1 0 0 -1", "")
			_, err := Regions(id, poly(t, 3), &Options{MaxRegions: 5})
			return err
		}, ErrTooManyRegions},
		{"equivalent dimensions", func() error {
			_, err := Equivalent(minFFN, ffn(t, 1, "1", "", "1", ""), poly(t, 2), nil)
			return err
		}, nil},
		{"W2 width", func() error { return (&FFN{W1: mat(t, 2, "1 0"), W2: mat(t, 2, "1 1")}).Validate() }, nil},
		{"b1 length", func() error { return (&FFN{W1: mat(t, 2, "1 0"), B1: vec(t, "1 2"), W2: mat(t, 1, "1")}).Validate() }, nil},
		{"eval dimension", func() error { _, err := minFFN.Eval(vec(t, "1")); return err }, nil},
		{"pattern length", func() error { _, err := minFFN.RegionMap(Pattern{true}); return err }, nil},
	}
	for _, tc := range tests {
		err := tc.run()
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.is)
		}
	}
}

// TestLowerDimensionalDomainByInequalities: the diagonal x = y written as
// two inequalities is found to be 1-dimensional (implicit equalities)
// and handled like the equality version.
func TestLowerDimensionalDomainByInequalities(t *testing.T) {
	minFFN := ffn(t, 2, "1 0; -1 0; 1 -1", "", "1 -1 -1", "")
	res, err := Verify(minFFN, poly(t, 2, "1 -1 <= 0", "1 -1 >= 0"), []Piece{piece(t, 2, "1/2 1/2 | 0")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// On x = y, min = x = (x + y)/2; the regions are x < 0 and x > 0.
	if res.Verdict != Equal || res.Dim != 1 || res.Regions != 2 {
		t.Errorf("verdict %v, dim %d, %d regions; want equal, 1, 2", res.Verdict, res.Dim, res.Regions)
	}
	if _, err := CheckVerify(minFFN, poly(t, 2, "1 -1 <= 0", "1 -1 >= 0"), []Piece{piece(t, 2, "1/2 1/2 | 0")}, res.Certificate); err != nil {
		t.Errorf("certificate rejected: %v", err)
	}
}

// TestZeroDimensional: an FFN on ℝ⁰ is the constant W2 ReLU(b1) + b2,
// here ReLU(1) + ReLU(−1) = 1; the domain ℝ⁰ is one point.
func TestZeroDimensional(t *testing.T) {
	f := &FFN{W1: exact.NewMatrix(2, 0), B1: vec(t, "1 -1"), W2: mat(t, 2, "1 1")}
	one := Piece{Domain: &exact.Polyhedron{}, Map: exact.Affine{A: exact.NewMatrix(1, 0), C: vec(t, "1")}}
	res, err := Verify(f, &exact.Polyhedron{}, []Piece{one}, nil)
	if err != nil || res.Verdict != Equal || res.Dim != 0 || res.Regions != 1 || res.Cells != 1 {
		t.Fatalf("Verify on ℝ⁰: %+v, %v", res, err)
	}
	if _, err := CheckVerify(f, &exact.Polyhedron{}, []Piece{one}, res.Certificate); err != nil {
		t.Errorf("certificate on ℝ⁰ rejected: %v", err)
	}
	two := Piece{Domain: &exact.Polyhedron{}, Map: exact.Affine{A: exact.NewMatrix(1, 0), C: vec(t, "2")}}
	res, err = Verify(f, &exact.Polyhedron{}, []Piece{two}, nil)
	if err != nil || res.Verdict != Differ || !res.Counterexample.F.Equal(vec(t, "1")) || !res.Counterexample.G.Equal(vec(t, "2")) {
		t.Errorf("Verify against 2 on ℝ⁰: %+v, %v", res, err)
	}
	if s := (Pattern{true, false, true}).String(); s != "101" {
		t.Errorf("pattern prints as %q, want 101", s)
	}
}
