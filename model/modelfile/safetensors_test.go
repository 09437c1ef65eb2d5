package modelfile

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// writeST writes m in the safetensors format, its weights rounded to the
// dtype where they must be, failing the test on an error.
func writeST(t testing.TB, m *model.Model, maxN int, dtype string) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := WriteSafetensorsRounded(context.Background(), &b, m, maxN, dtype); err != nil {
		t.Fatalf("WriteSafetensors(%s, %s): %v", m.Name, dtype, err)
	}
	return b.Bytes()
}

// rounded is the exact value of e rounded once to dtype.
func rounded(t *testing.T, e numeric.Expr, dtype string) *big.Rat {
	t.Helper()
	var x float64
	var err error
	switch dtype {
	case "F32":
		var f float32
		f, err = numeric.Float32{}.Eval(0, e)
		x = float64(f)
	case "F64":
		x, err = numeric.Float64{}.Eval(0, e)
	default:
		formats := map[string]*numeric.Format{"F16": numeric.Binary16, "BF16": numeric.BFloat16, "F8_E4M3": numeric.FP8E4M3, "F8_E5M2": numeric.FP8E5M2}
		x, err = numeric.NewEmulated(formats[dtype]).Eval(0, e)
	}
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Rat).SetFloat64(x)
}

// TestSafetensorsRoundTrip writes each test model in F64 and F32 and reads
// it back: every tensor entry must be exactly the original weight rounded
// once to the dtype, the architecture's scalars (ε, τ) exactly the
// original expressions, and the file must write back the same bytes.
func TestSafetensorsRoundTrip(t *testing.T) {
	for _, fm := range fileModels() {
		for _, dtype := range []string{"F64", "F32"} {
			t.Run(fm.name+"/"+dtype, func(t *testing.T) {
				data := writeST(t, fm.m, fm.maxN, dtype)
				back, maxN, err := ReadSafetensors(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				if maxN != fm.maxN {
					t.Errorf("max_n = %d, want %d", maxN, fm.maxN)
				}
				if again := writeST(t, back, maxN, dtype); !bytes.Equal(again, data) {
					t.Error("the model read back writes a different file")
				}
				want, got := weightsOf(t, fm.m, fm.maxN), weightsOf(t, back, maxN)
				if len(got) != len(want) {
					t.Errorf("%d weight tensors read back, want %d", len(got), len(want))
				}
				for name, w := range want {
					g := got[name]
					if len(g) != len(w) {
						t.Errorf("%s: %d entries read back, want %d", name, len(g), len(w))
						continue
					}
					scalar := strings.HasSuffix(name, ".eps") || strings.HasSuffix(name, ".temperature")
					for k := range w {
						switch {
						case scalar && !sameExpr(w[k], g[k]) && !(w[k].IsZero() && g[k].IsZero()):
							t.Errorf("%s reads back as %v, want exactly %v", name, g[k], w[k])
						case !scalar:
							r, ok, err := g[k].Rat()
							if want := rounded(t, w[k], dtype); err != nil || !ok || r.Cmp(want) != 0 {
								t.Errorf("%s[%d] = %v reads back as %v, want %s rounded to %s = %v", name, k, w[k], g[k], w[k], dtype, want.FloatString(20))
							}
						}
					}
				}
			})
		}
	}
}

// TestSafetensorsOutputsF64 checks that the model read back from F64 is
// the float64 model of the original: in fp64 the two compute the same.
func TestSafetensorsOutputsF64(t *testing.T) {
	for _, fm := range fileModels() {
		back, maxN, err := ReadSafetensors(bytes.NewReader(writeST(t, fm.m, fm.maxN, "F64")))
		if err != nil {
			t.Fatal(err)
		}
		sameOutputs(t, fm.m, back, "fp64", maxN)
	}
}

// stHeader splits a safetensors file into its header length, header (as
// a generic map) and data.
func stHeader(t *testing.T, file []byte) (uint64, map[string]any, []byte) {
	t.Helper()
	n := binary.LittleEndian.Uint64(file)
	var hdr map[string]any
	if err := json.Unmarshal(file[8:8+n], &hdr); err != nil {
		t.Fatal(err)
	}
	return n, hdr, file[8+n:]
}

// stJoin writes a safetensors file from a header (marshaled as is, so it
// may be made wrong on purpose) and data.
func stJoin(t *testing.T, hdr map[string]any, data []byte) []byte {
	t.Helper()
	h, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	return append(append(out, h...), data...)
}

// TestSafetensorsHeader checks the file against the format's rules and
// the naming convention, reading it as a safetensors reader would.
func TestSafetensorsHeader(t *testing.T) {
	file := writeST(t, tinyModel(), 3, "F64")
	n, hdr, data := stHeader(t, file)
	if n%8 != 0 {
		t.Errorf("header length %d is not a multiple of 8: the data is not aligned", n)
	}
	if !bytes.HasPrefix(file[8:], []byte(`{"__metadata__":`)) {
		t.Errorf("header starts %q, want the metadata first", file[8:30])
	}
	meta := hdr["__metadata__"].(map[string]any)
	if meta["format"] != "pt" {
		t.Errorf("metadata format = %v, want pt", meta["format"])
	}
	var arch map[string]any
	if err := json.Unmarshal([]byte(meta[stArchitectureKey].(string)), &arch); err != nil {
		t.Fatalf("architecture: %v", err)
	}
	if arch["max_n"] != 3.0 || arch["format"] != fileFormat || arch["word_embedding"] != nil {
		t.Errorf("architecture: max_n %v, format %v, word_embedding %v; want 3, %s and no weights", arch["max_n"], arch["format"], arch["word_embedding"], fileFormat)
	}
	wantShapes := map[string][]int{
		"embed.weight":                        {2, 2},
		"pos_embed.weight":                    {3, 2},
		"layers.0.attn.heads.0.q_proj.weight": {1, 2},
		"layers.0.attn.heads.0.k_proj.weight": {1, 2},
		"layers.0.attn.heads.0.v_proj.weight": {2, 2},
		"layers.0.ffn.fc1.weight":             {1, 2},
		"layers.0.ffn.fc1.bias":               {1},
		"layers.0.ffn.fc2.weight":             {2, 1},
		"unembed.weight":                      {1, 2},
	}
	var names []string
	for name := range hdr {
		if name != "__metadata__" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	at := 0
	for _, name := range names {
		info := hdr[name].(map[string]any)
		var shape []int
		for _, s := range info["shape"].([]any) {
			shape = append(shape, int(s.(float64)))
		}
		if !slices.Equal(shape, wantShapes[name]) {
			t.Errorf("%s: shape %v, want %v", name, shape, wantShapes[name])
		}
		off := info["data_offsets"].([]any)
		begin, end := int(off[0].(float64)), int(off[1].(float64))
		size := 8
		for _, s := range shape {
			size *= s
		}
		if info["dtype"] != "F64" || begin != at || end != begin+size {
			t.Errorf("%s: dtype %v, offsets [%d, %d]; want F64, [%d, %d] (contiguous in name order)", name, info["dtype"], begin, end, at, at+size)
		}
		at = end
	}
	if len(names) != len(wantShapes) || at != len(data) {
		t.Errorf("tensors %v cover %d of %d bytes; want %d tensors covering all", names, at, len(data), len(wantShapes))
	}
	// embed.weight is first by name: the rows (1, 0) and nil (zeros).
	var embed []float64
	for k := 0; k < 4; k++ {
		embed = append(embed, math.Float64frombits(binary.LittleEndian.Uint64(data[8*k:])))
	}
	if !slices.Equal(embed, []float64{1, 0, 0, 0}) {
		t.Errorf("embed.weight = %v, want [1 0 0 0]", embed)
	}
}

// TestSafetensorsPositionsByN checks the [N, N, d] position tensor of an
// encoding that depends on n, zero above the diagonal.
func TestSafetensorsPositionsByN(t *testing.T) {
	file := writeST(t, selectModel(), 2, "F64")
	_, hdr, data := stHeader(t, file)
	info := hdr["pos_embed.weight"].(map[string]any)
	off := info["data_offsets"].([]any)
	var got []float64
	for k := int(off[0].(float64)); k < int(off[1].(float64)); k += 8 {
		got = append(got, math.Float64frombits(binary.LittleEndian.Uint64(data[k:])))
	}
	// pe_1(1); padding; pe_2(1); pe_2(2), with pe_n(i) = (i/n, 0, −1/n).
	want := []float64{1, 0, -1, 0, 0, 0, 0.5, 0, -0.5, 1, 0, -0.5}
	if !slices.Equal(got, want) {
		t.Errorf("pos_embed.weight = %v, want %v", got, want)
	}
}

func TestWriteSafetensorsErrors(t *testing.T) {
	var b bytes.Buffer
	for _, dtype := range []string{"F12", "bf16", "F8_E4M3FN", "I32"} {
		if _, err := WriteSafetensorsRounded(context.Background(), &b, tinyModel(), 3, dtype); err == nil || !strings.Contains(err.Error(), "want one of F64, F32, F16, BF16, F8_E4M3, F8_E5M2") {
			t.Errorf("dtype %s: %v", dtype, err)
		}
	}
	huge := tinyModel()
	huge.Output.W.Set(0, 0, numeric.Lit(new(big.Rat).SetFloat64(math.MaxFloat64)))
	if _, err := WriteSafetensorsRounded(context.Background(), &b, huge, 3, "F32"); err == nil || !strings.Contains(err.Error(), "unembed.weight[0][0] = ") || !strings.Contains(err.Error(), "overflows F32") {
		t.Errorf("a weight beyond F32: %v", err)
	}
	if _, err := WriteSafetensorsRounded(context.Background(), &b, huge, 3, "F64"); err != nil {
		t.Errorf("the same weight in F64: %v", err)
	}
	b.Reset()
	if err := WriteSafetensors(context.Background(), &b, tinyModel(), 0, "F64"); err == nil || b.Len() != 0 {
		t.Errorf("maxN = 0: %v, %d bytes written", err, b.Len())
	}
}

// TestReadSafetensorsErrors checks that each way a file can be wrong is an
// error saying what is wrong.
func TestReadSafetensorsErrors(t *testing.T) {
	file := writeST(t, tinyModel(), 3, "F64")
	n, _, data := stHeader(t, file)
	// edit returns the file with its header changed by f.
	edit := func(f func(hdr map[string]any)) []byte {
		_, hdr, data := stHeader(t, file)
		f(hdr)
		return stJoin(t, hdr, data)
	}
	tensor := func(hdr map[string]any, name string) map[string]any { return hdr[name].(map[string]any) }
	withHeader := func(h []byte) []byte {
		out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
		return append(append(out, h...), data...)
	}
	withLength := func(length uint64) []byte {
		out := binary.LittleEndian.AppendUint64(nil, length)
		return append(out, file[8:]...)
	}
	arch := func(f func(a map[string]any)) []byte {
		return edit(func(hdr map[string]any) {
			meta := hdr["__metadata__"].(map[string]any)
			var a map[string]any
			if err := json.Unmarshal([]byte(meta[stArchitectureKey].(string)), &a); err != nil {
				t.Fatal(err)
			}
			f(a)
			text, _ := json.Marshal(a)
			meta[stArchitectureKey] = string(text)
		})
	}
	nan := append([]byte(nil), file...)
	binary.LittleEndian.PutUint64(nan[8+n:], math.Float64bits(math.NaN())) // embed.weight[0][0]
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "file of 0 bytes"},
		{"short", file[:5], "file of 5 bytes"},
		{"truncated data", file[:len(file)-1], `tensor "unembed.weight": data_offsets end at 200, past the end of the data (199 bytes)`},
		{"truncated header", file[:8+n/2], "larger than the file"},
		{"trailing data", append(append([]byte(nil), file...), 0), "the tensors cover 200 bytes of data, the file has 201"},
		{"header length past the file", withLength(n + 1000), "header length"},
		{"header length past the limit", withLength(1 << 40), "exceeds the limit"},
		{"header not JSON", withLength(3), "header"},
		{"header not an object", stJoin(t, nil, data), "header does not start with '{'"},
		{"not UTF-8", append(binary.LittleEndian.AppendUint64(nil, 4), '{', 0xff, '}', ' '), "header is not UTF-8"},
		{"duplicate key", withHeader(bytes.Replace(file[8:8+n], []byte(`{"__metadata__":`), []byte(`{"__metadata__":{},"__metadata__":`), 1)), `header: __metadata__: duplicate field "__metadata__"`},
		{"offsets out of range", edit(func(h map[string]any) {
			tensor(h, "unembed.weight")["data_offsets"] = []int{len(data) - 16, len(data) + 8}
			tensor(h, "unembed.weight")["shape"] = []int{1, 3}
		}), "past the end of the data"},
		{"overlapping offsets", edit(func(h map[string]any) {
			tensor(h, "embed.weight")["data_offsets"] = []int{0, 40}
			tensor(h, "embed.weight")["shape"] = []int{5}
		}), "overlapping the tensor before it"},
		{"a gap", edit(func(h map[string]any) {
			tensor(h, "embed.weight")["data_offsets"] = []int{0, 24}
			tensor(h, "embed.weight")["shape"] = []int{3}
		}), "leaving bytes 24 to 32 of the data to no tensor"},
		{"offsets backwards", edit(func(h map[string]any) { tensor(h, "embed.weight")["data_offsets"] = []int{32, 0} }), "end before they begin"},
		{"shape disagrees with the data", edit(func(h map[string]any) { tensor(h, "embed.weight")["shape"] = []int{2, 3} }), `tensor "embed.weight": shape [2 3] of F64 needs 48 bytes, data_offsets [0, 32] hold 32`},
		{"shape overflows", edit(func(h map[string]any) { tensor(h, "embed.weight")["shape"] = []int{1 << 40, 1 << 40, 1 << 40} }), "needs 10633823966279326983230456482242756608 bytes, data_offsets [0, 32] hold 32"},
		{"negative shape", edit(func(h map[string]any) { tensor(h, "embed.weight")["shape"] = []int{-2, -2} }), "not a non-negative integer"},
		{"dtype I64", edit(func(h map[string]any) { tensor(h, "embed.weight")["dtype"] = "I64" }), `tensor "embed.weight": dtype "I64" is not supported (accepted: F64, F32, F16, BF16, F8_E4M3, F8_E5M2)`},
		{"dtype in lower case", edit(func(h map[string]any) { tensor(h, "embed.weight")["dtype"] = "f64" }), `dtype "f64" is not supported`},
		{"dtype F16 against the offsets", edit(func(h map[string]any) { tensor(h, "embed.weight")["dtype"] = "F16" }), `shape [2 2] of F16 needs 8 bytes, data_offsets [0, 32] hold 32`},
		{"unknown tensor field", edit(func(h map[string]any) { tensor(h, "embed.weight")["strides"] = []int{2, 1} }), `unknown field "strides"`},
		{"metadata missing", edit(func(h map[string]any) { delete(h, "__metadata__") }), "header has no __metadata__"},
		{"architecture missing", edit(func(h map[string]any) { delete(h["__metadata__"].(map[string]any), stArchitectureKey) }), `no "cookbook_architecture" key`},
		{"metadata not strings", edit(func(h map[string]any) { h["__metadata__"].(map[string]any)["n"] = 3 }), "__metadata__.n: a number, want a string"},
		{"architecture not JSON", edit(func(h map[string]any) { h["__metadata__"].(map[string]any)[stArchitectureKey] = "{" }), "__metadata__.cookbook_architecture: truncated file"},
		{"unknown architecture field", arch(func(a map[string]any) { a["dropout"] = 0.1 }), "cookbook_architecture.dropout: unknown field"},
		{"weights in the architecture", arch(func(a map[string]any) { a["word_embedding"] = [][]string{{"1", "0"}, {"0", "1"}} }), "cookbook_architecture.word_embedding: unknown field"},
		{"unknown weighting", arch(func(a map[string]any) {
			a["layers"].([]any)[0].(map[string]any)["attention"].(map[string]any)["weighting"] = "hardmax"
		}), `cookbook_architecture.layers[0].attention.weighting: unknown weighting "hardmax"`},
		{"tensor missing", edit(func(h map[string]any) {
			h["unembed.weights"] = h["unembed.weight"]
			delete(h, "unembed.weight")
		}), `unembed.weight: tensor missing`},
		{"tensor not in the model", edit(func(h map[string]any) {
			h["layers.0.ffn.fc1.biases"] = h["layers.0.ffn.fc1.bias"]
			delete(h, "layers.0.ffn.fc1.bias")
		}), `tensor "layers.0.ffn.fc1.biases" is not part of the model`},
		{"extra tensor", arch(func(a map[string]any) { delete(a, "positions") }), `tensor "pos_embed.weight" is not part of the model`},
		{"shape against the architecture", arch(func(a map[string]any) { a["d"] = 1; delete(a, "components") }), `embed.weight: shape [2 2], want [2 (one per symbol of the alphabet), 1 (d)]`},
		{"NaN weight", nan, "embed.weight[0][0]: NaN, not a finite number (F64 bits 0x7ff8000000000001)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _, err := ReadSafetensors(bytes.NewReader(tt.data))
			if err == nil || m != nil {
				t.Fatalf("ReadSafetensors = %v, %v; want an error containing %q", m, err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestReadSafetensorsPadding checks that a nonzero entry in the padding
// of a position tensor by n (pe_n(i) for i > n) is an error.
func TestReadSafetensorsPadding(t *testing.T) {
	file := writeST(t, selectModel(), 2, "F64")
	n, hdr, _ := stHeader(t, file)
	begin := int(hdr["pos_embed.weight"].(map[string]any)["data_offsets"].([]any)[0].(float64))
	bad := append([]byte(nil), file...)
	binary.LittleEndian.PutUint64(bad[8+int(n)+begin+3*8:], math.Float64bits(1)) // [0][1][0]
	_, _, err := ReadSafetensors(bytes.NewReader(bad))
	if err == nil || !strings.Contains(err.Error(), "pos_embed.weight[0][1][0]: 1: entries past i = n are padding and must be 0") {
		t.Errorf("nonzero padding: %v", err)
	}
}

// TestSafetensorsPython reads files with testdata/read_safetensors.py, a
// reader written from the format's specification with Python's standard
// library, and checks every name, dtype, shape and value against the
// engine's own rounding, in every dtype (skipped without python3).
func TestSafetensorsPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	type file struct {
		fm    fileModel
		dtype string
	}
	var files []file
	args := []string{"../testdata/read_safetensors.py"}
	dir := t.TempDir()
	for _, fm := range fileModels() {
		for _, dtype := range SafetensorsDtypes() {
			path := filepath.Join(dir, fm.name+"-"+dtype+".safetensors")
			if err := os.WriteFile(path, writeST(t, fm.m, fm.maxN, dtype), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, file{fm, dtype})
			args = append(args, path)
		}
	}
	out, err := exec.Command(python, args...).Output()
	if err != nil {
		t.Fatalf("read_safetensors.py: %v", err)
	}
	var all []struct {
		Metadata struct {
			Format       string         `json:"format"`
			Architecture map[string]any `json:"cookbook_architecture"`
		} `json:"metadata"`
		Tensors map[string]struct {
			Dtype  string    `json:"dtype"`
			Shape  []int     `json:"shape"`
			Values []float64 `json:"values"`
		} `json:"tensors"`
	}
	if err := json.Unmarshal(out, &all); err != nil || len(all) != len(files) {
		t.Fatalf("read_safetensors.py: %v, %d summaries for %d files", err, len(all), len(files))
	}
	for i, f := range files {
		fm, dtype, got := f.fm, f.dtype, all[i]
		if got.Metadata.Format != "pt" || got.Metadata.Architecture["name"] != fm.m.Name {
			t.Errorf("%s %s: metadata %+v", fm.name, dtype, got.Metadata)
		}
		enc := &encoder{}
		enc.model(fm.m, fm.maxN)
		if len(got.Tensors) != len(enc.tensors) {
			t.Errorf("%s %s: Python reads %d tensors, want %d", fm.name, dtype, len(got.Tensors), len(enc.tensors))
		}
		for _, want := range enc.tensors {
			g, ok := got.Tensors[want.name]
			if !ok || g.Dtype != dtype || !slices.Equal(g.Shape, want.shape) || len(g.Values) != len(want.data) {
				t.Errorf("%s %s: %s: Python reads %s %v with %d values, want %s %v", fm.name, dtype, want.name, g.Dtype, g.Shape, len(g.Values), dtype, want.shape)
				continue
			}
			for k, e := range want.data {
				if w, _ := rounded(t, e, dtype).Float64(); g.Values[k] != w {
					t.Errorf("%s %s: %s[%d] = %v in Python, want %v", fm.name, dtype, want.name, k, g.Values[k], w)
				}
			}
		}
	}
}

// checkReadSafetensors is the property of FuzzReadSafetensors:
// ReadSafetensors returns a model or an error, never both or neither, and
// never panics; a model it returns writes (F64) a file that reads back and
// writes the same bytes again.
func checkReadSafetensors(t *testing.T, data []byte) {
	var m *model.Model
	var maxN int
	var err error
	checkReadMemory(t, len(data), func() { m, maxN, err = ReadSafetensors(bytes.NewReader(data)) })
	if err != nil {
		if m != nil {
			t.Fatalf("ReadSafetensors returned a model and the error %v", err)
		}
		return
	}
	if m == nil {
		t.Fatal("ReadSafetensors returned neither a model nor an error")
	}
	var first bytes.Buffer
	if err := WriteSafetensors(context.Background(), &first, m, maxN, "F64"); err != nil {
		t.Fatalf("a model that reads does not write: %v", err)
	}
	m2, maxN2, err := ReadSafetensors(bytes.NewReader(first.Bytes()))
	if err != nil {
		t.Fatalf("a written model does not read back: %v", err)
	}
	var second bytes.Buffer
	if err := WriteSafetensors(context.Background(), &second, m2, maxN2, "F64"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Fatal("written, read back and written again, the file changes")
	}
}

func safetensorsSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, fm := range fileModels() {
		seeds = append(seeds, writeST(t, fm.m, fm.maxN, "F32"))
	}
	return append(seeds, nil, []byte("\x02\x00\x00\x00\x00\x00\x00\x00{}"))
}

func FuzzReadSafetensors(f *testing.F) {
	for _, s := range safetensorsSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(checkReadSafetensors)
}

// TestSafetensorsMutations runs the fuzz property on the seeds, on every
// prefix of a file, and on files edited at random (see mutations).
func TestSafetensorsMutations(t *testing.T) {
	seeds := safetensorsSeeds(t)
	for _, s := range seeds {
		checkReadSafetensors(t, s)
	}
	for k := 0; k < len(seeds[0]); k++ {
		checkReadSafetensors(t, seeds[0][:k])
	}
	for _, data := range mutations(seeds[:4], 3000) {
		checkReadSafetensors(t, data)
	}
	// Random bytes in the data keep the framing: NaNs, infinities,
	// subnormals and huge values.
	rng := rand.New(rand.NewPCG(9, 0))
	for c := 0; c < 1000; c++ {
		seed := seeds[rng.IntN(4)]
		start := 8 + int(binary.LittleEndian.Uint64(seed))
		data := append([]byte(nil), seed...)
		for k := 0; k < 1+rng.IntN(4); k++ {
			data[start+rng.IntN(len(data)-start)] = byte(rng.Uint32())
		}
		checkReadSafetensors(t, data)
	}
}
