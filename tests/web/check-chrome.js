// Structural checks of our Chrome outputs against the rules their
// consumers rely on (DevTools protocol Profiler.Profile; Trace Event
// Format document, "Duration Events").  Usage:
//   node check-chrome.js cpuprofile FILE | trace FILE
// Prints "ok" or the first violation; exits 1 on a violation.
'use strict';
const fs = require('fs');
const [kind, file] = process.argv.slice(2);
const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
function die(msg) { console.log(msg); process.exit(1); }
const isInt = (x) => Number.isInteger(x);

if (kind === 'cpuprofile') {
  // Profile: nodes (ProfileNode: id, callFrame{functionName, scriptId,
  // url, lineNumber, columnNumber}, hitCount?, children?), startTime,
  // endTime, samples?, timeDeltas?
  if (!Array.isArray(doc.nodes) || !doc.nodes.length) die('no nodes');
  const ids = new Set(), parentOf = new Map();
  for (const n of doc.nodes) {
    if (!isInt(n.id) || ids.has(n.id)) die('bad or duplicate id ' + n.id);
    ids.add(n.id);
    const cf = n.callFrame;
    if (!cf || typeof cf.functionName !== 'string' || typeof cf.scriptId !== 'string' ||
        typeof cf.url !== 'string' || !isInt(cf.lineNumber) || !isInt(cf.columnNumber))
      die('bad callFrame in node ' + n.id);
    if (n.hitCount !== undefined && !(isInt(n.hitCount) && n.hitCount >= 0)) die('bad hitCount');
    for (const c of n.children || []) {
      if (parentOf.has(c)) die('node ' + c + ' has two parents');
      parentOf.set(c, n.id);
    }
  }
  for (const c of parentOf.keys()) if (!ids.has(c)) die('child ' + c + ' is not a node');
  const roots = doc.nodes.filter((n) => !parentOf.has(n.id));
  if (roots.length !== 1 || roots[0].callFrame.functionName !== '(root)')
    die('expected exactly one root node, "(root)"');
  if (!(typeof doc.startTime === 'number' && typeof doc.endTime === 'number' &&
        doc.startTime <= doc.endTime)) die('bad startTime/endTime');
  if (!Array.isArray(doc.samples) || !Array.isArray(doc.timeDeltas) ||
      doc.samples.length !== doc.timeDeltas.length) die('samples and timeDeltas differ in length');
  let t = doc.startTime;
  const hits = new Map();
  for (let i = 0; i < doc.samples.length; i++) {
    if (!ids.has(doc.samples[i])) die('sample ' + i + ' names no node');
    if (!isInt(doc.timeDeltas[i]) || doc.timeDeltas[i] < 0) die('bad timeDelta ' + i);
    t += doc.timeDeltas[i];
    hits.set(doc.samples[i], (hits.get(doc.samples[i]) || 0) + 1);
  }
  if (t > doc.endTime) die('samples run past endTime');
  for (const n of doc.nodes)
    if ((n.hitCount || 0) !== (hits.get(n.id) || 0)) die('hitCount of node ' + n.id + ' disagrees with samples');
  console.log('ok');
} else if (kind === 'trace') {
  const ev = Array.isArray(doc) ? doc : doc.traceEvents;
  if (!Array.isArray(ev)) die('no traceEvents');
  const stacks = new Map(), last = new Map();
  for (const [i, e] of ev.entries()) {
    if (typeof e.ph !== 'string' || !isInt(e.pid) || !isInt(e.tid) || typeof e.name !== 'string')
      die('event ' + i + ' lacks ph, pid, tid or name');
    const k = e.pid + ':' + e.tid;
    if (e.ph === 'M') {
      if (!e.args || typeof e.args.name !== 'string') die('metadata event ' + i + ' without args.name');
      continue;
    }
    if (e.ph !== 'B' && e.ph !== 'E') die('unexpected phase ' + e.ph);
    if (typeof e.ts !== 'number') die('event ' + i + ' without ts');
    if (last.has(k) && e.ts < last.get(k)) die('time goes back at event ' + i);
    last.set(k, e.ts);
    const st = stacks.get(k) || [];
    stacks.set(k, st);
    if (e.ph === 'B') st.push(e.name);
    else if (!st.length || st.pop() !== e.name) die('E event ' + i + ' does not close the innermost B');
  }
  for (const [k, st] of stacks) if (st.length) die('thread ' + k + ' ends with open events');
  console.log('ok');
} else die('usage');
