'use strict';
// clawdoctor view, shared by the session and the state-dir page. Every text from the data is
// put in the page with textContent (el() below), never parsed as HTML.

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  if (attrs) {
    for (const k in attrs) {
      const v = attrs[k];
      if (v == null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k === 'style') e.style.cssText = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else if (k === 'data') for (const d in v) e.dataset[d] = v[d];
      else e.setAttribute(k, v === true ? '' : v);
    }
  }
  for (const c of kids) {
    if (c == null || c === false) continue;
    if (Array.isArray(c)) e.append(...c.filter(x => x != null && x !== false));
    else e.append(c);
  }
  return e;
}

// The data block and the text chunks are gzip'ed and base64-encoded in <script> elements.
function b64bytes(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function inflate(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error('missing data block ' + id);
  const stream = new Blob([b64bytes(node.textContent.trim())]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// phases records when each step of the load ended (ms since navigation), for the docs' figures.
const phases = { script: performance.now() };
async function loadData() {
  const bytes = await inflate('data');
  phases.inflated = performance.now();
  const d = JSON.parse(new TextDecoder().decode(bytes));
  phases.parsed = performance.now();
  return d;
}

const chunkCache = new Map();
// fullText returns the full form of a text: ref is [chunk, start, end, original bytes].
async function fullText(ref) {
  let c = chunkCache.get(ref[0]);
  if (!c) { c = inflate('t' + ref[0]); chunkCache.set(ref[0], c); }
  return new TextDecoder().decode((await c).subarray(ref[1], ref[2]));
}

function fmtNum(n) {
  if (n == null) return '';
  return Math.round(n).toLocaleString('en-US');
}
function fmtBytes(n) {
  if (n >= 1 << 30) return (n / (1 << 30)).toFixed(1) + ' GiB';
  if (n >= 1 << 20) return (n / (1 << 20)).toFixed(1) + ' MiB';
  if (n >= 1 << 10) return (n / (1 << 10)).toFixed(1) + ' KiB';
  return n + ' B';
}
function pad(n) { return n < 10 ? '0' + n : '' + n; }
function fmtTime(ms, full) {
  if (!ms) return '';
  const d = new Date(ms);
  const t = pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds());
  return full ? d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + ' ' + t + 'Z' : t;
}
function fmtDate(ms) {
  if (!ms) return '';
  const d = new Date(ms);
  return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + ' ' + pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes());
}

// VList renders only the rows on screen of a list of `count` fixed-height rows. Beyond a few
// million pixels browsers stop growing an element, so a long list scrolls a scaled spacer.
const MAX_SPACER = 8000000;
class VList {
  constructor(root, rowHeight, render) {
    this.root = root; this.h = rowHeight; this.render = render; this.count = 0;
    this.spacer = el('div', { class: 'spacer' });
    this.layer = el('div', { class: 'rows' });
    root.append(this.spacer, this.layer);
    this.pending = false;
    root.addEventListener('scroll', () => this.schedule());
    new ResizeObserver(() => this.schedule()).observe(root);
  }
  setCount(n) {
    this.count = n;
    this.total = n * this.h;
    this.spacer.style.height = Math.min(this.total, MAX_SPACER) + 'px';
    this.draw();
  }
  // ratio maps the spacer's scroll range to the rows' pixel range.
  ratio() {
    const view = this.root.clientHeight;
    const spacer = Math.min(this.total, MAX_SPACER);
    if (this.total <= MAX_SPACER || spacer <= view) return 1;
    return (this.total - view) / (spacer - view);
  }
  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }
  draw() {
    const top = this.root.scrollTop, view = this.root.clientHeight || 600;
    const virt = top * this.ratio();
    const first = Math.max(0, Math.floor(virt / this.h) - 5);
    const last = Math.min(this.count, Math.ceil((virt + view) / this.h) + 5);
    const frag = document.createDocumentFragment();
    for (let i = first; i < last; i++) {
      const r = this.render(i);
      r.style.top = (i * this.h - virt + top) + 'px';
      frag.append(r);
    }
    this.layer.replaceChildren(frag);
  }
  // scrollTo brings row i to the middle of the view (or the top).
  scrollTo(i, top) {
    const view = this.root.clientHeight;
    const want = Math.max(0, i * this.h - (top ? 0 : (view - this.h) / 2));
    this.root.scrollTop = want / this.ratio();
    this.draw();
  }
}

function sevRank(s) { return s === 'error' ? 3 : s === 'warning' ? 2 : s === 'info' ? 1 : 0; }

// ready marks the page as rendered, for people (the loading note goes) and for tests.
function ready(api) {
  phases.ready = performance.now();
  window.__view = Object.assign({ ready: true, ms: phases.ready, phases }, api);
  document.documentElement.dataset.ready = '1';
}

function fail(err) {
  console.error(err);
  const app = document.getElementById('app');
  app.replaceChildren(el('p', { class: 'warnbox', text: 'This page could not be shown: ' + (err && err.message || err) }));
}
