package limits

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (path → content) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, s := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const meminfo = "MemTotal:       32000000 kB\nMemFree:  1000 kB\nMemAvailable:   8000000 kB\n"

func TestReadMemory(t *testing.T) {
	const gib = 1 << 30
	tests := []struct {
		name  string
		files map[string]string
		want  uint64 // CgroupHeadroom
	}{
		{"v2, the limit of a parent binds", map[string]string{
			"proc/self/cgroup":                      "0::/job/step\n",
			"sys/fs/cgroup/job/step/memory.max":     "max\n",
			"sys/fs/cgroup/job/step/memory.current": "1000\n",
			"sys/fs/cgroup/job/memory.max":          "2147483648\n",
			"sys/fs/cgroup/job/memory.current":      "1073741824\n",
		}, 1 * gib},
		{"v2, own limit less usage", map[string]string{
			"proc/self/cgroup":               "0::/a\n",
			"sys/fs/cgroup/a/memory.max":     "3221225472\n",
			"sys/fs/cgroup/a/memory.current": "1073741824\n",
		}, 2 * gib},
		{"v2, a container sees its cgroup at the root", map[string]string{
			"proc/self/cgroup":             "0::/host/path/hidden\n",
			"sys/fs/cgroup/memory.max":     "1073741824\n",
			"sys/fs/cgroup/memory.current": "0\n",
		}, 1 * gib},
		{"v1, the memory controller's line", map[string]string{
			"proc/self/cgroup": "5:cpu,cpuacct:/x\n4:memory:/slurm/job1\n0::/\n",
			"sys/fs/cgroup/memory/slurm/job1/memory.limit_in_bytes": "4294967296\n",
			"sys/fs/cgroup/memory/slurm/job1/memory.usage_in_bytes": "1073741824\n",
			"sys/fs/cgroup/memory/slurm/memory.limit_in_bytes":      "9223372036854771712\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":            "9223372036854771712\n",
		}, 3 * gib},
		{"v1, unlimited everywhere", map[string]string{
			"proc/self/cgroup": "4:memory:/p\n",
			"sys/fs/cgroup/memory/p/memory.limit_in_bytes": "9223372036854771712\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":   "9223372036854771712\n",
		}, 0},
		{"usage over the limit leaves nothing, not no limit", map[string]string{
			"proc/self/cgroup":               "0::/a\n",
			"sys/fs/cgroup/a/memory.max":     "1000\n",
			"sys/fs/cgroup/a/memory.current": "5000\n",
		}, 1},
		{"no cgroup file", map[string]string{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.files["proc/meminfo"] = meminfo
			m := Read(writeTree(t, tt.files))
			if m.CgroupHeadroom != tt.want {
				t.Errorf("cgroup headroom %d, want %d", m.CgroupHeadroom, tt.want)
			}
			if m.MemAvailable != 8000000*1024 {
				t.Errorf("MemAvailable %d, want %d", m.MemAvailable, 8000000*1024)
			}
			want := uint64(8000000 * 1024)
			if tt.want > 0 && tt.want < want {
				want = tt.want
			}
			if m.AddressLimit == 0 { // the test's own process has no ulimit -v
				if got := m.Available(); got != want {
					t.Errorf("Available %d, want %d", got, want)
				}
			}
		})
	}
}

func TestAvailableAndCheck(t *testing.T) {
	tests := []struct {
		name      string
		m         Machine
		available uint64
		hard      uint64
		err       string // a part of Check's error; "" for none
	}{
		{"nothing known", Machine{}, 0, 0, ""},
		{"meminfo alone is not a hard limit", Machine{MemAvailable: 100 << 20}, 100 << 20, 0, ""},
		{"the address space counts what is mapped", Machine{MemAvailable: 8 << 30, AddressLimit: 2 << 30, AddressMapped: 1200 << 20}, 848 << 20, 848 << 20, ""},
		{"a spent address space", Machine{AddressLimit: 1300 << 20, AddressMapped: 1244 << 20}, 56 << 20, 56 << 20, "ulimit -v"},
		{"mapped beyond the limit", Machine{AddressLimit: 100, AddressMapped: 200}, 1, 1, "ulimit -v"},
		{"the cgroup binds", Machine{MemAvailable: 8 << 30, CgroupHeadroom: 1 << 30}, 1 << 30, 1 << 30, ""},
		{"too few files", Machine{Files: MinFiles - 1}, 0, 0, "ulimit -n"},
		{"enough files", Machine{Files: MinFiles}, 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.m.Available(); got != tt.available {
				t.Errorf("Available %d, want %d", got, tt.available)
			}
			if got := tt.m.Hard(); got != tt.hard {
				t.Errorf("Hard %d, want %d", got, tt.hard)
			}
			err := tt.m.Check()
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("Check: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("Check: %v, want an error naming %q", err, tt.err)
			}
		})
	}
}
