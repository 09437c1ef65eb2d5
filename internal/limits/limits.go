package limits

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// MinFiles is the fewest file descriptors a command needs: the three
// standard streams, the runtime's poller (two), a model or shard file,
// an output's temporary file and its directory, with room for a plot.
const MinFiles = 16

// MinAddressSpace is the least address space a command needs beyond what
// is mapped when it starts: a model of a few thousand weights and the
// heap arena (64 MiB) the runtime maps for it.
const MinAddressSpace = 128 << 20

// unlimited is the figure from which a limit counts as none: cgroup v1
// writes 2^63 rounded down to a page for "no limit".
const unlimited = 1 << 62

// Memory is what the process may still take, in bytes: the least of
// MemAvailable, the cgroups' headroom and the address-space headroom; 0
// where none of them can be read.
func Memory() uint64 {
	m := Read("/")
	return m.Available()
}

// Machine holds the figures Read found; a zero field is one it could not
// read or that has no limit.
type Machine struct {
	MemAvailable   uint64 // /proc/meminfo
	CgroupHeadroom uint64 // limit less usage, the least along the cgroup's path
	AddressLimit   uint64 // RLIMIT_AS
	AddressMapped  uint64 // the process's mapped address space
	Files          uint64 // RLIMIT_NOFILE, the soft limit
}

// Read reads the figures under root ("/", or a directory laid out like
// it, for tests); the rlimits are the process's own.
func Read(root string) Machine {
	var m Machine
	if b, err := os.ReadFile(filepath.Join(root, "proc/meminfo")); err == nil {
		m.MemAvailable = meminfoAvailable(b)
	}
	if b, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup")); err == nil {
		m.CgroupHeadroom = cgroupHeadroom(root, b)
	}
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil && rl.Cur < unlimited {
		m.AddressLimit = rl.Cur
		if b, err := os.ReadFile(filepath.Join(root, "proc/self/statm")); err == nil {
			m.AddressMapped = statmSize(b)
		}
	}
	m.Files = openFiles()
	return m
}

// openFiles is the soft limit on open files (RLIMIT_NOFILE, which the Go
// runtime raises to the hard limit at start), or 0.
func openFiles() uint64 {
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil && rl.Cur < unlimited {
		return rl.Cur
	}
	return 0
}

// Available is the least of the memory figures; 0 when none was read.
func (m Machine) Available() uint64 {
	least := uint64(0)
	for _, v := range []uint64{m.MemAvailable, m.CgroupHeadroom, m.addressHeadroom()} {
		if v > 0 && (least == 0 || v < least) {
			least = v
		}
	}
	return least
}

// Hard is the least of the limits the kernel enforces on this process
// (the cgroups' and the address space's), which the runtime's soft limit
// follows; 0 when there is none.
func (m Machine) Hard() uint64 {
	least := uint64(0)
	for _, v := range []uint64{m.CgroupHeadroom, m.addressHeadroom()} {
		if v > 0 && (least == 0 || v < least) {
			least = v
		}
	}
	return least
}

// addressHeadroom is RLIMIT_AS less what is mapped, at least 1 when a
// limit is set (so that a spent limit reads as one, not as none).
func (m Machine) addressHeadroom() uint64 {
	if m.AddressLimit == 0 {
		return 0
	}
	if m.AddressMapped >= m.AddressLimit {
		return 1
	}
	return m.AddressLimit - m.AddressMapped
}

// Check says why a command cannot start under m, or nil.
func (m Machine) Check() error {
	if m.Files > 0 && m.Files < MinFiles {
		return fmt.Errorf("the limit on open files (ulimit -n) is %d; the tool needs at least %d", m.Files, MinFiles)
	}
	if m.AddressLimit > 0 && m.addressHeadroom() < MinAddressSpace {
		return fmt.Errorf("the address-space limit (ulimit -v) is %s, of which the Go runtime has mapped %s: the tool needs at least %s beyond that; raise the limit",
			mib(m.AddressLimit), mib(m.AddressMapped), mib(MinAddressSpace))
	}
	return nil
}

// Setup checks the machine's limits for a command, and sets the
// runtime's soft memory limit to the hard ones unless GOMEMLIMIT is set.
func Setup() error {
	// The file limit first: reading a file makes the runtime open its
	// poller, which dies (a fatal error) when no descriptor is left.
	if err := (Machine{Files: openFiles()}).Check(); err != nil {
		return err
	}
	m := Read("/")
	if err := m.Check(); err != nil {
		return err
	}
	if hard := m.Hard(); hard > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(min(hard, math.MaxInt64)))
	}
	return nil
}

func mib(b uint64) string { return fmt.Sprintf("%d MiB", b>>20) }

// meminfoAvailable reads MemAvailable (kB) from /proc/meminfo's text.
func meminfoAvailable(b []byte) uint64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			if f := strings.Fields(rest); len(f) >= 1 {
				if kb, err := strconv.ParseUint(f[0], 10, 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}

// statmSize reads the mapped size, the first field of /proc/self/statm,
// in pages.
func statmSize(b []byte) uint64 {
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	pages, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}

// cgroupHeadroom is the least headroom (limit less usage) of the memory
// cgroups along the process's path in /proc/self/cgroup's text, for v2
// (the "0::" line) and v1 (the line whose controllers name memory); 0
// when no limit is set.
func cgroupHeadroom(root string, self []byte) uint64 {
	least := uint64(0)
	take := func(dir, limitFile, usageFile string) {
		limit, ok := readLimit(filepath.Join(dir, limitFile))
		if !ok {
			return
		}
		usage, _ := readLimit(filepath.Join(dir, usageFile))
		h := uint64(1)
		if usage < limit {
			h = limit - usage
		}
		if least == 0 || h < least {
			least = h
		}
	}
	for _, line := range strings.Split(string(self), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var mount, limitFile, usageFile string
		switch {
		case parts[0] == "0" && parts[1] == "":
			mount, limitFile, usageFile = "sys/fs/cgroup", "memory.max", "memory.current"
		case hasController(parts[1], "memory"):
			mount, limitFile, usageFile = "sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"
		default:
			continue
		}
		base := filepath.Join(root, mount)
		for _, dir := range ancestors(base, parts[2]) {
			take(dir, limitFile, usageFile)
		}
	}
	return least
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// ancestors lists base/path and each directory above it up to base; a
// path that does not exist under base (a container's namespace hides
// the host's path) gives base alone.
func ancestors(base, path string) []string {
	dir := filepath.Join(base, filepath.Clean("/"+path))
	if _, err := os.Stat(dir); err != nil {
		return []string{base}
	}
	var dirs []string
	for {
		dirs = append(dirs, dir)
		if dir == base || len(dir) <= len(base) {
			return dirs
		}
		dir = filepath.Dir(dir)
	}
}

// readLimit reads a cgroup file's number; "max" or a figure from
// unlimited up is no limit (false).
func readLimit(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || v >= unlimited {
		return 0, false
	}
	return v, true
}
