package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// npmTime is the time npm pack gives every file of a package, so packages are reproducible.
var npmTime = time.Date(1985, 10, 26, 8, 15, 0, 0, time.UTC)

// npmPlatformPackage is the package of one platform's binary: os and cpu restrict it to the
// machines it runs on, so npm installs it only there (the main package lists every one as an
// optional dependency).
func npmPlatformPackage(t Target, version string, exe []byte) ([]byte, error) {
	pj, err := json.MarshalIndent(map[string]any{
		"name":            t.npmName(),
		"version":         version,
		"description":     fmt.Sprintf("The clawdoctor binary for %s %s (installed by the clawdoctor package).", t.NodeOS, t.NodeArch),
		"license":         "MIT",
		"os":              []string{t.NodeOS},
		"cpu":             []string{t.NodeArch},
		"preferUnplugged": true,
		"files":           []string{"bin/" + t.exe()},
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	readme := fmt.Sprintf("# %s\n\nThe clawdoctor binary for %s %s. Install `clawdoctor`, not this package: npm picks the\nplatform package itself.\n", t.npmName(), t.NodeOS, t.NodeArch)
	return tarGz([]archived{
		{"package/package.json", append(pj, '\n'), 0o644},
		{"package/README.md", []byte(readme), 0o644},
		{"package/bin/" + t.exe(), exe, 0o755},
	}, npmTime)
}

// npmMainPackage is the clawdoctor package: bin/clawdoctor.js starts the binary of the
// platform package npm installed.
func npmMainPackage(targets []Target, version string, readme []byte) ([]byte, error) {
	opt := map[string]string{}
	var table []string
	for _, t := range targets {
		opt[t.npmName()] = version
		table = append(table, fmt.Sprintf("  %q: %q,", t.NodeOS+" "+t.NodeArch, t.npmName()))
	}
	pj, err := json.MarshalIndent(map[string]any{
		"name":                 "clawdoctor",
		"version":              version,
		"description":          "Offline maintenance and forensics for the session data of the OpenClaw AI-agent gateway.",
		"license":              "MIT",
		"bin":                  map[string]string{"clawdoctor": "bin/clawdoctor.js"},
		"files":                []string{"bin/clawdoctor.js"},
		"engines":              map[string]string{"node": ">=18"},
		"optionalDependencies": opt,
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	shim := strings.Replace(binShim, "  // PLATFORMS\n", strings.Join(table, "\n")+"\n", 1)
	return tarGz([]archived{
		{"package/package.json", append(pj, '\n'), 0o644},
		{"package/README.md", readme, 0o644},
		{"package/bin/clawdoctor.js", []byte(shim), 0o755},
	}, npmTime)
}

// binShim starts the platform's binary with the same arguments, standard streams and exit
// status. A Ctrl-C reaches the binary from the terminal itself (the whole foreground process
// group gets it), so the shim ignores SIGINT rather than forward a second one, which the
// binary would take for "stop at once"; SIGTERM and SIGHUP, sent to the shim's pid alone, are
// passed on.
const binShim = `#!/usr/bin/env node
"use strict";
// clawdoctor's npm entry point: it runs the clawdoctor binary of this platform, installed by
// npm from one of this package's optional dependencies (nothing is downloaded at install time).
const { spawn } = require("child_process");

const packages = {
  // PLATFORMS
};

const key = process.platform + " " + process.arch;
const pkg = packages[key];
if (!pkg) {
  console.error("clawdoctor: no binary for " + key + " (known: " + Object.keys(packages).join(", ") + "); install it with: go install github.com/clawdoctor/clawdoctor@latest");
  process.exit(4);
}
let bin;
try {
  bin = require.resolve(pkg + "/bin/clawdoctor" + (process.platform === "win32" ? ".exe" : ""));
} catch {
  console.error("clawdoctor: the package " + pkg + " is not installed: npm leaves out optional dependencies with --omit=optional or --no-optional; reinstall without it");
  process.exit(4);
}
const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: false });
process.on("SIGINT", () => {});
for (const sig of ["SIGTERM", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (err) => {
  console.error("clawdoctor: " + err.message);
  process.exit(4);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 4 : code);
});
`
