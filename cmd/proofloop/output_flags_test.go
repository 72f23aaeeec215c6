package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// outputFlagNames are the names that make a flag an output: -o, --output,
// --to. Every such flag of the command tree must be marked (outputFlag).
func isOutputName(f *pflag.Flag) bool {
	return f.Name == "output" || f.Name == "to" || f.Shorthand == "o"
}

// TestOutputFlagsOutsideRoot (N2): every -o, --output and --to flag of
// every command, found in the cobra tree, goes through the one check of
// written paths: a target inside the contents root (the log, a statement
// through a linked folder, a link to a file inside, a dangling link into
// it, the root itself) is refused with exit 2 before the command runs, and
// nothing is written. The other flags the command needs are not given: the
// check runs first.
func TestOutputFlagsOutsideRoot(t *testing.T) {
	t.Setenv("PROOFLOOP_STORE", "")
	dir := t.TempDir()
	root := filepath.Join(dir, "contents")
	for _, args := range [][]string{{"init"}, {"new-problem", "--name", "odd", "--objective", "Show it."}} {
		if code := run(append([]string{"--root", root}, args...), strings.NewReader(""), new(bytes.Buffer), new(bytes.Buffer)); code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
	}
	for name, to := range map[string]string{"into": root, "log.txt": filepath.Join(root, "events.jsonl"), "dangling.txt": filepath.Join(root, "new.txt")} {
		if err := os.Symlink(to, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	targets := []string{filepath.Join(root, "events.jsonl"), filepath.Join(dir, "into", "statement", "x.json"),
		filepath.Join(dir, "log.txt"), filepath.Join(dir, "dangling.txt"), root}
	var found []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if !isOutputName(f) {
				return
			}
			name := commandName(c) + " --" + f.Name
			found = append(found, name)
			if len(f.Annotations[outputAnnotation]) == 0 {
				t.Errorf("%s is an output flag without outputFlag: the check of written paths does not run on it", name)
				return
			}
			for _, target := range targets {
				before := snapshot(t, root)
				var out bytes.Buffer
				args := append(append([]string{"--root", root, "--json"}, strings.Fields(commandName(c))...), "--"+f.Name, target)
				code := run(args, strings.NewReader(""), &out, new(bytes.Buffer))
				var r struct {
					Error struct{ Code, Message string }
				}
				json.Unmarshal(out.Bytes(), &r)
				if code != 2 || r.Error.Code != "invalid_input" || !strings.Contains(r.Error.Message, "inside the store") {
					t.Errorf("%s %s: exit %d, %s; want 2, invalid_input, inside the store", name, target, code, out.String())
				}
				if after := snapshot(t, root); !maps.Equal(before, after) {
					t.Errorf("%s %s changed the store", name, target)
				}
			}
		})
	}
	walk((&app{}).rootCommand())
	for _, want := range []string{"report --output", "export --output", "export --to"} {
		if !slices.Contains(found, want) {
			t.Errorf("output flags found: %v; want %s among them", found, want)
		}
	}
}
