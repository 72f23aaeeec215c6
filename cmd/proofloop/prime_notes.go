package main

import (
	"fmt"
	"io"

	"github.com/proofloop/proofloop/model"
)

// primeNotes adds what a role must know about severities and late
// findings: a fixer weighs a critical error and a gap differently, and a
// checker may reopen a true statement.
func primeNotes(w io.Writer, r model.Role) {
	switch r {
	case model.RoleFix:
		fmt.Fprintf(w, "\nSeverity: every issue is %s (the step is wrong) or %s (the step is unsupported);\n", model.SeverityCritical, model.SeverityGap)
		fmt.Fprintln(w, "`proofloop show ID --json` lists it per issue. A gap calls for fix-patch-proof or")
		fmt.Fprintln(w, "fix-create-substatement. A critical error usually calls for state-mark-false or")
		fmt.Fprintln(w, "state-propose-modification (--source fix), not a patch: a patch cannot mend a wrong step.")
	case model.RoleCheck:
		fmt.Fprintln(w, "\nA flaw in a statement that is already true: `proofloop reopen` records it against the")
		fmt.Fprintln(w, "accepted proof (true -> has_gap); whatever relies on it is no longer fully proved.")
	}
}
