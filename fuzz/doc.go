// Package fuzz holds the native Go fuzz targets of the engine (go test
// -fuzz), each with a seed corpus that plain go test replays.
//
// It is built in a later issue; this file only reserves the package in the
// module layout. The format rounding fuzz target FuzzFormatRound lives with
// the code it tests, in numeric/format_test.go.
package fuzz
