package modelfile

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/transformer-cookbook/verify/numeric"
)

// The dtypes of safetensors files: the names are those of the format's
// specification (https://github.com/huggingface/safetensors, Dtype in
// safetensors/src/tensor.rs), stored little-endian. F8_E4M3 is PyTorch's
// torch.float8_e4m3fn (the "fn" variant of the OCP format: no infinities,
// NaN at S.1111.111 only, largest finite 448), which is numeric.FP8E4M3;
// F8_E5M2 is torch.float8_e5m2, IEEE-like with infinities.

// stDtype is a dtype the engine reads and writes.
type stDtype struct {
	name      string
	format    *numeric.Format
	size      int    // bytes an element
	precision string // the engine's precision computing in this format
}

// stDtypes lists the dtypes narrowest first: DtypesPrecision takes the
// first that holds every dtype of a file.
var stDtypes = []*stDtype{
	{"F8_E4M3", numeric.FP8E4M3, 1, "fp8-e4m3"},
	{"F8_E5M2", numeric.FP8E5M2, 1, "fp8-e5m2"},
	{"F16", numeric.Binary16, 2, "fp16"},
	{"BF16", numeric.BFloat16, 2, "bf16"},
	{"F32", numeric.Binary32, 4, "fp32"},
	{"F64", numeric.Binary64, 8, "fp64"},
}

// dtypeByName finds a dtype by its exact name.
func dtypeByName(name string) (*stDtype, bool) {
	for _, d := range stDtypes {
		if d.name == name {
			return d, true
		}
	}
	return nil, false
}

// SafetensorsDtypes returns the names of the safetensors dtypes the engine
// reads and writes, widest first: F64, F32, F16, BF16, F8_E4M3, F8_E5M2.
func SafetensorsDtypes() []string {
	return []string{"F64", "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2"}
}

// dtypeList is SafetensorsDtypes for messages.
func dtypeList() string { return strings.Join(SafetensorsDtypes(), ", ") }

// holds reports whether every value of format f is a value of g: g's
// significand is as wide, its largest finite value as large, and its
// grid at the bottom (the smallest subnormal, 2^(EMin−P+1)) as fine.
func holds(g, f *numeric.Format) bool {
	return g.P >= f.P && g.MaxFinite() >= f.MaxFinite() && g.EMin-g.P <= f.EMin-f.P
}

// DtypesPrecision returns the precision a model stored in the given
// dtypes runs at by default, and the dtype that names it: the narrowest of
// F8_E4M3, F8_E5M2, F16, BF16, F32, F64 whose format holds every value of
// every dtype given, so that no weight is rounded when the model is
// loaded at that precision. One dtype gives its own precision (F16:
// fp16); F16 with BF16, neither of which holds the other, gives fp32;
// F8_E4M3 with F8_E5M2 gives fp16. It returns false for an unknown dtype
// or none.
func DtypesPrecision(dtypes []string) (numeric.Precision, string, bool) {
	var fs []*numeric.Format
	for _, name := range dtypes {
		d, ok := dtypeByName(name)
		if !ok {
			return numeric.Precision{}, "", false
		}
		fs = append(fs, d.format)
	}
	if len(fs) == 0 {
		return numeric.Precision{}, "", false
	}
	for _, g := range stDtypes {
		all := true
		for _, f := range fs {
			all = all && holds(g.format, f)
		}
		if all {
			return numeric.MustParsePrecision(g.precision), g.name, true
		}
	}
	return numeric.Precision{}, "", false // unreachable: F64 holds them all
}

// RoundedWeight is a weight whose exact value is not a number of the dtype
// it is written in, with the nearest number of the dtype.
type RoundedWeight struct {
	Tensor  string       // the tensor's name, e.g. "layers.0.ffn.fc1.weight"
	Index   []int        // the entry's index in the tensor, one per dimension
	Value   numeric.Expr // the exact weight
	Nearest float64      // the nearest number of the dtype, ties to even (exact in a float64)
}

// Name is the tensor's name and the entry's index: "unembed.weight[0][1]".
func (w RoundedWeight) Name() string {
	var b strings.Builder
	b.WriteString(w.Tensor)
	for _, i := range w.Index {
		b.WriteString("[" + strconv.Itoa(i) + "]")
	}
	return b.String()
}

// String is "name = value, nearest x": the exact value as written in model
// files, the nearest number as an exact decimal when it has one of at
// most 30 digits, else in hexadecimal with a decimal approximation.
func (w RoundedWeight) String() string {
	return fmt.Sprintf("%s = %v, nearest %s", w.Name(), w.Value, ExactFloatText(w.Nearest))
}

// ExactFloatText writes x so that the text is its exact value: the
// shortest decimal when that is exact, else the exact decimal when it has
// at most 30 significant digits, else the exact hexadecimal significand
// and binary exponent followed by "(≈ shortest decimal)".
func ExactFloatText(x float64) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	exact := new(big.Rat).SetFloat64(x)
	for _, prec := range []int{-1, 30} {
		s := strconv.FormatFloat(x, 'g', prec, 64)
		if r, ok := new(big.Rat).SetString(s); ok && r.Cmp(exact) == 0 {
			return s
		}
	}
	return strconv.FormatFloat(x, 'x', -1, 64) + " (≈ " + strconv.FormatFloat(x, 'g', -1, 64) + ")"
}

// UnrepresentableError is the refusal of WriteSafetensors: weights whose
// exact values are not numbers of the dtype, every one of them listed.
type UnrepresentableError struct {
	Dtype   string
	Weights []RoundedWeight
}

// Error names the first few weights, how many more there are, and every
// tensor that holds one.
func (e *UnrepresentableError) Error() string {
	const shown = 3
	var b strings.Builder
	noun := "weights are"
	if len(e.Weights) == 1 {
		noun = "weight is"
	}
	fmt.Fprintf(&b, "%d %s not exactly representable in %s: ", len(e.Weights), noun, e.Dtype)
	for k, w := range e.Weights[:min(shown, len(e.Weights))] {
		if k > 0 {
			b.WriteString("; ")
		}
		b.WriteString(w.String())
	}
	if len(e.Weights) > shown {
		fmt.Fprintf(&b, "; and %d more", len(e.Weights)-shown)
	}
	var tensors []string
	for k, w := range e.Weights {
		if k == 0 || w.Tensor != e.Weights[k-1].Tensor {
			tensors = append(tensors, w.Tensor)
		}
	}
	noun = "tensor"
	if len(tensors) > 1 {
		noun = "tensors"
	}
	fmt.Fprintf(&b, " (%s %s)", noun, strings.Join(tensors, ", "))
	return b.String()
}

// encodeWeight rounds e once to nearest in d's format and returns the
// bits of the result, its value, and whether that is e exactly. A weight
// that rounds beyond the largest finite number is an error, whether or
// not rounding is allowed: a file holds no infinities or NaNs.
func encodeWeight(e numeric.Expr, d *stDtype) (bits uint64, x float64, exact bool, err error) {
	if e.IsZero() {
		return 0, 0, true, nil
	}
	f := d.format
	r, rational, err := e.Rat()
	if err != nil {
		return 0, 0, false, err
	}
	switch {
	case rational:
		x = f.RoundRat(r)
	case d.name == "F64":
		x, err = numeric.Float64{}.Eval(0, e)
	case d.name == "F32":
		var y float32
		y, err = numeric.Float32{}.Eval(0, e)
		x = float64(y)
	default:
		x, err = numeric.NewEmulated(f).Eval(0, e)
	}
	if err != nil {
		return 0, 0, false, err
	}
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, 0, false, fmt.Errorf("overflows %s (largest finite %s)", d.name, ExactFloatText(f.MaxFinite()))
	}
	// An irrational weight is never a binary number: only rationals
	// compare.
	exact = rational && new(big.Rat).SetFloat64(x).Cmp(r) == 0
	switch d.name {
	case "F64":
		bits = math.Float64bits(x)
	case "F32":
		bits = uint64(math.Float32bits(float32(x))) // exact: x is an F32 number
	default:
		bits = f.Encode(x)
	}
	return bits, x, exact, nil
}

// appendBits appends the low size bytes of bits, little-endian.
func appendBits(data []byte, bits uint64, size int) []byte {
	switch size {
	case 1:
		return append(data, byte(bits))
	case 2:
		return binary.LittleEndian.AppendUint16(data, uint16(bits))
	case 4:
		return binary.LittleEndian.AppendUint32(data, uint32(bits))
	}
	return binary.LittleEndian.AppendUint64(data, bits)
}

// decodeWeight returns the value of the k-th element of data in dtype d.
func decodeWeight(data []byte, k int, d *stDtype) (x float64, bits uint64) {
	switch d.size {
	case 1:
		bits = uint64(data[k])
	case 2:
		bits = uint64(binary.LittleEndian.Uint16(data[2*k:]))
	case 4:
		bits = uint64(binary.LittleEndian.Uint32(data[4*k:]))
	default:
		bits = binary.LittleEndian.Uint64(data[8*k:])
	}
	switch d.name {
	case "F64":
		return math.Float64frombits(bits), bits
	case "F32":
		return float64(math.Float32frombits(uint32(bits))), bits
	}
	return d.format.Decode(bits), bits
}
