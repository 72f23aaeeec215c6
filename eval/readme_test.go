package eval

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
)

// TestReadmeEvalTable: the README's figures of the scripted agents on the
// shipped set are those their behaviour implies (make bench measures them
// through the binary).
func TestReadmeEvalTable(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	rate := func(r model.Rate) string { return fmt.Sprintf("%.2f [%.2f, %.2f]", *r.Rate, *r.Low, *r.High) }
	for _, name := range []string{"confirm-all", "reject-all", "finds-planted", "two-categories"} {
		c, err := Implied(Shipped(), name)
		if err != nil {
			t.Fatal(err)
		}
		r := c.Rates()
		row := fmt.Sprintf("| %s | %d/%d | %d/%d | %d/%d | %d/%d | %s |", name, c.AcceptedCorrect, r.FalseReject.N,
			c.RejectedCorrect, r.FalseReject.N, c.CaughtFlawed, r.Catch.N, c.Located, r.Catch.N, rate(r.Catch))
		if !strings.Contains(readme, row+"\n") {
			t.Errorf("README.md has no row\n%s", row)
		}
	}
	c, _ := Implied(Shipped(), "prove-all")
	line := fmt.Sprintf("submits a proof of all %d false claims: %d/%d proved, %s.", c.Items, c.ProvedFalse, c.Items, rate(c.Rates().ProvedFalse))
	if !strings.Contains(readme, line) {
		t.Errorf("README.md does not say %q", line)
	}
}
