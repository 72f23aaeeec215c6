package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/examples"
	"github.com/proofloop/proofloop/store"
)

// exampleAgentCommand runs one of the scripted example agents that ship in
// the binary: the example's config.json names them by this command, so
// `proofloop run` drives the example from any folder.
func (a *app) exampleAgentCommand() *cobra.Command {
	var print bool
	c := &cobra.Command{
		Use:   "example-agent NAME [--print]",
		Short: "Run a scripted agent of the example project (the agents init --example configures)",
		Long: "example-agent runs the scripted agent NAME of the example project with sh, in the environment\n" +
			"`proofloop run` gives an agent (PROOFLOOP_ROOT, _ROLE, _ID, _LEASE, _ACTOR), and exits as it\n" +
			"exits. The scripts ship in the binary (they are examples/agents/*.sh of the source), so\n" +
			"`proofloop init --example DIR && proofloop run --root DIR` works from any folder.\n\n" +
			"The agents: " + strings.Join(examples.AgentNames(), ", ") + ".",
		Example:   "  proofloop example-agent check --print",
		Args:      cobra.ExactArgs(1),
		ValidArgs: examples.AgentNames(),
		RunE: func(cmd *cobra.Command, args []string) error {
			script, err := examples.AgentScript(args[0])
			if err != nil {
				return err
			}
			if print {
				_, err := fmt.Fprint(a.stdout, script)
				return err
			}
			sh := exec.Command("sh", "-c", script, args[0])
			sh.Stdin, sh.Stdout, sh.Stderr = a.stdin, a.stdout, a.stderr
			if self, err := os.Executable(); err == nil {
				// The script's proofloop is this binary, wherever it is.
				sh.Env = append(os.Environ(), "PATH="+filepath.Dir(self)+string(os.PathListSeparator)+os.Getenv("PATH"))
			}
			var ee *exec.ExitError
			switch err := sh.Run(); {
			case err == nil:
				return nil
			case errors.As(err, &ee) && ee.Exited():
				return exitStatus(ee.ExitCode())
			case errors.As(err, &ee):
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					return exitStatus(128 + int(ws.Signal()))
				}
				return exitStatus(1)
			default:
				return store.Errorf(store.CodeInternal, "cannot start sh for the example agent %s", args[0]).Wrap(err)
			}
		},
	}
	c.Flags().BoolVar(&print, "print", false, "print the script (its libraries written in place) instead of running it")
	return c
}

// exitStatus ends the command with this exit code and no message: the
// agent it ran said what went wrong on its own stderr.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
