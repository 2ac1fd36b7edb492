package view

import (
	"os/exec"
	"path/filepath"
	"runtime"
)

// Open asks the desktop to open page in the default browser (xdg-open, open, or start) and
// returns without waiting for the browser.
func Open(page string) error {
	abs, err := filepath.Abs(page)
	if err != nil {
		return err
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", abs)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", abs)
	default:
		cmd = exec.Command("xdg-open", abs)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() //nolint:errcheck // the opener's exit status says nothing about the page
	return nil
}
