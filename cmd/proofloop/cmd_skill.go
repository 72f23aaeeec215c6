package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// skillCommand wires one registry entry as a subcommand: a flag per
// parameter, --input for all of them as JSON, and --expect-revision.
func (a *app) skillCommand(sk *skills.Skill) *cobra.Command {
	var input string
	vals := map[string]*paramValue{}
	c := &cobra.Command{
		Use:     sk.Name + " [flags]",
		Short:   sk.Purpose,
		Long:    skills.Help(sk),
		Example: "  proofloop " + sk.Name + " " + sk.Example,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.oneShot {
				defer pauseGC(skillHeap)()
			}
			flags := map[string][]string{}
			for name, v := range vals {
				if v.vals != nil {
					flags[name] = v.vals
				}
			}
			return a.withSource(func(s *store.Store, src skills.Source) error {
				var raw []byte
				var err error
				if input != "" {
					if raw, err = readInput(src, input); err != nil {
						return err
					}
				}
				in, err := skills.ParseInput(sk, flags, raw, src)
				if err != nil {
					return err
				}
				r, err := skills.Execute(s, sk, a.txOptions(cmd, ""), in)
				if err != nil {
					return err
				}
				return a.ok(r)
			})
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
		vals[p.Name] = &paramValue{typ: valueName[p.Type]}
		c.Flags().Var(vals[p.Name], skills.FlagName(p.Name), help)
	}
	c.Flags().StringVar(&input, "input", "", "all parameters as one JSON object with snake_case keys, from `FILE` or - (stdin)")
	addExpectRevision(c)
	return c
}

// paramValue collects the values of one parameter's flag (a list flag
// repeats); its Type is the value name --help shows.
type paramValue struct {
	vals []string
	typ  string
}

func (v *paramValue) Set(s string) error { v.vals = append(v.vals, s); return nil }
func (v *paramValue) String() string     { return strings.Join(v.vals, ",") }
func (v *paramValue) Type() string       { return v.typ }

// valueName names a flag's value in --help by the parameter's type.
var valueName = map[skills.ParamType]string{
	skills.TypeRef: "ID|PATH", skills.TypeText: "TEXT", skills.TypeTexts: "TEXT", skills.TypeInt: "N",
	skills.TypeInts: "N", skills.TypeEnum: "VALUE", skills.TypeRange: "N-M", skills.TypeSubs: "JSON",
}

// readInput reads the --input document, capped like every input.
func readInput(src skills.Source, name string) ([]byte, error) {
	b, err := src.File(name, "--input")
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, store.Errorf(store.CodeInvalidInput, "--input %s is empty", name).WithHint("give one JSON object")
	}
	return b, nil
}
