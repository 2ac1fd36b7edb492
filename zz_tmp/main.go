package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/clawdoctor/clawdoctor/retention"
)

func main() {
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		ents, err := retention.ListDir(context.Background(), os.Args[1])
		fmt.Println(len(ents), err, time.Since(t0))
	}
	f, _ := os.Open(os.Args[1])
	t0 := time.Now()
	names, _ := f.Readdirnames(-1)
	fmt.Println("readdirnames", len(names), time.Since(t0))
}
