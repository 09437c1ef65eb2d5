package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinaryModelNames: a model whose names cannot name what they stand
// for (an empty or control-character component name, symbol or label, a
// label given twice), or whose outputs are not the reference's, is bad
// input to every command that reads it: one line, exit 2. run and
// frontier took the first kind, and frontier printed "cannot run" with
// exit 0 for the second.
func TestBinaryModelNames(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "l.json")
	if _, stderr, status := execVerify(t, "export", "--recipe", "lookup", "--n", "4", "--out", base); status != 0 {
		t.Fatalf("export: %s", stderr)
	}
	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	edits := []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"duplicate labels", func(m map[string]any) { m["output"].(map[string]any)["labels"] = []any{"y", "y"} }, `both labelled "y"`},
		{"empty label", func(m map[string]any) { m["output"].(map[string]any)["labels"] = []any{"y", ""} }, "empty name"},
		{"empty component", func(m map[string]any) { m["components"].([]any)[0] = "" }, "empty name"},
		{"NUL in a component", func(m map[string]any) { m["components"].([]any)[0] = "q\x00" }, "control character"},
		{"empty symbol", func(m map[string]any) { m["alphabet"].([]any)[0] = "" }, "empty name"},
		{"tab in a symbol", func(m map[string]any) { m["alphabet"].([]any)[0] = "1:\t0" }, "control character"},
		{"other labels", func(m map[string]any) { m["output"].(map[string]any)["labels"] = []any{"a", "b"} }, ""},
	}
	for _, tt := range edits {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		tt.edit(m)
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".json")
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		commands := [][]string{
			{"check", "--model", path, "--spec", "lookup", "--cases", "1"},
			{"frontier", "--model", path, "--spec", "lookup", "--max-n", "2", "--precision", "fp16"},
		}
		want := tt.want
		if want == "" {
			want = "lookup cannot check this model"
		} else {
			commands = append(commands, []string{"run", "--model", path, "--input", "1:1"})
		}
		for _, args := range commands {
			stdout, stderr, status := execVerify(t, args...)
			if status != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
				t.Errorf("%s, %s: status %d, stdout %q, stderr %q; want status 2 and one line naming %q", tt.name, args[0], status, stdout, stderr, want)
			}
		}
	}
	if _, stderr, status := execVerify(t, "edelman", "--scores", "1;2"); status != 2 || !strings.Contains(stderr, "';'") {
		t.Errorf("edelman --scores '1;2': status %d, stderr %q; want 2 naming ';'", status, stderr)
	}
}
