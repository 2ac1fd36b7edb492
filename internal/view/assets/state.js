// clawdoctor view: the state-dir page.
(async function main() {
  let D;
  try { D = await loadData(); } catch (e) { fail(e); return; }
  try { startState(D); } catch (e) { fail(e); }
})();

function startState(D) {
  const app = document.getElementById('app');
  const rows = D.rows;
  const COLS = [
    ['key', 'session key / file', r => r.key || r.file || ''],
    ['agent', 'agent', r => r.agent],
    ['channel', 'channel', r => (r.channel || '') + (r.chat ? ' ' + r.chat : '')],
    ['updated', 'updated', r => r.updated || 0],
    ['size', 'size', r => r.size],
    ['entries', 'entries', r => r.entries],
    ['findings', 'findings', r => r.findings * 4 + sevRank(r.sev)],
    ['cleanup', 'cleanup would', r => r.cleanup || ''],
    ['kind', 'kind', r => r.kind],
  ];
  const state = { sort: 'updated', asc: false, q: '', agent: '', kind: '', onlyCleanup: false, onlyFindings: false };
  let shown = [];

  const head = el('header', { class: 'top' },
    el('h1', { text: 'clawdoctor view: ' + D.title }),
    D.redacted ? el('span', { class: 'badge redacted', text: 'redacted' }) : null,
    el('span', { class: 'file', text: D.root }),
    el('span', { class: 'badge', text: D.agents.length + ' agent(s)' }),
    el('span', { class: 'badge', text: rows.length + ' rows' }),
    el('span', { class: 'note', text: 'generated ' + D.generated }));

  // disk use per agent and kind
  const wrap = el('div', { class: 'wrap' });
  wrap.append(el('h2', { text: 'Disk use per agent and kind' }));
  const maxBytes = Math.max(1, ...D.agents.map(a => a.files.bytes));
  const t = el('table', { class: 'grid', id: 'disk' }, el('tr', null, el('th', { text: 'agent' }), el('th', { class: 'num', text: 'total' }),
    D.kinds.map(k => el('th', { class: 'num', text: k })), el('th', { text: 'store and cleanup' })));
  for (const a of D.agents) {
    const notes = [a.entries + ' rows in sessions.json' + (a.corrupt ? ' (corrupt)' : '')];
    if (a.mode) notes.push('cleanup (' + a.mode + ') would remove ' + a.wouldRemove + ' row(s) and ' + a.wouldFiles + ' file(s), ' + fmtBytes(a.freedBytes));
    if (a.liveLocks || a.staleLocks) notes.push(a.liveLocks + ' live / ' + a.staleLocks + ' stale lock(s)');
    if (a.cleanupNote) notes.push(a.cleanupNote);
    t.append(el('tr', { data: { agent: a.id } }, el('td', null, el('b', { text: a.id }), a.sqlite ? el('span', { class: 'badge warning', text: ' SQLite era' }) : null, el('div', { class: 'note mono', text: a.dir })),
      el('td', { class: 'num' }, el('span', { class: 'bar', style: 'width:' + Math.max(2, Math.round(a.files.bytes / maxBytes * 80)) + 'px' }), fmtBytes(a.files.bytes), el('div', { class: 'note', text: a.files.files + ' files' })),
      D.kinds.map(k => { const c = a.kinds[k]; return el('td', { class: 'num', title: c ? c.files + ' file(s)' : '', text: c ? fmtBytes(c.bytes) + ' (' + c.files + ')' : '' }); }),
      el('td', { text: notes.join('; ') })));
  }
  wrap.append(t);
  for (const note of D.notes) wrap.append(el('div', { class: 'warnbox', text: note }));
  for (const f of D.failed) wrap.append(el('div', { class: 'warnbox', text: 'no page: ' + f }));
  if (D.findings.length) {
    const det = el('details', { id: 'other-findings' }, el('summary', { text: D.findings.length + ' finding(s) about stores, locks and logs' }));
    for (const f of D.findings) det.append(el('div', { class: 'finding ' + f.sev }, el('span', { class: 'badge ' + f.sev, text: f.sev }), ' ', el('b', { text: f.rule }), ' ', el('span', { class: 'note', text: (f.path || '') + (f.line ? ':' + f.line : '') }), el('div', { class: 'msg', text: f.msg })));
    wrap.append(det);
  }

  // sessions table (virtualised rows)
  const q = el('input', { type: 'search', id: 'filter', placeholder: 'filter: key, file, channel, reason…' });
  const agentSel = el('select', { id: 'agent' }, el('option', { value: '', text: 'all agents' }), D.agents.map(a => el('option', { value: a.id, text: a.id })));
  const kinds = [...new Set(rows.map(r => r.kind))].sort();
  const kindSel = el('select', { id: 'kind' }, el('option', { value: '', text: 'all kinds' }), kinds.map(k => el('option', { value: k, text: k })));
  const cl = el('input', { type: 'checkbox', id: 'only-cleanup' });
  const fd = el('input', { type: 'checkbox', id: 'only-findings' });
  const count = el('span', { class: 'note', id: 'count' });
  const controls = el('div', { class: 'controls', style: 'padding:6px 12px' }, el('b', { text: 'Sessions' }), q, agentSel, kindSel,
    el('label', null, cl, ' cleanup would remove'), el('label', null, fd, ' with findings'), count);
  const th = el('div', { class: 'tablehead' }, COLS.map(([id, label]) => el('span', { data: { col: id }, text: label, onclick: () => sortBy(id) })));
  const list = el('div', { class: 'vlist', id: 'sessions' });
  app.replaceChildren(head, wrap, controls, th, list);
  const vl = new VList(list, 28, i => row(shown[i]));

  function row(k) {
    const r = rows[k];
    const name = r.key || r.file || '(no transcript)';
    const cells = [
      r.page ? el('a', { href: r.page, class: 'mono', text: name, title: r.file || '' }) : el('span', { class: 'mono', text: name, title: r.file || '' }),
      el('span', { text: r.agent }),
      el('span', { text: (r.channel || '') + (r.chat ? ' · ' + r.chat : '') }),
      el('span', { text: fmtDate(r.updated) }),
      el('span', { class: 'num', text: r.size ? fmtBytes(r.size) : '' }),
      el('span', { class: 'num', text: r.entries >= 0 ? fmtNum(r.entries) : '' }),
      el('span', { class: 'num' }, r.findings ? el('span', { class: 'badge ' + r.sev, text: String(r.findings) }) : ''),
      el('span', { title: r.why || '', text: r.cleanup ? r.cleanup + (r.why ? ': ' + r.why : '') : '' }),
      el('span', { text: r.kind }),
    ];
    return el('div', { class: 'row' + (r.cleanup ? ' off' : ''), data: { row: String(k), key: r.key || '', file: r.file || '' } }, cells);
  }
  function apply() {
    const qq = state.q.toLowerCase();
    shown = [];
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k];
      if (state.agent && r.agent !== state.agent) continue;
      if (state.kind && r.kind !== state.kind) continue;
      if (state.onlyCleanup && !r.cleanup) continue;
      if (state.onlyFindings && !r.findings) continue;
      if (qq && !((r.key || '') + ' ' + (r.file || '') + ' ' + (r.channel || '') + ' ' + (r.why || '') + ' ' + (r.sid || '')).toLowerCase().includes(qq)) continue;
      shown.push(k);
    }
    const get = COLS.find(c => c[0] === state.sort)[2];
    shown.sort((a, b) => {
      const x = get(rows[a]), y = get(rows[b]);
      const c = typeof x === 'number' ? x - y : String(x).localeCompare(String(y));
      return (state.asc ? c : -c) || a - b;
    });
    for (const s of th.children) { s.classList.toggle('sorted', s.dataset.col === state.sort); s.classList.toggle('asc', state.asc); }
    count.textContent = shown.length + ' of ' + rows.length;
    vl.setCount(shown.length);
  }
  function sortBy(id) {
    if (state.sort === id) state.asc = !state.asc;
    else { state.sort = id; state.asc = id === 'key' || id === 'agent' || id === 'kind' || id === 'channel'; }
    apply();
  }
  q.addEventListener('input', () => { state.q = q.value.trim(); apply(); });
  agentSel.addEventListener('change', () => { state.agent = agentSel.value; apply(); });
  kindSel.addEventListener('change', () => { state.kind = kindSel.value; apply(); });
  cl.addEventListener('change', () => { state.onlyCleanup = cl.checked; apply(); });
  fd.addEventListener('change', () => { state.onlyFindings = fd.checked; apply(); });
  apply();
  ready({ data: D, shown: () => shown.map(k => rows[k]), sortBy });
}
