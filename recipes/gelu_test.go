package recipes_test

import (
	"bufio"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestMulGELUGolden: at every point of testdata/gelu.txt (mpmath, by
// gen_gelu.py) the certified enclosure of the GELU product contains
// mpmath's value, for both GELUs, and the product is within the paper's
// bound (|x| + |y|)³/4 of xy. The largest ratio |ε|/(|x| + |y|)³ on the
// grid is about 0.082 (x = y = ±1), well below 1/4.
func TestMulGELUGolden(t *testing.T) {
	f, err := os.Open("testdata/gelu.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cons := map[string]*recipes.Construction{}
	slack := rat("1/1000000000000000000000000000000000000000000000") // 1e-45 ≫ mpmath's 50 digits
	maxRatio := new(big.Rat)
	lines := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		act, x, y, value, ratio := fs[0], rat(fs[1]), rat(fs[2]), rat(fs[3]), rat(fs[4])
		lines++
		if cons[act] == nil {
			cons[act] = construct(t, recipes.MulGELU, model.Softmax, 1, map[string]string{"act": act})
		}
		con := cons[act]
		c, err := con.Parse(x.RatString() + "," + y.RatString())
		if err != nil {
			t.Fatal(err)
		}
		out := runCase(t, con, "interval:128", c)[0]
		v := out.Values[0]
		lo, hi := new(big.Rat).Sub(v.Lo, slack), new(big.Rat).Add(v.Hi, slack)
		if value.Cmp(lo) < 0 || value.Cmp(hi) > 0 {
			t.Errorf("%s GELU product at (%s, %s): enclosure %s does not contain mpmath's %s", act, x.RatString(), y.RatString(), v.Text, fs[3])
		}
		if ok, why := check.Compare(con.Expected(c)[0], out, con.Bounds, nil); !ok {
			t.Errorf("%s at (%s, %s): %s", act, x.RatString(), y.RatString(), why)
		}
		if ratio.Cmp(big.NewRat(1, 4)) > 0 {
			t.Errorf("%s at (%s, %s): mpmath's |ε|/(|x|+|y|)³ = %s exceeds the paper's 1/4", act, x.RatString(), y.RatString(), fs[4])
		}
		if ratio.Cmp(maxRatio) > 0 {
			maxRatio = ratio
		}
	}
	if lines < 600 {
		t.Fatalf("read %d golden lines", lines)
	}
	if maxRatio.Cmp(rat("0.08")) < 0 || maxRatio.Cmp(rat("0.09")) > 0 {
		t.Errorf("largest ratio on the grid %s, expected about 0.082", maxRatio.FloatString(4))
	}
}
