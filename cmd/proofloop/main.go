// Command proofloop is the CLI of the proof-workflow engine: cobra wiring,
// flag parsing, output rendering and exit codes. The work lives in skills/,
// loop/ and store/.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
