// reused_call_id.mjs asks the installed OpenClaw release what its tool-call pairing does with a
// tool call id that a later assistant turn uses again (Kimi-style "functions.read:0" ids that
// restart every turn): does the later call keep its real result, or is that result dropped as a
// duplicate of the first one, leaving the later call unpaired?
//
//   ../shared/tools/openclaw-reference --node internal/conformance/oracle/reused_call_id.mjs
//
// It runs the pairing step that model replay uses (sanitizeToolUseResultPairing, errored
// results dropped) on the transcript below, alone (providers whose ids OpenClaw keeps) and after
// sanitizeToolCallIdsForCloudCodeAssist (providers whose ids it rewrites first), and asks
// resolveTranscriptPolicy which providers get which. Prints one JSON object.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { find as findJS } from "./chunks.mjs";

// find is chunks.mjs's find, falling back to the .mjs chunks 2026.9 ships (chunks.mjs reads
// .js chunks only).
async function find(name) {
  try {
    return await findJS(name);
  } catch (e) {
    const dist = join(process.env.OPENCLAW_REF_PKG, "dist");
    for (const f of readdirSync(dist)) {
      if (!f.endsWith(".mjs")) continue;
      for (const m of readFileSync(join(dist, f), "utf8").matchAll(/export\s*\{([^}]*)\}/g)) {
        for (const part of m[1].split(",")) {
          const [exported, alias] = part.trim().split(/\s+as\s+/);
          if (exported === name) return (await import(pathToFileURL(join(dist, f)).href))[alias ?? exported];
        }
      }
    }
    throw e;
  }
}

const call = (id) => ({ type: "toolCall", id, name: "read", arguments: { path: "a" } });
const result = (id, text) => ({ role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text }], isError: false, timestamp: 1 });
const asst = (content, stopReason) => ({ role: "assistant", content, api: "openai-completions", provider: "moonshot", model: "kimi-k2", stopReason, timestamp: 1,
  usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } } });
const user = (text) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 });
const ID = "functions.read:0";
const messages = [
  user("first"), asst([call(ID)], "toolUse"), result(ID, "FIRST-RESULT"), asst([{ type: "text", text: "ok" }], "stop"),
  user("second"), asst([call(ID)], "toolUse"), result(ID, "SECOND-RESULT"), asst([{ type: "text", text: "done" }], "stop"),
];

// outcome says what became of the second call: its own real result right after it, or not.
function outcome(out) {
  const list = Array.isArray(out) ? out : out?.messages ?? [];
  const calls = [];
  list.forEach((m, i) => {
    if (m?.role === "assistant" && Array.isArray(m.content)) for (const b of m.content) if (b?.type === "toolCall") calls.push({ i, id: b.id });
  });
  if (calls.length < 2) return { calls: calls.length, verdict: "second call dropped" };
  const second = calls[1];
  const next = list[second.i + 1];
  const text = (next?.content ?? []).map((b) => b?.text ?? "").join("");
  const real = next?.role === "toolResult" && (next.toolCallId === second.id || next.toolUseId === second.id);
  return {
    calls: calls.length,
    secondResult: next?.role === "toolResult" ? text : null,
    verdict: real && text === "SECOND-RESULT" ? "paired by occurrence" : real ? "paired with another result" : "later call unpaired",
  };
}

const report = { version: process.env.OPENCLAW_REF_VERSION ?? "", pairing: null, afterIdRewrite: null, policies: {} };
try {
  const pair = await find("sanitizeToolUseResultPairing");
  report.pairing = outcome(pair(structuredClone(messages), { erroredAssistantResultPolicy: "drop" }));
  try {
    const rewrite = await find("sanitizeToolCallIdsForCloudCodeAssist");
    report.afterIdRewrite = outcome(pair(rewrite(structuredClone(messages), "strict"), { erroredAssistantResultPolicy: "drop" }));
  } catch (e) {
    report.afterIdRewrite = { error: String(e.message ?? e).slice(0, 200) };
  }
} catch (e) {
  report.pairing = { error: String(e.message ?? e).slice(0, 200) };
}
try {
  const resolve = await find("resolveTranscriptPolicy");
  for (const [provider, modelApi, modelId] of [
    ["anthropic", "anthropic-messages", "claude-sonnet-4-6"], ["openai", "openai-responses", "gpt-5.4"],
    ["openai", "openai-completions", "gpt-4.1"], ["google", "google-generative-ai", "gemini-2.5-pro"],
    ["mistral", "openai-completions", "mistral-large-latest"], ["moonshot", "openai-completions", "kimi-k2"],
    ["kimi-coding", "anthropic-messages", "kimi-k2"], ["minimax", "anthropic-messages", "MiniMax-M2"],
    ["openrouter", "openai-completions", "moonshotai/kimi-k2"], ["deepseek", "openai-completions", "deepseek-chat"],
    ["ollama", "ollama", "qwen3"],
  ]) {
    try {
      const p = resolve({ provider, modelApi, modelId, config: {} });
      report.policies[`${provider}/${modelApi}`] = { sanitizeToolCallIds: !!p?.sanitizeToolCallIds, toolCallIdMode: p?.toolCallIdMode ?? null, repairToolUseResultPairing: !!p?.repairToolUseResultPairing };
    } catch (e) {
      report.policies[`${provider}/${modelApi}`] = { error: String(e.message ?? e).slice(0, 120) };
    }
  }
} catch (e) {
  report.policies = { error: String(e.message ?? e).slice(0, 200) };
}
console.log(JSON.stringify(report));
