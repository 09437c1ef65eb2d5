package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// cmdVersion prints the module version and the revision the binary was
// built from, as the Go toolchain recorded them in the build info.
func cmdVersion(stdout io.Writer) error {
	_, err := fmt.Fprintln(stdout, versionLine())
	return err
}

// versionLine is "verify VERSION, revision REV (TIME[, modified]), GO".
// 'go build' and 'go install' in a checkout record the revision; 'go
// run' and -buildvcs=false do not, which the line says.
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "verify: no build information in this binary"
	}
	version := bi.Main.Version
	if version == "" {
		version = "(unknown)"
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	rev := "revision unknown (built without version control information: 'go run', or -buildvcs=false)"
	if r := settings["vcs.revision"]; r != "" {
		rev = "revision " + r
		if t := settings["vcs.time"]; t != "" {
			rev += " (" + t
			if settings["vcs.modified"] == "true" {
				rev += ", with uncommitted changes"
			}
			rev += ")"
		}
	}
	return fmt.Sprintf("verify %s, %s, %s", version, rev, bi.GoVersion)
}
