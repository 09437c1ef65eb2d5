package proofs

import (
	"math/big"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// TestEveryEpsNeedsThePrintedScaling: the proof at ε = 1 extends to every
// ε only for a family whose weights scale as printed. GTZero_ε with its
// threshold b1 = [0; −1] left unscaled is GTZero_1(x)/ε, which is not the
// claimed family, and must not be proved; nor may a refutation at ε = 1
// be turned into a proof.
func TestEveryEpsNeedsThePrintedScaling(t *testing.T) {
	unscaled := func(eps *big.Rat) *stream.FF {
		f := ffGtzeroEps(eps)
		f.B1 = model.RatVector(big.NewRat(0, 1), big.NewRat(-1, 1))
		return f
	}
	atOne := proveAt([]string{"1"}, ffGtzeroEps, ffGtzeroPieces)
	for _, tc := range []struct {
		name    string
		build   func(*big.Rat) *stream.FF
		atOne   func() (*Evidence, error)
		want    Verdict
		wantErr string
	}{
		{"as printed", ffGtzeroEps, atOne, Proved, ""},
		{"b1 unscaled", unscaled, atOne, "", "b1 has -1 where the printed scaling gives -1/4"},
		{"refuted at ε = 1", ffGtzeroEps, func() (*Evidence, error) { return &Evidence{Verdict: Refuted, Summary: "x"}, nil }, Refuted, ""},
	} {
		ev, err := ffEveryEps(tc.build, 0, []string{"1/4", "3"}, tc.atOne)()
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case ev.Verdict != tc.want:
			t.Errorf("%s: %s, want %s", tc.name, ev.Verdict, tc.want)
		case tc.want == Proved && !strings.HasPrefix(ev.Summary, "for every ε > 0"):
			t.Errorf("%s: summary %q does not claim every ε", tc.name, ev.Summary)
		}
	}
}
