// Command minimal is the baseline of the proofloop benchmarks: the least a
// process can do to change one document durably. It opens and reads FILE,
// writes the same bytes to a temp file beside it, fsyncs that file and
// renames it over FILE. bench_test.go execs it next to the real proofloop
// binary, so both pay the same process start.
//
// Usage: minimal FILE
package main

import (
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: minimal FILE")
		return 2
	}
	if err := rewrite(args[0]); err != nil {
		fmt.Fprintln(os.Stderr, "minimal:", err)
		return 1
	}
	return 0
}

// rewrite replaces name with its own content: open, read, write a temp
// file, fsync, rename.
func rewrite(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	content, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return err
	}
	tmp := name + ".tmp"
	t, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := t.Write(content); err != nil {
		t.Close()
		return err
	}
	if err := t.Sync(); err != nil {
		t.Close()
		return err
	}
	if err := t.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}
