//go:build !windows

package report

import "os"

// enableVT reports whether the terminal f shows ANSI sequences: every unix terminal does.
func enableVT(*os.File) bool { return true }
