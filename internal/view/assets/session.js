// clawdoctor view: the session page.
(async function main() {
  let D;
  try { D = await loadData(); } catch (e) { fail(e); return; }
  try { start(D); } catch (e) { fail(e); }
})();

function start(D) {
  const E = D.entries, L = D.layout, n = E.length;
  const ROW = 28;
  // rowOf[entry] = its row in the layout
  const rowOf = new Int32Array(n);
  for (let r = 0; r < L.order.length; r++) rowOf[L.order[r]] = r;
  // the active path, root first (active entries are on the main line, in path order)
  const path = [];
  for (let r = 0; r < L.order.length; r++) if (E[L.order[r]].fl & 1) path.push(L.order[r]);
  const posOnPath = new Int32Array(n).fill(-1);
  path.forEach((e, k) => { posOnPath[e] = k; });
  // tool-call id → [entry, part]
  const callAt = new Map();
  for (let i = 0; i < n; i++) {
    const b = E[i].b;
    if (b) b.forEach((p, k) => { if (p.k === 'call' && p.id) callAt.set(p.id, [i, k]); });
  }

  const state = { sel: -1, collapsed: new Set(), filter: '', mode: -1, sentSel: -1, tab: 'entry', finding: -1 };
  let vis = [];          // visible layout rows (stored mode)

  // ---- skeleton
  const app = document.getElementById('app');
  const search = el('input', { type: 'search', id: 'search', placeholder: 'filter: id, type, tool, text…' });
  const modeSel = el('select', { id: 'mode', title: 'show the entries as stored, or the messages OpenClaw would send' },
    el('option', { value: '-1', text: 'stored entries (the file)' }),
    D.replays.map((r, k) => el('option', { value: String(k), text: 'as sent to ' + r.target + (r.error ? ' (failed)' : '') })));
  const collapseBtn = el('button', { id: 'collapse-all', text: 'collapse branches', title: 'collapse every abandoned branch' });
  const expandBtn = el('button', { id: 'expand-all', text: 'expand all' });
  const sevCount = s => D.findings.filter(f => f.sev === s).length;
  const head = el('header', { class: 'top' },
    el('h1', { text: 'session ' + D.title }),
    D.back ? el('a', { href: D.back, text: '← state dir' }) : null,
    D.redacted ? el('span', { class: 'badge redacted', text: 'redacted' }) : null,
    el('span', { class: 'file', text: D.file }),
    el('span', { class: 'badge', text: fmtNum(D.stats.entries) + ' entries' }),
    el('span', { class: 'badge', text: fmtNum(D.stats.active) + ' on the active path' }),
    D.stats.branches ? el('span', { class: 'badge', text: D.stats.branches + ' branches' }) : null,
    ['error', 'warning', 'info'].map(s => sevCount(s) ? el('span', { class: 'badge ' + s, text: sevCount(s) + ' ' + s }) : null),
    el('span', { class: 'controls' }, search, modeSel, collapseBtn, expandBtn));
  const timeline = el('div', { id: 'timeline' });
  const list = el('div', { class: 'vlist', id: 'list' });
  const tabs = el('div', { class: 'tabs' });
  const pane = el('div', { class: 'pane', id: 'pane' });
  const side = el('aside', { id: 'side' }, tabs, pane);
  const tip = el('div', { id: 'tip' });
  app.replaceChildren(head, timeline, el('main', null, list, side), tip);

  const TABS = [['entry', 'Entry'], ['findings', 'Findings (' + D.findings.length + ')'], ['models', 'Models & fallbacks'],
    ['compactions', 'Compactions'], ['deliveries', 'Deliveries'], ['replay', 'What OpenClaw sends'], ['file', 'File']];
  for (const [id, label] of TABS) tabs.append(el('button', { id: 'tab-' + id, data: { tab: id }, text: label, onclick: () => showTab(id) }));

  // ---- list rows
  const vl = new VList(list, ROW, i => state.mode < 0 ? entryRow(vis[i]) : sentRow(i));

  function preview(e) {
    if (e.b) {
      const t = e.b.find(p => p.k === 'text' && p.x);
      const calls = e.b.filter(p => p.k === 'call');
      let s = t ? t.x : '';
      if (calls.length) s += (s ? '  ' : '') + '⚙ ' + calls.map(c => c.nm || '?').join(', ');
      const imgs = e.b.filter(p => p.k === 'image').length;
      if (imgs) s += '  🖼×' + imgs;
      if (!s) { const th = e.b.find(p => p.k === 'thinking'); if (th) s = '(thinking) ' + th.x; }
      if (s) return s;
    }
    if (e.er) return 'error: ' + e.er.x;
    if (e.x) return e.x.x;
    if (e.in) return e.in;
    return '';
  }
  function typeLabel(e) {
    if (e.t === 'message') return e.r || '(no role)';
    return e.t || '(no type)';
  }
  function entryRow(r) {
    const i = L.order[r], e = E[i], depth = L.depth[r];
    const cls = ['row', 't-' + e.t, 'role-' + (e.r || ''), (e.fl & 1) ? 'on' : 'off'];
    if (i === state.sel) cls.push('sel');
    const marks = el('span', { class: 'mk' });
    if (e.u) marks.append(el('span', { class: 'badge', title: 'input+cache / output tokens', text: fmtNum(e.u[0] + e.u[2] + e.u[3]) + '/' + fmtNum(e.u[1]) }));
    if (e.st === 'error' || e.st === 'aborted') marks.append(el('span', { class: 'badge error', text: e.st }));
    if (e.tr && !e.tr.call) marks.append(el('span', { class: 'badge warning', text: 'no call' }));
    if (e.b && e.b.some(p => p.k === 'call' && !p.res)) marks.append(el('span', { class: 'badge warning', text: 'no result' }));
    if (e.fl & 16) marks.append(el('span', { class: 'badge', text: 'leaf' }));
    if (e.f) {
      let top = '';
      for (const k of e.f) if (sevRank(D.findings[k].sev) > sevRank(top)) top = D.findings[k].sev;
      marks.append(el('span', { class: 'badge ' + top, text: e.f.length + ' finding' + (e.f.length > 1 ? 's' : '') }));
    }
    let tg = el('span', { class: 'tg' });
    if (L.span[r] > 0) {
      tg = el('span', { class: 'tg fork', title: 'branch of ' + L.span[r] + ' entries: click to ' + (state.collapsed.has(r) ? 'expand' : 'collapse'),
        text: state.collapsed.has(r) ? '▸' : '▾', onclick: ev => { ev.stopPropagation(); toggle(r); } });
    }
    let pv = preview(e);
    if (state.collapsed.has(r)) pv = '(' + (L.span[r] - 1) + ' more entries in this branch) ' + pv;
    return el('div', { class: cls.join(' '), data: { id: e.id, i: String(i) }, style: 'padding-left:' + (8 + depth * 16) + 'px',
      onclick: () => select(i, { scroll: false }) },
      tg,
      el('span', { class: 'ln', text: String(e.l) }),
      el('span', { class: 'tm', text: fmtTime(e.ts) }),
      el('span', { class: 'ty', text: typeLabel(e) }),
      el('span', { class: 'pv', text: pv }),
      marks);
  }
  const SENT = ['as stored', 'changed', 'inserted', 'converted', 'merged'];
  function sentRow(k) {
    const rp = D.replays[state.mode], s = rp.sent[k];
    const src = s.e >= 0 ? E[s.e] : null;
    const cls = ['row', 'role-' + s.r];
    if (k === state.sentSel) cls.push('sel');
    return el('div', { class: cls.join(' '), data: { sent: String(k) }, onclick: () => selectSent(k) },
      el('span', { class: 'ln', text: String(k + 1) }),
      el('span', { class: 'ty', text: s.r }),
      el('span', { class: 'badge st-' + s.s, text: SENT[s.s] }),
      el('span', { class: 'pv', text: (s.j && s.s !== 0 ? s.j.x : src ? preview(src) : s.ref || '') }),
      el('span', { class: 'mk' }, src ? el('span', { class: 'badge', text: src.id }) : null));
  }

  function computeVisible() {
    const q = state.filter.toLowerCase();
    vis = [];
    if (q) {
      for (let r = 0; r < L.order.length; r++) {
        const e = E[L.order[r]];
        if (e.id.toLowerCase().includes(q) || typeLabel(e).toLowerCase().includes(q) || preview(e).toLowerCase().includes(q) ||
          (e.in && e.in.toLowerCase().includes(q)) || (e.b && e.b.some(p => p.id && p.id.toLowerCase().includes(q)))) vis.push(r);
      }
      return;
    }
    for (let r = 0; r < L.order.length; r++) {
      vis.push(r);
      if (state.collapsed.has(r)) r += L.span[r] - 1;
    }
  }
  function redraw() {
    if (state.mode < 0) { computeVisible(); vl.setCount(vis.length); }
    else vl.setCount(D.replays[state.mode].sent.length);
  }
  function toggle(r) {
    if (state.collapsed.has(r)) state.collapsed.delete(r); else state.collapsed.add(r);
    redraw();
  }
  function visPos(r) { // binary search: vis is sorted
    let lo = 0, hi = vis.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (vis[m] < r) lo = m + 1; else hi = m; }
    return lo < vis.length && vis[lo] === r ? lo : -1;
  }

  // select shows entry i: the list switches to stored mode, opens the branches that hide it,
  // scrolls to it and shows its details.
  function select(i, opt) {
    opt = opt || {};
    if (i < 0 || i >= n) return;
    state.sel = i;
    if (state.mode >= 0 && opt.scroll !== false) { state.mode = -1; modeSel.value = '-1'; }
    if (state.mode < 0) {
      const r = rowOf[i];
      for (const c of [...state.collapsed]) if (c < r && r < c + L.span[c]) state.collapsed.delete(c);
      if (state.filter && visPos(r) < 0) { state.filter = ''; search.value = ''; }
      computeVisible();
      vl.setCount(vis.length);
      if (opt.scroll !== false) vl.scrollTo(visPos(r));
      else vl.draw();
    } else vl.draw();
    if (opt.tab !== false) showTab('entry');
    else renderPane();
  }
  function selectSent(k) { state.sentSel = k; vl.draw(); showTab('replay'); }

  function link(i, text) {
    if (i == null || i < 0) return el('span', { class: 'note', text: text || '(none)' });
    return el('a', { class: 'link', data: { goto: String(i) }, text: text || E[i].id || ('line ' + E[i].l), onclick: () => select(i) });
  }

  // ---- text parts
  function textNode(tp, cls) {
    const box = el('div', { class: 'txt' + (cls ? ' ' + cls : '') });
    box.textContent = tp.x || '';
    const wrap = el('div', null, box);
    if (tp.t) {
      const note = el('div', { class: 'note', text: 'loading full text…' });
      wrap.append(note);
      fullText(tp.t).then(s => {
        box.textContent = s;
        note.textContent = tp.t[3] > (tp.t[2] - tp.t[1]) ? 'cut at ' + fmtBytes(tp.t[2] - tp.t[1]) + ' of ' + fmtBytes(tp.t[3]) + ' (see the file, line ' + (E[state.sel] ? E[state.sel].l : '?') + ')' : '';
        if (s.length > 1200 || s.split('\n').length > 16) {
          box.classList.add('clip');
          const btn = el('button', { text: 'expand (' + fmtNum(tp.n) + ' characters)', onclick: () => { box.classList.toggle('clip'); btn.textContent = box.classList.contains('clip') ? 'expand' : 'collapse'; } });
          note.after(btn);
        }
      }).catch(err => { console.error(err); note.textContent = 'full text unavailable: ' + err.message; });
    } else if (D.omittedTexts && tp.n > (tp.x || '').length + 1 && !D.redacted) {
      wrap.append(el('div', { class: 'note', text: 'preview only (' + fmtNum(tp.n) + ' characters; the page text budget was spent)' }));
    }
    return wrap;
  }
  function partNode(p, e, i, k) {
    if (p.k === 'call') {
      const res = p.res ? p.res - 1 : -1;
      return el('div', { class: 'part call', data: { call: p.id || '' } },
        el('div', { class: 'ph' }, el('b', { text: 'tool call ' + (p.nm || '(no name)') }), el('span', { class: 'mono', text: p.id || '(no id)' }),
          res >= 0 ? el('a', { class: 'link jump-result', data: { goto: String(res) }, text: '→ result ' + E[res].id, onclick: () => select(res) })
            : el('span', { class: 'badge warning', text: 'no result in the file' })),
        el('div', { class: 'pb' }, p.x != null ? textNode(p) : el('span', { class: 'note', text: 'no arguments' })));
    }
    if (p.k === 'image') {
      return el('div', { class: 'part' }, el('div', { class: 'ph' }, el('b', { text: 'image' }), el('span', { text: (p.nm || '?') + ', ' + fmtBytes(p.sz || 0) })),
        el('div', { class: 'pb' }, p.img ? el('img', { class: 'thumb', src: p.img, alt: 'image ' + (k + 1) }) : el('span', { class: 'note', text: p.x || 'no thumbnail (not an image this page could decode, or too large)' })));
    }
    const title = p.k === 'thinking' ? 'thinking' + (p.nm ? ' (' + p.nm + ')' : '') : p.k === 'other' ? 'block ' + (p.nm || '?') : (p.nm || 'text');
    return el('div', { class: 'part ' + p.k }, el('div', { class: 'ph' }, el('b', { text: title }), el('span', { class: 'note', text: fmtNum(p.n) + ' chars' })),
      el('div', { class: 'pb' }, textNode(p)));
  }

  function findingNode(k) {
    const f = D.findings[k];
    const node = el('div', { class: 'finding ' + f.sev + (k === state.finding ? ' cur' : ''), data: { i: String(k), rule: f.rule },
      onclick: () => { state.finding = k; if (f.e >= 0) select(f.e); else showTab('file'); } },
      el('div', null, el('span', { class: 'badge ' + f.sev, text: f.sev }), ' ', el('b', { text: f.rule }),
        f.line ? el('span', { class: 'note', text: ' line ' + f.line }) : null,
        f.e >= 0 ? el('span', { class: 'note', text: ' entry ' + E[f.e].id }) : null,
        f.path ? el('span', { class: 'note', text: ' ' + f.path }) : null),
      el('div', { class: 'msg', text: f.msg }));
    return node;
  }

  // ---- side panes
  function showTab(id) {
    state.tab = id;
    for (const b of tabs.children) b.classList.toggle('cur', b.dataset.tab === id);
    renderPane();
  }
  function renderPane() {
    const f = { entry: paneEntry, findings: paneFindings, models: paneModels, compactions: paneCompactions,
      deliveries: paneDeliveries, replay: paneReplay, file: paneFile }[state.tab];
    pane.replaceChildren(...f());
    pane.scrollTop = 0;
  }
  function paneEntry() {
    const i = state.sel;
    if (i < 0) return [el('p', { class: 'note', text: 'Click an entry in the list, a finding, or a point of the timeline.' })];
    const e = E[i], out = [];
    const kv = el('dl', { class: 'kv' });
    const add = (k, v) => { if (v == null || v === '') return; kv.append(el('dt', { text: k }), el('dd', null, v)); };
    add('id', e.id || '(no id)');
    add('type', typeLabel(e) + (e.t === 'message' ? ' message' : ''));
    add('parent', e.p >= 0 ? link(e.p) : e.p === -2 ? el('span', { class: 'badge error', text: 'missing parent ' + (e.pid || '') }) : 'none (a root)');
    add('line', e.l + ' (' + fmtBytes(e.sz) + ')');
    add('time', fmtTime(e.ts, true));
    if (e.m) add('model', D.models[e.m - 1]);
    if (e.in) add(e.t === 'label' || e.t === 'leaf' ? 'target' : e.t === 'branch_summary' ? 'from' : 'detail', e.in);
    if (e.u) add('tokens', 'input ' + fmtNum(e.u[0]) + ', output ' + fmtNum(e.u[1]) + ', cache read ' + fmtNum(e.u[2]) + ', cache write ' + fmtNum(e.u[3]) + ', total ' + fmtNum(e.u[4]));
    if (e.st) add('stop', e.st);
    const flags = [];
    if (e.fl & 1) flags.push('on the active path'); else flags.push('not on the active path (abandoned branch)');
    if (e.fl & 16) flags.push('active leaf');
    if (e.fl & 2) flags.push('appendMode side');
    if (e.fl & 4) flags.push('on a parentId cycle');
    if (e.fl & 8) flags.push('duplicated id');
    add('where', flags.join(', '));
    out.push(kv);
    if (e.er) out.push(el('div', { class: 'part error' }, el('div', { class: 'ph' }, el('b', { text: 'error message' })), el('div', { class: 'pb' }, textNode(e.er))));
    if (e.tr) {
      const c = e.tr.call ? e.tr.call - 1 : -1;
      out.push(el('div', { class: 'part result' + (e.tr.err ? ' error' : '') }, el('div', { class: 'ph' },
        el('b', { text: 'result of ' + (e.tr.tool || 'a tool') }), el('span', { class: 'mono', text: e.tr.id || '(no call id)' }),
        e.tr.err ? el('span', { class: 'badge error', text: 'isError' }) : null,
        c >= 0 ? el('a', { class: 'link jump-call', data: { goto: String(c) }, text: '← call in ' + E[c].id, onclick: () => select(c) })
          : el('span', { class: 'badge warning', text: 'no earlier call with this id' }))));
    }
    if (e.c) out.push(compactionNode(i));
    if (e.x && !e.c) out.push(el('div', { class: 'part' }, el('div', { class: 'ph' }, el('b', { text: e.t === 'custom' ? 'data' : e.t === 'label' ? 'label' : e.t === 'session_info' ? 'name' : 'summary' })), el('div', { class: 'pb' }, textNode(e.x))));
    if (e.b) e.b.forEach((p, k) => out.push(partNode(p, e, i, k)));
    if (e.f) {
      out.push(el('h3', { text: 'Findings on this entry' }));
      for (const k of e.f) {
        out.push(findingNode(k));
        const fd = D.findings[k];
        if (fd.rule === 'fallback.lost-prompt' && fd.ev) {
          const p = fd.ev.promptEntryId;
          let pi = -1;
          if (p) for (let j = 0; j < n; j++) if (E[j].id === p) pi = j;
          out.push(el('div', { class: 'warnbox' }, 'The user prompt this retry replaced: ', pi >= 0 ? link(pi) : el('span', { text: 'not recoverable' }),
            fd.ev.replacedPrompt ? el('div', { class: 'txt', text: fd.ev.replacedPrompt }) : null));
        }
      }
    }
    return out;
  }
  function compactionNode(i) {
    const c = E[i].c, rows = [];
    const rng = (a, label) => a ? el('span', null, label + ' ' + fmtNum(a[2]) + ' entries, ', link(a[0]), ' … ', link(a[1])) : el('span', { class: 'note', text: label + ' nothing' });
    rows.push(el('div', null, 'tokens before ', el('b', { text: c.before != null ? fmtNum(c.before) : '?' }), ' → after ',
      el('b', { text: c.after ? fmtNum(c.after) : '?' }), c.afterAt ? el('span', { class: 'note' }, ' (context of the next turn, ', link(c.afterAt - 1), ')') : null));
    rows.push(el('div', null, rng(c.sum, 'summarised:')));
    rows.push(el('div', null, rng(c.keep, 'kept:')));
    rows.push(el('div', null, 'firstKeptEntryId ', el('span', { class: 'mono', text: c.fk || '(none)' }), c.hook ? ' (from a hook)' : ''));
    return el('div', { class: 'part' }, el('div', { class: 'ph' }, el('b', { text: 'compaction' })), el('div', { class: 'pb' }, rows,
      E[i].x ? textNode(E[i].x) : null));
  }
  let findingFilter = '';
  function paneFindings() {
    const box = el('div');
    const inp = el('input', { type: 'search', id: 'finding-filter', placeholder: 'filter findings: rule, severity, text', value: findingFilter });
    const fill = () => {
      const q = findingFilter.toLowerCase();
      box.replaceChildren();
      D.findings.forEach((f, k) => {
        if (!q || f.rule.includes(q) || f.sev === q || f.msg.toLowerCase().includes(q)) box.append(findingNode(k));
      });
      if (!box.children.length) box.append(el('p', { class: 'note', text: D.findings.length ? 'no finding matches' : 'audit found nothing in this transcript' }));
    };
    inp.addEventListener('input', () => { findingFilter = inp.value; fill(); });
    fill();
    return [inp, box];
  }
  function paneModels() {
    const out = [el('h2', { text: 'Models along the active path' })];
    const t = el('table', { class: 'grid' }, el('tr', null, el('th', { text: 'from' }), el('th', { text: 'model' }), el('th', { class: 'num', text: 'turns' }), el('th', { class: 'num', text: 'errors' })));
    let cur = null, row = null, turns = 0, errs = 0;
    const flush = () => { if (row) { row.children[2].textContent = turns; row.children[3].textContent = errs; } };
    for (const i of path) {
      const e = E[i];
      if (!e.m || e.m === cur) { if (e.r === 'assistant') { turns++; if (e.st === 'error') errs++; } continue; }
      flush();
      cur = e.m; turns = e.r === 'assistant' ? 1 : 0; errs = e.st === 'error' ? 1 : 0;
      row = el('tr', null, el('td', null, link(i)), el('td', { text: D.models[e.m - 1] + (e.t !== 'message' ? ' (' + e.t + ')' : '') }), el('td', { class: 'num' }), el('td', { class: 'num' }));
      t.append(row);
    }
    flush();
    out.push(t);
    out.push(el('h2', { text: 'Fallback chains' }));
    const chains = D.findings.map((f, k) => [f, k]).filter(([f]) => f.rule === 'fallback.chain' || f.rule === 'cli.session-id-conflict');
    if (!chains.length) out.push(el('p', { class: 'note', text: 'no model switch after an error turn' }));
    for (const [f, k] of chains) {
      const ev = f.ev || {};
      let err = -1;
      if (ev.errorEntryId) for (let j = 0; j < n; j++) if (E[j].id === ev.errorEntryId) err = j;
      out.push(el('div', { class: 'part' }, el('div', { class: 'ph' }, el('b', { text: (ev.from || '?') + ' → ' + (ev.to || '?') }), f.path ? el('span', { class: 'note', text: f.path + ':' + f.line }) : null),
        el('div', { class: 'pb' }, err >= 0 ? el('div', null, 'after the error turn ', link(err)) : null,
          f.e >= 0 ? el('div', null, 'first turn on the new model: ', link(f.e)) : null,
          ev.reason ? el('div', { class: 'txt', text: 'error: ' + ev.reason }) : null, findingNode(k))));
    }
    out.push(el('h2', { text: 'Lost fallback prompts' }));
    const lost = D.findings.map((f, k) => [f, k]).filter(([f]) => f.rule === 'fallback.lost-prompt');
    if (!lost.length) out.push(el('p', { class: 'note', text: 'no user turn was replaced by the generic retry text' }));
    for (const [f, k] of lost) {
      const ev = f.ev || {};
      let pi = -1;
      if (ev.promptEntryId) for (let j = 0; j < n; j++) if (E[j].id === ev.promptEntryId) pi = j;
      out.push(el('div', { class: 'part error' }, el('div', { class: 'ph' }, el('b', { text: 'retry text at ' }), link(f.e)),
        el('div', { class: 'pb' }, el('div', null, 'original prompt: ', pi >= 0 ? link(pi) : el('span', { class: 'note', text: 'not recoverable' })),
          ev.replacedPrompt ? el('div', { class: 'txt', text: ev.replacedPrompt }) : null)));
    }
    return out;
  }
  function paneCompactions() {
    const out = [el('h2', { text: 'Compactions' })];
    let any = false;
    for (let i = 0; i < n; i++) {
      if (!E[i].c) continue;
      any = true;
      out.push(el('h3', null, link(i), (E[i].fl & 1) ? '' : ' (not on the active path)'), compactionNode(i));
    }
    if (!any) out.push(el('p', { class: 'note', text: 'no compaction in this transcript' }));
    return out;
  }
  function paneDeliveries() {
    const out = [el('h2', { text: 'Message-tool sends and their deliveries' })];
    const fs = D.findings.map((f, k) => [f, k]).filter(([f]) => f.rule === 'delivery.message-batched');
    if (!fs.length) out.push(el('p', { class: 'note', text: 'no turn held its message-tool sends until its end' + (D.findings.some(f => f.path) ? '' : ' (give gateway logs with --logs to confirm deliveries)') }));
    for (const [f, k] of fs) {
      const ev = f.ev || {};
      const t = el('table', { class: 'grid' }, el('tr', null, ['call', 'text', 'sent', 'delivered', 'delay'].map(h => el('th', { text: h }))));
      for (const m of ev.messages || []) {
        const c = callAt.get(m.toolCallId);
        t.append(el('tr', null, el('td', null, c ? link(c[0], m.toolCallId) : m.toolCallId), el('td', { text: m.text || '' }), el('td', { text: m.sentAt || '' }),
          el('td', { text: m.deliveredAt || '(at turn end ' + (ev.turnEnd || '?') + ')' }),
          el('td', { class: 'num', text: ((m.delayMs != null ? m.delayMs : m.turnEndDelayMs) / 1000).toFixed(1) + ' s' })));
      }
      out.push(el('div', { class: 'part' }, el('div', { class: 'ph' }, el('b', { text: (ev.status || '') + ': ' + (ev.sends || '?') + ' sends' }), ev.deliverySource ? el('span', { class: 'note', text: 'delivery times from ' + ev.deliverySource }) : null),
        el('div', { class: 'pb' }, t, findingNode(k))));
    }
    return out;
  }
  function paneReplay() {
    if (!D.replays.length) return [el('p', { class: 'note', text: 'no replay target (--replay none)' })];
    const k = state.mode >= 0 ? state.mode : 0;
    const rp = D.replays[k], out = [];
    const pick = el('select', { id: 'replay-pick' }, D.replays.map((r, j) => el('option', { value: String(j), text: r.target, selected: j === k })));
    pick.addEventListener('change', () => setMode(+pick.value));
    out.push(el('div', { class: 'controls' }, 'target ', pick, state.mode < 0 ? el('button', { text: 'show the sent messages in the list', onclick: () => setMode(k) }) : null));
    if (rp.error) { out.push(el('div', { class: 'warnbox', text: 'replay failed: ' + rp.error })); return out; }
    const counts = [0, 0, 0, 0, 0];
    for (const s of rp.sent) counts[s.s]++;
    const kv = el('dl', { class: 'kv' });
    const add = (a, b) => kv.append(el('dt', { text: a }), el('dd', { text: b }));
    add('api', rp.api);
    add('detected', rp.family.join(', ') || 'none');
    add('policy', ['tool-call ids ' + (rp.policy.ids || 'kept'), 'pairing repair ' + (rp.policy.pairing ? 'on' : 'off'), rp.policy.dropThinking ? 'thinking dropped' : 'thinking kept',
      rp.policy.google ? 'Google turn rules' : '', rp.policy.anthropic ? 'Anthropic turn rules' : ''].filter(Boolean).join(', '));
    add('messages sent', rp.sent.length + ': ' + SENT.map((s, j) => counts[j] + ' ' + s).join(', ') + '; ' + rp.dropped.length + ' context entries dropped');
    add('tokens', '≈' + fmtNum(rp.tokens) + ' estimated sent; context ' + fmtNum(rp.contextTokens) + ' of window ' + fmtNum(rp.window) + ' (reserve ' + fmtNum(rp.reserve) + ')' + (rp.wouldCompact ? ': would compact now' : ''));
    if (rp.compaction) add('compaction', 'from ' + rp.compaction);
    if (rp.snapshot) add('model snapshot', 'OpenClaw would append one (' + rp.snapshot + ')');
    out.push(kv);
    for (const w of rp.warnings) out.push(el('div', { class: 'warnbox', text: w }));
    const t = el('table', { class: 'grid' }, el('tr', null, el('th', { text: 'hygiene step' }), el('th', { class: 'num', text: 'changed' }), el('th', { text: 'what' })));
    for (const s of rp.steps) t.append(el('tr', null, el('td', { text: s.name }), el('td', { class: 'num', text: String(s.changed) }), el('td', { text: (s.details || []).slice(0, 8).join('\n') + ((s.details || []).length > 8 ? '\n…' : '') })));
    out.push(t);
    if (state.mode === k && state.sentSel >= 0 && state.sentSel < rp.sent.length) {
      const s = rp.sent[state.sentSel];
      out.push(el('h3', { text: 'sent message ' + (state.sentSel + 1) + ': ' + SENT[s.s] }),
        el('div', null, 'from ', s.e >= 0 ? link(s.e) : el('span', { text: s.ref || 'synthetic' })),
        s.j ? textNode(s.j) : el('p', { class: 'note', text: 'sent exactly as stored' }));
    }
    if (rp.dropped.length) {
      out.push(el('h3', { text: 'context entries not sent' }));
      out.push(el('div', null, rp.dropped.slice(0, 200).map(i => [link(i), ' '])));
    }
    return out;
  }
  function paneFile() {
    const out = [], kv = el('dl', { class: 'kv' });
    const add = (a, b) => { if (b != null && b !== '') kv.append(el('dt', { text: a }), el('dd', null, b)); };
    add('file', D.file);
    if (D.header) {
      add('session id', D.header.id); add('started', D.header.ts); add('version', D.header.version != null ? String(D.header.version) : '(none)');
      if (D.header.cwd) add('cwd', D.header.cwd.x);
      if (D.header.parent) add('parent session', D.header.parent.x);
    } else add('header', el('span', { class: 'badge error', text: 'no session header' }));
    const s = D.stats;
    add('lines', fmtNum(s.lines) + ' (' + fmtBytes(s.bytes) + ', ' + s.blank + ' blank)');
    add('entries', fmtNum(s.entries) + ', ' + fmtNum(s.active) + ' on the active path, ' + s.branches + ' branches');
    add('tree', s.roots + ' root(s), ' + s.dangling + ' dangling, ' + s.cycles + ' on cycles, ' + s.dupIds + ' duplicated ids' + (s.unreached ? ', ' + s.unreached + ' unreachable from a root' : ''));
    add('active leaf', s.leaf >= 0 ? link(s.leaf) : 'none');
    add('generated', D.generated);
    out.push(kv);
    for (const note of D.notes) out.push(el('div', { class: 'warnbox', text: note }));
    out.push(el('h2', { text: 'Lines that are not entries' }));
    if (!D.problems.length) out.push(el('p', { class: 'note', text: 'none' }));
    else {
      const t = el('table', { class: 'grid', id: 'problems' }, el('tr', null, el('th', { text: 'line' }), el('th', { text: 'what' }), el('th', { class: 'num', text: 'bytes' })));
      for (const p of D.problems) t.append(el('tr', { data: { line: String(p.line) } }, el('td', { text: String(p.line) }), el('td', { text: p.kind }), el('td', { class: 'num', text: fmtNum(p.size) })));
      out.push(t);
    }
    const other = D.findings.map((f, k) => k).filter(k => D.findings[k].e < 0);
    if (other.length) {
      out.push(el('h2', { text: 'Findings about lines or the whole file' }));
      for (const k of other) out.push(findingNode(k));
    }
    return out;
  }

  function setMode(k) {
    state.mode = k;
    modeSel.value = String(k);
    state.sentSel = -1;
    redraw();
    vl.scrollTo(0, true);
    showTab('replay');
  }
  modeSel.addEventListener('change', () => { const k = +modeSel.value; if (k < 0) { state.mode = -1; redraw(); } else setMode(k); });
  let searchTimer = 0;
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => { state.filter = search.value.trim(); if (state.mode >= 0) { state.mode = -1; modeSel.value = '-1'; } redraw(); vl.scrollTo(0, true); }, 150);
  });
  collapseBtn.addEventListener('click', () => {
    for (let r = 0; r < L.span.length; r++) if (L.span[r] > 0) state.collapsed.add(r);
    redraw();
  });
  expandBtn.addEventListener('click', () => { state.collapsed.clear(); redraw(); });
  document.addEventListener('keydown', ev => {
    if (ev.target.tagName === 'INPUT' || ev.target.tagName === 'SELECT' || state.mode >= 0) return;
    if (ev.key !== 'j' && ev.key !== 'k' && ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
    ev.preventDefault();
    let p = state.sel >= 0 ? visPos(rowOf[state.sel]) : -1;
    p = Math.max(0, Math.min(vis.length - 1, p + (ev.key === 'j' || ev.key === 'ArrowDown' ? 1 : -1)));
    if (vis.length) select(L.order[vis[p]]);
  });

  const plot = drawTimeline(D, path, timeline, tip, select);
  redraw();
  showTab(D.findings.length ? 'findings' : 'file');
  ready({ select, setMode, rows: () => [...list.querySelectorAll('.row')].map(r => r.dataset.id || r.dataset.sent), data: D,
    visibleCount: () => vis.length, scrollList: top => { list.scrollTop = top; vl.draw(); }, timeline: plot });
}

// drawTimeline plots, along the active path, the context size (input + cache, a line) and the
// output tokens (bars) of each assistant turn, with error turns, compactions and model
// fallbacks marked. Clicking a point selects its entry.
function drawTimeline(D, path, box, tip, select) {
  const E = D.entries;
  const pts = []; // [entry, context, output, path position]
  const marks = []; // [path position, kind, entry]
  const fallbackAt = new Set(D.findings.filter(f => f.rule === 'fallback.chain' && f.e >= 0).map(f => f.e));
  path.forEach((i, k) => {
    const e = E[i];
    if (e.u && e.r === 'assistant') pts.push([i, e.u[0] + e.u[2] + e.u[3], e.u[1], k]);
    if (e.st === 'error') marks.push([k, 'error', i]);
    if (e.c) marks.push([k, 'compaction', i]);
    if (fallbackAt.has(i)) marks.push([k, 'fallback', i]);
  });
  // What the plot shows, for tests: the entries plotted as turns and the marks ([entry, kind]).
  const model = { points: pts.map(p => p[0]), marks: marks.map(m => [m[2], m[1]]) };
  if (!pts.length && !marks.length) { box.append(el('div', { class: 'note', style: 'padding:8px', text: 'no assistant turn with token usage on the active path: nothing to plot' })); return model; }
  const canvas = el('canvas', { id: 'timeline-canvas' });
  box.append(canvas, el('div', { class: 'legend', text: '— context (input+cache) ▮ output tokens per turn   ▲ error  ┆ compaction  ◆ fallback' }));
  const maxCtx = pts.reduce((m, p) => Math.max(m, p[1]), 1), maxOut = pts.reduce((m, p) => Math.max(m, p[2]), 1);
  const span = Math.max(1, path.length - 1);
  let geo = null;
  function draw() {
    const dpr = window.devicePixelRatio || 1, w = box.clientWidth, h = box.clientHeight;
    canvas.width = w * dpr; canvas.height = h * dpr;
    const g = canvas.getContext('2d');
    g.scale(dpr, dpr);
    const L = 54, R = 10, T = 14, B = 16, W = w - L - R, H = h - T - B;
    const x = k => L + (k / span) * W;
    // symbolY: the middle of a mark's symbol (errors at the foot, fallbacks at the head,
    // compactions a full-height line).
    geo = { x, L, W, H, span, symbolY: kind => kind === 'error' ? T + H - 4 : kind === 'fallback' ? T + 3 : T + H / 2 };
    g.fillStyle = '#66707a'; g.font = '10px sans-serif';
    g.fillText(fmtNum(maxCtx), 2, T + 8); g.fillText('0', 2, T + H);
    g.fillText('path position →', L, h - 3);
    // output bars, max per pixel column
    const col = new Float64Array(Math.ceil(W) + 1);
    for (const p of pts) { const c = Math.round(x(p[3]) - L); col[c] = Math.max(col[c], p[2]); }
    g.fillStyle = 'rgba(107,63,160,.45)';
    for (let c = 0; c < col.length; c++) if (col[c]) { const bh = col[c] / maxOut * H * 0.45; g.fillRect(L + c, T + H - bh, 1, bh); }
    // context line
    g.strokeStyle = '#1f6feb'; g.lineWidth = 1.2; g.beginPath();
    pts.forEach((p, j) => { const px = x(p[3]), py = T + H - p[1] / maxCtx * H; if (j) g.lineTo(px, py); else g.moveTo(px, py); });
    g.stroke();
    for (const [k, kind] of marks) {
      const px = x(k);
      if (kind === 'compaction') { g.strokeStyle = '#ad5700'; g.setLineDash([3, 3]); g.beginPath(); g.moveTo(px, T); g.lineTo(px, T + H); g.stroke(); g.setLineDash([]); }
      else if (kind === 'error') { g.fillStyle = '#c62828'; g.beginPath(); g.moveTo(px, T + H - 8); g.lineTo(px - 4, T + H); g.lineTo(px + 4, T + H); g.fill(); }
      else { g.fillStyle = '#e07b00'; g.beginPath(); g.moveTo(px, T - 2); g.lineTo(px + 4, T + 3); g.lineTo(px, T + 8); g.lineTo(px - 4, T + 3); g.fill(); }
    }
  }
  // nearest is what a click or hover at ev names: a mark whose symbol (8 px wide) is under
  // the pointer first, since several path positions share a pixel column in a long session;
  // else the nearest turn.
  function nearest(ev) {
    const r = canvas.getBoundingClientRect(), px = ev.clientX - r.left, py = ev.clientY - r.top;
    let best = null, bd = 4.5;
    for (const m of marks) {
      const d = Math.abs(geo.x(m[0]) - px);
      if (d < bd && Math.abs(py - geo.symbolY(m[1])) <= (m[1] === 'compaction' ? geo.H / 2 + 4 : 7)) { bd = d; best = [m[2], m[1]]; }
    }
    if (best) return best;
    const k = (px - geo.L) / geo.W * geo.span;
    bd = Infinity;
    for (const p of pts) { const d = Math.abs(p[3] - k); if (d < bd) { bd = d; best = [p[0], 'turn']; } }
    return best;
  }
  canvas.addEventListener('mousemove', ev => {
    const b = nearest(ev);
    if (!b) return;
    const e = E[b[0]];
    tip.style.display = 'block'; tip.style.left = (ev.clientX + 12) + 'px'; tip.style.top = (ev.clientY + 12) + 'px';
    tip.textContent = b[1] + ' ' + e.id + ' line ' + e.l + (e.u ? ': context ' + fmtNum(e.u[0] + e.u[2] + e.u[3]) + ', output ' + fmtNum(e.u[1]) : '') + (e.m ? ' · ' + D.models[e.m - 1] : '');
  });
  canvas.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
  canvas.addEventListener('click', ev => { const b = nearest(ev); if (b) select(b[0]); });
  new ResizeObserver(draw).observe(box);
  draw();
  // clientX gives the page x of an entry's path position on the plot (tests click there).
  model.clientX = i => canvas.getBoundingClientRect().left + geo.x(path.indexOf(i));
  model.clientY = kind => canvas.getBoundingClientRect().top + geo.symbolY(kind);
  return model;
}
