// repair.mjs runs the real OpenClaw repairSessionFileIfNeeded on many transcripts in one Node
// process (start-up costs about 1.5 s, one repair about a millisecond).
//
//   openclaw-reference --node internal/conformance/oracle/repair.mjs < requests.jsonl > answers.jsonl
//
// Each request is one JSON line:
//   {"id":N,"data":"<base64 of the transcript bytes>","now":<ms since epoch>}
//     → {"id":N,"result":<what repairSessionFileIfNeeded returned>,"out":"<base64>"|null}
//       out is the file's bytes after the call, null when the call left them unchanged.
//   {"id":N,"op":"canon","data":"<base64>"}
//     → {"id":N,"lines":[{"same":true}|{"s":JSON.stringify(JSON.parse(line))}|{"blank":true}|{"err":true}]}
//       per line of data split as the repair splits it (/\r?\n/), so the Go side can check its
//       model of JSON.parse + JSON.stringify against V8's ("same": the line is its own
//       JSON.stringify, which keeps recorded answers small).
//   {"id":N,"op":"load","data":"<base64>"}
//     → {"id":N,"entries":N,"messages":N,"header":bool,"out":"<base64>"|null}
//       what SessionManager.open (pi's loader) makes of the file, without repairing it first:
//       entries kept, messages buildSessionContext sends, whether it found a header, and the
//       file's bytes when opening rewrote it (the texts of audit's rules are checked on these).
//   {"id":N,"op":"version"} → {"id":N,"version":"2026.6.11"}
// The clock (Date, Date.now) is pinned to each request's "now" and randomUUID counts up from
// 00000000-0000-4000-8000-000000000001 per request, so synthetic entries are reproducible;
// the Go side still normalises their ids.
import crypto from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { setNow } from "./clock.mjs";

let uuidCounter = 0;
crypto.randomUUID = () => `00000000-0000-4000-8000-${(++uuidCounter).toString(16).padStart(12, "0")}`;
syncBuiltinESMExports();

// Imported after the patches so the chunk's `import { randomUUID } from "node:crypto"` sees them;
// chunks.find takes the function from the chunk that exports it (or declares it, for 2026.3.x).
const { find } = await import("./chunks.mjs");
const { serve } = await import("./serve.mjs");
const repair = await find("repairSessionFileIfNeeded");

const work = await mkdtemp(join(tmpdir(), "oracle-repair-"));
let seq = 0;

async function repairOne(req) {
  const data = Buffer.from(req.data, "base64");
  setNow(req.now);
  uuidCounter = 0;
  const file = join(work, `s${++seq}.jsonl`);
  await writeFile(file, data);
  const warnings = [];
  let result;
  try {
    result = await repair({ sessionFile: file, warn: (m) => warnings.push(m) });
  } finally {
    // keep going on a throw: the answer says so
  }
  const after = await readFile(file);
  await rm(file, { force: true });
  if (result && result.backupPath) await rm(result.backupPath, { force: true });
  if (result) {
    delete result.validatedSnapshot; // dev/ino/mtime of a temp file: noise
    delete result.backupPath;
  }
  return { result, warnings, out: after.equals(data) ? null : after.toString("base64") };
}

let SessionManager;

async function load(req) {
  SessionManager ??= await find("SessionManager");
  const data = Buffer.from(req.data, "base64");
  const dir = await mkdtemp(join(work, "load-"));
  const file = join(dir, "session.jsonl");
  await writeFile(file, data);
  try {
    const sm = SessionManager.open(file, dir);
    const ctx = sm.buildSessionContext();
    const after = await readFile(file);
    return {
      entries: sm.getEntries().length,
      messages: ctx.messages.length,
      header: Boolean(sm.getHeader()),
      out: after.equals(data) ? null : after.toString("base64"),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function canon(req) {
  const text = Buffer.from(req.data, "base64").toString("utf8");
  return {
    lines: text.split(/\r?\n/).map((line) => {
      if (!line.trim()) return { blank: true };
      try {
        const s = JSON.stringify(JSON.parse(line));
        return s === line ? { same: true } : { s };
      } catch {
        return { err: true };
      }
    }),
  };
}

await serve({ default: repairOne, canon, load });
await rm(work, { recursive: true, force: true });
