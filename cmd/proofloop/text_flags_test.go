//go:build !lean

package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proofloop/proofloop/skills"
)

// TestTextFlagLimits (N15): every string flag of every command, found in
// the cobra tree, is bounded by the limits table: a value one past its
// limit (one byte past max_input_bytes, set to 1024, for a long text) is
// refused with exit 2 before the command runs, naming the limit, and
// nothing is written; so is a value with a byte that is not UTF-8, with
// its offset. The other flags a command needs are not given: the check
// comes first.
func TestTextFlagLimits(t *testing.T) {
	t.Setenv("PROOFLOOP_STORE", "")
	root := filepath.Join(t.TempDir(), "contents")
	for _, args := range [][]string{{"init"}, {"config", "set", "max_input_bytes", "1024"}} {
		if code := run(append([]string{"--root", root}, args...), strings.NewReader(""), new(bytes.Buffer), new(bytes.Buffer)); code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
	}
	try := func(name string, args []string, want string) {
		t.Helper()
		before := snapshot(t, root)
		var out bytes.Buffer
		code := run(append([]string{"--root", root, "--json"}, args...), strings.NewReader(""), &out, new(bytes.Buffer))
		var r struct {
			Error struct{ Code, Message string }
		}
		json.Unmarshal(out.Bytes(), &r)
		if code != 2 || r.Error.Code != "invalid_input" || !strings.Contains(r.Error.Message, want) {
			t.Errorf("%s: exit %d, %.300s; want 2, invalid_input, %q", name, code, out.String(), want)
		}
		if after := snapshot(t, root); !maps.Equal(before, after) {
			t.Errorf("%s changed the store", name)
		}
	}
	tried := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() || c.Name() == "help" {
			return
		}
		path := strings.Fields(commandName(c))
		// The command's positional arguments, which cobra checks before
		// any flag's value: an id of the right kind.
		for range usagePositionals(c.Use) {
			path = append(path, map[bool]string{true: "deb_x", false: "prob_x"}[path[0] == "debate"])
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if flagStrings(f) == nil || f.Name == "root" {
				return // a bool, a number, a duration; --root names the store
			}
			name := strings.ReplaceAll(f.Name, "-", "_")
			over, want := strings.Repeat("a", skills.LimitOf(name)+1), "characters, more than the"
			if skills.LimitOf(name) == 0 {
				over, want = strings.Repeat("a", 1025), "bytes, more than max_input_bytes (1024)"
			}
			label := commandName(c) + " --" + f.Name
			try(label, append(path, "--"+f.Name, over), want)
			try(label+" (not UTF-8)", append(path, "--"+f.Name, "ok\xff"), "--"+f.Name+": a byte that is not UTF-8 (0xff) at byte 2")
			tried++
		})
	}
	walk((&app{}).rootCommand())
	try("a positional argument", []string{"show", strings.Repeat("a", skills.DefaultTextLimit+1)}, "more than the 4096 allowed")
	if tried < 80 {
		t.Errorf("%d string flags tried; the tree has more than 80", tried)
	}
}
