// Package basics holds the claims of §Basic Ingredients (IDs repr.* and
// pe.*): the Boolean table tab:booleans cell by cell, conversions between
// Boolean representations, the pair representation under layer
// normalization, §Special Symbols, §Categorical and §Integer
// Representations, the uniformity of §Preliminaries, and §Positional
// Encodings (simple, sinusoidal, one-hot and almost orthogonal).
//
// Files: repr_boolean.go (§Boolean Representations), repr_values.go (the
// other representations and uniformity), positional.go (§Positional
// Encodings); claims.go lists the tables in the paper's order. Each file
// holds a table of claims, a row per claim (ID, section, statement,
// domain, recorded verdict, checker), and the checkers the rows name.
//
// The package registers its claims when linked in; proofs/all links it.
package basics
