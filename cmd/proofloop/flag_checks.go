package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
// anything, an output flag whose path lies inside the contents root
// (store.CheckOutput), its default included (report's report.html, from a
// working folder inside the root). "-" is standard output.
func (a *app) checkOutputs(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		what := f.Annotations[outputAnnotation]
		if err != nil || len(what) == 0 {
			return
		}
		if v := f.Value.String(); v != "" && v != "-" {
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
