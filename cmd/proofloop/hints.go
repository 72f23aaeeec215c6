package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// The hints of the refusals the CLI itself makes (flags, commands,
// arguments) and of a not_found, which needs the store to suggest ids.
// Every other hint comes with its error (store.HintOf).

// hint is the hint of err: its own, or for an id that names nothing, the
// nearest ids of the index.
func (a *app) hint(err error) string {
	h := store.HintOf(err)
	var ie *model.IDError
	if h == "" && errors.As(err, &ie) {
		h = store.BadIDHint
	}
	if h == "" {
		// The refusal table of the generated docs says what to do about
		// a code; an error that brought no hint of its own gets that.
		h = skills.CodeHint(codeOf(err))
	}
	var se *store.Error
	if errors.As(err, &se) && se.Code == store.CodeLeaseHeld && se.Held != nil && a.lease != "" {
		return a.tokenHint(se.Held, h)
	}
	if !errors.As(err, &se) || se.Code != store.CodeNotFound || se.Missing == "" {
		return h
	}
	s, oerr := a.openRoot()
	if oerr != nil {
		return h
	}
	defer s.Close()
	near, nerr := s.NearestIDs(se.Missing, 3)
	switch {
	case nerr != nil:
		return h
	case len(near) == 0:
		return "no id is near " + se.Missing + ": take ids from `proofloop next`, `proofloop status` or `created` in an earlier output, never guess them"
	}
	return "did you mean " + strings.Join(near, " or ") + "? (`proofloop status` lists the documents)"
}

// tokenHint says what became of the lease whose token the caller gave,
// from the item's lease records: it expired or was released, or the token
// was never a lease of the item. h is the hint to keep when the log cannot
// tell.
func (a *app) tokenHint(held *store.HeldBy, h string) string {
	s, err := a.openRoot()
	if err != nil {
		return h
	}
	defer s.Close()
	past, err := s.PastLeaseOf(held.ID, a.lease)
	if err != nil {
		return h
	}
	now := fmt.Sprintf("%s holds %s now, until %s: do not retry; take other work (`proofloop next --role %s --claim`) or end your turn",
		held.Holder, held.ID, held.ExpiresAt, held.Role)
	switch {
	case past == nil:
		return "the token you gave was never a lease of " + held.ID + " (mistyped, or another item's); " + now
	case past.ReleasedAt != "":
		return fmt.Sprintf("your lease (as %s, claimed at %s) was released at %s; %s", past.Holder, past.ClaimedAt, past.ReleasedAt, now)
	}
	return fmt.Sprintf("your lease (as %s, claimed at %s) expired at %s; %s", past.Holder, past.ClaimedAt, past.ExpiresAt, now)
}

var (
	unknownFlag    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^unknown flag: --(\S+)`) })
	unknownShort   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^unknown shorthand flag: '(.)'`) })
	needsArg       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^flag needs an argument: (?:--(\S+)|'(.)')`) })
	badFlagValue   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^invalid argument ".*" for "(?:-., )?--(\S+)" flag`) })
	unknownCommand = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^unknown command "([^"]*)"`) })
)

// flagHint says what to do about a flag that did not parse: the nearest
// flag for an unknown one, the flag's own help for a missing or bad value.
func flagHint(cmd *cobra.Command, err error) string {
	msg := err.Error()
	help := "`" + cmd.CommandPath() + " --help` lists its flags"
	if m := unknownFlag().FindStringSubmatch(msg); m != nil {
		var names []string
		visitFlags(cmd, func(f *pflag.Flag) { names = append(names, f.Name) })
		if near := model.Nearest(m[1], names, 2); len(near) > 0 {
			return "did you mean --" + strings.Join(near, " or --") + "? (" + help + ")"
		}
		return cmd.CommandPath() + " has no flag like --" + m[1] + ": " + help
	}
	if m := unknownShort().FindStringSubmatch(msg); m != nil {
		return cmd.CommandPath() + " has no flag -" + m[1] + ": " + help
	}
	name := ""
	if m := needsArg().FindStringSubmatch(msg); m != nil {
		name = m[1] + m[2]
	} else if m := badFlagValue().FindStringSubmatch(msg); m != nil {
		name = m[1]
	}
	if f := lookupFlag(cmd, name); f != nil {
		return fmt.Sprintf("--%s takes %s: %s", f.Name, flagValue(f), f.Usage)
	}
	return help
}

// usageHint says what to do about a command line that named no command or
// gave it the wrong arguments.
func usageHint(c *cobra.Command, err error) string {
	if m := unknownCommand().FindStringSubmatch(err.Error()); m != nil {
		var names []string
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				names = append(names, sub.Name())
			}
		}
		if near := model.Nearest(m[1], names, 2); len(near) > 0 {
			return "did you mean `" + c.CommandPath() + " " + strings.Join(near, "` or `"+c.CommandPath()+" ") + "`? (`" + c.CommandPath() + " --help` lists the commands)"
		}
		if c.HasSubCommands() {
			return "`" + c.CommandPath() + " --help` lists the commands"
		}
	}
	if c.HasParent() {
		return "usage: " + c.UseLine() + " (`" + c.CommandPath() + " --help` says more)"
	}
	return "run `proofloop --help` for the commands and flags"
}

func visitFlags(cmd *cobra.Command, fn func(*pflag.Flag)) {
	seen := map[string]bool{}
	for _, fs := range []*pflag.FlagSet{cmd.Flags(), cmd.InheritedFlags()} {
		fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && !seen[f.Name] {
				seen[f.Name] = true
				fn(f)
			}
		})
	}
}

func lookupFlag(cmd *cobra.Command, name string) *pflag.Flag {
	if name == "" {
		return nil
	}
	if f := cmd.Flags().Lookup(name); f != nil {
		return f
	}
	if len(name) == 1 {
		if f := cmd.Flags().ShorthandLookup(name); f != nil {
			return f
		}
	}
	return cmd.InheritedFlags().Lookup(name)
}

// flagValue names what a flag's value is: the back-quoted name of its
// usage, else its type.
func flagValue(f *pflag.Flag) string {
	if name, _ := pflag.UnquoteUsage(f); name != "" {
		return "a " + name
	}
	return "a value of type " + f.Value.Type()
}
