package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// outputAnnotation marks a flag whose value is a path the command writes
// (report -o, export -o, export --to); its value names what is written,
// for the message ("the report").
const outputAnnotation = "proofloop_output"

// outputFlag marks flag name of c as an output: checkOutputs runs the one
// check of written paths on it before the command runs.
func outputFlag(c *cobra.Command, name, what string) {
	if err := c.Flags().SetAnnotation(name, outputAnnotation, []string{what}); err != nil {
		panic(err) // a flag not defined: a bug of the command's wiring
	}
}

// checkOutputs refuses, before the command runs and so before it writes
// anything, an output flag whose path lies inside the contents root or is
// the project's proofloop.json (store.CheckOutput), its default included
// (report's report.html, from a working folder inside the root). "-" is
// standard output. Writing a file is a person's act: in an agent's turn
// (a run's, or under a lease) an output file is refused (person_only),
// since a path of the agent's choosing outside the store could be a git
// hook, a shell profile or another project's file.
func (a *app) checkOutputs(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		what := f.Annotations[outputAnnotation]
		if err != nil || len(what) == 0 {
			return
		}
		if v := f.Value.String(); v != "" && v != "-" {
			if err = a.personOnly(fmt.Sprintf("writing %s to a file (%s %s %s)", what[0], cmd.Name(), flagSpelling(f), v)); err != nil {
				return
			}
			err = store.CheckOutput(a.root, v, what[0], flagSpelling(f))
		}
	})
	return err
}

// flagSpelling is how a person would type the flag: -o, or --to.
func flagSpelling(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand
	}
	return "--" + f.Name
}

// checkTexts runs the one check of text and the limits table
// (skills.CheckValue) on every flag, given or defaulted (a default may come
// from the environment: $PROOFLOOP_HARNESS, $PROOFLOOP_MODEL_ID), and every
// argument, before the command runs: bytes that are not UTF-8 were replaced by U+FFFD and
// stored, NUL and U+202E passed in objectives, and a topic had no bound
// (issue 34 N15). Over MCP every argument arrives here as a flag, or as
// JSON that DecodeStrict checks. A long text (a proof, a body) is bounded
// by max_input_bytes, read from the store only for a value longer than
// its smallest setting; a value read from @FILE is checked by
// skills.Source.Text once read.
func (a *app) checkTexts(cmd *cobra.Command, args []string) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		name, what := strings.ReplaceAll(f.Name, "-", "_"), "--"+f.Name
		if !f.Changed {
			what += " (its default, which may come from a $PROOFLOOP_ variable)"
		}
		for _, v := range flagStrings(f) {
			if err != nil {
				return
			}
			maxInput := int64(0)
			if skills.LimitOf(name) == 0 && len(v) > minMaxInput {
				maxInput = a.maxInput()
			}
			err = skills.CheckValue(name, what, v, maxInput)
		}
	})
	for i, v := range args {
		if err == nil {
			err = skills.CheckValue("", fmt.Sprintf("argument %d (%.20q)", i+1, v), v, 0)
		}
	}
	return err
}

// minMaxInput is the smallest max_input_bytes config.json accepts: a long
// text no longer than it needs no look at the store's setting.
const minMaxInput = 1024

// maxInput is the store's max_input_bytes, or 0 when the store cannot be
// opened (the command then says why).
func (a *app) maxInput() int64 {
	if a.resolveStore() != nil {
		return 0
	}
	s, err := a.open()
	if err != nil {
		return 0
	}
	defer s.Close()
	cfg, err := s.Config()
	if err != nil {
		return 0
	}
	return cfg.MaxInputBytes
}

// flagStrings are the text values of a flag: a string's, a list's
// (stringArray, a skill parameter's values, whatever their type: they are
// text until the skill parses them), none for a bool, a number, a list of
// numbers or a duration.
func flagStrings(f *pflag.Flag) []string {
	if pv, ok := f.Value.(*paramValue); ok {
		return pv.vals
	}
	switch f.Value.Type() {
	case "string":
		return []string{f.Value.String()}
	case "stringArray", "stringSlice":
		return f.Value.(pflag.SliceValue).GetSlice()
	}
	return nil
}
