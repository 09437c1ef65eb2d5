package eval_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/model/modelfile"
	"github.com/transformer-cookbook/verify/numeric"
)

// The golden files in testdata/spec/golden are the outputs of
// testdata/spec/simulate.py, a simulator of docs/model-format.md written
// apart from the engine (exact fractions, one rounding per operation in
// the order the spec gives), on every recipe's exported model at every
// format, and on a hand-written model of avghardmax ties (ahat-ties.json).
// testdata/spec/gen.py regenerates them. Every stored value must equal
// the engine's exactly: the same rational, the same sign of zero, NaN for
// NaN, the same infinity, and the same decided symbol; a case the spec
// makes an error (an irrational weight in exact mode, ...) must be one.

type specIndex struct {
	Seed   int64 `json:"seed"`
	Models []struct {
		Name   string `json:"name"`
		Model  string `json:"model"`
		Golden string `json:"golden"`
	} `json:"models"`
}

type specCase struct {
	Format    string     `json:"format"`
	Input     []string   `json:"input"`
	InputRLE  [][]any    `json:"input_rle"`
	Positions []int      `json:"positions"`
	Error     string     `json:"error"`
	Outputs   []specOutp `json:"outputs"`
}

type specOutp struct {
	Symbol string   `json:"symbol"`
	Values []string `json:"values"`
}

func (c *specCase) symbols() []string {
	if c.InputRLE == nil {
		return c.Input
	}
	var out []string
	for _, run := range c.InputRLE {
		s, k := run[0].(string), int(run[1].(float64))
		for range k {
			out = append(out, s)
		}
	}
	return out
}

func (c *specCase) inputText() string {
	if c.InputRLE != nil {
		var parts []string
		for _, run := range c.InputRLE {
			parts = append(parts, fmt.Sprintf("%v×%v", run[0], run[1]))
		}
		return strings.Join(parts, " ")
	}
	return strings.Join(c.Input, " ")
}

// specValue says whether the engine's value v is the golden text want
// ("p/q", "-0", "nan", "+inf", "-inf").
func specValue(v eval.Value, want string) bool {
	low := strings.ToLower(v.Text)
	switch want {
	case "nan":
		return v.Lo == nil && strings.Contains(low, "nan")
	case "+inf":
		return v.Lo == nil && strings.Contains(low, "inf") && !strings.HasPrefix(low, "-")
	case "-inf":
		return v.Lo == nil && strings.Contains(low, "inf") && strings.HasPrefix(low, "-")
	}
	r, ok := v.Rat()
	if !ok || v.Lo == nil || v.Lo.Cmp(v.Hi) != 0 {
		return false
	}
	if want == "-0" {
		return r.Sign() == 0 && strings.HasPrefix(v.Text, "-")
	}
	w, ok := new(big.Rat).SetString(want)
	if !ok {
		return false
	}
	if r.Cmp(w) != 0 {
		return false
	}
	// +0 must not print as -0
	return w.Sign() != 0 || !strings.HasPrefix(v.Text, "-")
}

func specShow(v eval.Value) string {
	if r, ok := v.Rat(); ok && v.Lo != nil {
		return fmt.Sprintf("%s (%s)", r.RatString(), v.Text)
	}
	return v.Text
}

func TestSpecGolden(t *testing.T) {
	dir := filepath.Join("..", "testdata", "spec")
	raw, err := os.ReadFile(filepath.Join(dir, "golden", "INDEX.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx specIndex
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatal(err)
	}
	if len(idx.Models) == 0 {
		t.Fatal("no models in testdata/spec/golden/INDEX.json")
	}
	var mu sync.Mutex
	cases, values := 0, 0
	for _, entry := range idx.Models {
		t.Run(entry.Name, func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(filepath.Join(dir, entry.Model))
			if err != nil {
				t.Fatal(err)
			}
			m, _, err := modelfile.ReadJSON(f)
			f.Close()
			if err != nil {
				t.Fatalf("%s: %v", entry.Model, err)
			}
			raw, err := os.ReadFile(filepath.Join(dir, entry.Golden))
			if err != nil {
				t.Fatal(err)
			}
			var g struct {
				Cases []specCase `json:"cases"`
			}
			if err := json.Unmarshal(raw, &g); err != nil {
				t.Fatalf("%s: %v", entry.Golden, err)
			}
			index := map[string]int{}
			for k, s := range m.Alphabet {
				index[s] = k
			}
			runners := map[string]eval.Runner{}
			runErr := map[string]error{}
			nc, nv := 0, 0
			for _, c := range g.Cases {
				nc++
				where := fmt.Sprintf("%s at %s on %q", entry.Name, c.Format, c.inputText())
				r, ok := runners[c.Format]
				if !ok {
					if _, bad := runErr[c.Format]; !bad {
						r, err = eval.New(numeric.MustParsePrecision(c.Format), m)
						if err != nil {
							runErr[c.Format] = err
						} else {
							runners[c.Format] = r
						}
					}
				}
				var res *eval.Result
				err := runErr[c.Format]
				if err == nil {
					syms := c.symbols()
					in := make([]int, len(syms))
					for i, s := range syms {
						k, ok := index[s]
						if !ok {
							t.Fatalf("%s: symbol %q not in the alphabet", where, s)
						}
						in[i] = k
					}
					res, err = r.Run(in, false)
				}
				if c.Error != "" {
					if err == nil {
						t.Errorf("%s: the spec makes this an error (%s); the engine ran it", where, c.Error)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: engine error %v; the spec computes %v", where, err, c.Outputs)
					continue
				}
				positions := c.Positions
				if positions == nil {
					for p := range res.Outputs {
						positions = append(positions, p+1)
					}
				}
				if len(positions) != len(c.Outputs) {
					t.Fatalf("%s: %d golden outputs for %d positions", where, len(c.Outputs), len(positions))
				}
				for k, p := range positions {
					if p < 1 || p > len(res.Outputs) {
						t.Errorf("%s: the engine has %d positions, golden position %d", where, len(res.Outputs), p)
						continue
					}
					got, want := res.Outputs[p-1], c.Outputs[k]
					if got.Symbol != want.Symbol {
						t.Errorf("%s position %d: symbol %q, the spec %q", where, p, got.Symbol, want.Symbol)
					}
					nv += len(want.Values)
					if len(got.Values) != len(want.Values) {
						t.Errorf("%s position %d: %d values, the spec %d", where, p, len(got.Values), len(want.Values))
						continue
					}
					for comp, w := range want.Values {
						if !specValue(got.Values[comp], w) {
							t.Errorf("%s position %d component %d: engine %s, spec %s",
								where, p, comp, specShow(got.Values[comp]), w)
						}
					}
				}
			}
			mu.Lock()
			cases += nc
			values += nv
			mu.Unlock()
		})
	}
	t.Cleanup(func() { t.Logf("%d models, %d cases, %d values compared", len(idx.Models), cases, values) })
}
