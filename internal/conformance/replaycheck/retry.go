package replaycheck

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/hygiene"
)

// The prompt a model fallback retry sends: resolveFallbackRetryPrompt of each release, asked
// through replay.mjs's retry op, against hygiene.FallbackRetryPrompt.

// RetryCases are every combination of what resolveFallbackRetryPrompt reads.
func RetryCases() []hygiene.RetryPrompt {
	var out []hygiene.RetryPrompt
	for _, retry := range []bool{false, true} {
		for _, history := range []bool{false, true} {
			for _, prelude := range []string{"", "  \n", " earlier turns\n"} {
				for _, body := range []string{"fix the build", ""} {
					out = append(out, hygiene.RetryPrompt{Body: body, FallbackRetry: retry, HasHistory: history, ContextPrelude: prelude})
				}
			}
		}
	}
	return out
}

// retryRequest is the driver request for case p.
func retryRequest(id int, p hygiene.RetryPrompt) map[string]any {
	return map[string]any{"id": id, "op": "retry", "body": p.Body, "isFallbackRetry": p.FallbackRetry,
		"sessionHasHistory": p.HasHistory, "priorContextPrelude": p.ContextPrelude}
}

// RetryLine is one recorded prompt: "<release> <case index> <prompt as JSON>".
func RetryLine(release string, i int, prompt string) string {
	b, _ := json.Marshal(prompt)
	return fmt.Sprintf("%s %d %s", release, i, b)
}

// RetryGoldenPath is testdata/fallback-retry.golden.
func RetryGoldenPath() string {
	return filepath.Join(repoDir(), "internal", "conformance", "replaycheck", "testdata", "fallback-retry.golden")
}

// ParseRetryLine reads a RetryLine.
func ParseRetryLine(line string) (release string, i int, prompt string, err error) {
	f := strings.SplitN(line, " ", 3)
	if len(f) != 3 {
		return "", 0, "", fmt.Errorf("short line %q", line)
	}
	if i, err = strconv.Atoi(f[1]); err != nil {
		return "", 0, "", err
	}
	err = json.Unmarshal([]byte(f[2]), &prompt)
	return f[0], i, prompt, err
}

// retryMain asks every recorded release for the prompt of every retry case, checks
// hygiene.FallbackRetryPrompt agrees, and with record rewrites the golden.
func retryMain(ctx context.Context, ref string, record bool, stdout, stderr io.Writer) int {
	cases := RetryCases()
	var out []string
	bad := 0
	for _, rel := range RecordedReleases {
		reqs := make([]any, len(cases))
		for i, p := range cases {
			reqs[i] = retryRequest(i, p)
		}
		ans, err := Oracle{Tool: ref, Release: rel, Script: "replay.mjs"}.Run(ctx, reqs)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		for i, raw := range ans {
			var a struct {
				Prompt *string `json:"prompt"`
				Absent bool    `json:"absent"`
				Error  string  `json:"error"`
			}
			if err := json.Unmarshal(raw, &a); err != nil || a.Prompt == nil {
				fmt.Fprintf(stderr, "%s case %d: no prompt in the oracle's answer %s (%v)\n", rel, i, raw, err)
				return 1
			}
			got := hygiene.FallbackRetryPrompt(cases[i], hygiene.Release(rel))
			if got != *a.Prompt {
				bad++
				fmt.Fprintf(stdout, "%s case %d: DIFFERS (oracle %q, ours %q)\n", rel, i, *a.Prompt, got)
			}
			out = append(out, RetryLine(rel, i, *a.Prompt))
		}
	}
	fmt.Fprintf(stdout, "fallback retry prompts: %d compared, %d differ from OpenClaw\n", len(out), bad)
	if record {
		header := "# the prompt a model fallback retry sends (resolveFallbackRetryPrompt) per OpenClaw release and\n" +
			"# case of internal/conformance/replaycheck.RetryCases; recorded by\n" +
			"#   scripts/conformance.sh replay --retry --golden\n"
		if err := os.WriteFile(RetryGoldenPath(), []byte(header+strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	if bad > 0 {
		return 1
	}
	return 0
}
