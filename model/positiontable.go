package model

// TablePositions is the position encoding named name whose values are
// rows: rows[0][i-1] is pe(i) for every n when the encoding does not
// depend on n, and rows[n-1][i-1] is pe_n(i) otherwise, for 1 ≤ i ≤ n ≤
// maxN. Beyond maxN it has no value (nil), which Run reports as an
// encoding of the wrong width at that length. The rows are not copied.
func TablePositions(name string, maxN int, dependsOnN bool, rows [][]Vector) *PositionEncoding {
	t := &positionTable{maxN: maxN, dependsOnN: dependsOnN, rows: rows}
	return &PositionEncoding{Name: name, Vector: t.vector, IndependentOfN: !dependsOnN}
}

// positionTable is a position encoding read from a model file: the
// values pe_n(i) the writer sampled for every 1 ≤ i ≤ n ≤ maxN. A Go
// function cannot be stored, but its values at the lengths a model will
// run are all it contributes, so the table is lossless up to maxN.
type positionTable struct {
	maxN       int
	dependsOnN bool
	// rows[0][i-1] is pe(i) when the encoding does not depend on n;
	// otherwise rows[n-1][i-1] is pe_n(i).
	rows [][]Vector
}

// vector is the PositionEncoding function: pe_n(i), or nil beyond the
// table (n > maxN), which Run reports as an encoding of the wrong width
// at that length. It returns a copy, so that no caller can change the
// table.
func (t *positionTable) vector(i, n int) Vector {
	if n < 1 || n > t.maxN || i < 1 || i > n {
		return nil
	}
	block := t.rows[0]
	if t.dependsOnN {
		block = t.rows[n-1]
	}
	return append(Vector(nil), block[i-1]...)
}
