// Command gen writes schemas/compiled.go and compiled_KIND.go, the
// compiled form of the schemas beside them: run it as go generate ./schemas.
package main

import (
	"fmt"
	"go/format"
	"os"

	"github.com/proofloop/proofloop/schemas"
)

func main() {
	files, err := schemas.GeneratedFiles(".", format.Source)
	for name, src := range files {
		if err == nil {
			err = os.WriteFile(name, src, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
