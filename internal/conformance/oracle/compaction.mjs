// compaction.mjs asks OpenClaw's own compaction code what it would decide for many transcripts
// in one Node process: the effective settings (applyAgentCompactionSettingsFromConfig), the
// pre-prompt trigger (AgentSession.prototype.checkCompaction, run on the session's context with
// runAutoCompaction stubbed to record the decision instead of summarizing), the context-token
// estimate (estimateContextTokens) and the preparation (prepareCompaction, with findCutPoint's
// indexes mapped back to entry ids).
//
//   openclaw-reference --node internal/conformance/oracle/compaction.mjs < requests.jsonl > answers.jsonl
//
// Each part reports {"error"} instead of its answer when OpenClaw's code throws on the input.
// Each request is one JSON line:
//   {"id":N,"file":"<path>"|"data":"<base64>","provider":P,"modelId":M,"contextWindow":W,
//    "config":{"reserveTokens"?,"keepRecentTokens"?,"reserveTokensFloor"?},"now":<ms>}
//     → {"id":N,"release":R,"settings":{"reserveTokens","keepRecentTokens"},
//        "trigger":{"checked","compact","reason","willRetry","error"?},
//        "estimate":{"tokens","usageTokens","trailingTokens","lastUsageIndex"},
//        "prepared":null|{"firstKeptEntryId","isSplitTurn","tokensBefore","boundaryStart",
//                         "summarized":[ids],"turnPrefix":[ids],"kept":[ids],"previousSummary"}}
//   {"id":N,"op":"version"} → {"id":N,"version":R}
// The transcript is copied to a temp file first; nothing here writes to it.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";
import { writeAnswer } from "./environment.mjs";

import { setNow } from "./clock.mjs";


const { find, has, version } = await import("./chunks.mjs");
// Before 2026.6.11 the compaction code is pi's (@mariozechner/pi-coding-agent), whose index
// does not re-export prepareCompaction or estimateContextTokens: take them from its compaction
// module, the one its AgentSession imports.
let piCompaction;
async function findCompaction(name) {
  if (has(name)) return find(name);
  if (!piCompaction) {
    const dir = join(process.env.OPENCLAW_REF_PKG, "..", "@mariozechner", "pi-coding-agent");
    piCompaction = await import(pathToFileURL(join(dir, "dist", "core", "compaction", "compaction.js")).href);
  }
  if (piCompaction[name] === undefined) throw new Error(`openclaw ${version()}: no ${name} in OpenClaw or pi's compaction module`);
  return piCompaction[name];
}
const SessionManager = await find("SessionManager");
const AgentSession = await find("AgentSession");
const prepareCompaction = await findCompaction("prepareCompaction");
const findCutPoint = await findCompaction("findCutPoint");
const estimateContextTokens = await findCompaction("estimateContextTokens");
// 2026.6.11 renamed pi's settings and session code into OpenClaw's agent core; before, the
// same logic is applyPiCompactionSettingsFromConfig and pi's AgentSession._checkCompaction.
const applySettings = has("applyAgentCompactionSettingsFromConfig")
  ? await find("applyAgentCompactionSettingsFromConfig")
  : await find("applyPiCompactionSettingsFromConfig");
const release = version();
// pi 0.58 (OpenClaw 2026.3.x) starts the next compaction right after the previous one.
const pi058 = /^2026\.3\./.test(release);
const work = await mkdtemp(join(tmpdir(), "oracle-compaction-"));
let seq = 0;

// pi's own defaults, which OpenClaw's settings start from.
const PI_RESERVE = 16384;
const PI_KEEP = 20000;

function effectiveSettings(req) {
  const cfg = { agents: { defaults: { compaction: { ...(req.config ?? {}) } } } };
  const sm = {
    getCompactionReserveTokens: () => PI_RESERVE,
    getCompactionKeepRecentTokens: () => PI_KEEP,
    applyOverrides: () => {},
  };
  const r = applySettings({ settingsManager: sm, cfg, contextTokenBudget: req.contextWindow });
  return { enabled: true, reserveTokens: r.compaction.reserveTokens, keepRecentTokens: r.compaction.keepRecentTokens };
}

async function trigger(sm, messages, settings, req) {
  let decision = null;
  const record = async (reason, willRetry) => {
    decision = { reason, willRetry };
    return true;
  };
  const state = { messages: [...messages] };
  const self = {
    settingsManager: { getCompactionSettings: () => settings },
    model: { provider: req.provider, id: req.modelId, contextWindow: req.contextWindow },
    sessionManager: sm,
    agent: { state, replaceMessages: (m) => (state.messages = m) },
    overflowRecoveryAttempted: false,
    _overflowRecoveryAttempted: false,
    emit: () => {},
    _emit: () => {},
    runAutoCompaction: record,
    _runAutoCompaction: record,
  };
  const check = AgentSession.prototype.checkCompaction ?? AgentSession.prototype._checkCompaction;
  let last;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === "assistant") {
      last = messages[i];
      break;
    }
  }
  const out = { checked: Boolean(last), compact: false, reason: null, willRetry: false };
  if (!last) return out;
  try {
    await check.call(self, last, false);
    out.compact = decision !== null;
  } catch (err) {
    out.error = String(err?.message ?? err); // the real pre-prompt check throws too
    return out;
  }
  if (decision) Object.assign(out, decision);
  return out;
}

function yieldsMessage(entry) {
  return entry.type === "message" || entry.type === "custom_message" || entry.type === "branch_summary";
}

function prepared(path, settings) {
  const res = prepareCompaction(path, settings);
  if (res?.ok === false) return { error: String(res.error?.message ?? res.error) };
  const p = res?.ok === true ? res.value : res; // 2026.6.11 returns a Result, pi the value
  if (!p) return null;
  // prepareCompaction's boundary and cut, as it computes them, to name the entries
  let prev = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i].type === "compaction") {
      prev = i;
      break;
    }
  }
  let boundaryStart = 0;
  if (prev >= 0) {
    const k = path.findIndex((e) => e.id === path[prev].firstKeptEntryId);
    boundaryStart = k >= 0 && !pi058 ? k : prev + 1;
  }
  const cut = findCutPoint(path, boundaryStart, path.length, settings.keepRecentTokens);
  const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptEntryIndex;
  const ids = (from, to) => path.slice(from, to).filter(yieldsMessage).map((e) => e.id);
  const out = {
    firstKeptEntryId: p.firstKeptEntryId,
    isSplitTurn: p.isSplitTurn,
    tokensBefore: p.tokensBefore,
    boundaryStart,
    firstKeptEntryIndex: cut.firstKeptEntryIndex,
    turnStartIndex: cut.turnStartIndex,
    summarized: ids(boundaryStart, historyEnd),
    turnPrefix: cut.isSplitTurn ? ids(cut.turnStartIndex, cut.firstKeptEntryIndex) : [],
    // pi 0.58 has no previousSummary in its preparation: undefined either way there
    kept: path.slice(cut.firstKeptEntryIndex).map((e) => e.id),
    previousSummary: p.previousSummary !== undefined,
  };
  if (out.summarized.length !== p.messagesToSummarize.length || out.turnPrefix.length !== p.turnPrefixMessages.length) {
    out.error = `driver's entry mapping (${out.summarized.length}/${out.turnPrefix.length}) disagrees with prepareCompaction (${p.messagesToSummarize.length}/${p.turnPrefixMessages.length})`;
  }
  return out;
}

// guard runs one part and turns a throw into {error}: OpenClaw's estimator throws on some
// malformed messages (content that is not an array, a text block without text, ...).
function guard(f) {
  try {
    return f();
  } catch (err) {
    return { error: String(err?.message ?? err) };
  }
}

async function compactionOne(req) {
  const out = { id: req.id, release };
  setNow(req.now);
  const file = join(work, `s${++seq}.jsonl`);
  try {
    // a path, or the bytes (base64; an empty transcript is "" or null, never a missing key)
    await writeFile(file, req.file ? await readFile(req.file) : Buffer.from(req.data ?? "", "base64"));
    const sm = SessionManager.open(file);
    const messages = sm.buildSessionContext().messages;
    const settings = effectiveSettings(req);
    out.settings = { reserveTokens: settings.reserveTokens, keepRecentTokens: settings.keepRecentTokens };
    out.trigger = await trigger(sm, messages, settings, req);
    out.estimate = guard(() => estimateContextTokens(messages));
    out.prepared = guard(() => prepared(sm.getBranch(), settings));
  } catch (err) {
    out.error = String(err?.message ?? err);
  } finally {
    await rm(file, { force: true });
  }
  return out;
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
try {
  for await (const line of rl) {
    if (!line.trim()) continue;
    const req = JSON.parse(line);
    const answer = req.op === "version" ? { id: req.id, version: release } : await compactionOne(req);
    writeAnswer(JSON.stringify(answer));
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
