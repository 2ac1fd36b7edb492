package store

// windowsHolderCmdLine is the Windows helper's command line, given to Windows as written: cmd.exe prints
// ready, then `set /p` waits for a line on stdin, which never comes: it returns at end of
// input, when clawdoctor releases the lock or dies (the pipe closes with the process), and
// `rem` ignores the rest. Split as OpenClaw splits it (ParseWindowsCommandLine) the line holds
// the argument "openclaw", which makes isOpenClawSessionOwnerArgv accept the holder, and
// "clawdoctor-lock-holder" tells a person reading the task list what it is.
const windowsHolderCmdLine = `cmd.exe /d /q /c echo ready& set /p x=& rem clawdoctor-lock-holder openclaw`

// unixHolderArgs is the helper's argv on unix (holder_unix.go): /bin/sh runs holderScript, with
// $0 and $1 as written.
var unixHolderArgs = []string{"/bin/sh", "-c", holderScript, "clawdoctor-lock-holder", "openclaw"}

// holderScript says it is ready, then waits for its stdin to close: clawdoctor closes it on
// release, and the kernel closes it when clawdoctor dies, even by SIGKILL.
const holderScript = `echo ready; read x`
