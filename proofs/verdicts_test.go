package proofs

import (
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/transformer-cookbook/verify/internal/testenv"
)

// TestVerdicts runs the checker of one claim of every section of the
// paper (the last by ID, which takes in every verdict): the verdict must
// be the one recorded for this version of the code, and the claim's row
// of docs/claims.md, and of the README's errata for a refuted claim, must
// be what the checker says now. TestLongVerdicts does so for every claim
// and compares the whole tables.
func TestVerdicts(t *testing.T) {
	last := map[string]*Claim{}
	for _, c := range All() {
		last[c.Section] = c // All is sorted by ID
	}
	var sample []*Claim
	for _, c := range All() {
		if last[c.Section] == c {
			sample = append(sample, c)
		}
	}
	results := checked.results(sample)
	verdictsAsRecorded(t, results)
	claimsTable, errataTable := generatedTables(t)
	seen := map[Verdict]bool{}
	for _, r := range results {
		seen[r.Claim.Recorded] = true
		var row, errata strings.Builder
		if err := WriteMarkdown(&row, []Result{r}); err != nil {
			t.Fatal(err)
		}
		if err := WriteErrata(&errata, []Result{r}); err != nil {
			t.Fatal(err)
		}
		if !containsLines(claimsTable, lastLines(row.String(), 4)) {
			t.Errorf("%s: docs/claims.md's row is out of date: run\n  go run ./cmd/verify claims --markdown\nand paste it between the markers", r.Claim.ID)
		}
		if rows := lastLines(errata.String(), 2); r.Verdict() == string(Refuted) && !containsLines(errataTable, rows) {
			t.Errorf("%s: README.md's errata row is out of date: paste the output of go run ./cmd/verify claims --errata between its markers", r.Claim.ID)
		}
	}
	if len(sample) < 20 || len(seen) < 4 {
		t.Errorf("the sample of %d claims holds %d of the 4 verdicts: it checks too little", len(sample), len(seen))
	}
	t.Logf("%d claims checked, one of every section", len(sample))
}

// TestLongVerdicts runs every claim's checker (those the tests before it
// have not run: checked shares them): the verdict must be the
// one recorded for this version of the code, so that a regression in a
// recipe or a change in what the engine can prove fails the build; and
// the table of verdicts in docs/claims.md, and the README's tally and
// errata, must be what the checkers say now.
func TestLongVerdicts(t *testing.T) {
	testenv.Long(t)
	results := checked.results(All())
	verdictsAsRecorded(t, results)
	var want strings.Builder
	if err := WriteMarkdown(&want, results); err != nil {
		t.Fatal(err)
	}
	claimsTable, _ := generatedTables(t)
	if claimsTable != want.String() {
		t.Errorf("docs/claims.md's table of verdicts is out of date: run\n  go run ./cmd/verify claims --markdown\nand paste it between the markers")
	}
	var errata strings.Builder
	if err := WriteErrata(&errata, results); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range []struct{ name, want, fix string }{
		{"tally", Tally(results) + "\n", "the tally line 'verify claims' prints last"},
		{"errata", errata.String(), "the output of go run ./cmd/verify claims --errata"},
	} {
		got, ok := between(string(readme), block.name)
		if !ok {
			t.Errorf("README.md lacks the markers of its %s", block.name)
		} else if got != block.want {
			t.Errorf("README.md's %s is out of date: paste %s between its markers", block.name, block.fix)
		}
	}
}

// checked keeps every claim's result once its checker has run in this
// test binary, so that the tests that need a claim's verdict share one
// run of each checker: with VERIFY_LONG=1, TestLongVerdicts runs only
// the claims the default tier's tests have not. A test that runs a
// checker under changed conditions (TestLostRegionProvesNothing) calls
// CheckAll itself and keeps its results out of here.
var checked = &claimCache{done: map[*Claim]Result{}}

type claimCache struct {
	mu   sync.Mutex
	done map[*Claim]Result
}

// results returns the results of claims in their order, running the
// checkers not run yet together, on every core (CheckAll).
func (cc *claimCache) results(claims []*Claim) []Result {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	var missing []*Claim
	for _, c := range claims {
		if _, ok := cc.done[c]; !ok && !slices.Contains(missing, c) {
			missing = append(missing, c)
		}
	}
	for _, r := range CheckAll(missing) {
		cc.done[r.Claim] = r
	}
	out := make([]Result, len(claims))
	for k, c := range claims {
		out[k] = cc.done[c]
	}
	return out
}

// store records r, for a test that ran the checker itself.
func (cc *claimCache) store(r Result) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.done[r.Claim] = r
}

// evidence is the evidence of the registered claim id (its checker run
// through Run, at most once in this binary), failing t when the checker
// cannot run. The evidence is shared: read it, never change it.
func (cc *claimCache) evidence(t *testing.T, id string) *Evidence {
	t.Helper()
	c, err := Get(id)
	if err != nil {
		t.Fatal(err)
	}
	r := cc.results([]*Claim{c})[0]
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	return r.Evidence
}

// verdictsAsRecorded fails t for each result that is an error, differs
// from its recorded verdict or has no evidence.
func verdictsAsRecorded(t *testing.T, results []Result) {
	t.Helper()
	for _, r := range results {
		if r.Err != nil {
			t.Errorf("%s: %v", r.Claim.ID, r.Err)
			continue
		}
		if r.Changed() {
			t.Errorf("%s: verdict %s, recorded %s: %s", r.Claim.ID, r.Verdict(), r.Claim.Recorded, r.Summary())
		}
		if r.Evidence.Summary == "" {
			t.Errorf("%s: no evidence", r.Claim.ID)
		}
	}
}

// generatedTables returns the generated table of docs/claims.md and the
// README's errata table, as they are on disk.
func generatedTables(t *testing.T) (claims, errata string) {
	t.Helper()
	b, err := os.ReadFile("../docs/claims.md")
	if err != nil {
		t.Fatal(err)
	}
	const open, close = "<!-- claims: generated by 'verify claims --markdown' -->\n", "<!-- /claims -->"
	s := string(b)
	i, j := strings.Index(s, open), strings.Index(s, close)
	if i < 0 || j < i {
		t.Fatalf("docs/claims.md lacks the markers %q … %q", open, close)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	errata, ok := between(string(readme), "errata")
	if !ok {
		t.Fatal("README.md lacks the markers of its errata")
	}
	return s[i+len(open) : j], errata
}

// lastLines returns the lines of s after its first skip lines (the
// header of a generated table).
func lastLines(s string, skip int) []string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return lines[min(skip, len(lines)):]
}

// containsLines reports whether every one of lines is a whole line of
// text.
func containsLines(text string, lines []string) bool {
	have := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		have[l] = true
	}
	for _, l := range lines {
		if !have[l] {
			return false
		}
	}
	return true
}

// between returns the text between the README's markers
// "<!-- name: generated by … -->\n" and "<!-- /name -->".
func between(s, name string) (string, bool) {
	i := strings.Index(s, "<!-- "+name+": generated by ")
	if i < 0 {
		return "", false
	}
	k := strings.Index(s[i:], "-->\n")
	j := strings.Index(s, "<!-- /"+name+" -->")
	if k < 0 || j < i+k {
		return "", false
	}
	return s[i+k+len("-->\n") : j], true
}

// TestErrataPageLinksRefutedClaims: each row of docs/errata.md links the
// claims that decide it, every link names a registered claim, and every
// refuted claim has its row.
func TestErrataPageLinksRefutedClaims(t *testing.T) {
	b, err := os.ReadFile("../docs/errata.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, linked := 0, map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| where") {
			continue
		}
		rows++
		links := strings.Split(line, "](claims.md#")
		if len(links) < 2 {
			t.Errorf("docs/errata.md row without a link to its claim: %.80s…", line)
			continue
		}
		for _, l := range links[1:] {
			id := l[:strings.Index(l, ")")]
			if _, err := Get(id); err != nil {
				t.Errorf("docs/errata.md links %q: %v", id, err)
			}
			linked[id] = true
		}
	}
	if rows == 0 {
		t.Error("docs/errata.md has no table rows")
	}
	for _, c := range All() {
		if c.Recorded == Refuted && !linked[c.ID] {
			t.Errorf("%s is refuted but no row of docs/errata.md links it", c.ID)
		}
	}
}

// TestClaimsDescribeThemselves: every claim cites a section of the paper
// and states its statement and domain (Register enforces the rest).
func TestClaimsDescribeThemselves(t *testing.T) {
	for _, c := range All() {
		if !strings.Contains(c.ID, ".") || strings.ToLower(c.ID) != c.ID || strings.ContainsAny(c.ID, " _") {
			t.Errorf("%s: IDs are lower-case, dotted, with hyphens: chapter.construction.property", c.ID)
		}
	}
}

// TestRunDropsRepeatedSummary: a checker's details that open with its
// summary are printed once by --explain (ln.hash.literal printed its
// evidence twice).
func TestRunDropsRepeatedSummary(t *testing.T) {
	c := &Claim{ID: "test.repeat", Check: func() (*Evidence, error) {
		return &Evidence{Verdict: Refuted, Summary: "x = 1 fails", Explain: []string{"x = 1 fails", "by hand: 1 + 1 = 2"}}, nil
	}}
	ev, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Explain) != 1 || ev.Explain[0] != "by hand: 1 + 1 = 2" {
		t.Errorf("explain %q, want only the line that is not the summary", ev.Explain)
	}
}
