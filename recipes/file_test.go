package recipes_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/model/modelfile"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestFileRoundTripEveryRecipe writes every recipe's model, under each of
// its weightings, as a model file, reads it back, and checks that the
// model read back writes the same file and computes the same outputs as
// the original — every value's exact bounds and text — at the recipe's
// own precision (exact, or interval:128 where its values are irrational,
// or 53 bits where softmax's 1/τ is; see Recipe.PrecisionFor), on an
// input of every length up to N and two of length N. N is 6, or 4 for
// the recipes whose width or alphabet grows with N, so that the test
// stays fast under -race.
func TestFileRoundTripEveryRecipe(t *testing.T) {
	for _, r := range recipes.All() {
		weightings := r.Weightings
		if len(weightings) == 0 {
			weightings = []model.Weighting{r.DefaultWeighting()}
		}
		for _, w := range weightings {
			t.Run(r.Name+"/"+w.String(), func(t *testing.T) {
				t.Parallel()
				maxN := 6
				if r.LimitN > 0 {
					maxN = min(4, r.LimitN)
				}
				maxN = max(min(r.DefaultMaxN, maxN), r.MinN, 1)
				con, err := r.Construct(w, maxN, nil)
				if err != nil {
					t.Fatal(err)
				}
				var file bytes.Buffer
				if err := modelfile.WriteJSON(context.Background(), &file, con.Model, maxN); err != nil {
					t.Fatalf("WriteJSON: %v", err)
				}
				back, gotN, err := modelfile.ReadJSON(bytes.NewReader(file.Bytes()))
				if err != nil {
					t.Fatalf("ReadJSON: %v", err)
				}
				if gotN != maxN {
					t.Errorf("max_n = %d, want %d", gotN, maxN)
				}
				var again bytes.Buffer
				if err := modelfile.WriteJSON(context.Background(), &again, back, maxN); err != nil || !bytes.Equal(again.Bytes(), file.Bytes()) {
					t.Errorf("the model read back writes a different file (%v)", err)
				}
				// Recipe.PrecisionFor, without building the model again.
				prec := r.DefaultPrecision()
				if w == model.Softmax && r.SoftmaxPrecision != "" && len(r.Weightings) > 0 {
					prec = numeric.MustParsePrecision(r.SoftmaxPrecision)
				}
				orig, err := eval.New(prec, con.Model)
				if errors.Is(err, numeric.ErrIrrational) {
					prec = numeric.MustParsePrecision("53")
					orig, err = eval.New(prec, con.Model)
				}
				if err != nil {
					t.Fatalf("instantiating the original at %s: %v", prec, err)
				}
				read, err := eval.New(prec, back)
				if err != nil {
					t.Fatalf("instantiating the model read back at %s: %v", prec, err)
				}
				rng := rand.New(rand.NewPCG(1, 2))
				runs := 0
				for n := max(r.MinN, 1); n <= maxN; n++ {
					budget := 1
					if n == maxN {
						budget = 2
					}
					cases, _ := con.Inputs(n, rng, budget)
					for _, c := range cases {
						a, errA := runCaseText(orig, c)
						b, errB := runCaseText(read, c)
						if a != b || fmt.Sprint(errA) != fmt.Sprint(errB) {
							t.Fatalf("n = %d, input %q at %s: the original gives\n%s%v\nthe model read back\n%s%v",
								n, check.CaseText(con.Model, c), prec, a, errA, b, errB)
						}
						runs++
					}
				}
				if runs == 0 {
					t.Fatal("no input ran")
				}
			})
		}
	}
}

// runCaseText runs one case and prints its outputs with every value's exact
// bounds.
func runCaseText(r eval.Runner, c recipes.Case) (string, error) {
	var res *eval.Result
	var err error
	if c.Stream != nil {
		res, err = r.RunStream(c.Stream, false)
	} else {
		res, err = r.Run(c.Symbols, false)
	}
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, o := range res.Outputs {
		fmt.Fprintf(&b, "%d: %q", i+1, o.Symbol)
		for _, v := range o.Values {
			fmt.Fprintf(&b, " %s[%v, %v]", v.Text, v.Lo, v.Hi)
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}
