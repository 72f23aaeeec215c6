package main

import (
	"bytes"
	"io"
	"testing"

	"github.com/proofloop/proofloop/report"
	"github.com/proofloop/proofloop/skills"
)

// TestNamed: the command a command line names is found past the root's
// flags and their values, and anything else builds the whole tree.
func TestNamed(t *testing.T) {
	root := (&app{}).newRoot()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"version"}, "version"},
		{[]string{"--root", "x", "--json", "show", "prob_a"}, "show"},
		{[]string{"--root=x", "check-reject-proof", "--statement-path", "s"}, "check-reject-proof"},
		{[]string{"--json", "--actor", "show", "version"}, "version"}, // show is --actor's value
		{[]string{"--json=false", "--lease", "t", "--store", "postgres://h/d", "config", "get"}, "config"},
		{[]string{"help", "show"}, ""},
		{[]string{"__complete", "show", ""}, ""},
		{[]string{"completion", "bash"}, ""},
		{[]string{"--nope", "show"}, ""},
		{[]string{"shw"}, ""},
		{[]string{"--", "show"}, ""},
		{[]string{"--version"}, ""},
		{nil, ""},
	} {
		if got := named(root, tc.args); got != tc.want {
			t.Errorf("named(%q) = %q; want %q", tc.args, got, tc.want)
		}
	}
}

// TestOneCommandTree: a command line that builds only its own command
// prints the same help as with the whole tree, for every command.
func TestOneCommandTree(t *testing.T) {
	var names []string
	for _, g := range commandGroups() {
		for _, c := range g.Commands {
			if c.build != nil {
				names = append(names, c.name)
			}
		}
	}
	for _, s := range skills.Registry {
		names = append(names, s.Name)
	}
	for _, name := range names {
		var one, whole bytes.Buffer
		if code := (&app{stdin: &bytes.Buffer{}, stdout: &one, stderr: &one}).execute([]string{name, "--help"}); code != 0 {
			t.Errorf("%s --help: exit %d\n%s", name, code, one.String())
		}
		a := &app{stdin: &bytes.Buffer{}, stdout: &whole, stderr: io.Discard}
		root := a.rootCommand()
		root.SetArgs([]string{name, "--help"})
		root.SetOut(&whole)
		root.Execute()
		if one.Len() == 0 || one.String() != whole.String() {
			t.Errorf("%s --help with its command alone:\n%s\nwith the whole tree:\n%s", name, one.String(), whole.String())
		}
	}
}

// TestFullOnlyCommands: the commands the lean build hands off are commands
// of the tree, and serve's flag default is the report package's own.
func TestFullOnlyCommands(t *testing.T) {
	root := (&app{}).rootCommand()
	for _, name := range fullOnly {
		if c, _, err := root.Find([]string{name}); err != nil || c == root {
			t.Errorf("fullOnly names %q, which is no command", name)
		}
		if handsOff(name) {
			t.Errorf("the default build hands %q off; only the lean one does", name)
		}
	}
	if defaultMaxStreams != report.DefaultMaxStreams {
		t.Errorf("serve --max-streams defaults to %d; report.DefaultMaxStreams is %d", defaultMaxStreams, report.DefaultMaxStreams)
	}
}
