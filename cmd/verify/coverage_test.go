package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/transformer-cookbook/verify/frontier"
	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/recipes"
)

// The coverage of docs/frontier.md: the cells of `verify frontier --all
// --max-n 64` counted by evidence and by reason. docs/frontier-cells.json
// keeps the cells, the table between the markers is generated from them,
// and TestLongCoverageCells re-runs a seeded sample of the cells to hold
// the file to what the engine does. To regenerate both after a change
// that moves cells (measured: 23 CPU-minutes for every recipe but
// hardmax-softmax, whose proofs of every length to 64 at nine precisions
// took 68 more, before its softmax states' keys were sped up about 1.7×):
//
//	go run ./cmd/verify frontier --all --max-n 64 --json --quiet --out /tmp/all.json
//	VERIFY_COVERAGE_REPORT=/tmp/all.json go test ./cmd/verify -run TestCoverageDoc
//
// or in pieces (each a --recipe list of its own, run where there is room),
// joined with colons: VERIFY_COVERAGE_REPORT=/tmp/a.json:/tmp/b.json.
// After a change that moves only some recipes' cells, VERIFY_COVERAGE_REPLACE
// takes reports of those recipes alone and replaces their cells, keeping
// the others':
//
//	go run ./cmd/verify frontier --recipe hardmax-softmax --max-n 64 --json --quiet --out /tmp/hs.json
//	VERIFY_COVERAGE_REPLACE=/tmp/hs.json go test ./cmd/verify -run TestCoverageDoc
const (
	cellsPath       = "../../docs/frontier-cells.json"
	frontierDocPath = "../../docs/frontier.md"
	coverageBegin   = "<!-- coverage: generated from docs/frontier-cells.json by TestCoverageDoc -->\n"
	coverageEnd     = "<!-- end of coverage -->\n"
	coverageMaxN    = 64
)

// TestCoverageDoc holds docs/frontier.md's coverage tables to the cells
// of docs/frontier-cells.json; with VERIFY_COVERAGE_REPORT set to a
// report of `verify frontier --all --max-n 64 --json` (or a list of
// reports, each of some recipes, that together hold every recipe once,
// joined as PATH is), it rewrites the cells and the tables from it instead.
func TestCoverageDoc(t *testing.T) {
	if path := os.Getenv("VERIFY_COVERAGE_REPORT"); path != "" {
		updateCoverage(t, path, false)
	}
	if path := os.Getenv("VERIFY_COVERAGE_REPLACE"); path != "" {
		updateCoverage(t, path, true)
	}
	cells := readCells(t)
	var table strings.Builder
	if err := frontier.CoverageOf(cells).WriteMarkdown(&table); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(frontierDocPath)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := between(string(doc), coverageBegin, coverageEnd)
	if !ok {
		t.Fatalf("%s has no coverage markers", frontierDocPath)
	}
	if diff := cmp.Diff(table.String(), got); diff != "" {
		t.Errorf("docs/frontier.md's coverage is out of date with docs/frontier-cells.json (-want +got):\n%s", diff)
	}
}

// updateCoverage rewrites the cells file and the doc's tables from the
// reports at paths: every recipe's, or with replace the cells of the
// recipes they hold, the others' kept.
func updateCoverage(t *testing.T, paths string, replace bool) {
	var reports []*frontier.Report
	seen := map[string]string{}
	for _, path := range filepath.SplitList(paths) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc frontierDoc
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		for _, rep := range doc.Reports {
			if rep.MaxN != coverageMaxN {
				t.Fatalf("%s: %s: max n %d, want %d", path, rep.Recipe, rep.MaxN, coverageMaxN)
			}
			if other, ok := seen[rep.Recipe]; ok {
				t.Fatalf("%s: %s is in %s as well", path, rep.Recipe, other)
			}
			seen[rep.Recipe] = path
		}
		reports = append(reports, doc.Reports...)
	}
	// The reports may come in pieces (a sweep of some recipes each), but
	// together they must be every recipe's: a table of a part would read
	// as the whole.
	cells := frontier.Cells(reports)
	if replace {
		cells = replaceCells(t, readCells(t), cells)
	} else {
		for _, r := range recipes.All() {
			if _, ok := seen[r.Name]; !ok {
				t.Fatalf("no report has %s: the coverage needs every recipe", r.Name)
			}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(cells); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cellsPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	if err := frontier.CoverageOf(cells).WriteMarkdown(&table); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(frontierDocPath)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(md), coverageBegin)
	_, after, ok2 := strings.Cut(rest, coverageEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no coverage markers", frontierDocPath)
	}
	out := before + coverageBegin + table.String() + coverageEnd + after
	if err := os.WriteFile(frontierDocPath, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replaceCells returns old with each cell of a recipe that fresh holds
// replaced by fresh's cell of the same recipe and precision; a recipe's
// precisions must be the same in both.
func replaceCells(t *testing.T, old, fresh []frontier.Cell) []frontier.Cell {
	t.Helper()
	type key struct{ recipe, precision string }
	byKey := map[key]frontier.Cell{}
	for _, c := range fresh {
		byKey[key{c.Recipe, c.Precision}] = c
	}
	out := slices.Clone(old)
	replaced := 0
	for k, c := range out {
		if f, ok := byKey[key{c.Recipe, c.Precision}]; ok {
			out[k] = f
			replaced++
		}
	}
	if replaced != len(fresh) {
		t.Fatalf("%d of the reports' %d cells replace one of %s", replaced, len(fresh), cellsPath)
	}
	return out
}

func readCells(t *testing.T) []frontier.Cell {
	t.Helper()
	data, err := os.ReadFile(cellsPath)
	if err != nil {
		t.Fatal(err)
	}
	var cells []frontier.Cell
	if err := json.Unmarshal(data, &cells); err != nil {
		t.Fatal(err)
	}
	if len(cells) == 0 {
		t.Fatalf("%s holds no cells", cellsPath)
	}
	return cells
}

// between returns the text of s between begin and end.
func between(s, begin, end string) (string, bool) {
	_, rest, ok := strings.Cut(s, begin)
	if !ok {
		return "", false
	}
	in, _, ok := strings.Cut(rest, end)
	return in, ok
}

// TestLongCoverageCells re-runs a seeded sample of the cells of
// docs/frontier-cells.json, each as `verify frontier --recipe R
// --precision P --max-n 64` does, and requires the same
// limit, evidence and reason: the file, and so the doc's tables, stay
// what the engine computes.
func TestLongCoverageCells(t *testing.T) {
	testenv.Long(t)
	cells := readCells(t)
	const samples, seed = 16, 1
	rng := rand.New(rand.NewPCG(seed, 0))
	t.Logf("re-running %d of %d cells, seed %d", samples, len(cells), seed)
	for _, k := range rng.Perm(len(cells))[:samples] {
		want := cells[k]
		// --all runs each recipe under its default weighting, as this
		// does; the cell's weighting is compared below.
		args := []string{"frontier", "--recipe", want.Recipe, "--precision", want.Precision,
			"--max-n", fmt.Sprint(coverageMaxN), "--json", "--quiet"}
		var stdout, stderr bytes.Buffer
		if status := run(args, &stdout, &stderr); status != 0 {
			t.Errorf("verify %s: exit %d: %s", strings.Join(args, " "), status, stderr.String())
			continue
		}
		var doc frontierDoc
		if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		got := frontier.Cells(doc.Reports)
		if diff := cmp.Diff([]frontier.Cell{want}, got); diff != "" {
			t.Errorf("verify %s (-docs/frontier-cells.json +now):\n%s", strings.Join(args, " "), diff)
		}
	}
}
