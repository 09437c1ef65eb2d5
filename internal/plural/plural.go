// Package plural writes a count with its noun in the right number, "1
// claim" but "0 claims" and "2 claims", for the messages and reports of
// the command line and the packages below it.
//
// It imports nothing of the module.
package plural

import (
	"strconv"
	"strings"
)

// Integer is any integer type a count comes in.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Of returns n followed by noun, in the singular when n is 1 and in the
// plural otherwise (English puts zero in the plural: "0 claims").
// noun is singular; the plural of its last word follows the regular
// rules (see Noun). Words of a noun phrase after the noun itself ("1
// piece of L∘ff∘R") are the caller's to append.
func Of[T Integer](n T, noun string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Noun(n, noun)
}

// Noun returns noun as Of would write it after n, without n.
//
// The plural is the regular one of the noun's last word: -s, -es after
// s, x, z, ch and sh ("box", "boxes"), -ies for a consonant and y
// ("entry", "entries"). For another plural, use Form.
func Noun[T Integer](n T, noun string) string {
	if n == 1 || noun == "" {
		return noun
	}
	switch {
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "z"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	case len(noun) >= 2 && noun[len(noun)-1] == 'y' && !strings.ContainsRune("aeiouAEIOU", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}

// Form returns one when n is 1 and many otherwise, for a plural
// Noun does not know ("matrix", "matrices") or a verb that agrees with
// the count ("is", "are").
func Form[T Integer](n T, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
