// Command gen writes a large, valid contents root for benchmarks and scale
// tests (see package storegen):
//
//	go run ./bench/gen -statements 100000 DIR
//	go run ./bench/gen -statements 0 -reserve gap=20,biggap=10 DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/proofloop/proofloop/bench/storegen"
)

func main() {
	statements := flag.Int("statements", 100_000, "bulk statements to write, in trees of every status")
	reserve := flag.String("reserve", "", "reserved items per shape, e.g. gap=20,biggap=10; shapes: "+strings.Join(storegen.Shapes, ", "))
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: gen [-statements N] [-reserve shape=n,...] DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	o := storegen.Options{Statements: *statements, Reserve: map[string]int{}}
	for kv := range strings.SplitSeq(*reserve, ",") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 0 {
			fmt.Fprintf(os.Stderr, "gen: -reserve %q: want shape=count\n", kv)
			os.Exit(2)
		}
		o.Reserve[k] = n
	}
	start := time.Now()
	sum, err := storegen.Generate(flag.Arg(0), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d problems, %d statements, %d events, %d leases to %s in %v\n",
		sum.Problems, sum.Statements, sum.Events, sum.Leases, flag.Arg(0), time.Since(start).Round(time.Millisecond))
}
