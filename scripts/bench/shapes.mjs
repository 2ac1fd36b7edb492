// scripts/bench/shapes.mjs: transcripts shaped independently of `clawdoctor fixtures generate`,
// for the audit benchmarks (issue 14): the same format, other proportions.
//
//   node scripts/bench/shapes.mjs SHAPE BYTES OUT
//
// SHAPE is one of
//   long-results  tool results of 20-400 KB of text (half of them from the message tool, whose
//                 text carries a messageId), few and short user turns
//   tiny          many tiny entries (~150 bytes): short user/assistant turns, labels
//   images        user turns and tool results with inline base64 images of 0.5-4 MB
//   branching     a deep tree: every few entries a new branch forks from a random earlier
//                 entry (as /tree navigation and regenerations do), with leaf rows
// Deterministic (a fixed-seed xorshift), streaming (bounded memory).
import fs from 'node:fs';

const [shape, bytesArg, out] = process.argv.slice(2);
if (!shape || !bytesArg || !out) {
  console.error('usage: node shapes.mjs long-results|tiny|images|branching BYTES OUT');
  process.exit(2);
}
const target = Number(bytesArg);
let seed = 0x9e3779b9;
const rnd = () => { seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0; return seed / 4294967296; };
const pick = (a) => a[Math.floor(rnd() * a.length)];
const words = 'the build failed because a module is missing please check logs deploy retry network timeout file path config value user agent tool result ok error line branch commit test run cache disk memory'.split(' ');
const text = (n) => { let s = ''; while (s.length < n) s += pick(words) + (rnd() < 0.1 ? '\n' : ' '); return s.slice(0, n); };
const hex8 = () => Math.floor(rnd() * 0xffffffff).toString(16).padStart(8, '0');
const b64block = (() => { const a = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'; let s = ''; for (let i = 0; i < 65536; i++) s += a[(i * 7 + (i >> 5)) & 63]; return s; })();
const b64 = (n) => b64block.repeat(Math.ceil(n / b64block.length)).slice(0, n);

const fd = fs.openSync(out, 'w');
let written = 0, buf = [], bufLen = 0;
const write = (obj) => {
  const l = JSON.stringify(obj) + '\n';
  buf.push(l); bufLen += l.length; written += Buffer.byteLength(l);
  if (bufLen > 1 << 22) { fs.writeSync(fd, buf.join('')); buf = []; bufLen = 0; }
};
let t = Date.parse('2026-04-01T00:00:00Z');
const ts = () => { t += Math.floor(rnd() * 5000); return new Date(t).toISOString(); };
write({ type: 'session', version: 3, id: '7e57' + hex8().slice(4) + '-0000-4000-8000-000000000000', timestamp: ts(), cwd: '/srv/app' });

const ids = [];
let parent = null;
const entry = (type, extra) => {
  const id = hex8();
  const e = { type, id, parentId: parent, timestamp: ts(), ...extra };
  write(e); ids.push(id);
  if (ids.length > 4096) ids.splice(0, 2048); // fork points: a recent window
  parent = id;
  return id;
};
const user = (content) => entry('message', { message: { role: 'user', content, timestamp: t } });
const assistant = (content, stop) => entry('message', { message: { role: 'assistant', content, api: 'openai-responses', provider: 'openai', model: 'gpt-5.4', usage: { input: 1000, output: 50 }, stopReason: stop, timestamp: t } });
const result = (callId, toolName, content) => entry('message', { message: { role: 'toolResult', toolCallId: callId, toolName, content, isError: false, timestamp: t } });
let calls = 0;
const call = (name, args) => ({ type: 'toolCall', id: `call_${hex8()}${hex8()}_${calls++}`, name, arguments: args });

while (written < target) {
  switch (shape) {
    case 'long-results': {
      user([{ type: 'text', text: text(60) }]);
      for (let k = 0; k < 4 && written < target; k++) {
        const msg = rnd() < 0.5;
        const c = msg ? call('message', { action: 'send', message: text(80), target: '42' }) : call('exec', { command: 'cat big.log' });
        assistant([{ type: 'text', text: text(40) }, c], 'toolUse');
        const body = text(20000 + Math.floor(rnd() * 380000));
        result(c.id, c.name, [{ type: 'text', text: msg ? `{"ok":true,"messageId":"${hex8()}","note":${JSON.stringify(body)}}` : body }]);
      }
      assistant([{ type: 'text', text: text(200) }], 'stop');
      break;
    }
    case 'tiny':
      if (rnd() < 0.05) entry('label', { targetId: parent, label: 'x' });
      else if (rnd() < 0.5) user(text(8));
      else assistant([{ type: 'text', text: text(6) }], 'stop');
      break;
    case 'images': {
      const img = () => ({ type: 'image', data: b64(4 * Math.floor((500000 + rnd() * 3500000) / 4)), mimeType: 'image/png' });
      user([{ type: 'text', text: text(40) }, img()]);
      const c = call('browser', { action: 'screenshot' });
      assistant([c], 'toolUse');
      result(c.id, 'browser', [{ type: 'text', text: 'screenshot taken' }, img()]);
      assistant([{ type: 'text', text: text(300) }], 'stop');
      break;
    }
    case 'branching': {
      if (rnd() < 0.15 && ids.length > 10) parent = pick(ids); // fork from an earlier entry
      user([{ type: 'text', text: text(100 + Math.floor(rnd() * 400)) }]);
      const c = call('read', { path: '/srv/app/' + pick(words) });
      assistant([{ type: 'text', text: text(50) }, c], 'toolUse');
      result(c.id, 'read', [{ type: 'text', text: text(200 + Math.floor(rnd() * 2000)) }]);
      assistant([{ type: 'text', text: text(100 + Math.floor(rnd() * 800)) }], 'stop');
      if (rnd() < 0.05) write({ type: 'leaf', id: hex8(), parentId: parent, timestamp: ts(), targetId: pick(ids) });
      break;
    }
    default:
      console.error('unknown shape ' + shape);
      process.exit(2);
  }
}
fs.writeSync(fd, buf.join(''));
fs.closeSync(fd);
process.stderr.write(`shapes: ${shape} ${written} bytes\n`);
