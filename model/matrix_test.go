package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transformer-cookbook/verify/numeric"
)

// The analyses that skip dead components trust these marks, so a weight that
// merely evaluates to 0 (1−1) must count as read: only a literal 0 is dead.
func TestReadColumnsAndWrittenRows(t *testing.T) {
	one := numeric.LitInt(1)
	m := Zeros(3, 4)
	m.Set(0, 1, numeric.LitInt(2))
	m.Set(2, 3, numeric.Sub(one, one)) // zero in value, not a literal 0
	m.Set(1, 0, numeric.LitInt(0))     // a literal 0: dead

	if d := cmp.Diff([]bool{false, true, false, true}, m.ReadColumns()); d != "" {
		t.Errorf("ReadColumns (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]bool{true, false, true}, m.WrittenRows()); d != "" {
		t.Errorf("WrittenRows (-want +got):\n%s", d)
	}
}

func TestLayerNormReads(t *testing.T) {
	if d := cmp.Diff([]bool{true, true, true}, (&LayerNorm{}).Reads(3)); d != "" {
		t.Errorf("a norm of the whole stream (-want +got):\n%s", d)
	}
	sel := Ints([]int64{0, 1, 0, 0}, []int64{0, 0, 0, -1})
	if d := cmp.Diff([]bool{false, true, false, true}, (&LayerNorm{Select: &sel}).Reads(4)); d != "" {
		t.Errorf("a norm of selected components (-want +got):\n%s", d)
	}
}
