package main

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/proofloop/proofloop/store"
)

// fullOnly names the commands that the lean build hands off to the full
// one (lean.go): the commands whose packages a skill call should not pay
// to initialise.
var fullOnly = []string{"report", "serve", "mcp"}

// fullBinary is the full build's file name, beside the lean binary: make
// build writes bin/proofloop (lean) and bin/proofloop-full.
const fullBinary = "proofloop-full"

// handOff runs the command line args, which names the full-only command
// name, with proofloop-full beside this executable, in place of this
// process: the same pid, streams, environment, signals and exit code. It
// returns only when that binary is missing or cannot be run.
func (a *app) handOff(name string, args []string) int {
	a.command, a.json = name, jsonAsked(args)
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return a.fail(store.Errorf(store.CodeInternal, "find this executable to run %s beside it", fullBinary).Wrap(err))
	}
	full := filepath.Join(filepath.Dir(exe), fullBinary)
	if _, err := os.Stat(full); err != nil {
		return a.fail(store.Errorf(store.CodeUsage, "%s is a command of the full build, and %s is not beside this proofloop (%s)", name, fullBinary, filepath.Dir(exe)).
			WithHint("make build writes both bin/proofloop and bin/" + fullBinary + "; or build it there: go build -o " + full + " ./cmd/proofloop"))
	}
	err = syscall.Exec(full, append([]string{full}, args...), os.Environ())
	return a.fail(store.Errorf(store.CodeInternal, "run %s", full).Wrap(err))
}

// handsOff reports whether this build hands the command name off.
func handsOff(name string) bool { return lean && slices.Contains(fullOnly, name) }

// jsonAsked reports whether args ask for --json before any "--".
func jsonAsked(args []string) bool {
	for _, arg := range args {
		if arg == "--" {
			break
		}
		if arg == "--json" || arg == "--json=true" {
			return true
		}
	}
	return false
}
