// Command jsonlgen writes a realistic transcript of at least -size bytes to stdout, for
// scripts/bench/jsonl.sh when no generated fixture is given.
//
//	go run ./jsonl/internal/linegen/jsonlgen -size 1GiB > /tmp/big.jsonl
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/clawdoctor/clawdoctor/jsonl/internal/linegen"
)

func main() {
	size := flag.String("size", "64MiB", "minimum size (bytes, or with KiB/MiB/GiB)")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	n, err := parseSize(*size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jsonlgen:", err)
		os.Exit(2)
	}
	if _, err := linegen.Write(os.Stdout, *seed, n); err != nil {
		fmt.Fprintln(os.Stderr, "jsonlgen:", err)
		os.Exit(1)
	}
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if strings.HasSuffix(s, u.suf) {
			s, mult = strings.TrimSuffix(s, u.suf), u.m
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(v * float64(mult)), nil
}
