// Command hello is the reference of the start figure of make bench: a Go
// program that prints one line, against which `proofloop version` is
// compared in the same run (issue 26).
package main

import "fmt"

func main() { fmt.Println("hello") }
