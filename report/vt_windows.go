package report

import (
	"os"

	"golang.org/x/sys/windows"
)

// enableVT turns on virtual-terminal processing for the console f and reports whether it is
// on. Windows 10's console and Windows Terminal accept it; the legacy console (and a console
// whose mode cannot be read) does not, and would print the escape bytes as text, so output
// there stays plain.
func enableVT(f *os.File) bool {
	h := windows.Handle(f.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
