package proofs

import (
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// roughMillis is d in milliseconds rounded to 1, 2 or 5 times a power
// of ten (the nearest on a logarithmic scale): the order needs no more,
// and a remeasured table then differs from the last mostly where a cost
// has moved, not by the noise of a few percent in every line.
func roughMillis(d time.Duration) int {
	ms := max(d.Seconds()*1000, 1)
	unit := math.Pow(10, math.Floor(math.Log10(ms)))
	switch m := ms / unit; {
	case m < math.Sqrt2:
		return int(unit)
	case m < math.Sqrt(10):
		return int(2 * unit)
	case m < math.Sqrt(50):
		return int(5 * unit)
	}
	return int(10 * unit)
}

func TestRoughMillis(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want int
	}{
		{0, 1},
		{400 * time.Microsecond, 1},
		{1400 * time.Microsecond, 1},
		{1500 * time.Microsecond, 2},
		{3100 * time.Microsecond, 2},
		{3200 * time.Microsecond, 5},
		{7 * time.Millisecond, 5},
		{7100 * time.Millisecond, 10000},
		{99 * time.Millisecond, 100},
		{680 * time.Millisecond, 500},
		{770 * time.Millisecond, 1000},
		{2280 * time.Millisecond, 2000},
	} {
		if got := roughMillis(tc.d); got != tc.want {
			t.Errorf("roughMillis(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}

func TestParseCosts(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       map[string]int // nil: an error
	}{
		{"empty", "", map[string]int{}},
		{"header and two claims", "# header\n\na.b 12\nb.a 1\n", map[string]int{"a.b": 12, "b.a": 1}},
		{"one field", "a.b\n", nil},
		{"three fields", "a.b 1 2\n", nil},
		{"zero", "a.b 0\n", nil},
		{"negative", "a.b -3\n", nil},
		{"fraction", "a.b 1.5\n", nil},
		{"out of order", "b.a 1\na.b 1\n", nil},
		{"twice", "a.b 1\na.b 2\n", nil},
	} {
		got, err := parseCosts(tc.text)
		switch {
		case tc.want == nil && err == nil:
			t.Errorf("%s: %q parsed as %v, want an error", tc.name, tc.text, got)
		case tc.want != nil && (err != nil || !maps.Equal(got, tc.want)):
			t.Errorf("%s: %q parsed as %v, %v; want %v", tc.name, tc.text, got, err, tc.want)
		}
	}
	m := map[string]int{"z.last": 3, "a.first": 7000, "m.mid": 1}
	back, err := parseCosts(formatCosts(m))
	if err != nil || !maps.Equal(back, m) {
		t.Errorf("formatCosts(%v) reads back as %v, %v", m, back, err)
	}
}

// TestCheckAllStartsCostliestFirst: one worker takes the claims in
// decreasing cost, an unknown one first, equal costs in the claims'
// order; the results come back in the claims' order whatever the
// number of workers.
func TestCheckAllStartsCostliestFirst(t *testing.T) {
	saved := costs
	defer func() { costs = saved }()
	costs = map[string]int{"t.a": 5, "t.b": 300, "t.c": 5, "t.d": 40}
	var mu sync.Mutex
	var started []string
	var claims []*Claim
	for _, id := range []string{"t.a", "t.b", "t.c", "t.d", "t.unknown"} {
		claims = append(claims, &Claim{ID: id, Check: func() (*Evidence, error) {
			mu.Lock()
			started = append(started, id)
			mu.Unlock()
			return &Evidence{Verdict: Proved, Summary: id}, nil
		}})
	}
	for _, workers := range []int{1, 3, 8} {
		started = nil
		results := checkAll(claims, workers, nil)
		for k, r := range results {
			if r.Claim != claims[k] || r.Err != nil || r.Evidence.Summary != claims[k].ID {
				t.Errorf("%d workers: result %d is %s (%v), want %s's", workers, k, r.Summary(), r.Err, claims[k].ID)
			}
		}
		if want := []string{"t.unknown", "t.b", "t.d", "t.a", "t.c"}; workers == 1 && !slices.Equal(started, want) {
			t.Errorf("one worker started %s, want %s", strings.Join(started, " "), strings.Join(want, " "))
		}
	}
}
