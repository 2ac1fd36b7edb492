// accept.mjs checks that the real OpenClaw accepts transcripts: for each file it runs
// repairSessionFileIfNeeded, then opens the repaired copy with SessionManager.open and builds
// the context OpenClaw would send (buildSessionContext), on a temporary copy (the original is
// never touched). One Node process serves many requests.
//
//   {"id":N,"path":"/abs/file.jsonl"}
//     → {"id":N,"repair":{"repaired":bool,"reason":string},"messages":<context messages>}
//     or {"id":N,"error":"<what threw>"}
//   {"id":N,"op":"version"} → {"id":N,"version":"2026.6.11"}
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { find } from "./chunks.mjs";
import { serve } from "./serve.mjs";

const repair = await find("repairSessionFileIfNeeded");
const SessionManager = await find("SessionManager");

async function accept(req) {
  const dir = await mkdtemp(join(tmpdir(), "oracle-accept-"));
  try {
    const file = join(dir, basename(req.path).replace(/\.jsonl.*$/, ".jsonl"));
    await copyFile(req.path, file);
    const r = await repair({ sessionFile: file, warn: () => {} });
    const sm = SessionManager.open(file, dir);
    const ctx = sm.buildSessionContext();
    return { repair: { repaired: r.repaired, reason: r.reason ?? "" }, messages: ctx.messages.length };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await serve({ default: accept });
