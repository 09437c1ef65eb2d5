package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Load is how busy the machine was while a case (or a whole run) ran:
// on a shared machine the other processes slow a case's wall clock, and
// through the caches its CPU time a little.
type Load struct {
	// Before and After are the 1-minute load averages (runnable
	// processes, /proc/loadavg) when it started and when it ended.
	Before float64 `json:"loadavg1_before"`
	After  float64 `json:"loadavg1_after"`
	// OtherCPUSeconds is the CPU time the machine spent on other
	// processes meanwhile: its busy time (/proc/stat) less the case's own.
	OtherCPUSeconds float64 `json:"other_cpu_seconds"`
	// Seconds is the wall time between the two readings.
	Seconds float64 `json:"seconds"`
}

// OtherCPUs is the number of CPUs the other processes kept busy on
// average.
func (l *Load) OtherCPUs() float64 {
	if l.Seconds <= 0 {
		return 0
	}
	return l.OtherCPUSeconds / l.Seconds
}

func (l *Load) String() string {
	return fmt.Sprintf("1-minute load average %.2f at the start, %.2f at the end; other processes used %.1f CPU-s in %.1f s (%.2f CPUs on average)",
		l.Before, l.After, l.OtherCPUSeconds, l.Seconds, l.OtherCPUs())
}

// LoadSample is one reading of the machine's load.
type LoadSample struct {
	avg1 float64 // 1-minute load average
	busy float64 // CPU-seconds the machine has been busy since boot
	at   time.Time
	ok   bool
}

// SampleLoad reads the machine's load now (Linux's /proc; elsewhere a
// sample that Between turns into nil).
func SampleLoad() LoadSample {
	s := LoadSample{at: time.Now()}
	avg, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return s
	}
	f := strings.Fields(string(avg))
	if len(f) == 0 {
		return s
	}
	if s.avg1, err = strconv.ParseFloat(f[0], 64); err != nil {
		return s
	}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	f = strings.Fields(line)
	// cpu user nice system idle iowait irq softirq steal …, in ticks of
	// USER_HZ, which Linux fixes at 100 for user space.
	if len(f) < 9 || f[0] != "cpu" {
		return s
	}
	var ticks float64
	for k, v := range f[1:9] {
		if k == 3 || k == 4 { // idle, iowait
			continue
		}
		t, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return s
		}
		ticks += t
	}
	s.busy, s.ok = ticks/100, true
	return s
}

// Between is the load from a to b, of which own CPU-seconds were the
// measured process's; nil when either reading failed.
func Between(a, b LoadSample, own float64) *Load {
	if !a.ok || !b.ok {
		return nil
	}
	return &Load{Before: a.avg1, After: b.avg1, OtherCPUSeconds: max(0, b.busy-a.busy-own), Seconds: b.at.Sub(a.at).Seconds()}
}
