// Package check runs a construction of package recipes at a precision and
// compares every output with the construction's exact intended value. It
// is the engine's one notion of "right": the command line, the frontier,
// the diagnosis and the claims all decide through it.
//
// Run builds a recipe for a weighting and a largest length N, checks a
// sweep of lengths (every input where there are few, seeded random ones
// pushed to the domain's boundaries otherwise) and reports the uniformity
// limit: the largest length up to which every checked input was right. A
// Checker checks one built construction length by length, for the
// frontier's sweeps and bisections, and shards a length's inputs.
// Exhaustive lengths of causally masked models are enumerated depth first
// over a cache of each prefix (Enumerate). Compare decides one position
// (CompareAt at the precision the output was computed in);
// MemoryEstimate refuses a sweep that would not fit in memory; Adopt makes
// a construction check a model read from a file instead of its own.
//
// # Conventions
//
// Outputs claimed exact must equal the reference as rationals. Where the
// reference is a real number (Want.Reals: a layer norm's square root, a
// sine), known only by a certified enclosure, an output is judged by the
// comparison made at every point of the enclosure (irrational.go): at a
// precision that rounds (bigfloats, fp64 … fp8), an output claimed exact
// must be the format's correct rounding of the real, the nearest value
// the format holds; in interval arithmetic its enclosure must contain the
// real. Where the enclosure straddles the answer, it is refined a few
// times, and then the output is undecided: reported as such, neither a
// pass nor a failure. Where the paper claims a bound, the bound itself is
// checked, at every point of the enclosure. An input is compared with the
// reference as the format stores it: rounding an input is not the
// construction's error. Wrong outputs are findings in a Report, not
// errors; an error means the check could not run.
//
// # Imports
//
// check imports certify (the analysis that certifies a length), recipes
// (the constructions and their references), model and numeric. The frontier, the diagnosis, the claims, the benchmarks and
// the command line import it; it imports none of them.
package check
