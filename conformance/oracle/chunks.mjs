// chunks.mjs finds OpenClaw's internal functions inside the installed package's dist/ chunks.
// Chunk file names and the minified export aliases change with every release, so a function is
// found by the name it is exported under: `export { ..., repairSessionFileIfNeeded as u, ... }`.
//
//   import { find, findAll } from "./chunks.mjs";
//   const repair = await find("repairSessionFileIfNeeded");
//
// OPENCLAW_REF_PKG (set by ../shared/tools/openclaw-reference --node) names the package folder.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const pkg = process.env.OPENCLAW_REF_PKG;
if (!pkg) {
  throw new Error("OPENCLAW_REF_PKG is not set: run through openclaw-reference --node");
}
const dist = join(pkg, "dist");

let index; // export name -> [{file, alias}]

function buildIndex() {
  index = new Map();
  const exportRe = /export\s*\{([^}]*)\}/g;
  for (const name of readdirSync(dist)) {
    if (!name.endsWith(".js")) continue;
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

/** version is the installed OpenClaw release (package.json). */
export function version() {
  return JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
}

/** has reports whether some chunk exports name. */
export function has(name) {
  if (!index) buildIndex();
  return index.has(name);
}

/**
 * find imports the chunk exporting name and returns the export. When several chunks export the
 * same name (a bundler duplicate), the first one that yields a value wins; pick names that are
 * unique where it matters. Throws when no chunk exports it.
 */
export async function find(name) {
  if (!index) buildIndex();
  const hits = index.get(name);
  if (!hits) throw new Error(`no dist chunk of openclaw ${version()} exports ${name}`);
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
