//go:build lean

package main

import "github.com/proofloop/proofloop/store"

// The lean build (go build -tags lean, what make build installs as
// proofloop) leaves out the commands whose packages would otherwise be
// initialised on every call of the binary, a skill call included:
// report and serve (goldmark, html/template, net/http) and mcp (the MCP
// SDK, encoding/gob, a JSON Schema library). Their command lines are
// handed to proofloop-full (handoff.go), the default build, which has every
// command. A skill call of the lean binary runs about 40% fewer instructions.
const lean = true

func (a *app) runReport(string, string) error     { return notInLean("report") }
func (a *app) runServe(string, string, int) error { return notInLean("serve") }
func (a *app) runMCP(string, bool) error          { return notInLean("mcp") }

// notInLean is what a full-only command does if it is ever run in the lean
// binary in-process: execute hands its command line off before that.
func notInLean(name string) error {
	return store.Errorf(store.CodeInternal, "%s is not in the lean build of proofloop", name)
}
