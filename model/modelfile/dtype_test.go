package modelfile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// TestDtypeGolden compares the encoding and decoding of every dtype with
// testdata/dtype_golden.txt, computed by testdata/gen_dtype_golden.py from
// the formats' definitions with exact fractions and cross-checked against
// Python's struct ('<d', '<f', '<e', the top half of '<f' for BF16) and,
// for the 8-bit formats, against their whole tables (F8_E4M3 as PyTorch's
// float8_e4m3fn: no infinities, NaN only at 0x7F and 0xFF, 448 the
// largest finite).
func TestDtypeGolden(t *testing.T) {
	f, err := os.Open("../testdata/dtype_golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	values, decodes := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		dt, ok := dtypeByName(fields[1])
		if !ok {
			t.Fatalf("%q: unknown dtype", line)
		}
		switch fields[0] {
		case "value":
			values++
			x, _ := new(big.Rat).SetString(fields[2])
			bits, got, exact, err := encodeWeight(numeric.Lit(x), dt)
			if fields[3] == "overflow" {
				if err == nil || !strings.Contains(err.Error(), "overflows "+dt.name) {
					t.Errorf("%s: encodes as %#x (%v), want an overflow", line, bits, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", line, err)
				continue
			}
			if b := hex.EncodeToString(appendBits(nil, bits, dt.size)); b != fields[3] {
				t.Errorf("%s: bytes %s", line, b)
			}
			if exact != (fields[4] == "exact") {
				t.Errorf("%s: exact = %v", line, exact)
			}
			want, _ := new(big.Rat).SetString(fields[5])
			if new(big.Rat).SetFloat64(got).Cmp(want) != 0 {
				t.Errorf("%s: nearest %v", line, got)
			}
			data, _ := hex.DecodeString(fields[3])
			if back, _ := decodeWeight(data, 0, dt); new(big.Rat).SetFloat64(back).Cmp(want) != 0 {
				t.Errorf("%s: decodes as %v", line, back)
			}
		case "decode":
			decodes++
			data, _ := hex.DecodeString(fields[2])
			got, _ := decodeWeight(data, 0, dt)
			switch fields[3] {
			case "nan":
				if !math.IsNaN(got) {
					t.Errorf("%s: decodes as %v", line, got)
				}
			case "inf", "-inf":
				if !math.IsInf(got, map[string]int{"inf": 1, "-inf": -1}[fields[3]]) {
					t.Errorf("%s: decodes as %v", line, got)
				}
			default:
				want, _ := new(big.Rat).SetString(fields[3])
				if math.IsNaN(got) || math.IsInf(got, 0) || new(big.Rat).SetFloat64(got).Cmp(want) != 0 {
					t.Errorf("%s: decodes as %v", line, got)
				}
			}
		}
	}
	if values < 200 || decodes < 512 {
		t.Errorf("%d values and %d decodings in the golden file, want all of them", values, decodes)
	}
}

// TestDtypesPrecision checks the precision of a file's dtypes, and holds,
// which it rests on, against the formats' values: f's every finite number
// (all bit patterns of a format of 16 bits or fewer, the extremes of the
// wider ones) must be a number of g exactly when holds(g, f).
func TestDtypesPrecision(t *testing.T) {
	for _, g := range stDtypes {
		for _, f := range stDtypes {
			var xs []float64
			if f.size <= 2 {
				for b := uint64(0); b < 1<<(8*f.size); b++ {
					xs = append(xs, f.format.Decode(b))
				}
			} else {
				xs = []float64{f.format.MaxFinite(), f.format.MinSubnormal(), 1 + f.format.Epsilon(), f.format.MinNormal()}
			}
			all := true
			for _, x := range xs {
				if !math.IsNaN(x) && !math.IsInf(x, 0) && !g.format.Contains(x) {
					all = false
				}
			}
			if got := holds(g.format, f.format); got != all {
				t.Errorf("holds(%s, %s) = %v, but every value of %s is one of %s: %v", g.name, f.name, got, f.name, g.name, all)
			}
		}
	}
	for _, tc := range []struct {
		dtypes     []string
		prec, from string
	}{
		{[]string{"F64"}, "fp64", "F64"},
		{[]string{"F32"}, "fp32", "F32"},
		{[]string{"F16"}, "fp16", "F16"},
		{[]string{"BF16"}, "bf16", "BF16"},
		{[]string{"F8_E4M3"}, "fp8-e4m3", "F8_E4M3"},
		{[]string{"F8_E5M2"}, "fp8-e5m2", "F8_E5M2"},
		{[]string{"F16", "BF16"}, "fp32", "F32"},
		{[]string{"F8_E4M3", "F8_E5M2"}, "fp16", "F16"},
		{[]string{"BF16", "F8_E4M3"}, "bf16", "BF16"},
		{[]string{"F32", "F16"}, "fp32", "F32"},
		{[]string{"F64", "F8_E5M2"}, "fp64", "F64"},
	} {
		p, from, ok := DtypesPrecision(tc.dtypes)
		if !ok || p.String() != tc.prec || from != tc.from {
			t.Errorf("DtypesPrecision(%v) = %v from %s (%v), want %s from %s", tc.dtypes, p, from, ok, tc.prec, tc.from)
		}
	}
	for _, bad := range [][]string{nil, {"F16", "I8"}} {
		if _, _, ok := DtypesPrecision(bad); ok {
			t.Errorf("DtypesPrecision(%v) is ok", bad)
		}
	}
	for _, name := range SafetensorsDtypes() {
		if _, ok := dtypeByName(name); !ok {
			t.Errorf("SafetensorsDtypes lists %s, which is unknown", name)
		}
	}
	if len(SafetensorsDtypes()) != len(stDtypes) {
		t.Errorf("SafetensorsDtypes lists %d dtypes, want %d", len(SafetensorsDtypes()), len(stDtypes))
	}
}

// TestExactFloatText checks that the nearest numbers in refusals are
// written exactly, by hand.
func TestExactFloatText(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0.333251953125, "0.333251953125"}, // 1365/4096, F16's nearest to 1/3
		{448, "448"},
		{-0.4285714328289031982421875, "-0.4285714328289031982421875"}, // F32's -3/7
		{math.Ldexp(1, -24), "5.9604644775390625e-08"},
		{1.0 / 3, "0x1.5555555555555p-02 (≈ 0.3333333333333333)"},
		{math.Copysign(0, -1), "-0"},
	} {
		if got := ExactFloatText(tc.x); got != tc.want {
			t.Errorf("ExactFloatText(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

// TestSafetensorsRefusal checks the refusal of weights that are not
// numbers of the dtype, by hand: 1/3 in F16 is refused and named with its
// nearest number 1365/4096; 1/4 is written; a rounded write lists the
// weight and stores that nearest number.
func TestSafetensorsRefusal(t *testing.T) {
	// tinyModel holds -3/7 and 1/i, which no binary format holds.
	dyadic := &model.PositionEncoding{Name: "i", Vector: func(i, n int) model.Vector {
		return model.Vector{numeric.Expr{}, numeric.LitInt(int64(i))}
	}}
	m := tinyModel()
	m.Layers[0].Attention.Heads[0].K.Set(0, 1, numeric.Frac(1, 4))
	m.Position = dyadic
	var b bytes.Buffer
	if err := WriteSafetensors(context.Background(), &b, m, 3, "F16"); err != nil || b.Len() == 0 {
		t.Fatalf("every weight dyadic: %v", err)
	}
	third := tinyModel()
	third.Position = dyadic
	third.Layers[0].Attention.Heads[0].K.Set(0, 1, numeric.Frac(1, 3))
	b.Reset()
	err := WriteSafetensors(context.Background(), &b, third, 3, "F16")
	ue, ok := err.(*UnrepresentableError)
	if !ok || b.Len() != 0 {
		t.Fatalf("1/3 in F16: %v, %d bytes written; want a refusal and nothing written", err, b.Len())
	}
	if len(ue.Weights) != 1 || ue.Weights[0].Name() != "layers.0.attn.heads.0.k_proj.weight[0][1]" || ue.Weights[0].Nearest != 1365.0/4096 {
		t.Errorf("refused %+v", ue.Weights)
	}
	want := "1 weight is not exactly representable in F16: layers.0.attn.heads.0.k_proj.weight[0][1] = 1/3, nearest 0.333251953125 (tensor layers.0.attn.heads.0.k_proj.weight)"
	if err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
	rounded, err := WriteSafetensorsRounded(context.Background(), &b, third, 3, "F16")
	if err != nil || len(rounded) != 1 || rounded[0].String() != "layers.0.attn.heads.0.k_proj.weight[0][1] = 1/3, nearest 0.333251953125" {
		t.Fatalf("rounded: %v, %v", rounded, err)
	}
	back, _, dtypes, err := ReadSafetensorsDtypes(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := back.Layers[0].Attention.Heads[0].K.At(0, 1).Rat(); r.Cmp(big.NewRat(1365, 4096)) != 0 || len(dtypes) != 1 || dtypes[0] != "F16" {
		t.Errorf("read back %v, dtypes %v; want 1365/4096 from F16", r, dtypes)
	}
	// 464 rounds to 448 in F8_E4M3 (a tie, to even); 465 would round to
	// 480, past the largest finite number, and no rounding writes it.
	for _, tc := range []struct {
		x    int64
		want string
	}{{464, ""}, {465, "unembed.weight[0][0] = 465: overflows F8_E4M3 (largest finite 448)"}} {
		big := tinyModel()
		big.Position = dyadic
		big.Layers[0].Attention.Heads[0].K.Set(0, 1, numeric.Frac(1, 4))
		big.Output.W.Set(0, 0, numeric.LitInt(tc.x))
		b.Reset()
		rounded, err := WriteSafetensorsRounded(context.Background(), &b, big, 3, "F8_E4M3")
		switch {
		case tc.want == "" && (err != nil || len(rounded) != 1 || rounded[0].Nearest != 448):
			t.Errorf("%d in F8_E4M3: %v, %v; want rounded to 448", tc.x, rounded, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want || b.Len() != 0):
			t.Errorf("%d in F8_E4M3: %v, %d bytes written; want %q", tc.x, err, b.Len(), tc.want)
		}
	}
}

// TestReadSafetensorsNonFinite checks that NaNs and infinities in the
// narrow dtypes are refused with the tensor, index and bits: 0x7F is
// F8_E4M3's NaN and 0x78 its 256 (no infinities), 0x7C is F8_E5M2's +Inf,
// 0x7C00 F16's and 0x7F80 BF16's.
func TestReadSafetensorsNonFinite(t *testing.T) {
	m := tinyModel()
	m.Position = &model.PositionEncoding{Name: "i", Vector: func(i, n int) model.Vector {
		return model.Vector{numeric.Expr{}, numeric.LitInt(int64(i))}
	}}
	m.Layers[0].Attention.Heads[0].K.Set(0, 1, numeric.Frac(1, 4))
	for _, tc := range []struct {
		dtype string
		bits  []byte
		want  string
	}{
		{"F8_E4M3", []byte{0x7f}, "embed.weight[0][0]: NaN, not a finite number (F8_E4M3 bits 0x7f)"},
		{"F8_E4M3", []byte{0xff}, "embed.weight[0][0]: NaN, not a finite number (F8_E4M3 bits 0xff)"},
		{"F8_E4M3", []byte{0x78}, ""},
		{"F8_E5M2", []byte{0x7c}, "embed.weight[0][0]: +Inf, not a finite number (F8_E5M2 bits 0x7c)"},
		{"F16", []byte{0x00, 0x7c}, "embed.weight[0][0]: +Inf, not a finite number (F16 bits 0x7c00)"},
		{"BF16", []byte{0x80, 0xff}, "embed.weight[0][0]: -Inf, not a finite number (BF16 bits 0xff80)"},
	} {
		var b bytes.Buffer
		if err := WriteSafetensors(context.Background(), &b, m, 3, tc.dtype); err != nil {
			t.Fatal(err)
		}
		file := b.Bytes()
		n := int(binary.LittleEndian.Uint64(file))
		copy(file[8+n:], tc.bits) // embed.weight is first by name
		back, _, err := ReadSafetensors(bytes.NewReader(file))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %x: %v", tc.dtype, tc.bits, err)
		case tc.want == "":
			if r, _, _ := back.WordEmbedding[0][0].Rat(); r.Cmp(big.NewRat(256, 1)) != 0 {
				t.Errorf("%s %x reads as %v, want 256", tc.dtype, tc.bits, r)
			}
		case err == nil || err.Error() != tc.want:
			t.Errorf("%s %x: %v, want %q", tc.dtype, tc.bits, err, tc.want)
		}
	}
}
