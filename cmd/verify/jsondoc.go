package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"

	"github.com/transformer-cookbook/verify/model/eval"
)

// schemaVersion is the version of the layout of the JSON documents the
// tool prints and writes. It goes up when a field is removed, renamed or
// changes meaning; adding a field keeps it. Every document carries it in
// its first field, "schema": "verify/KIND/VERSION" (schemaID), so that a
// reader can tell what a document is and whether it can read it.
const schemaVersion = 1

// The kinds of JSON document (docs/commands.md lists them, under "JSON
// output").
const (
	kindCheck    = "check"    // verify --recipe / check --model --json
	kindRun      = "run"      // verify run --json
	kindFrontier = "frontier" // verify frontier and merge: --json, --out
	kindClaims   = "claims"   // verify claims --json
	kindBench    = "bench"    // verify bench --json
	kindEdelman  = "edelman"  // verify edelman --json
	kindFormat   = "format"   // verify format --json
	kindRound    = "round"    // verify round --json
	kindList     = "list"     // verify list --json
)

// schemaID is the value of a document's "schema" field.
func schemaID(kind string) string {
	return fmt.Sprintf("verify/%s/%d", kind, schemaVersion)
}

// readSchema checks a document's "schema" field: it must name kind at a
// version this build reads. A document without the field was written
// before it existed, in the layout of version 1.
func readSchema(schema, kind string) error {
	if schema == "" {
		return nil
	}
	rest, ok := strings.CutPrefix(schema, "verify/"+kind+"/")
	if !ok {
		return fmt.Errorf("a %q document, not verify/%s", schema, kind)
	}
	if v, err := strconv.Atoi(rest); err != nil || v != schemaVersion {
		return fmt.Errorf("schema %q: this build of verify reads verify/%s/%d only", schema, kind, schemaVersion)
	}
	return nil
}

// writeJSON prints a document as every document of the tool is printed:
// indented, one trailing newline.
func writeJSON(w io.Writer, doc any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// numberJSON is a number as the JSON documents give it: its printing in
// the precision (text), and its exact value as a fraction in lowest
// terms (exact), or, for an enclosure wider than a point, its ends (lo,
// hi); a NaN or an infinity has neither.
type numberJSON struct {
	Text  string `json:"text"`
	Exact string `json:"exact,omitempty"`
	Lo    string `json:"lo,omitempty"`
	Hi    string `json:"hi,omitempty"`
}

func numberOf(v eval.Value) numberJSON {
	n := numberJSON{Text: v.Text}
	if x, ok := v.Rat(); ok {
		n.Exact = x.RatString()
	} else if v.Finite() {
		n.Lo, n.Hi = v.Lo.RatString(), v.Hi.RatString()
	}
	return n
}

// binaryJSON is a binary number of any size: its exact value as a
// fraction where that is short enough to print (|exponent| ≤ 4096), and
// always as an odd significand times a power of two.
type binaryJSON struct {
	Text        string `json:"text"`
	Exact       string `json:"exact,omitempty"`
	Significand string `json:"significand"`
	Exp2        int64  `json:"exp2"`
}

func binaryOf(x *big.Float) *binaryJSON {
	if x == nil {
		return nil
	}
	mant := new(big.Float)
	e := int64(x.MantExp(mant)) // x = mant × 2^e, 0.5 ≤ |mant| < 1
	// The significand as an integer: mant × 2^prec, then odd.
	prec := int64(x.MinPrec())
	m, _ := new(big.Float).SetMantExp(mant, int(prec)).Int(nil)
	e -= prec
	if m.Sign() != 0 {
		tz := m.TrailingZeroBits()
		m.Rsh(m, tz)
		e += int64(tz)
	}
	b := &binaryJSON{Text: showValue(x), Significand: m.String(), Exp2: e}
	if e >= -4096 && e <= 4096 {
		r, _ := x.Rat(nil)
		b.Exact = r.RatString()
	}
	return b
}
