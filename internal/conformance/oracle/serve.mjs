// serve.mjs answers a driver's requests: one JSON object per line on stdin, one answer per
// line on stdout with the request's "id", in order. handlers maps a request's "op" to an
// (async) function returning the answer's other members; a request without "op" goes to
// handlers.default; {"op":"version"} is answered with the installed release. A handler that
// throws answers {"id":N,"error":"..."} and the process goes on.
import { createInterface } from "node:readline";
import { version } from "./chunks.mjs";

export async function serve(handlers) {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    const req = JSON.parse(line);
    let ans;
    try {
      const op = req.op ?? "default";
      if (op === "version") ans = { version: version() };
      else if (handlers[op]) ans = await handlers[op](req);
      else throw new Error(`unknown op ${op}`);
    } catch (err) {
      ans = { error: String(err?.stack ?? err) };
    }
    process.stdout.write(`${JSON.stringify({ id: req.id, ...ans })}\n`);
  }
}
