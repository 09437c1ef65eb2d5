package numeric

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/transformer-cookbook/verify/internal/suggest"
)

// Kind is the family of a precision.
type Kind int

const (
	KindExact    Kind = iota // math/big.Rat, no rounding
	KindBigFloat             // math/big.Float with a P-bit significand
	KindFloat64              // native float64
	KindFloat32              // native float32
	KindEmulated             // fp16, bf16, fp8-e4m3, fp8-e5m2, emulated in float64
	KindInterval             // certified enclosures with P-bit endpoints
)

// Limits on bit counts. MaxBits, 4096 bits (1,233 decimal digits), is
// far beyond what any construction here needs (a length-n sweep needs
// about 2·log2 n bits to tell 1/n from 1/(n+1)), and it bounds the cost
// of a run by its lengths: the cost of one operation grows about as the
// square of the bits, so that a check of lookup to n = 16 takes about 1 s
// at 4096 bits, but 13 s at 16384 and over 2 minutes at 65536.
const (
	MinBits = 2
	MaxBits = 1 << 12
)

// Precision is a parsed precision name. The zero value is "exact".
type Precision struct {
	Kind   Kind
	Bits   uint    // significand bits of KindBigFloat and KindInterval values
	Format *Format // the format of KindFloat64, KindFloat32 and KindEmulated
}

// The names that every command accepts.
var namedFormats = map[string]*Format{
	"fp64":     Binary64,
	"fp32":     Binary32,
	"fp16":     Binary16,
	"bf16":     BFloat16,
	"fp8-e4m3": FP8E4M3,
	"fp8-e5m2": FP8E5M2,
}

// PrecisionNames describes the valid precision names, for help and errors.
const PrecisionNames = "exact, an integer bit count P (bigfloat with a P-bit significand, " +
	"2 ≤ P ≤ 1048576), fp64, fp32, fp16, bf16, fp8-e4m3, fp8-e5m2, interval:P"

// ParsePrecision parses a precision name: "exact", a bit count "P" (a
// big.Float significand of P bits, with big.Float's exponent range of about
// 2^±2^31, not that of an IEEE format), "fp64", "fp32", "fp16", "bf16",
// "fp8-e4m3", "fp8-e5m2", or "interval:P".
func ParsePrecision(name string) (Precision, error) {
	if name == "exact" {
		return Precision{Kind: KindExact}, nil
	}
	if f, ok := namedFormats[name]; ok {
		switch f {
		case Binary64:
			return Precision{Kind: KindFloat64, Format: f}, nil
		case Binary32:
			return Precision{Kind: KindFloat32, Format: f}, nil
		}
		return Precision{Kind: KindEmulated, Format: f}, nil
	}
	if rest, ok := strings.CutPrefix(name, "interval:"); ok {
		bits, err := parseBits(rest)
		if err != nil {
			return Precision{}, fmt.Errorf("bad precision %q: %w", name, err)
		}
		return Precision{Kind: KindInterval, Bits: bits}, nil
	}
	if name != "" && strings.Trim(name, "+-0123456789") == "" {
		bits, err := parseBits(name)
		if err != nil {
			return Precision{}, fmt.Errorf("bad precision %q: %w", name, err)
		}
		return Precision{Kind: KindBigFloat, Bits: bits}, nil
	}
	names := []string{"exact", "fp64", "fp32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "interval:53"}
	if hint := suggest.DidYouMean(name, names); hint != "" {
		return Precision{}, fmt.Errorf("unknown precision %s%s (valid names: %s)", suggest.Quote(name), hint, PrecisionNames)
	}
	return Precision{}, fmt.Errorf("unknown precision %s; valid names: %s", suggest.Quote(name), PrecisionNames)
}

func parseBits(s string) (uint, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < MinBits || n > MaxBits {
		return 0, fmt.Errorf("the bit count must be an integer from %d to %d", MinBits, MaxBits)
	}
	return uint(n), nil
}

// MustParsePrecision is ParsePrecision for names known to be valid, as in
// tests and tables; it panics on a bad name.
func MustParsePrecision(name string) Precision {
	p, err := ParsePrecision(name)
	if err != nil {
		panic(err)
	}
	return p
}

// String returns the name that ParsePrecision reads back.
func (p Precision) String() string {
	switch p.Kind {
	case KindExact:
		return "exact"
	case KindBigFloat:
		return strconv.FormatUint(uint64(p.Bits), 10)
	case KindInterval:
		return "interval:" + strconv.FormatUint(uint64(p.Bits), 10)
	}
	if p.Format != nil {
		return p.Format.Name
	}
	return "invalid"
}

// SignificandBits is the number of significand bits of the format's values,
// or 0 for exact.
func (p Precision) SignificandBits() int {
	switch p.Kind {
	case KindExact:
		return 0
	case KindBigFloat, KindInterval:
		return int(p.Bits)
	}
	return p.Format.P
}
