package store

import (
	"bufio"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/windows"
)

// holder is the helper process whose pid a WriteLock names (see WriteLock).
type holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	pid   int
}

func startHolder() (*holder, error) {
	cmd := exec.Command(filepath.Join(windowsRoot(), "System32", "cmd.exe"))
	// A Ctrl-C on the console must not end it before clawdoctor has released the lock.
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: windowsHolderCmdLine, HideWindow: true,
		CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
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
