//go:build unix

package store

import (
	"bufio"
	"errors"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// holder is the helper process whose pid a WriteLock names (see WriteLock).
type holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	pid   int
}

func startHolder() (*holder, error) {
	// "openclaw" as an argument makes OpenClaw's isOpenClawSessionOwnerArgv accept the holder;
	// "clawdoctor-lock-holder" ($0) tells a person reading ps what it is.
	cmd := exec.Command(unixHolderArgs[0], unixHolderArgs[1:]...)
	// Its own process group: a Ctrl-C on the terminal must not end it before clawdoctor has
	// finished and released the lock.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ready := make(chan error, 1)
	go func() {
		_, err := bufio.NewReader(stdout).ReadString('\n')
		ready <- err
	}()
	select {
	case err = <-ready:
	case <-time.After(5 * time.Second):
		err = errors.New("lock holder did not start")
	}
	h := &holder{cmd: cmd, stdin: stdin, pid: cmd.Process.Pid}
	if err != nil {
		h.stop()
		return nil, err
	}
	return h, nil
}

func (h *holder) stop() {
	if h == nil {
		return
	}
	h.stdin.Close()
	exited := make(chan struct{})
	go func() { h.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(2 * time.Second):
		h.cmd.Process.Kill()
		<-exited
	}
}

// kill ends the helper at once (a forced exit does not wait for it).
func (h *holder) kill() {
	if h != nil {
		h.cmd.Process.Kill()
	}
}
