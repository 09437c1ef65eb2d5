package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/transformer-cookbook/verify/numeric"
)

// The flags' values. Each is parsed once, when the flag is set, into
// typed fields. None refuses a value in Set: a value that does not parse
// is kept with the fact, and the command refuses it at its own turn, in
// its own words, so that of several faults the one reported is the one
// the command meets first, not the first on the command line.

// textValue is a value as given; set says whether the flag was.
type textValue struct {
	text string
	set  bool
}

func (f *textValue) Set(s string) error { f.text, f.set = s, true; return nil }
func (f *textValue) String() string     { return f.text }

// switchValue is a flag that takes no value. Only "true" turns it on:
// --json=false and --json=yes are given but off.
type switchValue struct{ textValue }

func (f *switchValue) IsBoolFlag() bool { return true }
func (f *switchValue) on() bool         { return f.text == "true" }

// intValue is an integer; ok is false when the text is not one.
type intValue struct {
	textValue
	n  int64
	ok bool
}

func (f *intValue) Set(s string) error {
	f.textValue.Set(s)
	n, err := strconv.ParseInt(s, 10, 64)
	f.n, f.ok = n, err == nil
	return nil
}

// within returns the value when it is an integer from lo to hi.
func (f *intValue) within(lo, hi int) (int, bool) {
	return int(f.n), f.ok && f.n >= int64(lo) && f.n <= int64(hi)
}

// seedValue is a non-negative integer of 64 bits.
type seedValue struct {
	textValue
	n  uint64
	ok bool
}

func (f *seedValue) Set(s string) error {
	f.textValue.Set(s)
	n, err := strconv.ParseUint(s, 10, 64)
	f.n, f.ok = n, err == nil
	return nil
}

// lengthsValue is a list of lengths separated by commas; each item keeps
// its text for the message that refuses it.
type lengthsValue struct {
	textValue
	items []lengthItem
}

type lengthItem struct {
	text string
	n    int
	ok   bool
}

func (f *lengthsValue) Set(s string) error {
	f.textValue.Set(s)
	f.items = nil
	for _, t := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(t))
		f.items = append(f.items, lengthItem{t, n, err == nil})
	}
	return nil
}

// precisionValue is one precision.
type precisionValue struct {
	textValue
	p   numeric.Precision
	err error
}

func (f *precisionValue) Set(s string) error {
	f.textValue.Set(s)
	f.p, f.err = numeric.ParsePrecision(s)
	return nil
}

// precisionsValue is a list of precisions separated by commas, each item
// trimmed of spaces.
type precisionsValue struct {
	textValue
	items []precisionItem
}

type precisionItem struct {
	p   numeric.Precision
	err error
}

func (f *precisionsValue) Set(s string) error {
	f.textValue.Set(s)
	f.items = parsePrecisions(strings.Split(s, ","))
	return nil
}

func parsePrecisions(names []string) []precisionItem {
	var items []precisionItem
	for _, name := range names {
		p, err := numeric.ParsePrecision(strings.TrimSpace(name))
		items = append(items, precisionItem{p, err})
	}
	return items
}

// paramsValue is every --param NAME=VALUE, in order; err is the first
// that is malformed or repeats a name.
type paramsValue struct {
	list   []string
	values map[string]string
	err    error
}

func (f *paramsValue) String() string { return strings.Join(f.list, " ") }

func (f *paramsValue) Set(kv string) error {
	f.list = append(f.list, kv)
	if f.values == nil {
		f.values = map[string]string{}
	}
	k, v, ok := strings.Cut(kv, "=")
	k = strings.TrimSpace(k)
	switch {
	case f.err != nil:
	case !ok || k == "":
		f.err = badInput("--param takes NAME=VALUE, got %q", kv)
	case hasKey(f.values, k):
		f.err = badInput("--param %s is given twice", k)
	default:
		f.values[k] = strings.TrimSpace(v)
	}
	return nil
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// parsed returns the parameters, or the first fault among them.
func (f *paramsValue) parsed() (map[string]string, error) {
	if f.err != nil {
		return nil, f.err
	}
	out := map[string]string{}
	for k, v := range f.values {
		out[k] = v
	}
	return out, nil
}

// shardValue is --shard K/N, stored 0-based: shard k of n.
type shardValue struct {
	textValue
	k, n int
	ok   bool
}

func (f *shardValue) Set(s string) error {
	f.textValue.Set(s)
	var k, n int
	c, err := fmt.Sscanf(s, "%d/%d", &k, &n)
	f.ok = err == nil && c == 2 && n >= 1 && k >= 1 && k <= n && fmt.Sprintf("%d/%d", k, n) == s
	f.k, f.n = k-1, n
	return nil
}

// sizeValue is a size in bytes (parseSize).
type sizeValue struct {
	textValue
	n   int64
	err error
}

func (f *sizeValue) Set(s string) error {
	f.textValue.Set(s)
	f.n, f.err = parseSize(s)
	return nil
}

// parsed returns the shard, 0-based, and the number of shards: 0 of 1
// when the flag is not given.
func (f *shardValue) parsed() (k, n int, err error) {
	switch {
	case !f.set:
		return 0, 1, nil
	case !f.ok:
		return 0, 0, badInput("--shard must be K/N with 1 ≤ K ≤ N (e.g. 3/8), got %q", f.text)
	}
	return f.k, f.n, nil
}
