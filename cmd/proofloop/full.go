//go:build !lean

package main

// lean is false in the default build, which has every command (lean.go).
const lean = false
