// Package limits reads what the machine lets this process have: the
// memory it may still take and the files it may hold open.
//
// Memory is the least of four figures, each where the machine has it:
//
//   - MemAvailable in /proc/meminfo: what the kernel can give without
//     swapping;
//   - the memory cgroup's limit less its usage, for cgroup v2
//     (memory.max, memory.current) and v1 (memory.limit_in_bytes,
//     memory.usage_in_bytes), read for the process's own cgroup, named
//     in /proc/self/cgroup, and each cgroup above it (a limit on a
//     parent binds its children); a container that shows only its own
//     cgroup at the mount's root is read there;
//   - the address-space limit (RLIMIT_AS, ulimit -v) less the address
//     space the process has already mapped (/proc/self/statm): the Go
//     runtime reserves hundreds of megabytes it never touches, which
//     count against this limit and not against the others.
//
// Setup applies them at the start of a command: it refuses to start with
// fewer file descriptors than MinFiles or less address space than
// MinAddressSpace beyond what is mapped (one line, instead of the Go
// runtime's fatal error and goroutine dump midway), and sets the
// runtime's soft memory limit (debug.SetMemoryLimit) to the hard limits
// it found, so that the collector works harder before the kernel kills
// the process or an allocation fails, unless GOMEMLIMIT is set.
//
// Below about 750 MiB of address space the Go runtime cannot reserve its
// heap's bookkeeping and stops before any of this code runs, with a
// message of its own; nothing a Go program does can change that.
package limits
