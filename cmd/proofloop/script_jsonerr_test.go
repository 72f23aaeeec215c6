package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// plainCopy matches a plain error line the CLI would print on stderr.
var plainCopy = regexp.MustCompile(`(?m)^(proofloop\b.*: |hint: )`)

// jsonErr reads the --json error object of the last command, after checking
// that the command wrote no plain copy of it on stderr (with --json the error
// is on stdout only), and prints it as the plain lines `proofloop CMD: MSG`
// and `hint: HINT` on its own stderr, so that a story's `stderr` lines check
// the object's message and hint. Its stdout repeats the command's, and the
// command's other stderr lines (an `exit=N` from rc.sh) follow the plain ones.
func jsonErr(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: jsonerr")
	}
	stdout, stderr := ts.ReadFile("stdout"), ts.ReadFile("stderr")
	if plainCopy.MatchString(stderr) {
		ts.Fatalf("with --json the error belongs on stdout only; stderr has a plain copy:\n%s", stderr)
	}
	var obj struct {
		OK      *bool  `json:"ok"`
		Command string `json:"command"`
		Error   struct {
			Message, Hint string
		} `json:"error"`
	}
	found := false
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &obj) == nil && obj.OK != nil && !*obj.OK {
			found = true
			break
		}
	}
	if !found {
		ts.Fatalf("stdout holds no --json error object:\n%s", stdout)
	}
	prefix := "proofloop"
	if obj.Command != "" {
		prefix += " " + obj.Command
	}
	fmt.Fprint(ts.Stdout(), stdout)
	fmt.Fprintf(ts.Stderr(), "%s: %s\n", prefix, obj.Error.Message)
	if obj.Error.Hint != "" {
		fmt.Fprintf(ts.Stderr(), "hint: %s\n", obj.Error.Hint)
	}
	fmt.Fprint(ts.Stderr(), stderr)
}
