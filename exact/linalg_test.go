package exact

import (
	"math/big"
	"testing"
)

func TestMatrixProducts(t *testing.T) {
	a := mat(t, 2, "1 2", "3 4", "-1/2 0")
	b := mat(t, 3, "0 1 -1", "2 0 1/3")
	// By hand: row 1 of a·b = (1·0 + 2·2, 1·1 + 0, −1 + 2/3) = (4, 1, −1/3).
	want := mat(t, 3, "4 1 -1/3", "8 3 -5/3", "0 -1/2 1/2")
	got, err := a.Mul(b)
	if err != nil || !got.Equal(want) {
		t.Errorf("a·b = \n%v(%v), want\n%v", got, err, want)
	}
	if _, err := b.Mul(b); err == nil {
		t.Error("2×3 times 2×3 accepted")
	}
	y, err := a.MulVec(vec(t, "1 -1"))
	if err != nil || !y.Equal(vec(t, "-1 -1 -1/2")) {
		t.Errorf("a·(1, −1) = %v (%v)", y, err)
	}
	if _, err := a.MulVec(vec(t, "1")); err == nil {
		t.Error("matrix times a short vector accepted")
	}
	if _, err := MatrixFromRows(2, vec(t, "1 2"), vec(t, "1")); err == nil {
		t.Error("ragged rows accepted")
	}
	if _, err := IntMatrix([]int64{1, 2}, []int64{3}); err == nil {
		t.Error("ragged integer rows accepted")
	}
	if m, err := MatrixFromRows(3); err != nil || m.Rows != 0 || m.Cols != 3 {
		t.Errorf("no rows: %v×%v, %v", m.Rows, m.Cols, err)
	}
	if err := (Matrix{Rows: 1, Cols: 1, Data: []*big.Rat{nil}}).Validate(); err == nil {
		t.Error("nil entry accepted")
	}
}

func TestAffine(t *testing.T) {
	// f(x) = (x₁ + x₂ + 1), g(z) = (2z, −z) + (0, 3): f∘g(z) = z + 4.
	f := Affine{A: mat(t, 2, "1 1"), C: vec(t, "1")}
	g := Affine{A: mat(t, 1, "2", "-1"), C: vec(t, "0 3")}
	h, err := f.Compose(g)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Affine{A: mat(t, 1, "1"), C: vec(t, "4")}); !h.Equal(want) {
		t.Errorf("f∘g = %v + %v, want z + 4", h.A, h.C)
	}
	if y, err := h.Apply(vec(t, "-7/2")); err != nil || !y.Equal(vec(t, "1/2")) {
		t.Errorf("f∘g(−7/2) = %v (%v), want 1/2", y, err)
	}
	if _, err := g.Compose(g); err == nil {
		t.Error("composition of ℝ¹ → ℝ² with itself accepted")
	}
	if err := (Affine{A: mat(t, 1, "1"), C: vec(t, "1 2")}).Validate(); err == nil {
		t.Error("offset of the wrong length accepted")
	}
}
