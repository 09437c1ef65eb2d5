//go:build goexperiment.simd

package eval

import (
	"math/bits"
	"simd/archsimd"
)

// With GOEXPERIMENT=simd, on a CPU with AVX, the float64 maximum over keys
// of width 2 (the lookups') runs four keys at a time. The scores are the
// same numbers: each lane computes q0·k0 and q1·k1 rounded, then their sum
// rounded (VHADDPD adds a pair, and a + b = b + a exactly), with no fused
// multiply-add, as maxScoreMachine does. The maximum is found in a first
// pass and its ties counted in a second (scores are computed again, not
// stored); the maximum returned is the first tied score itself, so that
// its sign, where +0 and −0 tie, is the scalar loop's. A NaN score or a
// length below eight keys goes to the scalar loop.
func init() {
	if archsimd.X86.AVX() {
		maxScoreF64Width2 = maxScoreF64Width2AVX
	}
}

// laneKey is the key of each lane in a block of four: VHADDPD on the
// products of keys (0, 1) and of keys (2, 3) gives the sums of keys
// 0, 2, 1, 3.
var laneKey = [4]int{0, 2, 1, 3}

func maxScoreF64Width2AVX(q0, q1 float64, data []float64) (max float64, count, first, last int, nan bool) {
	m := len(data) / 2
	blocks := m / 4
	if blocks < 2 {
		return maxScoreWidth2(q0, q1, data)
	}
	qv := archsimd.LoadFloat64x4Slice([]float64{q0, q1, q0, q1})
	scores := func(b int) archsimd.Float64x4 {
		lo := archsimd.LoadFloat64x4Slice(data[8*b : 8*b+4])
		hi := archsimd.LoadFloat64x4Slice(data[8*b+4 : 8*b+8])
		return lo.Mul(qv).AddPairsGrouped(hi.Mul(qv))
	}
	score := func(k int) float64 { return float64(q0*data[2*k]) + float64(q1*data[2*k+1]) }
	// Pass 1: the maximum, or a NaN.
	vmax := scores(0)
	if vmax.Equal(vmax).ToBits() != 0xF {
		return maxScoreWidth2(q0, q1, data)
	}
	// Two running maxima, so that each block's VMAXPD does not wait for
	// the previous one's.
	vmax2 := vmax
	b := 1
	for ; b+1 < blocks; b += 2 {
		s, t := scores(b), scores(b+1)
		if s.Equal(s).ToBits()&t.Equal(t).ToBits() != 0xF {
			return maxScoreWidth2(q0, q1, data)
		}
		vmax, vmax2 = vmax.Max(s), vmax2.Max(t)
	}
	if b < blocks {
		s := scores(b)
		if s.Equal(s).ToBits() != 0xF {
			return maxScoreWidth2(q0, q1, data)
		}
		vmax = vmax.Max(s)
	}
	var lanes [4]float64
	vmax.Max(vmax2).Store(&lanes)
	max = lanes[0]
	for _, x := range lanes[1:] {
		if x > max {
			max = x
		}
	}
	for k := 4 * blocks; k < m; k++ {
		s := score(k)
		if s != s {
			return maxScoreWidth2(q0, q1, data)
		}
		if s > max {
			max = s
		}
	}
	// Pass 2: the ties, the first and the last.
	first, last = -1, -1
	vm := archsimd.BroadcastFloat64x4(max)
	for b := range blocks {
		tied := scores(b).Equal(vm).ToBits()
		if tied == 0 {
			continue
		}
		count += bits.OnesCount8(tied)
		// Keys 4b, 4b+1, 4b+2, 4b+3 are lanes 0, 2, 1, 3.
		for _, lane := range [4]int{0, 2, 1, 3} {
			if tied&(1<<lane) != 0 {
				if first < 0 {
					first = 4*b + laneKey[lane]
				}
				last = 4*b + laneKey[lane]
			}
		}
	}
	for k := 4 * blocks; k < m; k++ {
		if score(k) == max {
			count++
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	return score(first), count, first, last, false
}
