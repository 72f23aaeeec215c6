// Command pgrun runs a command against a throwaway PostgreSQL cluster:
// it starts one (installing PostgreSQL with apt-get when it is missing),
// creates and migrates a database, runs the command with $PROOFLOOP_STORE
// naming it, and removes the cluster at the end. `make demo-pg` uses it:
//
//	go run ./internal/pgtest/pgrun -- scripts/demo.sh
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/proofloop/proofloop/internal/pgtest"
	"github.com/proofloop/proofloop/store/pgstore"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: pgrun -- COMMAND [ARG...]")
		os.Exit(2)
	}
	os.Exit(run(args))
}

func run(args []string) int {
	c, err := pgtest.Start()
	if err != nil {
		pgtest.Banner(err)
		return 1
	}
	defer c.Remove()
	dsn, err := c.CreateDB("demo")
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgrun:", err)
		return 1
	}
	if err := pgstore.Migrate(dsn); err != nil {
		fmt.Fprintln(os.Stderr, "pgrun:", err)
		return 1
	}
	fmt.Printf("pgrun: a throwaway PostgreSQL cluster in %s; PROOFLOOP_STORE=%s\n", c.Dir, dsn)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "PROOFLOOP_STORE="+dsn)
	signal.Ignore(syscall.SIGINT) // the child gets it; the cluster is removed after
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "pgrun:", err)
		return 1
	}
	return 0
}
