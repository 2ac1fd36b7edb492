// owner_argv.mjs asks the installed OpenClaw release how it reads and judges the command line of
// a transcript lock's holder, the test behind "non-openclaw-owner":
//   owner    isOpenClawSessionOwnerArgv(argv)      (session-write-lock)
//   windows  parseCmdScriptCommandLine(cmdline)    (how Windows' CommandLine is split)
//   ps       the two lines of readGatewayProcessArgsSync that split `ps -o command=` output
//            on macOS (inlined there, so evaluated here as written)
//
//   openclaw-reference --node internal/conformance/oracle/owner_argv.mjs < requests.jsonl
//
// A request is {"kind":..., "in":...}; the answer, one line each, {"out":...} or {"error":...}.
import { createInterface } from "node:readline";
import { find } from "./chunks.mjs";

const owner = await find("isOpenClawSessionOwnerArgv");
const windows = await find("parseCmdScriptCommandLine");
const ps = (stdout) => {
  const command = stdout.trim();
  return command ? command.split(/\s+/) : null;
};

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const req = JSON.parse(line);
  let ans;
  try {
    switch (req.kind) {
      case "owner": ans = { out: owner(req.in) }; break;
      case "windows": ans = { out: windows(req.in) }; break;
      case "ps": ans = { out: ps(req.in) }; break;
      default: ans = { error: `unknown kind ${req.kind}` };
    }
  } catch (e) {
    ans = { error: String(e?.message ?? e) };
  }
  process.stdout.write(JSON.stringify(ans) + "\n");
}
