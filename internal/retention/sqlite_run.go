package retention

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdoctor/clawdoctor/internal/config"
)

// runSQLite plans the cleanup of a SQLite-era store as OpenClaw 2026.9 would and never
// applies it: clawdoctor does not write a SQLite-era agent, so a real run is refused with the
// exact OpenClaw command that applies the same plan.
func runSQLite(ctx context.Context, t Target, sessionsDir string, opt RunOptions) (Outcome, error) {
	out := Outcome{Now: opt.Now}
	in, err := GatherSQLite(ctx, sessionsDir, t.Agent)
	if err != nil {
		return out, err
	}
	s := opt.SQLite
	if s.Mode == "" {
		s = ResolveSQLite(config.Maintenance{})
	}
	mode := ""
	if opt.Enforce {
		mode = "enforce"
	}
	p := PlanSQLite(in, SQLiteOptions{Settings: s, Now: opt.Now, ActiveKey: opt.ActiveKey, Mode: mode})
	if opt.FixMissing || opt.FixDMScope {
		p.Notes = append(p.Notes, "--fix-missing and --fix-dm-scope are not planned for a SQLite-era store yet: OpenClaw's own dry run shows them (openclaw sessions cleanup --store "+quoteArg(in.DB)+" --dry-run --fix-missing)")
	}
	out.SQLite = p
	if opt.DryRun {
		return out, nil
	}
	p.Summary.DryRun = false
	out.Command = openclawCleanup(in.DB, t.Agent, opt)
	out.Refused = fmt.Sprintf("%s is a SQLite-era store (OpenClaw 2026.8+): clawdoctor never writes it. The plan above is what OpenClaw would do; apply it with: %s", in.DB, out.Command)
	return out, nil
}

// openclawCleanup is the OpenClaw command that applies the plan.
func openclawCleanup(db, agent string, opt RunOptions) string {
	args := []string{"openclaw", "sessions", "cleanup", "--store", quoteArg(db)}
	if agent != "" {
		args = append(args, "--agent", quoteArg(agent))
	}
	args = append(args, "--enforce")
	if opt.ActiveKey != "" {
		args = append(args, "--active-key", quoteArg(opt.ActiveKey))
	}
	if opt.FixMissing {
		args = append(args, "--fix-missing")
	}
	if opt.FixDMScope {
		args = append(args, "--fix-dm-scope")
	}
	return strings.Join(args, " ")
}

// quoteArg quotes a shell argument when it needs it.
func quoteArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
