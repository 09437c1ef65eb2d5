package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSimulatedReferenceReported: a frontier and a check of
// hardmax-softmax prove its lengths against the average-hard lookup it
// simulates, and say so: the limit is proved (ᶠ), the text names the
// reference and the bound, and the JSON carries it.
func TestSimulatedReferenceReported(t *testing.T) {
	out, stderr, status := runCmd("frontier", "--recipe", "hardmax-softmax", "--precision", "fp16", "--max-n", "4")
	if status != 0 {
		t.Fatalf("frontier: exit %d: %s", status, stderr)
	}
	for _, want := range []string{"≥ 4ᶠ", "every length 1 … 4: every input computes what the average-hard construction it simulates computes, each output within its claimed bound", "the run against the intended function: "} {
		if !strings.Contains(out, want) {
			t.Errorf("frontier output lacks %q:\n%s", want, out)
		}
	}
	out, stderr, status = runCmd("check", "--recipe", "hardmax-softmax", "--precision", "fp16", "--max-n", "4", "--json")
	if status != 0 {
		t.Fatalf("check: exit %d: %s", status, stderr)
	}
	var doc struct {
		Reports []struct {
			Reference  string `json:"reference"`
			LimitLevel string `json:"limit_level"`
		} `json:"reports"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Reports) != 1 {
		t.Fatalf("check --json: %v, %d reports\n%s", err, len(doc.Reports), out)
	}
	rep := doc.Reports[0]
	if rep.Reference != "the average-hard construction it simulates" || rep.LimitLevel != "faithful" {
		t.Errorf("check --json: reference %q, limit level %q; want the average-hard construction it simulates, faithful", rep.Reference, rep.LimitLevel)
	}
}
