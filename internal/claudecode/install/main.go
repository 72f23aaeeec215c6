// Command install installs the pinned Claude Code CLI into its cache for
// the tests of the real harness (`make claude-code`). When npm cannot, it
// says so loudly and exits 0: those tests then skip, loudly.
package main

import (
	"context"
	"fmt"
	"time"

	"github.com/proofloop/proofloop/internal/claudecode"
)

func main() {
	if bin, err := claudecode.Find(); err == nil {
		fmt.Printf("Claude Code %s: %s\n", claudecode.Version, bin)
		return
	}
	fmt.Printf("No Claude Code %s found: installing it with npm for the tests of the real harness.\n", claudecode.Version)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	bin, err := claudecode.Install(ctx)
	if err != nil {
		claudecode.Banner(err)
		return
	}
	fmt.Printf("Claude Code %s: %s\n", claudecode.Version, bin)
}
