// replay.mjs runs OpenClaw's own replay pipeline over many transcripts in one Node process
// (start-up takes a few seconds, one transcript a few milliseconds): SessionManager.open and
// buildSessionContext (the history the agent starts from), then sanitizeSessionHistory and
// validateReplayTurns for a provider/model/api, called the way the embedded runner's attempt
// calls them (`prior = sanitizeSessionHistory({messages, modelApi, modelId, provider,
// allowedToolNames, config, workspaceDir, env, model, sessionManager, sessionId, policy})`, then
// `validateReplayTurns({messages: prior, ...})`, with the policy of resolveTranscriptPolicy).
//
//   openclaw-reference --node internal/conformance/oracle/replay.mjs < requests.jsonl > answers.jsonl
//
// Each request is one JSON line:
//   {"id":N,"file":"<path>"|"data":"<base64 transcript>","provider":P,"modelApi":A,"modelId":M,
//    "model":{...},"now":<ms>,"allowedToolNames":[...]?,"brief":true?}
//     → {"id":N,"release":R,"policy":{...},"context":{"messages","thinkingLevel","model"},
//        "sanitized":[...],"validated":[...],"appended":["model-snapshot",...]}
//       (brief: without context and sanitized)
//       or {"id":N,"release":R,"error":"..."} when the pipeline throws (the OpenAI Responses
//       invariant does, for instance).
//   {"id":N,"op":"retry","body":B,"isFallbackRetry":F,"sessionHasHistory":H,"priorContextPrelude":P}
//     → {"id":N,"release":R,"prompt":...}: resolveFallbackRetryPrompt, the prompt a model
//       fallback retry sends ({"absent":true} in a release without it)
//   {"id":N,"op":"version"} → {"id":N,"version":R}
//
// The input file is never touched: its bytes are copied into a temp dir first, because
// sanitizeSessionHistory appends a model-snapshot custom entry (and the Google hook a
// turn-ordering marker) through the session manager. The clock is pinned to the request's
// "now", so synthetic tool results and bootstrap turns carry a fixed timestamp.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { writeAnswer } from "./environment.mjs";

import { setNow } from "./clock.mjs";


const { find, has, version } = await import("./chunks.mjs");
const SessionManager = await find("SessionManager");
const sanitizeSessionHistory = await find("sanitizeSessionHistory");
// validateReplayTurns exists from 2026.4.x; 2026.3.13's attempt validates inline with the
// policy's validateGeminiTurns / validateAnthropicTurns, which validate() repeats.
const validateReplayTurns = has("validateReplayTurns") ? await find("validateReplayTurns") : null;
const validateGeminiTurns = validateReplayTurns ? null : await find("validateGeminiTurns");
const validateAnthropicTurns = validateReplayTurns ? null : await find("validateAnthropicTurns");

function validate(common, prior, policy) {
  if (validateReplayTurns) return validateReplayTurns({ ...common, messages: prior, ...(policy ? { policy } : {}) });
  const gemini = policy.validateGeminiTurns ? validateGeminiTurns(prior) : prior;
  return policy.validateAnthropicTurns ? validateAnthropicTurns(gemini) : gemini;
}
const resolveTranscriptPolicy = has("resolveTranscriptPolicy") ? await find("resolveTranscriptPolicy") : null;
const release = version();
// One config object for every request: OpenClaw caches the provider plugin registry per config
// object, and 2026.4.24 loads its plugins again for a new one (seconds per request).
const config = {};
const work = await mkdtemp(join(tmpdir(), "oracle-replay-"));
let seq = 0;

async function replayOne(req) {
  const out = { id: req.id, release };
  setNow(req.now);
  const file = join(work, `s${++seq}.jsonl`);
  try {
    // a path, or the bytes (base64; an empty transcript is "" or null, never a missing key)
    await writeFile(file, req.file ? await readFile(req.file) : Buffer.from(req.data ?? "", "base64"));
    const sm = SessionManager.open(file);
    const ctx = sm.buildSessionContext();
    if (!req.brief) out.context = { messages: ctx.messages, thinkingLevel: ctx.thinkingLevel, model: ctx.model };
    const before = sm.getEntries().length;
    const common = {
      modelApi: req.modelApi,
      modelId: req.modelId,
      provider: req.provider,
      config,
      workspaceDir: work,
      env: process.env,
      model: req.model,
      sessionId: sm.getSessionId?.() ?? "",
    };
    const policy = resolveTranscriptPolicy ? resolveTranscriptPolicy(common) : undefined;
    out.policy = policy;
    const prior = await sanitizeSessionHistory({
      ...common,
      messages: ctx.messages,
      allowedToolNames: req.allowedToolNames,
      sessionManager: sm,
      ...(policy ? { policy } : {}),
    });
    if (!req.brief) out.sanitized = prior;
    out.validated = await validate(common, prior, policy);
    out.appended = sm.getEntries().slice(before).map((e) => e.customType ?? e.type);
  } catch (err) {
    out.error = String(err?.message ?? err);
  } finally {
    await rm(file, { force: true });
  }
  return out;
}

let resolveFallbackRetryPrompt;
async function retryOne(req) {
  const out = { id: req.id, release };
  try {
    if (resolveFallbackRetryPrompt === undefined) {
      resolveFallbackRetryPrompt = has("resolveFallbackRetryPrompt") ? await find("resolveFallbackRetryPrompt") : null;
    }
    if (!resolveFallbackRetryPrompt) return { ...out, absent: true };
    out.prompt = resolveFallbackRetryPrompt({
      body: req.body,
      isFallbackRetry: req.isFallbackRetry,
      sessionHasHistory: req.sessionHasHistory,
      priorContextPrelude: req.priorContextPrelude,
    });
  } catch (err) {
    out.error = String(err?.message ?? err);
  }
  return out;
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
try {
  for await (const line of rl) {
    if (!line.trim()) continue;
    const req = JSON.parse(line);
    const answer =
      req.op === "version" ? { id: req.id, version: release } : req.op === "retry" ? await retryOne(req) : await replayOne(req);
    writeAnswer(JSON.stringify(answer));
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
