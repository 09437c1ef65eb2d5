// Package atomicfile writes output files so that a reader sees the old
// file or the whole new one, never half of it, and so that a write never
// replaces what the user did not ask to replace.
//
// What a path names decides how it is written:
//
//   - a regular file, or nothing yet: the content goes to a temporary
//     file beside it, renamed over the path only once complete; an
//     existing file keeps its permission bits, a new one gets 0666 less
//     the umask, as a shell's redirection would;
//   - a symbolic link: it is followed, and its target is replaced as a
//     regular file would be (the link stays a link);
//   - a device, a FIFO or a socket (/dev/null, /dev/stdout, a named pipe):
//     the content is written to it as a stream, with no temporary file
//     and no rename;
//   - a directory: refused, by Check before any work starts, and by Write.
//
// Temporary files are named .NAME.verify-PID-RANDOM.tmp. Each is removed
// when its write fails, and RemoveTemporary removes those still being
// written, for a signal handler; a file left by a process that was
// killed (SIGKILL cannot be caught) is found by Stale, which names the
// temporary files of a path whose process no longer runs.
//
// It imports nothing of the module; the frontier (plots) and the command
// line (reports, exported models) use it.
package atomicfile
