package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinaryLowPrecisionFiles: a model exported in each dtype is checked
// by default at that dtype's precision, and --precision still wins; the
// refusal of Dyck-1's 1/3 in F16 writes nothing, and its 1/4 (N = 4) is
// written; --round-weights lists what it rounded.
func TestBinaryLowPrecisionFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		dtype, n, precision string
	}{
		{"F64", "8", "fp64"},
		{"F32", "8", "fp32"},
		{"F16", "8", "fp16"},
		{"BF16", "8", "bf16"},
		// Positions (1, j, j²): j² = 9 has too many bits for F8_E5M2's
		// 3-bit significand, 4 is fine; 16 fits F8_E4M3, 25 does not.
		{"F8_E4M3", "4", "fp8-e4m3"},
		{"F8_E5M2", "2", "fp8-e5m2"},
	} {
		path := filepath.Join(dir, "l-"+tc.dtype+".safetensors")
		stdout, stderr, status := execVerify(t, "export", "--recipe", "lookup", "--n", tc.n, "--dtype", strings.ToLower(tc.dtype), "--out", path)
		if status != 0 || !strings.HasSuffix(stdout, ", "+tc.dtype+"\n") {
			t.Fatalf("export %s: status %d\n%s%s", tc.dtype, status, stdout, stderr)
		}
		stdout, stderr, status = execVerify(t, "check", "--model", path, "--spec", "lookup", "--json")
		var doc struct {
			Reports []struct {
				Precision string   `json:"precision"`
				Notes     []string `json:"notes"`
			} `json:"reports"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Reports) != 1 || status == 2 {
			t.Fatalf("check %s: status %d, %v\n%s%s", tc.dtype, status, err, stdout, stderr)
		}
		if got := doc.Reports[0].Precision; got != tc.precision || !strings.Contains(stdout, "the model file's dtype, "+tc.dtype) {
			t.Errorf("check %s: precision %s, notes %q; want %s, from the file's dtype", tc.dtype, got, doc.Reports[0].Notes, tc.precision)
		}
		stdout, _, _ = execVerify(t, "check", "--model", path, "--spec", "lookup", "--precision", "exact")
		if !strings.Contains(stdout, "at precision exact") || strings.Contains(stdout, "model file's dtype") {
			t.Errorf("check %s --precision exact:\n%s", tc.dtype, stdout)
		}
	}

	third := filepath.Join(dir, "d3.safetensors")
	_, stderr, status := execVerify(t, "export", "--recipe", "dyck1-n", "--n", "3", "--dtype", "F16", "--out", third)
	if _, err := os.Stat(third); status != 2 || err == nil || !strings.Contains(stderr, "layers.1.ffn.fc1.bias[2] = 1/3, nearest 0.333251953125") {
		t.Errorf("dyck1-n at N = 3 in F16: status %d, file written: %v\n%s", status, err == nil, stderr)
	}
	quarter := filepath.Join(dir, "d4.safetensors")
	if stdout, stderr, status := execVerify(t, "export", "--recipe", "dyck1-n", "--n", "4", "--dtype", "F16", "--out", quarter); status != 0 {
		t.Errorf("dyck1-n at N = 4 (1/4, 1/16) in F16: status %d\n%s%s", status, stdout, stderr)
	}
	stdout, stderr, status := execVerify(t, "export", "--recipe", "dyck1-n", "--n", "3", "--dtype", "F16", "--round-weights", "--out", third)
	want := "; 3 weights rounded to F16:\n" +
		"  rounded layers.1.ffn.fc1.bias[1] = -1/9, nearest -0.111083984375\n" +
		"  rounded layers.1.ffn.fc1.bias[2] = 1/3, nearest 0.333251953125\n" +
		"  rounded layers.1.ffn.fc1.bias[4] = -1/3, nearest -0.333251953125\n"
	if status != 0 || !strings.HasSuffix(stdout, want) {
		t.Errorf("--round-weights: status %d\n%s%s\nwant it to end\n%s", status, stdout, stderr, want)
	}
}

// TestBinaryHuggingFaceLowPrecision: files in F16, and in BF16 and F16
// mixed, written as Hugging Face's safetensors writer writes them (by it,
// where PyTorch and safetensors are importable; otherwise byte for byte as
// it would, by model/testdata/write_hf_safetensors.py), are accepted and
// checked at fp16, and at fp32 for the mix, which neither 16-bit format
// holds.
func TestBinaryHuggingFaceLowPrecision(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "l.safetensors")
	if _, stderr, status := execVerify(t, "export", "--recipe", "lookup", "--n", "8", "--out", src); status != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		name      string
		dtypes    []string
		precision string
	}{
		{"f16", []string{"F16"}, "at precision fp16"},
		{"mixed", []string{"F16", "BF16"}, "at precision fp32"},
	} {
		path := filepath.Join(dir, tc.name+".safetensors")
		args := append([]string{"../../model/testdata/write_hf_safetensors.py", src, path}, tc.dtypes...)
		if out, err := exec.Command(python, args...).CombinedOutput(); err != nil {
			t.Fatalf("write_hf_safetensors.py %v: %v\n%s", tc.dtypes, err, out)
		}
		stdout, stderr, status := execVerify(t, "check", "--model", path, "--spec", "lookup")
		if status != 0 || !strings.Contains(stdout, tc.precision) || !strings.Contains(stdout, "PASS") {
			t.Errorf("%s: status %d, want a pass %s\n%s%s", tc.name, status, tc.precision, stdout, stderr)
		}
	}
}
