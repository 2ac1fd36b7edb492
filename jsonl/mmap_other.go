//go:build !(linux || darwin)

package jsonl

import (
	"errors"
	"os"
)

// mapFile is not used here (Windows maps files differently): validate streams the file.
func mapFile(*os.File, int64) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmap([]byte) error { return nil }
func dropPages([]byte)   {}
