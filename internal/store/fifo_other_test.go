//go:build !unix

package store_test

import "errors"

func syscallMkfifo(string) error { return errors.New("no FIFOs here") }
