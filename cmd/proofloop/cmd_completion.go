package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

// Shell completion: cobra's `completion bash|zsh|fish|powershell` writes
// the script, and the script asks `proofloop __complete ...` for
// candidates. The functions below make those candidates know the store:
// document ids from the folder names under --root, and the values of
// roles, statuses, kinds and every enum parameter of the skills.
//
// They are registered by flag name and by the shape of a command's Use
// line, so a new command gets them without code of its own: a first
// argument named ID completes document ids, and a flag called role,
// problem, id, status or kind completes what its name says.

// completeRoles are the roles a --role flag takes.
var completeRoles = []string{string(model.RoleSolve), string(model.RoleProve), string(model.RoleCheck), string(model.RoleFix), string(model.RoleDecide)}

// flagCompletions complete a flag by its name, on any command.
func (a *app) flagCompletions() map[string]cobra.CompletionFunc {
	return map[string]cobra.CompletionFunc{
		"role":    fixed(completeRoles...),
		"problem": a.completeIDs(model.KindProblem),
		"id":      a.completeIDs(model.KindProblem, model.KindStatement),
		"status":  fixed(allStatuses()...),
		"kind":    fixed(string(model.KindProblem), string(model.KindStatement)),
	}
}

// registerCompletions walks the command tree and registers the completion
// of every argument and flag that has one.
func (a *app) registerCompletions(root *cobra.Command) {
	root.RegisterFlagCompletionFunc("root", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
	byName := a.flagCompletions()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.ValidArgsFunction == nil && takesID(c) {
			c.ValidArgsFunction = a.completeIDs(model.KindProblem, model.KindStatement)
		}
		sk, isSkill := skills.Find(c.Name())
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if _, done := c.GetFlagCompletionFunc(f.Name); done {
				return
			}
			if fn := byName[f.Name]; fn != nil {
				c.RegisterFlagCompletionFunc(f.Name, fn)
			}
			if isSkill {
				if fn := a.paramCompletion(sk, f.Name); fn != nil {
					c.RegisterFlagCompletionFunc(f.Name, fn)
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// takesID reports whether a command's first argument is a document id, as
// its Use line says ("show ID [--sentences]", "claim ID --role R").
func takesID(c *cobra.Command) bool {
	words := strings.Fields(c.Use)
	return len(words) > 1 && strings.HasPrefix(words[1], "ID")
}

// paramCompletion completes a skill's flag from its registry entry: a
// document parameter with the ids of its kind, an enum with its values.
func (a *app) paramCompletion(sk *skills.Skill, flag string) cobra.CompletionFunc {
	for _, p := range sk.Params {
		if skills.FlagName(p.Name) != flag {
			continue
		}
		switch {
		case len(p.Enum) > 0:
			return fixed(p.Enum...)
		case p.Type == skills.TypeRef && strings.Contains(p.Name, "problem"):
			return a.completeIDs(model.KindProblem)
		case p.Type == skills.TypeRef:
			return a.completeIDs(model.KindStatement)
		}
	}
	return nil
}

// completeIDs lists the documents of the given kinds under --root by their
// file names alone: no lock, no parsing, no schema check, so completion
// stays instant on a large store and works on a damaged one.
func (a *app) completeIDs(kinds ...model.Kind) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, k := range kinds {
			entries, _ := os.ReadDir(filepath.Join(a.root, k.Dir()))
			for _, e := range entries {
				id, ok := strings.CutSuffix(e.Name(), ".json")
				if ok && !strings.HasPrefix(id, ".") && strings.HasPrefix(id, toComplete) && !slices.Contains(args, id) {
					out = append(out, id)
				}
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// fixed completes one of a fixed list of values.
func fixed(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, v := range values {
			if strings.HasPrefix(v, toComplete) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// allStatuses lists the statuses of every kind, each once.
func allStatuses() []string {
	var out []string
	for _, k := range []model.Kind{model.KindProblem, model.KindStatement} {
		for _, s := range model.Statuses(k) {
			if !slices.Contains(out, string(s)) {
				out = append(out, string(s))
			}
		}
	}
	return out
}
