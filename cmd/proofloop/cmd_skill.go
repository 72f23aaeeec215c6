package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// skillCommand wires one registry entry as a subcommand: a flag per
// parameter, --input for all of them as JSON, and --expect-revision.
func (a *app) skillCommand(sk *skills.Skill) *cobra.Command {
	var input string
	c := &cobra.Command{
		Use:     sk.Name + " [flags]",
		Short:   sk.Purpose,
		Long:    skills.Help(sk),
		Example: "  proofloop " + sk.Name + " " + sk.Example,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			flags := map[string][]string{}
			for _, p := range sk.Params {
				if f := cmd.Flags().Lookup(skills.FlagName(p.Name)); f != nil && f.Changed {
					flags[p.Name], _ = cmd.Flags().GetStringArray(f.Name)
				}
			}
			var raw []byte
			if input != "" {
				var err error
				if raw, err = a.readInput(input); err != nil {
					return err
				}
			}
			in, err := skills.ParseInput(sk, flags, raw, a.stdin)
			if err != nil {
				return err
			}
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := skills.Execute(s, sk, a.txOptions(cmd, ""), in)
			if err != nil {
				return err
			}
			return a.ok(r)
		},
	}
	for _, p := range sk.Params {
		help := p.Help
		if len(p.Enum) > 0 {
			help += " (one of: " + strings.Join(p.Enum, ", ") + ")"
		}
		if p.Type == skills.TypeTexts || p.Type == skills.TypeInts {
			help += "; repeat the flag for several"
		}
		c.Flags().StringArray(skills.FlagName(p.Name), nil, help)
	}
	c.Flags().StringVar(&input, "input", "", "all parameters as one JSON object with snake_case keys, from `FILE` or - (stdin)")
	addExpectRevision(c)
	return c
}

func (a *app) readInput(name string) ([]byte, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(a.stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, store.Errorf(store.CodeInvalidInput, "cannot read --input %s: %v", name, err).WithHint("give a JSON file, or - for standard input")
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, store.Errorf(store.CodeInvalidInput, "--input %s is empty", name).WithHint(fmt.Sprintf("give one JSON object"))
	}
	return b, nil
}
