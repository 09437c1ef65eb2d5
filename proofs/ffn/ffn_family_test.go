package ffn

import (
	"math/big"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// TestEveryEpsNeedsThePrintedScaling: the proof at ε = 1 extends to every
// ε only for a family whose weights scale as printed. GTZero_ε with its
// threshold b1 = [0; −1] left unscaled is GTZero_1(x)/ε, which is not the
// claimed family, and must not be proved; nor may a refutation at ε = 1
// be turned into a proof.
func TestEveryEpsNeedsThePrintedScaling(t *testing.T) {
	unscaled := func(eps *big.Rat) *stream.FF {
		f := gtzeroEps(eps)
		f.B1 = model.RatVector(big.NewRat(0, 1), big.NewRat(-1, 1))
		return f
	}
	atOne := proofs.ProveAt([]string{"1"}, gtzeroEps, gtzeroPieces)
	for _, tc := range []struct {
		name    string
		build   func(*big.Rat) *stream.FF
		atOne   func() (*proofs.Evidence, error)
		want    proofs.Verdict
		wantErr string
	}{
		{"as printed", gtzeroEps, atOne, proofs.Proved, ""},
		{"b1 unscaled", unscaled, atOne, "", "b1 has -1 where the printed scaling gives -1/4"},
		{"refuted at ε = 1", gtzeroEps, func() (*proofs.Evidence, error) { return &proofs.Evidence{Verdict: proofs.Refuted, Summary: "x"}, nil }, proofs.Refuted, ""},
	} {
		ev, err := proofs.EveryEps(tc.build, 0, []string{"1/4", "3"}, tc.atOne)()
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case ev.Verdict != tc.want:
			t.Errorf("%s: %s, want %s", tc.name, ev.Verdict, tc.want)
		case tc.want == proofs.Proved && !strings.HasPrefix(ev.Summary, "for every ε > 0"):
			t.Errorf("%s: summary %q does not claim every ε", tc.name, ev.Summary)
		}
	}
}

// TestEveryWidthNeedsACoordinatewiseBlock: the proof at d = 1 extends to
// every d only for a block whose outputs each read their own coordinate
// through f_1's units; an identity with a cross term (y_1 also reading
// x_2) or with output 2 computed otherwise must be refused.
func TestEveryWidthNeedsACoordinatewiseBlock(t *testing.T) {
	atOne := all(identityCases(1)...)
	cross := func(d int) *stream.FF {
		f := identityBlock(d)
		if d > 1 {
			f.W1 = f.W1.Scale(numeric.LitInt(1)) // a copy: the block's own matrix stays
			f.W1.Set(0, 1, numeric.LitInt(1))    // unit 1 reads x_1 + x_2
		}
		return f
	}
	doubled := func(d int) *stream.FF {
		f := identityBlock(d)
		if d > 1 {
			f.W2 = f.W2.Scale(numeric.LitInt(2)) // y = 2x: not f_1 per coordinate
		}
		return f
	}
	for _, tc := range []struct {
		name    string
		build   func(int) *stream.FF
		wantErr string
	}{
		{"identity", identityBlock, ""},
		{"cross term", cross, "not coordinatewise"},
		{"doubled", doubled, "is computed by units"},
	} {
		ev, err := everyWidth(tc.build, []int{2, 3}, atOne)()
		switch {
		case tc.wantErr == "" && (err != nil || ev.Verdict != proofs.Proved):
			t.Errorf("%s: %v %v, want PROVED", tc.name, ev, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.wantErr)
		}
	}
}

// TestEveryConstantNeedsTheScaling: c·x for every c rests on the blocks
// being c times the identity; a "scaled" block that ignores c is refused.
func TestEveryConstantNeedsTheScaling(t *testing.T) {
	ignores := func(*big.Rat) *stream.FF { return identityBlock(1) }
	if _, err := everyConstant(ignores, preScaleBlock, []string{"7"}, identityBlock(1))(); err == nil || !strings.Contains(err.Error(), "post W2") {
		t.Errorf("a post-scaling that ignores c: error %v, want post W2 named", err)
	}
	if _, err := everyConstant(scaleBlock, ignores, []string{"7"}, identityBlock(1))(); err == nil || !strings.Contains(err.Error(), "pre W1") {
		t.Errorf("a pre-scaling that ignores c: error %v, want pre W1 named", err)
	}
	ev, err := everyConstant(scaleBlock, preScaleBlock, []string{"7", "-3/2"}, identityBlock(1))()
	if err != nil || ev.Verdict != proofs.Proved {
		t.Errorf("the printed scalings: %v %v, want PROVED", ev, err)
	}
}
