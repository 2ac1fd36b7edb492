// chunks.mjs finds OpenClaw's internal functions inside the installed package's dist/ chunks.
// Chunk file names and the minified export aliases change with every release, so a function is
// found by the name it is exported under: `export { ..., repairSessionFileIfNeeded as u, ... }`.
//
//   import { find, findAll } from "./chunks.mjs";
//   const repair = await find("repairSessionFileIfNeeded");
//
// OPENCLAW_REF_PKG (set by ../shared/tools/openclaw-reference --node) names the package folder.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { registerHooks } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const pkg = process.env.OPENCLAW_REF_PKG;
if (!pkg) {
  throw new Error("OPENCLAW_REF_PKG is not set: run through openclaw-reference --node");
}
const dist = join(pkg, "dist");

let index; // export name -> [{file, alias}]

// foreign reports files that are not part of the release as published: patched copies some
// drivers write next to the chunks (__clawdoctor__*.js) must never stand in for the real code.
function foreign(name) {
  return name.startsWith("__clawdoctor__");
}

function buildIndex() {
  index = new Map();
  const exportRe = /export\s*\{([^}]*)\}/g;
  for (const name of readdirSync(dist)) {
    if (!name.endsWith(".js") || foreign(name)) continue;
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

/**
 * findFunction returns the function a release exports as name (like find) or, when no chunk
 * exports it (older releases inline some helpers into several chunks: 2026.3.13 never exports
 * repairSessionFileIfNeeded), the real function text taken from the `//#region` of the first
 * chunk that defines it, evaluated in a module with that chunk's imports (resolved from the
 * chunk's own location). Only helpers whose
 * region needs nothing but the chunk's imports work this way; others throw a ReferenceError
 * when called, never a silent substitute.
 */
export async function findFunction(name) {
  if (has(name)) return find(name);
  const def = new RegExp(`^(?:async )?function\\*? ${name}\\(`, "m");
  for (const file of chunkFiles(dist)) {
    const text = readFileSync(file, "utf8");
    const m = def.exec(text);
    if (!m) continue;
    const start = text.lastIndexOf("//#region ", m.index);
    const end = text.indexOf("//#endregion", m.index);
    if (start < 0 || end < 0) continue;
    const imports = text.match(/^import .*;$/gm) ?? [];
    const src = `${imports.join("\n")}\n${text.slice(start, end)}\nexport { ${name} };\n`;
    const dir = mkdtempSync(join(tmpdir(), "chunks-"));
    const mod = join(dir, `${name}.mjs`);
    writeFileSync(mod, src);
    resolveAs(pathToFileURL(mod).href, pathToFileURL(file).href);
    try {
      return (await import(pathToFileURL(mod).href))[name];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  throw new Error(`openclaw ${version()} neither exports nor defines ${name}`);
}

// The module made from a region resolves its imports (relative chunks and bare packages) as
// the chunk it came from does.
const resolveFrom = new Map();
let hooked = false;
function resolveAs(url, chunkURL) {
  resolveFrom.set(url, chunkURL);
  if (hooked) return;
  hooked = true;
  registerHooks({
    resolve(specifier, context, next) {
      const parent = resolveFrom.get(context.parentURL);
      return next(specifier, parent ? { ...context, parentURL: parent } : context);
    },
  });
}

function chunkFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...chunkFiles(join(dir, e.name)));
    else if (e.name.endsWith(".js") && !foreign(e.name)) out.push(join(dir, e.name));
  }
  return out.sort();
}
