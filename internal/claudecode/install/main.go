// Command install installs the pinned agent CLIs (Claude Code, Codex and
// Gemini) into their caches for the tests of the real harnesses (`make
// agent-clis`, which `make test` runs). When npm cannot, it says so loudly
// and exits 0: those tests then skip, loudly.
package main

import (
	"context"
	"fmt"
	"time"

	"github.com/proofloop/proofloop/internal/claudecode"
)

func main() {
	for _, p := range claudecode.Pins {
		if bin, err := p.Find(); err == nil {
			fmt.Printf("%s %s: %s\n", p.Name, p.Version, bin)
			continue
		}
		fmt.Printf("No %s %s found: installing it with npm for the tests of the real harness.\n", p.Name, p.Version)
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		bin, err := p.Install(ctx)
		cancel()
		if err != nil {
			p.Banner(err)
			continue
		}
		fmt.Printf("%s %s: %s\n", p.Name, p.Version, bin)
	}
}
