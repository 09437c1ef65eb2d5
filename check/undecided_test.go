package check

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// enclosure is an output value [lo, hi].
func enclosure(lo, hi *big.Rat) eval.Value {
	return eval.Value{Lo: lo, Hi: hi, Text: "[" + lo.RatString() + ", " + hi.RatString() + "]"}
}

// TestCompareUndecided checks the three outcomes of an interval output
// against a rational reference: a point equal to it passes, an enclosure
// containing it without being a point is undecided (not passed, not
// refuted), one excluding it is refuted; and that of two outputs, a
// refuted one makes the position refuted whichever comes first.
func TestCompareUndecided(t *testing.T) {
	r := func(a, b int64) *big.Rat { return big.NewRat(a, b) }
	point := enclosure(r(1, 1), r(1, 1))
	around := enclosure(r(999, 1000), r(1001, 1000))
	below := enclosure(r(1, 2), r(3, 4))
	for _, tc := range []struct {
		name          string
		values        []eval.Value
		ok, undecided bool
	}{
		{"point", []eval.Value{point, point}, true, false},
		{"contains", []eval.Value{point, around}, false, true},
		{"excludes", []eval.Value{point, below}, false, false},
		{"contains then excludes", []eval.Value{around, below}, false, false},
		{"excludes then contains", []eval.Value{below, around}, false, false},
	} {
		w := recipes.Want{Values: []*big.Rat{r(1, 1), r(1, 1)}}
		ok, undecided, why := compare(numeric.MustParsePrecision("interval:64"), w, eval.PositionOutput{Values: tc.values}, nil, []string{"y", "c"})
		if ok != tc.ok || undecided != tc.undecided {
			t.Errorf("%s: compare = %v, undecided %v (%q), want %v, %v", tc.name, ok, undecided, why, tc.ok, tc.undecided)
		}
		if !ok && why == "" {
			t.Errorf("%s: a failure without a reason", tc.name)
		}
	}
}

// TestFailureRefutedFirst checks that a refuted input is reported before
// an undecided one, at any index, in a case's positions (then), a
// length's tally and the merge of shards: a report that names an
// undecided input says that none was refuted.
func TestFailureRefutedFirst(t *testing.T) {
	undecided := &Failure{Case: 0, Position: 1, Undecided: true, Reason: "undecided"}
	refuted := &Failure{Case: 5, Position: 2, Reason: "refuted"}
	if got := (verdict{failure: undecided}).then(verdict{failure: refuted}, nil).failure; got != refuted {
		t.Errorf("then: reports %+v, want the refuted position", got)
	}
	if got := (verdict{failure: refuted}).then(verdict{failure: undecided}, nil).failure; got != refuted {
		t.Errorf("then: reports %+v, want the refuted position", got)
	}
	first := &Failure{Reason: "first"}
	if got := (verdict{failure: first}).then(verdict{failure: &Failure{Reason: "second"}}, nil).failure; got != first {
		t.Errorf("then: reports %+v, want the first refuted position", got)
	}

	var tally lengthTally
	tally.add(verdict{failure: undecided}, 0, func() *Failure { f := *undecided; return &f })
	tally.add(verdict{failure: refuted}, 5, func() *Failure { f := *refuted; return &f })
	tally.add(verdict{failure: refuted}, 7, func() *Failure { f := *refuted; return &f })
	if f := tally.failure; f == nil || f.Undecided || f.Case != 5 {
		t.Errorf("tally: reports %+v, want the refuted case 5", f)
	}

	merged := MergeLength([]LengthReport{{Cases: 1, Failure: undecided}, {Cases: 1, Failure: refuted}})
	if f := merged.Failure; f == nil || f.Undecided {
		t.Errorf("MergeLength: reports %+v, want the refuted case", f)
	}
}
