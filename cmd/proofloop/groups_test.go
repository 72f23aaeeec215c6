package main

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandHasAHelpGroup: a new command without a section in
// commandGroups (or the registry, for a skill) fails here, and a name in
// commandGroups that is no command is stale.
func TestEveryCommandHasAHelpGroup(t *testing.T) {
	a := &app{stdout: io.Discard, stderr: io.Discard}
	root := a.rootCommand()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	groups := map[string]bool{}
	for _, g := range root.Groups() {
		groups[g.ID] = true
	}
	var names []string
	for _, c := range root.Commands() {
		names = append(names, c.Name())
		if c.Hidden {
			continue
		}
		if c.GroupID == "" || !groups[c.GroupID] {
			t.Errorf("command %s has help group %q; add it to one line of commandGroups (groups.go)", c.Name(), c.GroupID)
		}
	}
	for _, g := range commandGroups() {
		for _, c := range g.Commands {
			if !slices.Contains(names, c.name) {
				t.Errorf("commandGroups lists %s in %s, but there is no such command", c.name, g.ID)
			}
			if c.build != nil {
				if got := c.build(a).Name(); got != c.name {
					t.Errorf("commandGroups lists %s with the constructor of %s", c.name, got)
				}
			}
		}
	}
}

// TestCompletionByFlagName: a flag's completion comes from its name on any
// command, so a later command with --status or --kind gets it for free.
func TestCompletionByFlagName(t *testing.T) {
	a := &app{stdout: io.Discard, stderr: io.Discard, root: t.TempDir()}
	root := &cobra.Command{Use: "proofloop"}
	root.PersistentFlags().String("root", "", "")
	later := &cobra.Command{Use: "list", Run: func(*cobra.Command, []string) {}}
	later.Flags().String("status", "", "")
	later.Flags().String("kind", "", "")
	root.AddCommand(later)
	a.registerCompletions(root)
	for _, tc := range []struct {
		flag, prefix string
		want         []string
	}{
		{"status", "", []string{"pending", "solved", "awaiting_verification", "has_gap", "awaiting_substatements", "true", "false", "needs_modification"}},
		{"status", "awaiting_", []string{"awaiting_verification", "awaiting_substatements"}},
		{"kind", "", []string{"problem", "statement"}},
	} {
		fn, ok := later.GetFlagCompletionFunc(tc.flag)
		if !ok {
			t.Fatalf("--%s has no completion", tc.flag)
		}
		got, dir := fn(later, nil, tc.prefix)
		if !slices.Equal(got, tc.want) || dir != cobra.ShellCompDirectiveNoFileComp {
			t.Errorf("--%s %q completes %v (%v); want %v", tc.flag, tc.prefix, got, dir, tc.want)
		}
	}
	if got := strings.Join(allStatuses(), " "); strings.Count(got, "pending") != 1 {
		t.Errorf("allStatuses() = %s; want each status once", got)
	}
}
