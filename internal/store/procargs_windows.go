package store

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf16"
)

// processArgs reads a lock holder's argv as OpenClaw does on Windows: the process's
// CommandLine from PowerShell's Get-CimInstance Win32_Process, else from wmic, each within
// 5 s, split by ParseWindowsCommandLine.
func processArgs(pid int) ([]string, error) {
	root := windowsRoot()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ps := exec.CommandContext(ctx, filepath.Join(root, "System32", "WindowsPowerShell", "v1.0", "powershell.exe"), "-NoProfile", "-Command",
		fmt.Sprintf(`(Get-CimInstance Win32_Process -Filter "ProcessId = %d" | Select-Object -ExpandProperty CommandLine)`, pid))
	ps.SysProcAttr = &syscall.SysProcAttr{HideWindow: true}
	if out, err := ps.Output(); err == nil {
		return commandArgs(strings.TrimSpace(decodeWindowsOutput(out))), nil
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	wmic := exec.CommandContext(ctx2, filepath.Join(root, "System32", "wbem", "wmic.exe"), "process", "where", fmt.Sprintf("ProcessId=%d", pid), "get", "CommandLine", "/value")
	wmic.SysProcAttr = &syscall.SysProcAttr{HideWindow: true}
	out, err := wmic.Output()
	if err != nil {
		return nil, err
	}
	return commandArgs(extractWindowsCommandLine(decodeWindowsOutput(out))), nil
}

func commandArgs(cmd string) []string {
	if cmd == "" {
		return nil
	}
	return ParseWindowsCommandLine(cmd)
}

// windowsRoot is the Windows directory: %SystemRoot%, else %WINDIR%, else C:\Windows.
func windowsRoot() string {
	for _, k := range []string{"SystemRoot", "WINDIR"} {
		if v := strings.TrimSpace(os.Getenv(k)); v != "" {
			return v
		}
	}
	return `C:\Windows`
}

// decodeWindowsOutput reads UTF-16LE output (with its BOM, as wmic writes it) or UTF-8.
func decodeWindowsOutput(b []byte) string {
	if len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe {
		u := make([]uint16, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
		}
		return string(utf16.Decode(u))
	}
	return string(b)
}

// extractWindowsCommandLine finds the value of wmic's "CommandLine=..." line.
func extractWindowsCommandLine(out string) string {
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	for _, l := range lines {
		if strings.HasPrefix(strings.ToLower(l), "commandline=") {
			return strings.TrimSpace(l[len("commandline="):])
		}
	}
	for _, l := range lines {
		if strings.ToLower(l) != "commandline" {
			return l
		}
	}
	return ""
}
