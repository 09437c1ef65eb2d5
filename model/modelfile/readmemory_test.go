package modelfile

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"math/rand"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// bigModelJSON is the text of a one-layer model of width d whose every
// weight is weight(k), k counting the entries from 0: four d×d matrices
// (query, key, value and the feed-forward's first and second), its
// biases, embeddings and positions.
func bigModelJSON(d int, weight func(k int) string) []byte {
	var b strings.Builder
	k := 0
	row := func() {
		b.WriteString("[")
		for j := 0; j < d; j++ {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString(weight(k))
			k++
		}
		b.WriteString("]")
	}
	rows := func(n int) {
		b.WriteString("[")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			row()
		}
		b.WriteString("]")
	}
	names := make([]string, d)
	for i := range names {
		names[i] = strconv.Quote("c" + strconv.Itoa(i))
	}
	fmt.Fprintf(&b, `{"format":"transformer-cookbook-model","version":1,"name":"big","max_n":4,"d":%d,"components":[%s],"alphabet":["a","b"],"word_embedding":`, d, strings.Join(names, ","))
	rows(2)
	b.WriteString(`,"positions":{"name":"p","depends_on_n":false,"table":`)
	rows(4)
	b.WriteString(`},"norm":"none","layers":[{"attention":{"mask":"none","weighting":"avghardmax","scale":"none","heads":[{"query":`)
	rows(d)
	b.WriteString(`,"key":`)
	rows(d)
	b.WriteString(`,"value":`)
	rows(d)
	b.WriteString(`}]},"attention_residual":true,"feed_forward":{"activation":"relu","w1":`)
	rows(d)
	b.WriteString(`,"b1":`)
	row()
	b.WriteString(`,"w2":`)
	rows(d)
	b.WriteString(`,"b2":`)
	row()
	b.WriteString(`},"feed_forward_residual":true}],"output":{"kind":"readout","w":`)
	rows(1)
	b.WriteString(`,"labels":["y"]}}`)
	return []byte(b.String())
}

// allocated is the bytes f allocates: a bound on the memory it holds at
// its peak, whatever the collector does meanwhile.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReadMemoryFollowsTheFile: reading a model file allocates at most
// MaxReadMultiple times its size (and a constant), for repeated weights
// and for distinct ones, in JSON (fractions, decimals as numpy prints
// them) and in safetensors of each dtype. Before the reader shared
// repeated weights and made paths only for errors, a file of 56 MB took
// 3.4 GB (60 times).
func TestReadMemoryFollowsTheFile(t *testing.T) {
	if testing.Short() {
		t.Skip("reads files of megabytes")
	}
	const d = 200
	rng := rand.New(rand.NewSource(1))
	jsonCases := []struct {
		name   string
		weight func(k int) string
	}{
		{"repeated integers", func(k int) string { return []string{"0", "1", "-1", `"1/4"`}[k%4] }},
		{"distinct fractions", func(k int) string { return `"` + strconv.Itoa(k+1) + `/7"` }},
		{"distinct decimals", func(k int) string { return strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64) }},
		{"distinct short decimals", func(k int) string { return strconv.FormatFloat(float64(k+1)/1e4, 'g', -1, 64) }},
	}
	for _, tt := range jsonCases {
		t.Run("json/"+tt.name, func(t *testing.T) {
			file := bigModelJSON(d, tt.weight)
			var err error
			got := allocated(func() { _, _, err = ReadJSON(bytes.NewReader(file)) })
			if err != nil {
				t.Fatal(err)
			}
			checkMultiple(t, got, len(file))
		})
	}
	dtypes := []struct {
		dtype  string
		weight func(k int) string // exact in the dtype
	}{
		{"F64", func(k int) string { return new(big.Rat).SetFloat64(rng.NormFloat64()).RatString() }},
		{"F32", func(k int) string { return new(big.Rat).SetFloat64(float64(float32(rng.NormFloat64()))).RatString() }},
		{"F16", func(k int) string { return strconv.Itoa(rng.Intn(4096)-2048) + "/1024" }},
		{"BF16", func(k int) string { return strconv.Itoa(rng.Intn(256)-128) + "/64" }},
		{"F8_E4M3", func(k int) string { return strconv.Itoa(rng.Intn(32)-16) + "/8" }},
	}
	for _, tt := range dtypes {
		t.Run("safetensors/"+tt.dtype, func(t *testing.T) {
			m, n, err := ReadJSON(bytes.NewReader(bigModelJSON(d, func(k int) string { return `"` + tt.weight(k) + `"` })))
			if err != nil {
				t.Fatal(err)
			}
			var file bytes.Buffer
			if err := WriteSafetensors(context.Background(), &file, m, n, tt.dtype); err != nil {
				t.Fatal(err)
			}
			got := allocated(func() { _, _, err = ReadSafetensors(bytes.NewReader(file.Bytes())) })
			if err != nil {
				t.Fatal(err)
			}
			checkMultiple(t, got, file.Len())
		})
	}
}

func checkMultiple(t *testing.T, allocated uint64, size int) {
	t.Helper()
	const slack = 4 << 20 // the runtime's and the reader's own
	ratio := float64(allocated) / float64(size)
	t.Logf("%d bytes allocated for a file of %d: %.1f times", allocated, size, ratio)
	if allocated > uint64(MaxReadMultiple*float64(size))+slack {
		t.Errorf("reading a file of %d bytes allocated %d, %.1f times its size; the bound is %v", size, allocated, ratio, MaxReadMultiple)
	}
}

// readSlack is what reading any file may allocate besides its multiple:
// the reader's maps and messages, the model's few fixed parts, and the
// first time a formula's constant is enclosed, the caches of π and the
// logarithms it fills (1.7 MB for the sinusoidal encoding's base).
const readSlack = 4 << 20

// checkReadMemory runs read, of a file of size bytes, and fails when it
// allocates more than MaxReadMultiple times the size and readSlack: the
// fuzz targets' memory accounting, so that no file, however its numbers
// are edited (a width of 131,072 with no rows to match), makes the reader
// allocate for what the file does not hold. Without a collection, so
// that the fuzzer runs fast: the count is of every allocation.
func checkReadMemory(t *testing.T, size int, read func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(MaxReadMultiple*float64(size))+readSlack {
		t.Fatalf("reading %d bytes allocated %d (%.0f times), more than %v times and %d", size, got, float64(got)/float64(max(size, 1)), MaxReadMultiple, readSlack)
	}
}
