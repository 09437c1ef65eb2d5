package main

import (
	"bufio"
	"encoding/json"
	"math/big"
	"os"
	"strings"
	"testing"
)

// TestEdelmanGolden: for every score vector of testdata/edelman.txt
// (mpmath, by gen_edelman.py) 'verify edelman --json' gives the exact gap,
// enclosures of S, of the norm (and of its sharp form 2S/(1 + S), the
// same number) and of the bound 2n e^{−γ} that contain mpmath's values
// and are narrow, and says the bound holds.
func TestEdelmanGolden(t *testing.T) {
	f, err := os.Open("testdata/edelman.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rat := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("not a number: %q", s)
		}
		return r
	}
	lines := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "|")
		scores, gamma, want := strings.TrimSpace(fs[0]), strings.TrimSpace(fs[1]), strings.Fields(fs[2])
		lines++
		args := []string{"edelman", "--scores", scores, "--json"}
		if gamma != "" {
			args = append(args, "--gamma", gamma)
		}
		out, errOut, status := runCmd(args...)
		if status != 0 {
			t.Errorf("%v: status %d, %s", args, status, errOut)
			continue
		}
		var res edelmanResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		if rat(res.Gap).Cmp(rat(want[0])) != 0 || !res.Holds {
			t.Errorf("%s: gap %s, holds %v; want %s, true", scores, res.Gap, res.Holds, want[0])
		}
		for _, q := range []struct {
			name   string
			e      enclosure
			golden string
		}{{"S", res.S, want[1]}, {"norm", res.Norm, want[2]}, {"sharp", res.Sharp, want[2]}, {"bound", res.Bound, want[3]}} {
			g, lo, hi := rat(q.golden), rat(q.e.Lo), rat(q.e.Hi)
			mag := new(big.Rat).Abs(g)
			slack := new(big.Rat).Mul(mag, big.NewRat(1, 1e15))
			slack.Mul(slack, big.NewRat(1, 1e15)).Mul(slack, big.NewRat(1, 1e15)) // |g|·1e-45: mpmath's 50 digits
			if g.Cmp(new(big.Rat).Sub(lo, slack)) < 0 || g.Cmp(new(big.Rat).Add(hi, slack)) > 0 {
				t.Errorf("%s: %s = [%s, %s] does not contain mpmath's %s", scores, q.name, q.e.Lo, q.e.Hi, q.golden)
			}
			width := new(big.Rat).Sub(hi, lo)
			if width.Mul(width, big.NewRat(1e15, 1)).Mul(width, big.NewRat(1e10, 1)).Cmp(mag) > 0 {
				t.Errorf("%s: %s = [%s, %s] is wider than 1e-25 relative", scores, q.name, q.e.Lo, q.e.Hi)
			}
		}
	}
	if lines < 9 {
		t.Errorf("%d golden cases, want 9", lines)
	}
	out, _, status := runCmd("edelman", "--scores", "1, 3, 2, -1/2")
	if status != 0 || !strings.Contains(out, "the bound holds            yes") || !strings.Contains(out, "bound 2n e^{−γ}            ≈ 2.94304 ∈ [2.94303552937153857276419016129, 2.9430355293715385727641901613]") {
		t.Errorf("text output (status %d):\n%s", status, out)
	}
}

// TestEdelmanBadInput: where the lemma's hypothesis fails, or the input
// is not a score vector, one line on stderr and exit 2.
func TestEdelmanBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--scores", "1, 3, 3"}, "the maximum 3 is attained at positions 2 and 3"},
		{[]string{"--scores", "1, 3", "--gamma", "3"}, "--gamma 3 is larger than the gap 2"},
		{[]string{"--scores", "1, 3", "--gamma", "0"}, "the lemma needs γ > 0"},
		{[]string{"--scores", ","}, "--scores"},
		{[]string{"--scores", "1, x"}, "--scores: entry 2"},
		{[]string{"--scores", "1, 2", "--gamma", "1/0"}, "zero denominator"},
		{[]string{"--gamma", "1"}, "edelman needs --scores"},
		{[]string{"--scores", "0, 200000"}, "more than 100000"},
		{[]string{"--scores", "0, 1", "extra"}, "unexpected argument"},
	} {
		_, errOut, status := runCmd(append([]string{"edelman"}, tc.args...)...)
		if status != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("edelman %v: status %d, stderr %q; want 2 and one line containing %q", tc.args, status, errOut, tc.want)
		}
	}
}

// TestEdelmanOneScore: with one score hardmax and softmax are both (1),
// so the norm is 0, and the hypothesis holds for every γ > 0: the
// command reports the bound at γ = 1, 2·1·e^{−1} = 0.73575888234…, or at
// the γ given (γ = 3: 2e^{−3} = 0.09957413673…), and that it holds.
func TestEdelmanOneScore(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		bound string
	}{
		{[]string{"--scores", "5"}, "0.735758882342"},
		{[]string{"--scores", "-1/3", "--gamma", "3"}, "0.099574136735"},
	} {
		out, errOut, status := runCmd(append([]string{"edelman", "--json"}, tc.args...)...)
		if status != 0 {
			t.Fatalf("edelman %v: status %d, stderr %q", tc.args, status, errOut)
		}
		var res edelmanResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if res.N != 1 || res.Gap != "" || res.Norm.Lo != "0" || res.Norm.Hi != "0" || !res.Holds || !strings.HasPrefix(res.Bound.Lo, tc.bound) {
			t.Errorf("edelman %v: %+v; want n = 1, no gap, norm 0, the bound %s…, holds", tc.args, res, tc.bound)
		}
	}
	out, _, _ := runCmd("edelman", "--scores", "5")
	if !strings.Contains(out, "on 1 score\n") || !strings.Contains(out, "gap                        none") {
		t.Errorf("text:\n%s\nwant 'on 1 score' and no gap", out)
	}
}

// TestDecimalText: outward and nearest rounding to significant digits,
// by hand.
func TestDecimalText(t *testing.T) {
	for _, tc := range []struct {
		r    string
		sig  int
		dir  int
		want string
	}{
		{"1/3", 6, 0, "0.333333"},
		{"2/3", 3, -1, "0.666"},
		{"2/3", 3, 1, "0.667"},
		{"-2/3", 3, 1, "-0.666"},
		{"-2/3", 3, -1, "-0.667"},
		{"99999/100000", 3, 1, "1"},
		{"1234567", 3, 0, "1.23e+6"},
		{"1/100000", 2, 0, "1e-5"},
		{"123456/1000", 5, 0, "123.46"},
		{"120", 5, 0, "120"},
		{"3/1000", 4, 0, "0.003"},
	} {
		r, _ := new(big.Rat).SetString(tc.r)
		if got := decimalText(r, tc.sig, tc.dir); got != tc.want {
			t.Errorf("decimalText(%s, %d, %d) = %q, want %q", tc.r, tc.sig, tc.dir, got, tc.want)
		}
	}
}
