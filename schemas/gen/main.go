// Command gen writes schemas/compiled.go, the compiled form of the
// schemas beside it: run it as go generate ./schemas.
package main

import (
	"fmt"
	"go/format"
	"os"

	"github.com/proofloop/proofloop/schemas"
)

func main() {
	src, err := schemas.GenerateGo(".")
	if err == nil {
		src, err = format.Source(src)
	}
	if err == nil {
		err = os.WriteFile(schemas.GeneratedFile, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
