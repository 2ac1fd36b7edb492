package commands

import "runtime/debug"

// Version is set with -ldflags "-X github.com/clawdoctor/clawdoctor/commands.Version=v1.2.3";
// otherwise it comes from the module build info.
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
