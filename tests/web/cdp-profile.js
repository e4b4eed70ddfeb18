// Record a known JavaScript call chain in headless Chromium, through the
// DevTools protocol over --remote-debugging-pipe (no npm package needed):
//   node cdp-profile.js CHROMIUM OUT.cpuprofile            V8 CPU profile
//   node cdp-profile.js CHROMIUM OUT.trace.json trace      a performance
//        trace with V8 samples (ProfileChunk events), as DevTools records
// The page runs outer() -> middle() -> leaf() for about 400 ms.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [chromium, out, mode] = process.argv.slice(2);
const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sf-chromium-'));
const child = spawn(chromium, [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
  '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
  '--user-data-dir=' + profileDir, '--remote-debugging-pipe', 'about:blank',
], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });

const toChrome = child.stdio[3], fromChrome = child.stdio[4];
let nextId = 1, buf = '';
const waiting = new Map();
const traceEvents = [];
let traceDone = null;
function send(method, params = {}, sessionId) {
  const id = nextId++;
  const msg = { id, method, params };
  if (sessionId) msg.sessionId = sessionId;
  toChrome.write(JSON.stringify(msg) + '\0');
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}
fromChrome.on('data', (d) => {
  buf += d.toString('utf8');
  let z;
  while ((z = buf.indexOf('\0')) >= 0) {
    const m = JSON.parse(buf.slice(0, z));
    buf = buf.slice(z + 1);
    if (m.method === 'Tracing.dataCollected') traceEvents.push(...m.params.value);
    if (m.method === 'Tracing.tracingComplete' && traceDone) traceDone();
    const w = m.id && waiting.get(m.id);
    if (!w) continue;
    waiting.delete(m.id);
    if (m.error) w.reject(new Error(JSON.stringify(m.error))); else w.resolve(m.result);
  }
});
function finish(code) {
  // close the browser properly so no child process still writes into the
  // profile directory when it is removed; kill it if it does not go
  const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
  child.on('exit', () => {
    clearTimeout(killer);
    setTimeout(() => {
      fs.rmSync(profileDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      process.exit(code);
    }, 200);
  });
  try { toChrome.write(JSON.stringify({ id: nextId++, method: 'Browser.close' }) + '\0'); }
  catch (e) { child.kill('SIGKILL'); }
}
setTimeout(() => { console.error('timeout'); finish(2); }, 60000);

const workload = `
function leaf(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i); return s; }
function middle(n) { return leaf(n) + leaf(n >> 1); }
function outer() { const t = Date.now(); let s = 0; while (Date.now() - t < 400) s += middle(20000); return s; }
outer();`;

(async () => {
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  if (mode === 'trace') {
    await send('Tracing.start', {
      transferMode: 'ReportEvents',
      traceConfig: { includedCategories: ['devtools.timeline', 'v8.execute',
        'disabled-by-default-v8.cpu_profiler', 'disabled-by-default-devtools.timeline'] },
    });
    await send('Runtime.evaluate', { expression: workload }, sessionId);
    const done = new Promise((resolve) => { traceDone = resolve; });
    await send('Tracing.end');
    await done;
    fs.writeFileSync(out, JSON.stringify({ traceEvents }));
    finish(0);
    return;
  }
  await send('Profiler.enable', {}, sessionId);
  await send('Profiler.setSamplingInterval', { interval: 200 }, sessionId);
  await send('Profiler.start', {}, sessionId);
  await send('Runtime.evaluate', { expression: workload }, sessionId);
  const { profile } = await send('Profiler.stop', {}, sessionId);
  fs.writeFileSync(out, JSON.stringify(profile));
  finish(0);
})().catch((e) => { console.error(String(e)); finish(1); });
