//go:build !(linux || darwin)

package retention

import "os"

func statter(dir string, _ *os.File) func(name string, e *DirEntry) { return lstatter(dir) }
