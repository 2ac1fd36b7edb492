package store

import "testing"

// issue 33, scope 2: a sessionFile is read in the host's form: a Windows path (drive letter,
// UNC, "\" separators) is foreign on Linux and macOS and native on Windows, where a POSIX path
// copied from another machine is the foreign one, taken on the sessions dir's volume.
func TestHostPath(t *testing.T) {
	for _, tc := range []struct {
		name, in    string
		windowsHost bool
		want        string
		wantForeign bool
	}{
		{"drive path on linux", `C:\Users\u\.openclaw\agents\main\sessions\a.jsonl`, false, "/Users/u/.openclaw/agents/main/sessions/a.jsonl", true},
		{"drive path with slashes on linux", `D:/oc/agents/main/sessions/a.jsonl`, false, "/oc/agents/main/sessions/a.jsonl", true},
		{"UNC on linux", `\\srv\share\agents\main\sessions\a.jsonl`, false, "/srv/share/agents/main/sessions/a.jsonl", true},
		{"posix on linux", "/home/u/.openclaw/agents/main/sessions/a.jsonl", false, "/home/u/.openclaw/agents/main/sessions/a.jsonl", false},
		{"relative on linux", "a.jsonl", false, "a.jsonl", false},
		{"drive path on windows", `C:\Users\u\.openclaw\agents\main\sessions\a.jsonl`, true, `C:\Users\u\.openclaw\agents\main\sessions\a.jsonl`, false},
		{"UNC on windows", `\\srv\share\a.jsonl`, true, `\\srv\share\a.jsonl`, false},
		{"posix on windows", "/home/u/.openclaw/agents/main/sessions/a.jsonl", true, `C:\home\u\.openclaw\agents\main\sessions\a.jsonl`, true},
		{"rooted backslash on windows", `\oc\agents\main\sessions\a.jsonl`, true, `C:\oc\agents\main\sessions\a.jsonl`, true},
		{"relative with backslash on windows", `sub\a.jsonl`, true, `sub\a.jsonl`, false},
	} {
		got, foreign := hostPath(tc.in, tc.windowsHost, "C:")
		if got != tc.want || foreign != tc.wantForeign {
			t.Errorf("%s: hostPath(%q) = %q foreign=%v, want %q %v", tc.name, tc.in, got, foreign, tc.want, tc.wantForeign)
		}
	}
}
