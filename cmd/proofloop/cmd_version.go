package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and the VCS revision proofloop was built from (also: --version)",
		Args:  noArgs,
		RunE:  func(*cobra.Command, []string) error { return a.printVersion() },
	}
}

// buildVersion is what the Go toolchain recorded in the binary: the module
// version (a tag, a pseudo-version, or "(devel)" when none was stamped) and
// the VCS settings of the checkout it was built in. `go build` and `go
// install` in a git checkout record them; a test binary has none.
type buildVersion struct {
	Version  string `json:"version"`
	Revision string `json:"revision"` // "" when not built from a VCS checkout
	Time     string `json:"time"`     // the revision's commit time
	Modified bool   `json:"modified"` // the checkout had uncommitted changes
	Go       string `json:"go"`
}

func readBuildVersion() buildVersion {
	v := buildVersion{Version: "(devel)", Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the one line `proofloop version` prints.
func (v buildVersion) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "proofloop %s", v.Version)
	switch {
	case v.Revision == "":
		b.WriteString(" (no VCS revision recorded)")
	default:
		fmt.Fprintf(&b, " (revision %s", v.Revision)
		if v.Time != "" {
			fmt.Fprintf(&b, ", %s", v.Time)
		}
		if v.Modified {
			b.WriteString(", with uncommitted changes")
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, ", %s", v.Go)
	return b.String()
}

func (a *app) printVersion() error {
	v := readBuildVersion()
	if a.json {
		return a.writeJSON(map[string]any{"ok": true, "command": "version", "version": v.Version,
			"revision": v.Revision, "time": v.Time, "modified": v.Modified, "go": v.Go})
	}
	_, err := fmt.Fprintln(a.stdout, v)
	return err
}
