package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/proofloop/proofloop/model"
)

// ImportOPCLines is ImportOPC's items as JSON Lines, each checked as
// ReadSet checks a set's lines, so that what it prints reads back.
func ImportOPCLines(raw []byte) ([]byte, []string, error) {
	items, warnings, err := ImportOPC(raw)
	if err != nil {
		return nil, warnings, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return nil, warnings, err
		}
	}
	if _, err := ParseSet("the import", b.Bytes()); err != nil {
		return nil, warnings, err
	}
	return b.Bytes(), warnings, nil
}

// WriteTable writes an eval report for a person: a line saying what was
// run, then one row per agent with its counts and its rates with their
// 95% intervals.
func WriteTable(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "eval of the %s role on %s: %s", rep.Role, rep.Set, model.Count(rep.Items, "item"))
	if rep.Skipped > 0 {
		fmt.Fprintf(w, " (%d more for the other role)", rep.Skipped)
	}
	fmt.Fprintln(w, "; rates with their 95% Wilson intervals")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if rep.Role == model.RoleProve {
		fmt.Fprintln(tw, "agent\tmodel\titems\tproved\tshown false\tchanged\tno verdict\tproved a false claim\tshown false or changed\t")
		for _, f := range rep.Agents {
			c := f.Counts
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", f.Label, dash(f.Model), c.Items, c.ProvedFalse, c.ShownFalse,
				c.ProposedChange, c.NoVerdict, RateText(f.Rates.ProvedFalse), RateText(f.Rates.Refuted))
		}
	} else {
		fmt.Fprintln(tw, "agent\tmodel\titems\taccepted\trejected\tcaught\tmissed\tlocated\tno verdict\tcatch rate\tfalse rejects\tlocated\t")
		for _, f := range rep.Agents {
			c := f.Counts
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", f.Label, dash(f.Model), c.Items, c.AcceptedCorrect,
				c.RejectedCorrect, c.CaughtFlawed, c.MissedFlawed, c.Located, c.NoVerdict,
				RateText(f.Rates.Catch), RateText(f.Rates.FalseReject), RateText(f.Rates.Located))
		}
	}
	tw.Flush()
}

// RateText is a rate for a person: k/n, the rate and its interval, or
// "-" when nothing was measured.
func RateText(r model.Rate) string {
	if r.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d %.2f [%.2f, %.2f]", r.K, r.N, *r.Rate, *r.Low, *r.High)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
