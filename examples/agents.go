package examples

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/proofloop/proofloop/store"
)

// The scripted agents ship in the binary: `proofloop example-agent NAME`
// runs agents/NAME.sh, so the example's config.json names them by that
// command and `proofloop run` drives the example from any folder. The
// files stay in the checkout for reading and for `sh agents/NAME.sh`.

//go:embed agents/*.sh
var agents embed.FS

// sourceLine is how a script reads a library of its own folder.
var sourceLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\. "\$\(dirname "\$0"\)/([a-z_]+)\.sh"$`) })

// isLib reports whether a script is a library the agents source, not an
// agent of its own.
func isLib(name string) bool { return strings.HasSuffix(name, "lib") }

// AgentNames lists the scripted agents, in name order.
func AgentNames() []string {
	entries, _ := fs.ReadDir(agents, "agents")
	var out []string
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".sh")
		if !isLib(name) {
			out = append(out, name)
		}
	}
	return out
}

// AgentScript returns the script of the agent name with the libraries it
// sources written in place, so that `sh -c` runs it without any file.
func AgentScript(name string) (string, error) {
	if !slices.Contains(AgentNames(), name) {
		return "", store.Errorf(store.CodeNotFound, "there is no example agent %q", name).
			WithHint("the example agents are: " + strings.Join(AgentNames(), ", "))
	}
	return inline(name, 0)
}

func inline(name string, depth int) (string, error) {
	if depth > 3 {
		return "", fmt.Errorf("the example agent libraries source each other in a loop at %s", name)
	}
	b, err := fs.ReadFile(agents, "agents/"+name+".sh")
	if err != nil {
		return "", err
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(string(b), "\n") {
		m := sourceLine().FindStringSubmatch(strings.TrimRight(line, "\n"))
		if m == nil {
			out.WriteString(line)
			continue
		}
		lib, err := inline(m[1], depth+1)
		if err != nil {
			return "", err
		}
		out.WriteString(lib)
		if !strings.HasSuffix(lib, "\n") {
			out.WriteString("\n")
		}
	}
	return out.String(), nil
}
