// Package atomicfile writes output files so that a reader sees the old
// file or the whole new one, never half of it: the content goes to a
// temporary file beside the destination, which is renamed over it only
// once it is complete.
//
// It imports nothing of the module; the frontier (plots) and the command
// line (reports, exported models) use it.
package atomicfile
