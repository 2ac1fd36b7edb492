// environment.mjs makes the oracle's Node process look like a running gateway on a machine
// without network, before OpenClaw's code is imported:
//
//   - no network: every DNS lookup, outgoing TCP connection and fetch fails at once. Some
//     releases look things up on the side (update checks, provider metadata); in a sandbox
//     those connections hang until a timeout, seconds per request. Nothing the drivers compare
//     depends on the network.
//   - plugin runtime dependencies staged: 2026.4.24 installs the npm dependencies of its
//     bundled plugins on first use into <state dir>/plugin-runtime-deps/openclaw-<version>-
//     <hash>/node_modules (npm, from the registry). The reference package already holds those
//     packages, so the stage dir (OPENCLAW_PLUGIN_STAGE_DIR, a temp dir) gets that
//     node_modules linked in: the plugins load as on an installed gateway, with no npm run.
//
//     The stage dir is removed when the process ends: 2026.4.24 does not use the link (it
//     installs its own copy, 384 MB, into the stage), and a CI run of the differential left
//     862 stage dirs, 32 GB, in /tmp. A driver killed outright (the harness's stall timeout
//     sends SIGKILL) cannot remove its own, so each one's name carries its pid and the next
//     driver removes those whose process is gone.
//
//   - stdout is the answers' alone: OpenClaw logs some steps to stdout ("Image resized to fit
//     limits"); process.stdout.write goes to stderr, and the drivers answer through
//     writeAnswer.
//
//   import { writeAnswer } from "./environment.mjs";   // first, before chunks.mjs
import { createHash } from "node:crypto";
import dns from "node:dns";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";
import { constants, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

function offline(what) {
  return Object.assign(new Error(`${what}: offline oracle (no network)`), { code: "ENOTFOUND" });
}

dns.lookup = (host, options, callback) => {
  const cb = typeof options === "function" ? options : callback;
  process.nextTick(() => cb(offline(`getaddrinfo ${host}`)));
};
dns.promises.lookup = async (host) => {
  throw offline(`getaddrinfo ${host}`);
};
net.Socket.prototype.connect = function connect() {
  process.nextTick(() => this.destroy(offline("connect")));
  return this;
};
globalThis.fetch = async (url) => {
  throw new TypeError(`fetch failed: offline oracle (no network): ${url}`);
};
syncBuiltinESMExports();

const stagePrefix = "oracle-plugin-stage-";
const pkg = process.env.OPENCLAW_REF_PKG;
if (pkg && !process.env.OPENCLAW_PLUGIN_STAGE_DIR) {
  const root = resolve(pkg);
  const ver = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version ?? "unknown";
  const key = `openclaw-${ver.replace(/[^A-Za-z0-9._-]+/g, "-")}-${createHash("sha256").update(root).digest("hex").slice(0, 12)}`;
  removeOrphanStages();
  const stage = mkdtempSync(join(tmpdir(), `${stagePrefix}${process.pid}-`));
  const remove = () => rmSync(stage, { recursive: true, force: true });
  process.on("exit", remove);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(sig, () => {
      remove();
      process.exit(128 + constants.signals[sig]);
    });
  }
  mkdirSync(join(stage, key), { recursive: true });
  symlinkSync(dirname(root), join(stage, key, "node_modules"), "dir");
  process.env.OPENCLAW_PLUGIN_STAGE_DIR = stage;
}

/** removeOrphanStages removes the stage dirs of drivers that were killed before their exit handler ran. */
function removeOrphanStages() {
  let names = [];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const m = name.startsWith(stagePrefix) && /^(\d+)-/.exec(name.slice(stagePrefix.length));
    if (!m || alive(Number(m[1]))) continue;
    try {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    } catch {
      // another driver removes it at the same moment, or it is not ours to remove
    }
  }
}

/** alive tells whether a process with this pid exists (EPERM: it does, someone else's). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

const stdoutWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (...args) => process.stderr.write(...args);

/** writeAnswer writes one answer line to the real stdout. */
export function writeAnswer(line) {
  stdoutWrite(line.endsWith("\n") ? line : `${line}\n`);
}
