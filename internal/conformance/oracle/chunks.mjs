// chunks.mjs finds OpenClaw's internal functions inside the installed package's dist/ chunks.
// Chunk file names and the minified export aliases change with every release, so a function is
// found by the name it is exported under: `export { ..., repairSessionFileIfNeeded as u, ... }`.
//
//   import { find, findAll } from "./chunks.mjs";
//   const repair = await find("repairSessionFileIfNeeded");
//
// Older releases (2026.3.x) bundle most internals into a few large chunks without exporting them.
// For a name no chunk exports, find falls back to the chunk that declares it at top level and
// imports a copy of that chunk (written once beside it as __clawdoctor__<name>.js) that also
// exports every top-level declaration as __cd_<name>. One copy per chunk, so functions taken
// from the same chunk share one module instance.
//
// Before 2026.6 the session model (SessionManager, buildSessionContext, compaction) lived in pi's
// packages (@mariozechner/pi-coding-agent, pi-agent-core, pi-ai) beside openclaw; find looks in
// their main exports last, so callers need not know which release moved what.
//
// OPENCLAW_REF_PKG (set by ../shared/tools/openclaw-reference --node) names the package folder.
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const pkg = process.env.OPENCLAW_REF_PKG;
if (!pkg) {
  throw new Error("OPENCLAW_REF_PKG is not set: run through openclaw-reference --node");
}
const dist = join(pkg, "dist");

let index; // export name -> [{file, alias}]
let declared; // top-level declaration name -> file (first chunk declaring it)
const declRe = /^(?:async\s+)?(?:function\*?\s+([A-Za-z_$][\w$]*)|class\s+([A-Za-z_$][\w$]*)|(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=)/gm;

function buildIndex() {
  index = new Map();
  const exportRe = /export\s*\{([^}]*)\}/g;
  for (const name of readdirSync(dist)) {
    if (!name.endsWith(".js")) continue;
    if (name.startsWith("__clawdoctor__")) continue;
    const text = readFileSync(join(dist, name), "utf8");
    for (const m of text.matchAll(exportRe)) {
      for (const part of m[1].split(",")) {
        const bits = part.trim().split(/\s+as\s+/);
        if (!bits[0]) continue;
        const exported = bits[0].trim();
        const alias = (bits[1] ?? bits[0]).trim();
        if (!index.has(exported)) index.set(exported, []);
        index.get(exported).push({ file: join(dist, name), alias });
      }
    }
  }
}

function buildDeclared() {
  declared = new Map();
  for (const name of readdirSync(dist).sort()) {
    if (!name.endsWith(".js") || name.startsWith("__clawdoctor__")) continue;
    const text = readFileSync(join(dist, name), "utf8");
    for (const m of text.matchAll(declRe)) {
      const id = m[1] ?? m[2] ?? m[3];
      if (!declared.has(id)) declared.set(id, join(dist, name));
    }
  }
}

// exportingCopy returns the path of a copy of chunk file that exports all its top-level
// declarations under __cd_<name>, writing it on first use (temp name, then rename).
function exportingCopy(file) {
  const base = file.slice(dist.length + 1);
  const copy = join(dist, "__clawdoctor__" + base);
  if (existsSync(copy)) return copy;
  const text = readFileSync(file, "utf8");
  const names = new Set();
  for (const m of text.matchAll(declRe)) names.add(m[1] ?? m[2] ?? m[3]);
  const exports = [...names].map((n) => `${n} as __cd_${n}`).join(", ");
  const tmp = `${copy}.${process.pid}.tmp`;
  writeFileSync(tmp, `${text}\nexport { ${exports} };\n`);
  renameSync(tmp, copy);
  return copy;
}

const piPackages = ["@mariozechner/pi-coding-agent", "@mariozechner/pi-agent-core", "@mariozechner/pi-ai"];
let piModules; // [{name, mod}] of the pi packages installed beside openclaw

async function loadPi() {
  piModules = [];
  for (const name of piPackages) {
    const dir = join(pkg, "..", name);
    if (!existsSync(join(dir, "package.json"))) continue;
    const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const entry = meta.exports?.["."]?.import ?? meta.exports?.["."]?.default ?? meta.main ?? "index.js";
    piModules.push({ name, mod: await import(pathToFileURL(join(dir, entry)).href) });
  }
}

/** source says where find takes name from: "openclaw", a pi package name, or "" (nowhere). */
export async function source(name) {
  if (!index) buildIndex();
  if (index.has(name)) return "openclaw";
  if (!declared) buildDeclared();
  if (declared.has(name)) return "openclaw";
  if (!piModules) await loadPi();
  return piModules.find((p) => p.mod[name] !== undefined)?.name ?? "";
}

/** version is the installed OpenClaw release (package.json). */
export function version() {
  return JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
}

/** has reports whether some chunk exports name. */
export function has(name) {
  if (!index) buildIndex();
  if (index.has(name)) return true;
  if (!declared) buildDeclared();
  return declared.has(name);
}

/**
 * find imports the chunk exporting name and returns the export (or, when no chunk exports it,
 * the top-level declaration of that name through an exporting copy of its chunk). When several chunks export the
 * same name (a bundler duplicate), the first one that yields a value wins; pick names that are
 * unique where it matters. Throws when no chunk exports it.
 */
export async function find(name) {
  if (!index) buildIndex();
  const hits = index.get(name);
  if (!hits) {
    if (!declared) buildDeclared();
    const file = declared.get(name);
    if (!file) {
      if (!piModules) await loadPi();
      const pi = piModules.find((p) => p.mod[name] !== undefined);
      if (pi) return pi.mod[name];
      throw new Error(`openclaw ${version()}: no dist chunk exports or declares ${name}, nor do ${piPackages.join(", ")}`);
    }
    const mod = await import(pathToFileURL(exportingCopy(file)).href);
    return mod[`__cd_${name}`];
  }
  for (const h of hits) {
    const mod = await import(pathToFileURL(h.file).href);
    if (mod[h.alias] !== undefined) return mod[h.alias];
  }
  throw new Error(`openclaw ${version()}: ${name} found in ${hits.map((h) => h.file).join(", ")} but undefined`);
}

/** findAll resolves several names at once: { name: export }. */
export async function findAll(...names) {
  const out = {};
  for (const n of names) out[n] = await find(n);
  return out;
}
