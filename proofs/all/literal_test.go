package all

import (
	"bufio"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/proofs/examples"
	"github.com/transformer-cookbook/verify/proofs/internal/prooftest"
	"github.com/transformer-cookbook/verify/proofs/layernorm"
)

// literalGolden is one line of testdata/literal_recipes.txt, the output of
// an independent simulation of a printed construction
// (testdata/literal_recipes.py): the inputs it gets wrong at each length
// and the smallest wrong one.
type literalGolden struct {
	recipe, weighting string
	per               []string // "wrong/all", by length (or dimension)
	smallest          string   // INPUT@POSITION, "-" for none
	flag              string   // amplify-literal: balanced-only or not
}

func readLiteralGolden(t *testing.T) map[string]literalGolden {
	t.Helper()
	f, err := os.Open("testdata/literal_recipes.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]literalGolden{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		k := 0
		for k < len(fs) && fs[k] != "smallest" {
			k++
		}
		if k < 3 || k+1 >= len(fs) {
			t.Fatalf("testdata/literal_recipes.txt: malformed line %q", sc.Text())
		}
		g := literalGolden{recipe: fs[0], weighting: fs[1], per: fs[2:k], smallest: fs[k+1]}
		if k+2 < len(fs) {
			g.flag = fs[k+2]
		}
		out[g.recipe+" "+g.weighting] = g
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// literalPer is a run's wrong/all counts by length.
func literalPer(ls []proofs.LiteralLength) []string {
	var out []string
	for _, l := range ls {
		out = append(out, fmt.Sprintf("%d/%d", l.Wrong, l.Total))
	}
	return out
}

func literalSmallest(input string, pos int) string {
	if input == "" {
		return "-"
	}
	return strings.ReplaceAll(input, " ", "") + fmt.Sprintf("@%d", pos)
}

// TestLiteralBehaviour: what each printed construction computes, length
// by length, computed by the checker (LiteralBehaviour, the claims'
// helpers), against the independent simulation; and the claims that
// report it carry those numbers.
func TestLiteralBehaviour(t *testing.T) {
	golden := readLiteralGolden(t)
	abc := map[string]string{"alphabet": "ABC"}
	cases := []struct {
		key   string
		claim string
		run   func() ([]proofs.LiteralLength, string, string, error)
	}{
		{"first-literal UHAT", "attn.cheatsheet.first.uhat", sweepRun(proofs.Sweep{Recipe: "first-literal", Weighting: model.LeftHardmax, MaxN: 8})},
		{"pred-literal UHAT-right", "attn.pred.literal", sweepRun(proofs.Sweep{Recipe: "pred-literal", Weighting: model.RightHardmax, MaxN: 6})},
		{"pred-literal AHAT", "attn.pred.literal", sweepRun(proofs.Sweep{Recipe: "pred-literal", Weighting: model.AverageHardmax, MaxN: 6})},
		{"induction-recent-literal UHAT-right", "example.induction.recent.literal", sweepRun(proofs.Sweep{Recipe: "induction-recent-literal", Weighting: model.RightHardmax, MaxN: 6, Params: abc})},
		{"induction-recent-literal AHAT", "example.induction.recent.literal", sweepRun(proofs.Sweep{Recipe: "induction-recent-literal", Weighting: model.AverageHardmax, MaxN: 6, Params: abc})},
		{"induction-frequent-literal AHAT", "example.induction.frequent.count-literal", sweepRun(proofs.Sweep{Recipe: "induction-frequent-literal", Weighting: model.AverageHardmax, MaxN: 5, Params: abc})},
		{"rule-literal -", "example.induction.frequent.rule-literal", func() ([]proofs.LiteralLength, string, string, error) {
			run, firstOnly, err := examples.RuleAsPrintedBehaviour("ABC", 5)
			if err != nil {
				return nil, "", "", err
			}
			if !firstOnly {
				return nil, "", "", fmt.Errorf("the wrong strings are not exactly those holding a letter other than A")
			}
			return run.Lengths, literalSmallest(run.Smallest, run.Position), "", nil
		}},
		{"amplify-literal delta=1/2", "ln.amplify.literal", func() ([]proofs.LiteralLength, string, string, error) {
			run, err := layernorm.AmplifyLiteralBehaviour(big.NewRat(1, 2), 6)
			if err != nil {
				return nil, "", "", err
			}
			flag := "not-balanced-only"
			if run.BalancedOnly {
				flag = "balanced-only"
			}
			return run.Lengths, literalSmallest(run.Smallest, run.Position), flag, nil
		}},
	}
	if len(cases) != len(golden) {
		t.Errorf("testdata/literal_recipes.txt has %d lines, the test %d cases", len(golden), len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			g, ok := golden[tc.key]
			if !ok {
				t.Fatalf("no line %q in testdata/literal_recipes.txt", tc.key)
			}
			ls, smallest, flag, err := tc.run()
			if err != nil {
				t.Fatal(err)
			}
			if got := literalPer(ls); strings.Join(got, " ") != strings.Join(g.per, " ") {
				t.Errorf("wrong/all by length: %v, the simulation %v", got, g.per)
			}
			if smallest != g.smallest {
				t.Errorf("smallest wrong input %s, the simulation %s", smallest, g.smallest)
			}
			if flag != g.flag {
				t.Errorf("flag %q, the simulation %q", flag, g.flag)
			}
			ev := prooftest.Checked.Evidence(t, tc.claim)
			if want := strings.Join(g.per, ", "); ev.Verdict != proofs.Refuted || !strings.Contains(ev.Summary, want) {
				t.Errorf("%s: %s %q, want REFUTED with the counts %s", tc.claim, ev.Verdict, ev.Summary, want)
			}
		})
	}
}

// sweepRun is LiteralBehaviour of s, in the form TestLiteralBehaviour
// compares.
func sweepRun(s proofs.Sweep) func() ([]proofs.LiteralLength, string, string, error) {
	return func() ([]proofs.LiteralLength, string, string, error) {
		run, err := proofs.LiteralBehaviour(s)
		if err != nil {
			return nil, "", "", err
		}
		return run.Lengths, literalSmallest(run.Smallest, run.Position), "", nil
	}
}
