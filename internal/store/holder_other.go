//go:build !unix && !windows

package store

import "errors"

type holder struct{ pid int }

// startHolder has no helper here: the lock names clawdoctor's own pid.
func startHolder() (*holder, error) { return nil, errors.New("no lock holder on this system") }

func (h *holder) stop() {}

func (h *holder) kill() {}
