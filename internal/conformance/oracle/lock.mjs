// lock.mjs takes a transcript's write lock with the real OpenClaw's acquireSessionWriteLock,
// appends one line while holding it, releases it, and prints what happened as JSON:
//   {"acquired":true,"waitedMs":N,"at":<epoch ms when acquired>} or {"acquired":false,...}
//
//   openclaw-reference --node lock.mjs TRANSCRIPT LINE TIMEOUT_MS
import fs from "node:fs";
import { find } from "./chunks.mjs";

const [file, line, timeout] = process.argv.slice(2);
const acquire = await find("acquireSessionWriteLock");
const t0 = Date.now();
try {
  const lock = await acquire({ sessionFile: file, timeoutMs: Number(timeout) });
  const at = Date.now();
  fs.appendFileSync(file, line + "\n");
  await lock.release();
  console.log(JSON.stringify({ acquired: true, waitedMs: at - t0, at }));
} catch (e) {
  console.log(JSON.stringify({ acquired: false, waitedMs: Date.now() - t0, error: String(e?.message ?? e) }));
}
