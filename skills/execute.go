package skills

import (
	"fmt"
	"strings"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/store"
)

// Execute runs a skill as one transaction on s. It resolves the target
// parameter (a bare id or a path inside the root) before any file is read.
func Execute(s *store.Store, sk *Skill, opts store.TxOptions, in *Input) (*Result, error) {
	for _, p := range sk.Params {
		if p.Type == TypeRef && in.Has(p.Name) {
			id, _, err := s.ParseRef(in.Text(p.Name))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.Name, err)
			}
			in.vals[p.Name] = id
		}
	}
	opts.Target = in.Text(sk.Target)
	if sk.Prepare != nil {
		if err := sk.Prepare(s, in); err != nil {
			return nil, explain(s, sk.Name, opts.Target, opts.Lease, err)
		}
	}
	var r *Result
	_, err := s.Update(opts, func(tx *store.Tx) error {
		return loop.GuardLease(s, tx, opts.Target, opts.Lease, func() error {
			var err error
			r, err = sk.Run(tx, in)
			return err
		})
	})
	if err != nil {
		return nil, explain(s, sk.Name, opts.Target, opts.Lease, err)
	}
	return r, nil
}

// Help is the long help of a skill: its purpose, its row of the transition
// table and its parameters, all from the registry.
func Help(sk *Skill) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", sk.Purpose)
	if r := sk.Rule(); r != nil {
		var roles []string
		for _, ro := range r.Roles {
			roles = append(roles, string(ro))
		}
		fmt.Fprintf(&b, "\nRole: %s\n", strings.Join(roles, ", "))
		for _, f := range r.BySource() {
			var sts []string
			for _, s := range f.Statuses {
				sts = append(sts, string(s))
			}
			src := ""
			if f.Source != "" {
				src = " (source " + string(f.Source) + ")"
			}
			fmt.Fprintf(&b, "Acts on%s: %s %s\n", src, r.Kind, strings.Join(sts, ", "))
		}
		fmt.Fprintf(&b, "Leaves: %s\n", r.Leaves)
		for _, g := range r.Guards {
			fmt.Fprintf(&b, "Guard: %s\n", g.Text)
		}
	}
	b.WriteString("\nParameters (flag, or snake_case key of --input):\n")
	for _, p := range sk.Params {
		req := "optional"
		if p.Required {
			req = "required"
		}
		fmt.Fprintf(&b, "  --%s / %s (%s, %s): %s\n", FlagName(p.Name), p.Name, p.Type, req, p.Help)
	}
	return b.String()
}
