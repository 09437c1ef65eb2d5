package numeric

import (
	"math/big"

	"github.com/transformer-cookbook/verify/numeric/internal/bigmath"
)

// exactPow2 returns 2^k exactly.
func exactPow2(k int) *big.Float {
	one := new(big.Float).SetPrec(1).SetInt64(1)
	return one.SetMantExp(one, k)
}

// Info describes the numbers of a precision, as ml_dtypes.finfo does for
// NumPy's types. Fields that do not apply are zero: every field but Name,
// Summary and Kind for exact, and the encoding fields for bigfloats.
type Info struct {
	Name    string
	Summary string
	Kind    Kind

	SignificandBits int // p, counting the implicit leading bit
	StorageBits     int // width of the encoding; 0 for big.Float values
	ExponentBits    int // width of the exponent field; 0 for big.Float values
	Bias            int
	EMin, EMax      int // exponents of MinNormal and of the top binade: MinNormal = 2^EMin, MaxFinite < 2^(EMax+1)

	MaxFinite    *big.Float // the largest finite value
	MinNormal    *big.Float // the smallest positive normal value
	MinSubnormal *big.Float // the smallest positive value; nil if there are no subnormals
	Epsilon      *big.Float // 2^(1−p), the gap between 1 and the next value

	HasInf     bool
	NaNs       int  // number of NaN bit patterns, both signs
	Saturating bool // overflow gives ±MaxFinite; false for every format here
	Overflow   string
}

// Describe returns the Info of p.
func Describe(p Precision) Info {
	in := Info{Name: p.String(), Kind: p.Kind}
	switch p.Kind {
	case KindExact:
		in.Summary = "exact rationals (math/big.Rat): no rounding, unbounded size"
		in.Overflow = "none"
		return in
	case KindBigFloat, KindInterval:
		in.SignificandBits = int(p.Bits)
		in.EMin = big.MinExp - 1 // big.Float keeps 0.5 ≤ mantissa < 1
		in.EMax = big.MaxExp - 1
		in.MaxFinite = bigmath.MaxFloat(p.Bits)
		in.MinNormal = bigmath.SmallestFloat(p.Bits)
		in.Epsilon = exactPow2(1 - int(p.Bits))
		in.Overflow = "an error (big.Float's exponent range is exceeded)"
		if p.Kind == KindInterval {
			in.Overflow = "an unbounded enclosure [MaxFinite, +Inf]"
		}
		if p.Kind == KindBigFloat {
			in.Summary = "binary floating point, math/big.Float with a " + p.String() +
				"-bit significand, round to nearest even; exponent range of big.Float, not of an IEEE format; no subnormals, infinities or NaN"
		} else {
			in.Summary = "certified intervals [lo, hi] with " + p.String()[len("interval:"):] +
				"-bit big.Float endpoints rounded outward; the exact result is always inside"
		}
		return in
	}
	f := p.Format
	in.SignificandBits = f.P
	in.StorageBits = f.Bits()
	in.ExponentBits = f.ExpBits
	in.Bias = f.Bias
	in.EMin, in.EMax = f.EMin, f.EMax
	in.MaxFinite = new(big.Float).SetFloat64(f.MaxFinite())
	in.MinNormal = new(big.Float).SetFloat64(f.MinNormal())
	in.MinSubnormal = new(big.Float).SetFloat64(f.MinSubnormal())
	in.Epsilon = new(big.Float).SetFloat64(f.Epsilon())
	in.HasInf = f.HasInf
	if f.IEEENaNs {
		in.NaNs = 2 * (1<<(f.P-1) - 1)
	} else {
		in.NaNs = 2
	}
	if f.HasInf {
		in.Overflow = "±Inf"
	} else {
		in.Overflow = "NaN (no infinities; non-saturating, as ml_dtypes float8_e4m3fn)"
	}
	in.Summary = formatSummaries[f.Name]
	return in
}

var formatSummaries = map[string]string{
	"fp64":     "IEEE 754 binary64, native Go float64",
	"fp32":     "IEEE 754 binary32, native Go float32",
	"fp16":     "IEEE 754 binary16, emulated",
	"bf16":     "bfloat16 (the top half of a binary32), emulated",
	"fp8-e4m3": "OCP 8-bit E4M3 (float8_e4m3fn), emulated",
	"fp8-e5m2": "OCP 8-bit E5M2 (float8_e5m2), emulated",
}

// FormatNames lists the named formats in the order the tools print them.
func FormatNames() []string {
	return []string{"fp64", "fp32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2"}
}
