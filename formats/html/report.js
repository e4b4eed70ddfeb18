// sftools HTML report: the page's script (embedded by fmt_html.c beside it,
// allowed by the page's Content-Security-Policy through its sha256).
// Every name reaches the DOM through textContent or a canvas fillText,
// never as markup; no eval, no inline handlers, no network.
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const T0 = performance.now();

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // ----- the data (fmt_html.c describes it) -----
  // gzip+base64: a length, the JSON, then the tree in varints
  async function loadData() {
    const b64 = atob($('sf-data').textContent);
    const z = new Uint8Array(b64.length);
    for (let i = 0; i < b64.length; i++) z[i] = b64.charCodeAt(i);
    const st = new Blob([z]).stream()
      .pipeThrough(new DecompressionStream('gzip'));
    const u = new Uint8Array(await new Response(st).arrayBuffer());
    const jl = u[0] + u[1] * 256 + u[2] * 65536 + u[3] * 16777216;
    const d = JSON.parse(new TextDecoder().decode(u.subarray(4, 4 + jl)));
    let pos = 4 + jl;
    const vu = () => {
      let r = 0, m = 1, b;
      do { b = u[pos++]; r += (b & 127) * m; m *= 128; } while (b & 128);
      return r;
    };
    const n = d.n;
    d.parent = new Int32Array(n);
    d.func = new Int32Array(n);
    d.func[0] = -1;
    for (let i = 1; i < n; i++) {
      d.parent[i] = i - vu();
      d.func[i] = vu();
    }
    const dv = new DataView(u.buffer);
    const weights = () => {
      const w = new Float64Array(n);
      let at = 0;
      for (let k = vu(); k > 0; k--) {
        at += vu();
        const t = vu();
        if (t === 1) { w[at] = dv.getFloat64(pos, true); pos += 8; }
        else { const z2 = t / 2; w[at] = z2 % 2 ? -(z2 + 1) / 2 : z2 / 2; }
      }
      return w;
    };
    d.w = weights();
    d.b = d.diff ? weights() : null;
    // per thread: times (ns from t0), stack nodes, 1 + state index
    d.tracks = (d.threads || []).map(() => {
      const k = vu(), tm = new Float64Array(k), sk = new Int32Array(k),
            sv = new Uint16Array(k);
      let t = 0;
      for (let j = 0; j < k; j++) { t += vu(); tm[j] = t; sk[j] = vu(); sv[j] = vu(); }
      return { tm, sk, sv };
    });
    return d;
  }

  let D, NAMES, NF, BYNAME, DIFF;
  let BASE;       // the profile's tree
  let CUR;        // after the transforms
  let INV = null; // inverted CUR, built on demand
  const st = { view: 'flame', sel: -1, q: '', inv: false, tf: [],
               zoom: 0, sort: 'self' };

  // A tree: node 0 is the root; parent[i] < i; func[i] a name index;
  // w[i] self weight (NEW for a diff), b[i] BASE self weight.
  function Builder(cap) {
    this.n = 1;
    this.parent = new Int32Array(cap + 1);
    this.func = new Int32Array(cap + 1);
    this.w = new Float64Array(cap + 1);
    this.b = DIFF ? new Float64Array(cap + 1) : null;
    this.map = new Map();
    this.func[0] = -1;
  }
  Builder.prototype.child = function (p, f) {
    const k = p * (NF + 1) + f;
    let c = this.map.get(k);
    if (c === undefined) {
      c = this.n++;
      this.parent[c] = p;
      this.func[c] = f;
      this.map.set(k, c);
    }
    return c;
  };
  Builder.prototype.done = function () {
    const n = this.n;
    const t = { n, parent: this.parent.subarray(0, n),
                func: this.func.subarray(0, n), w: this.w.subarray(0, n),
                b: this.b ? this.b.subarray(0, n) : null };
    return finish(t);
  };

  // totals, depth, children (sorted by name index: flamegraph.pl's order)
  function finish(t) {
    const n = t.n;
    t.tot = new Float64Array(t.w);
    t.btot = t.b ? new Float64Array(t.b) : null;
    for (let i = n - 1; i > 0; i--) {
      t.tot[t.parent[i]] += t.tot[i];
      if (t.btot) t.btot[t.parent[i]] += t.btot[i];
    }
    t.depth = new Int32Array(n);
    t.maxdepth = 0;
    const cnt = new Int32Array(n + 1);
    for (let i = 1; i < n; i++) {
      t.depth[i] = t.depth[t.parent[i]] + 1;
      if (t.depth[i] > t.maxdepth) t.maxdepth = t.depth[i];
      cnt[t.parent[i] + 1]++;
    }
    for (let i = 0; i < n; i++) cnt[i + 1] += cnt[i];
    t.kstart = cnt.slice(0, n + 1);
    t.kids = new Int32Array(Math.max(n - 1, 0));
    const fill = cnt.slice(0, n);
    for (let i = 1; i < n; i++) t.kids[fill[t.parent[i]]++] = i;
    const kids = t.kids, func = t.func;
    t.dup = false;
    for (let i = 0; i < n; i++) {
      const a = t.kstart[i], e = t.kstart[i + 1];
      if (e - a < 2) continue;
      if (e - a > 64) {
        const sub = Array.from(kids.subarray(a, e));
        sub.sort((x, y) => func[x] - func[y]);
        kids.set(sub, a);
      } else {
        for (let j = a + 1; j < e; j++) {
          const v = kids[j], fv = func[v];
          let k = j - 1;
          while (k >= a && func[kids[k]] > fv) { kids[k + 1] = kids[k]; k--; }
          kids[k + 1] = v;
        }
      }
      for (let j = a + 1; j < e; j++)
        if (func[kids[j]] === func[kids[j - 1]]) t.dup = true;
    }
    return t;
  }
  function kidsOf(t, i) {
    return t.kids.subarray(t.kstart[i], t.kstart[i + 1]);
  }

  // Rebuild `src` through decide(i, po, B): the output node of src node i
  // given its parent's output po (>= 0), or -1 (dropped with its subtree),
  // or <= -2 (pending: not yet placed, weight dropped; decide sees it).
  function rebuild(src, root, decide) {
    const B = new Builder(src.n);
    const o = new Int32Array(src.n);
    o[0] = root;
    for (let i = 1; i < src.n; i++) {
      const po = o[src.parent[i]];
      if (po === -1) { o[i] = -1; continue; }
      const r = o[i] = decide(i, po, B);
      if (r >= 0) {
        B.w[r] += src.w[i];
        if (B.b) B.b[r] += src.b[i];
      }
    }
    return B.done();
  }

  const TF = {
    merge: { label: (a) => 'merge ' + NAMES[a],
             run: (t, f) => rebuild(t, 0, (i, po, B) =>
               t.func[i] === f ? po : B.child(po, t.func[i])) },
    lib: { label: (a) => 'merge library ' + D.mods[a],
           run: (t, m) => rebuild(t, 0, (i, po, B) =>
             D.fmod[t.func[i]] === m ? po : B.child(po, t.func[i])) },
    drop: { label: (a) => 'drop samples with ' + NAMES[a],
            run: (t, f) => rebuild(t, 0, (i, po, B) =>
              t.func[i] === f ? -1 : B.child(po, t.func[i])) },
    rec: { label: (a) => 'collapse recursion of ' + NAMES[a],
           run: (t, f) => rebuild(t, 0, (i, po, B) =>
             t.func[i] === f && B.func[po] === f ? po :
               B.child(po, t.func[i])) },
    focus: { label: (a) => 'focus on ' + NAMES[a],
             run: (t, f) => rebuild(t, -2, (i, po, B) =>
               po >= 0 ? B.child(po, t.func[i]) :
                 t.func[i] === f ? B.child(0, f) : -2) },
    // path: name indices from the root; pending -(m+2) after m matched
    subtree: { label: (a) => 'focus on subtree ' + a.map((f) => NAMES[f]).join(' > '),
               run: (t, path) => rebuild(t, -2, (i, po, B) => {
                 if (po >= 0) return B.child(po, t.func[i]);
                 const m = -po - 2;
                 if (t.func[i] !== path[m]) return -1;
                 return m + 1 === path.length ? B.child(0, t.func[i]) : -(m + 3);
               }) },
  };

  function applyTransforms() {
    let t = BASE;
    for (const x of st.tf) t = TF[x[0]].run(t, x[1]);
    CUR = t;
    INV = null;
    FLAT = null;
    st.zoom = 0;
  }

  // The inverted tree: from each leaf function up to the root.
  function inverted() {
    if (INV) return INV;
    const t = CUR;
    let cap = 0;
    for (let i = 1; i < t.n; i++) if (t.w[i] || (t.b && t.b[i])) cap += t.depth[i];
    const B = new Builder(cap);
    for (let i = 1; i < t.n; i++) {
      if (!t.w[i] && !(t.b && t.b[i])) continue;
      let p = 0;
      for (let j = i; j > 0; j = t.parent[j]) p = B.child(p, t.func[j]);
      B.w[p] += t.w[i];
      if (B.b) B.b[p] += t.b[i];
    }
    INV = B.done();
    return INV;
  }

  // ----- numbers -----
  function fmt(v) {
    if (Number.isInteger(v)) return v.toLocaleString('en-US');
    return (+v.toPrecision(6)).toLocaleString('en-US', { maximumFractionDigits: 6 });
  }
  function pct(v, all) {
    return all ? (100 * v / all).toFixed(2) + '%' : '0.00%';
  }
  function signed(v) {
    return (v > 0 ? '+' : '') + fmt(v);
  }

  // ----- flat table: self and total per function -----
  let FLAT = null;
  function flat() {
    if (FLAT) return FLAT;
    const t = CUR;
    const self = new Float64Array(NF), tot = new Float64Array(NF);
    const bself = new Float64Array(NF), btot = new Float64Array(NF);
    const on = new Int32Array(NF);
    // iterative DFS: a function's total counts each stack once
    const stack = [0];
    while (stack.length) {
      const i = stack.pop();
      if (i < 0) { on[t.func[~i]]--; continue; }
      if (i > 0) {
        const f = t.func[i];
        self[f] += t.w[i];
        if (t.b) bself[f] += t.b[i];
        if (!on[f]) { tot[f] += t.tot[i]; if (t.b) btot[f] += t.btot[i]; }
        on[f]++;
        stack.push(~i);
      }
      const k = kidsOf(t, i);
      for (let j = k.length - 1; j >= 0; j--) stack.push(k[j]);
    }
    const rows = [];
    for (let f = 0; f < NF; f++)
      if (tot[f] || btot[f]) rows.push(f);
    FLAT = { self, tot, bself, btot, rows };
    return FLAT;
  }

  // ----- colours: flamegraph.pl's hot palette by name hash -----
  const enc = new TextEncoder();
  function namehash(b, backwards) {
    let vector = 0, weight = 1, max = 1, mod = 10;
    for (let k = 0; k < b.length; k++) {
      const c = backwards ? b[b.length - 1 - k] : b[k];
      const i = c % mod;
      vector += (i / (mod++ - 1)) * weight;
      max += weight;
      weight *= 0.70;
      if (mod > 12) break;
    }
    return 1 - vector / max;
  }
  const COL = new Map();
  function hot(f) {
    let c = COL.get(f);
    if (c) return c;
    let s = f < 0 ? 'all' : NAMES[f];
    const tick = s.length ? s.indexOf('`', 1) : -1;
    if (tick >= 0) s = s.slice(tick + 1);
    const b = enc.encode(s);
    const v1 = namehash(b, false), v2 = namehash(b, true), v3 = v2;
    c = 'rgb(' + (205 + Math.trunc(50 * v3)) + ',' + Math.trunc(230 * v1) +
        ',' + Math.trunc(55 * v2) + ')';
    COL.set(f, c);
    return c;
  }
  function diffColour(delta, maxd) {
    if (!delta || maxd <= 0) return 'rgb(235,235,235)';
    const c = Math.round(220 * (1 - Math.abs(delta) / maxd));
    return delta > 0 ? 'rgb(255,' + c + ',' + c + ')' : 'rgb(' + c + ',' + c + ',255)';
  }

  // A canvas of W x H CSS pixels, sharp on any pixel ratio; its context.
  function canvas2d(cv, W, H) {
    const dpr = window.devicePixelRatio || 1;
    cv.width = W * dpr; cv.height = H * dpr;
    cv.style.width = W + 'px'; cv.style.height = H + 'px';
    const g = cv.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.font = '12px Verdana, sans-serif';
    g.textBaseline = 'middle';
    return g;
  }

  // ----- flame graph and icicle (canvas) -----
  const FH = 16;
  let drawn = [];      // [node, x, y, w] of each drawn frame
  let re = null;
  function flameDraw() {
    const t = CUR, cv = $('flame'), icicle = st.view === 'icicle';
    const W = Math.max(400, $('flamebox').clientWidth - 20 || 1200);
    const depth = Math.min(t.maxdepth, 2000);
    const H = (depth + 1) * FH + 4;
    const g = canvas2d(cv, W, H);
    drawn = [];
    const z = st.zoom, all = t.tot[z];
    let maxd = 0;
    if (t.b) for (let i = 1; i < t.n; i++) maxd = Math.max(maxd, Math.abs(t.w[i] - t.b[i]));
    const scale = all > 0 ? W / all : 0;
    const yOf = (d) => icicle ? d * FH : H - 4 - (d + 1) * FH;
    const cw = 7.2;
    let matched = 0;
    const box = (i, x, w, hit) => {
      const y = yOf(t.depth[i]);
      drawn.push([i, x, y, w]);
      const f = i ? t.func[i] : -1;
      g.fillStyle = hit ? 'rgb(230,0,230)' :
        t.b ? diffColour(t.w[i] - t.b[i], maxd) : hot(f);
      g.fillRect(x, y, Math.max(w - 0.5, 0.5), FH - 1);
      if (i && f === st.sel) {
        g.strokeStyle = '#000'; g.lineWidth = 2;
        g.strokeRect(x + 1, y + 1, Math.max(w - 2.5, 0.5), FH - 3);
      }
      if (w > 3 * cw) {
        const nm = i ? NAMES[f] : 'all';
        let n = Math.floor((w - 6) / cw);
        const lab = nm.length <= n ? nm : nm.slice(0, n - 2) + '..';
        g.fillStyle = '#000';
        g.fillText(lab, x + 3, y + FH / 2);
      }
    };
    // the zoomed node's ancestors span the width
    for (let a = z ? t.parent[z] : 0; a > 0; a = t.parent[a]) box(a, 0, W, !!(re && re.test(NAMES[t.func[a]])));
    if (z) box(0, 0, W, false);
    // preorder from z; a matched frame's subtree is counted once
    const stack = [[z, 0, false]];
    while (stack.length) {
      const [i, x, inHit] = stack.pop();
      const w = t.tot[i] * scale;
      if (w < 0.1) continue;
      const hit = !!(re && i && re.test(NAMES[t.func[i]]));
      if (hit && !inHit) matched += t.tot[i];
      box(i, x, w, hit);
      let cx = x;
      const k = kidsOf(t, i);
      const next = [];
      for (let j = 0; j < k.length; j++) {
        next.push([k[j], cx, inHit || hit]);
        cx += t.tot[k[j]] * scale;
      }
      for (let j = next.length - 1; j >= 0; j--) stack.push(next[j]);
    }
    $('unzoom').disabled = !z;
    $('flameinfo').textContent = drawn.length.toLocaleString('en-US') + ' frames drawn' +
      (t.maxdepth > depth ? ' (stacks cut at depth ' + depth + ')' : '');
    $('match').textContent = re ? 'Matched: ' + pct(matched, t.tot[0]) : '';
    return matched;
  }
  function frameAt(ev) {
    const r = $('flame').getBoundingClientRect();
    const x = ev.clientX - r.left, y = ev.clientY - r.top;
    for (let k = drawn.length - 1; k >= 0; k--) {
      const d = drawn[k];
      if (y >= d[2] && y < d[2] + FH && x >= d[1] && x < d[1] + d[3]) return d[0];
    }
    return -1;
  }
  function title(t, i) {
    const nm = i ? NAMES[t.func[i]] : 'all';
    let s = nm + ' (' + fmt(t.tot[i]) + ' ' + D.unit + ', ' + pct(t.tot[i], t.tot[0]) + ')';
    if (t.b) s += ', base ' + fmt(t.btot[i]) + ', self change ' + signed(t.w[i] - t.b[i]);
    return s;
  }

  // ----- call tree -----
  const open = new Set();
  let openInv = new Set();
  function treeDraw() {
    const t = st.inv ? inverted() : CUR, box = $('tree'), o = st.inv ? openInv : open;
    box.textContent = '';
    const all = t.tot[0];
    const frag = document.createDocumentFragment();
    let rows = 0;
    const add = (i, lvl) => {
      if (rows++ > 20000) return;
      const r = el('div', 'row');
      r.dataset.node = i;
      const k = kidsOf(t, i);
      r.appendChild(el('span', 'num', fmt(t.tot[i])));
      r.appendChild(el('span', 'pct', pct(t.tot[i], all)));
      r.appendChild(el('span', 'num self', fmt(t.w[i])));
      if (t.b) r.appendChild(el('span', 'num delta', signed(t.tot[i] - t.btot[i])));
      const tg = el('span', 'tog', k.length ? (o.has(i) ? '\u25BE' : '\u25B8') : '');
      tg.style.marginLeft = (lvl * 1.2) + 'em';
      r.appendChild(tg);
      const fn = el('span', 'fn', NAMES[t.func[i]]);
      r.appendChild(fn);
      if (t.func[i] === st.sel) r.classList.add('sel');
      frag.appendChild(r);
      if (o.has(i)) {
        const sk = Array.from(k).sort((a, b) => t.tot[b] - t.tot[a] || t.func[a] - t.func[b]);
        for (const c of sk) if (t.tot[c] || (t.btot && t.btot[c])) add(c, lvl + 1);
      }
    };
    const hd = el('div', 'row head');
    for (const [c, x] of [['num', 'Total'], ['pct', '%'], ['num', 'Self']].concat(t.b ? [['num', 'Total change']] : []))
      hd.appendChild(el('span', c, x));
    hd.appendChild(el('span', 'tog', ''));
    hd.appendChild(el('span', '', 'Function'));
    frag.appendChild(hd);
    const top = Array.from(kidsOf(t, 0)).sort((a, b) => t.tot[b] - t.tot[a] || t.func[a] - t.func[b]);
    for (const c of top) if (t.tot[c] || (t.btot && t.btot[c])) add(c, 0);
    box.appendChild(frag);
  }
  // open the heaviest path for a few levels (and the path to `node`)
  function treeOpenDefault() {
    const t = CUR;
    let i = 0;
    for (let d = 0; d < 8; d++) {
      const k = kidsOf(t, i);
      if (!k.length) break;
      let best = k[0];
      for (const c of k) if (t.tot[c] > t.tot[best]) best = c;
      open.add(i);
      i = best;
    }
  }
  function treeReveal(f) {
    const t = CUR;
    let best = -1;
    for (let i = 1; i < t.n; i++)
      if (t.func[i] === f && (best < 0 || t.tot[i] > t.tot[best])) best = i;
    for (let a = best > 0 ? t.parent[best] : 0; a > 0; a = t.parent[a]) open.add(a);
  }

  // ----- flat table -----
  function flatDraw() {
    const F = flat(), t = CUR, all = t.tot[0];
    const cols = DIFF ?
      [['self', 'Self'], ['tot', 'Total'], ['bself', 'Base self'], ['btot', 'Base total'], ['dself', 'Self change'], ['dtot', 'Total change'], ['name', 'Function']] :
      [['self', 'Self'], ['selfp', 'Self %'], ['tot', 'Total'], ['totp', 'Total %'], ['name', 'Function']];
    const head = $('flathead');
    head.textContent = '';
    for (const [k, lab] of cols) {
      const th = el('th', k === 'name' ? 'fn' : '', lab);
      th.dataset.sort = k;
      if (st.sort === k) th.classList.add('sorted');
      head.appendChild(th);
    }
    const val = (f, k) => k === 'self' || k === 'selfp' ? F.self[f] :
      k === 'tot' || k === 'totp' ? F.tot[f] : k === 'bself' ? F.bself[f] :
      k === 'btot' ? F.btot[f] : k === 'dself' ? F.self[f] - F.bself[f] :
      k === 'dtot' ? F.tot[f] - F.btot[f] : 0;
    const rows = F.rows.slice();
    if (st.sort === 'name') rows.sort((a, b) => a - b);
    else rows.sort((a, b) => Math.abs(val(b, st.sort)) - Math.abs(val(a, st.sort)) || a - b);
    const body = $('flat').tBodies[0];
    body.textContent = '';
    const frag = document.createDocumentFragment();
    const MAX = 2000;
    for (const f of rows.slice(0, MAX)) {
      const tr = el('tr');
      tr.dataset.func = f;
      if (f === st.sel) tr.className = 'sel';
      for (const [k] of cols) {
        if (k === 'name') { tr.appendChild(el('td', 'fn', NAMES[f])); continue; }
        const v = val(f, k);
        const txt = k === 'selfp' || k === 'totp' ? pct(v, all) :
          k[0] === 'd' ? signed(v) : fmt(v);
        tr.appendChild(el('td', k[0] === 'd' ? (v > 0 ? 'up' : v < 0 ? 'down' : '') : '', txt));
      }
      frag.appendChild(tr);
    }
    body.appendChild(frag);
    $('flatmore').textContent = rows.length > MAX ?
      (rows.length - MAX).toLocaleString('en-US') + ' more functions not shown' : '';
  }

  // ----- callers and callees of the selected function -----
  function sandwich(f) {
    const t = CUR, callers = new Map(), callees = new Map();
    let self = 0, total = 0;
    const outer = (i) => {
      for (let a = t.parent[i]; a > 0; a = t.parent[a]) if (t.func[a] === f) return false;
      return true;
    };
    for (let i = 1; i < t.n; i++) {
      if (t.func[i] !== f) continue;
      self += t.w[i];
      if (!outer(i)) continue;
      total += t.tot[i];
      const p = t.parent[i], pf = p ? t.func[p] : -1;
      callers.set(pf, (callers.get(pf) || 0) + t.tot[i]);
      for (const c of kidsOf(t, i)) {
        if (t.func[c] === f) continue;
        callees.set(t.func[c], (callees.get(t.func[c]) || 0) + t.tot[c]);
      }
    }
    return { self, total, callers, callees };
  }
  function sandwichDraw() {
    const f = st.sel;
    $('swnone').style.display = f < 0 ? '' : 'none';
    $('sw').style.display = f < 0 ? 'none' : 'block';
    if (f < 0) return;
    const s = sandwich(f), all = CUR.tot[0];
    $('swtitle').textContent = NAMES[f];
    $('swself').textContent = 'total ' + fmt(s.total) + ' (' + pct(s.total, all) +
      '), self ' + fmt(s.self) + ' (' + pct(s.self, all) + ')';
    const fill = (id, m) => {
      const body = $(id).tBodies[0];
      body.textContent = '';
      const rows = Array.from(m.entries()).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      for (const [g, v] of rows) {
        const tr = el('tr');
        if (g >= 0) tr.dataset.func = g;
        tr.appendChild(el('td', '', fmt(v)));
        tr.appendChild(el('td', '', pct(v, s.total)));
        tr.appendChild(el('td', 'fn', g >= 0 ? NAMES[g] : '(root)'));
        body.appendChild(tr);
      }
    };
    fill('callers', s.callers);
    fill('callees', s.callees);
  }

  // ----- the call-graph picture (Graphviz's SVG, from the program) -----
  // Parsed as XML, never as HTML; scripts, foreign objects, event
  // attributes and links other than to the document itself are removed,
  // and the CSP forbids them anyway.  Nodes: <g class="node"> whose <a>
  // has the title "[N] name".
  let cgDone = false;
  const SVGNS = 'http://www.w3.org/2000/svg', XLINK = 'http://www.w3.org/1999/xlink';
  function cgName(g) {
    const a = g.querySelector('a');
    const t = a && (a.getAttributeNS(XLINK, 'title') || a.getAttribute('title'));
    const m = t && /^\[[0-9]+\] ([\s\S]*)$/.exec(t);
    return m ? m[1] : null;
  }
  function callgraphDraw() {
    const box = $('cgbox');
    if (!cgDone) {
      cgDone = true;
      const doc = new DOMParser().parseFromString(D.callgraph, 'image/svg+xml');
      const svg = doc.documentElement;
      if (svg.namespaceURI !== SVGNS || doc.querySelector('parsererror')) {
        box.textContent = 'the call graph picture cannot be read';
        return;
      }
      for (const e of svg.querySelectorAll('script, foreignObject, iframe, image, use, style'))
        e.remove();
      for (const e of [svg, ...svg.querySelectorAll('*')])
        for (const at of Array.from(e.attributes)) {
          const n = at.name.toLowerCase();
          if (n.startsWith('on') || n === 'style' ||
              ((n === 'href' || n === 'xlink:href') && !at.value.startsWith('#')))
            e.removeAttributeNode(at);
        }
      box.appendChild(document.importNode(svg, true));
    }
    for (const g of box.querySelectorAll('g.node')) {
      const on = st.sel >= 0 && cgName(g) === NAMES[st.sel];
      g.classList.toggle('sel', on);
      if (on && shownView !== 'callgraph') g.scrollIntoView({ block: 'center', inline: 'center' });
    }
  }

  // ----- per-thread tracks over time (timed samples) -----
  // One row per thread: each sample a bar from its time to the next
  // sample's (at least 1 px), green while running, grey while in another
  // state (blocked), blue without a state; magenta where its stack holds
  // the selected function.  Clicking a sample selects its leaf function.
  // Threads of several processes (a capture of a process tree) are
  // grouped under one heading row per process, in order of first thread.
  const TH = 18, LW = 160;
  let trackHit = null, trackRows = null;
  function trackLayout() {
    const procs = new Map();
    D.threads.forEach((t, i) => {
      const k = t.proc || '';
      if (!procs.has(k)) procs.set(k, []);
      procs.get(k).push(i);
    });
    const rows = [];  // a track index, or -1 - (heading's process number)
    const heads = [...procs.keys()];
    heads.forEach((k, n) => {
      if (heads.length > 1) rows.push(-1 - n);
      for (const i of procs.get(k)) rows.push(i);
    });
    return { rows, heads };
  }
  function tracksDraw() {
    const cv = $('tracks'), tr = D.tracks;
    let end = 0;
    for (const x of tr) if (x.tm.length) end = Math.max(end, x.tm[x.tm.length - 1]);
    const W = Math.max(400, $('v-threads').clientWidth - 20 || 1200);
    const lay = trackLayout();
    trackRows = lay.rows;
    const H = lay.rows.length * TH + 20;
    const g = canvas2d(cv, W, H);
    const scale = (W - LW - 10) / (end || 1);
    // which raw stack nodes hold the selected function
    const has = st.sel >= 0 ? new Uint8Array(D.n) : null;
    if (has) for (let i = 1; i < D.n; i++) has[i] = has[D.parent[i]] || D.func[i] === st.sel ? 1 : 0;
    const run = D.states.indexOf('running') + 1;
    lay.rows.forEach((ti, r) => {
      const y = r * TH;
      g.fillStyle = '#000';
      if (ti < 0) {
        g.font = 'bold 12px Verdana, sans-serif';
        g.fillText('process ' + (lay.heads[-1 - ti] || '?'), 2, y + TH / 2);
        g.font = '12px Verdana, sans-serif';
        return;
      }
      const x = tr[ti];
      g.fillText('  '.repeat(lay.heads.length > 1 ? 1 : 0) + (D.threads[ti].name || '?').slice(0, 22), 2, y + TH / 2);
      for (let j = 0; j < x.tm.length; j++) {
        const x0 = LW + x.tm[j] * scale;
        const x1 = j + 1 < x.tm.length ? LW + x.tm[j + 1] * scale : x0 + 1;
        g.fillStyle = has && has[x.sk[j]] ? 'rgb(230,0,230)' :
          !x.sv[j] ? 'rgb(110,140,220)' : x.sv[j] === run ? 'rgb(70,170,70)' : 'rgb(190,190,190)';
        g.fillRect(x0, y + 2, Math.max(x1 - x0, 1), TH - 4);
      }
    });
    g.fillStyle = '#555';
    g.fillText('0', LW, H - 8);
    g.fillText((end / 1e6).toFixed(1) + ' ms', W - 70, H - 8);
    trackHit = { scale };
    $('tracksinfo').textContent = tr.reduce((a, x) => a + x.tm.length, 0).toLocaleString('en-US') +
      ' timed samples in ' + tr.length + ' threads' +
      (lay.heads.length > 1 ? ' of ' + lay.heads.length + ' processes' : '') + (D.states.length ? '; states: ' + D.states.join(', ') : '');
  }
  function trackAt(ev) {
    const r = $('tracks').getBoundingClientRect();
    const x = ev.clientX - r.left, row = Math.floor((ev.clientY - r.top) / TH);
    const ti = trackRows ? trackRows[row] : row;
    const tr = ti >= 0 ? D.tracks[ti] : null;
    if (!tr || !trackHit || x < LW || !tr.tm.length) return -1;
    const t = (x - LW) / trackHit.scale;
    let lo = 0, hi = tr.tm.length - 1;
    while (lo < hi) { const m = (lo + hi + 1) >> 1; if (tr.tm[m] <= t) lo = m; else hi = m - 1; }
    return tr.sk[lo];
  }

  // ----- state, URL fragment, drawing -----
  function saveHash() {
    const p = new URLSearchParams();
    p.set('view', st.view);
    if (st.sel >= 0) p.set('sel', NAMES[st.sel]);
    if (st.q) p.set('q', st.q);
    if (st.inv) p.set('inv', '1');
    if (st.sort !== 'self') p.set('sort', st.sort);
    if (st.tf.length)
      p.set('t', JSON.stringify(st.tf.map(([k, a]) =>
        [k, k === 'lib' ? D.mods[a] : k === 'subtree' ? a.map((f) => NAMES[f]) : NAMES[a]])));
    history.replaceState(null, '', '#' + p.toString());
  }
  function loadHash() {
    const p = new URLSearchParams(location.hash.slice(1));
    const v = p.get('view');
    if (v && $('v-' + (v === 'icicle' ? 'flame' : v)) && (v !== 'sample' || D.sample) &&
        (v !== 'callgraph' || D.callgraph) && (v !== 'threads' || D.tracks.length)) st.view = v;
    st.sel = BYNAME.has(p.get('sel')) ? BYNAME.get(p.get('sel')) : -1;
    st.q = p.get('q') || '';
    st.inv = p.get('inv') === '1';
    st.sort = /^(self|selfp|tot|totp|bself|btot|dself|dtot|name)$/.test(p.get('sort')) ? p.get('sort') : 'self';
    st.tf = [];
    try {
      for (const [k, a] of JSON.parse(p.get('t') || '[]')) {
        if (!TF[k]) continue;
        if (k === 'lib') { const m = D.mods.indexOf(a); if (m >= 0) st.tf.push([k, m]); }
        else if (k === 'subtree') {
          if (Array.isArray(a) && a.every((n) => BYNAME.has(n))) st.tf.push([k, a.map((n) => BYNAME.get(n))]);
        } else if (BYNAME.has(a)) st.tf.push([k, BYNAME.get(a)]);
      }
    } catch (e) { st.tf = []; }
  }

  let selNode = -1;   // the node clicked in the flame graph or tree
  let shownView = '';
  function draw() {
    for (const b of document.querySelectorAll('#tabs button'))
      b.classList.toggle('on', b.dataset.view === st.view);
    const sec = st.view === 'icicle' ? 'flame' : st.view;
    for (const s of document.querySelectorAll('.view'))
      s.classList.toggle('on', s.id === 'v-' + sec);
    $('selname').textContent = st.sel >= 0 ? NAMES[st.sel] : '(click a function)';
    for (const b of document.querySelectorAll('#selbar button'))
      b.disabled = st.sel < 0 || (b.dataset.tf === 'lib' && D.fmod[st.sel] < 0) ||
        (b.dataset.tf === 'subtree' && !(selNode > 0 && CUR.func[selNode] === st.sel));
    const ts = $('tstack');
    ts.textContent = '';
    st.tf.forEach(([k, a], n) => {
      const li = el('li', '', TF[k].label(a));
      const x = el('button', '', '\u00D7');
      x.title = 'undo this step';
      x.dataset.undo = n;
      li.appendChild(x);
      ts.appendChild(li);
    });
    if (!st.tf.length) ts.appendChild(el('li', '', 'none'));
    $('undo').disabled = !st.tf.length;
    $('inverted').checked = st.inv;
    if (sec === 'flame') {
      flameDraw();
      // a flame graph's root is at the bottom: show it first
      if (shownView !== st.view) {
        const fb = $('flamebox');
        fb.scrollTop = st.view === 'flame' ? fb.scrollHeight : 0;
      }
    }
    else if (sec === 'tree') treeDraw();
    else if (sec === 'flat') flatDraw();
    else if (sec === 'sample') $('sampletext').textContent = D.sample || '';
    else if (sec === 'callgraph') callgraphDraw();
    else if (sec === 'threads') tracksDraw();
    else sandwichDraw();
    shownView = st.view;
    saveHash();
  }
  function select(f, node) {
    st.sel = f;
    selNode = node === undefined ? -1 : node;
    if (f >= 0) treeReveal(f);
    draw();
  }
  function pushTf(x) {
    st.tf.push(x);
    applyTransforms();
    open.clear(); openInv = new Set();
    treeOpenDefault();
    if (st.sel >= 0) treeReveal(st.sel);
    selNode = -1;
    draw();
  }
  function undo(n) {
    st.tf.splice(n, 1);
    applyTransforms();
    open.clear(); openInv = new Set();
    treeOpenDefault();
    if (st.sel >= 0) treeReveal(st.sel);
    draw();
  }
  function setSearch(q) {
    st.q = q;
    try { re = q ? new RegExp(q) : null; } catch (e) { re = null; }
    draw();
  }

  function wire() {
    for (const b of document.querySelectorAll('#tabs button'))
      b.addEventListener('click', () => { st.view = b.dataset.view; draw(); });
    $('search').addEventListener('input', (e) => setSearch(e.target.value));
    $('unzoom').addEventListener('click', () => { st.zoom = 0; draw(); });
    $('undo').addEventListener('click', () => undo(st.tf.length - 1));
    $('tstack').addEventListener('click', (e) => {
      const n = e.target.dataset && e.target.dataset.undo;
      if (n !== undefined) undo(+n);
    });
    $('inverted').addEventListener('change', (e) => { st.inv = e.target.checked; draw(); });
    for (const b of document.querySelectorAll('#selbar button'))
      b.addEventListener('click', () => {
        const k = b.dataset.tf, f = st.sel;
        if (f < 0) return;
        if (k === 'lib') pushTf([k, D.fmod[f]]);
        else if (k === 'subtree') {
          const path = [];
          for (let a = selNode; a > 0; a = CUR.parent[a]) path.unshift(CUR.func[a]);
          pushTf([k, path]);
        } else pushTf([k, f]);
      });
    const cv = $('flame'), tip = $('tip');
    cv.addEventListener('click', (e) => {
      const i = frameAt(e);
      if (i < 0) return;
      st.zoom = i;
      select(i ? CUR.func[i] : -1, i);
    });
    cv.addEventListener('mousemove', (e) => {
      const i = frameAt(e);
      if (i < 0) { tip.style.display = 'none'; return; }
      tip.textContent = title(CUR, i);
      tip.style.display = 'block';
      tip.style.left = Math.min(e.clientX + 12, window.innerWidth - 300) + 'px';
      tip.style.top = (e.clientY + 14) + 'px';
    });
    cv.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
    $('tree').addEventListener('click', (e) => {
      const r = e.target.closest('.row');
      if (!r || r.dataset.node === undefined) return;
      const i = +r.dataset.node, o = st.inv ? openInv : open;
      if (e.target.classList.contains('tog')) {
        if (o.has(i)) o.delete(i); else o.add(i);
        draw();
      } else if (e.target.classList.contains('fn')) {
        const t = st.inv ? inverted() : CUR;
        select(t.func[i], st.inv ? -1 : i);
      }
    });
    $('flathead').addEventListener('click', (e) => {
      const k = e.target.dataset && e.target.dataset.sort;
      if (k) { st.sort = k; draw(); }
    });
    $('tracks').addEventListener('click', (e) => {
      const k = trackAt(e);
      if (k > 0) select(D.func[k]);
    });
    $('cgbox').addEventListener('click', (e) => {
      const g = e.target.closest && e.target.closest('g.node');
      const nm = g && cgName(g);
      if (nm !== null && BYNAME.has(nm)) select(BYNAME.get(nm));
    });
    for (const id of ['flat', 'callers', 'callees'])
      $(id).addEventListener('click', (e) => {
        const tr = e.target.closest('tr');
        if (tr && tr.dataset.func !== undefined && e.target.classList.contains('fn'))
          select(+tr.dataset.func);
      });
    window.addEventListener('hashchange', () => { loadHash(); applyTransforms(); treeOpenDefault(); setSearch(st.q); });
    window.addEventListener('resize', () => { if (st.view === 'flame' || st.view === 'icicle') flameDraw(); });
  }

  async function main() {
    const tm = window.sfReport.timing = {};
    let t0 = performance.now();
    const lap = (k) => { const t = performance.now(); tm[k] = Math.round(t - t0); t0 = t; };
    D = await loadData();
    lap('data');
    NAMES = D.names;
    NF = NAMES.length;
    DIFF = !!D.diff;
    BYNAME = new Map(NAMES.map((n, i) => [n, i]));
    const t = { n: D.n, parent: D.parent, func: D.func, w: D.w, b: D.b };
    // the profile's tree may hold frames that differ only in what the
    // page does not show (module, line): merge them by name
    lap('arrays');
    BASE = finish(t);
    if (BASE.dup)
      BASE = rebuild(BASE, 0, (i, po, B) => B.child(po, t.func[i]));
    lap('tree');
    $('title').textContent = document.title;
    if (D.sample) document.querySelector('#tabs button[data-view="sample"]').hidden = false;
    if (D.callgraph) document.querySelector('#tabs button[data-view="callgraph"]').hidden = false;
    if (D.tracks.length) document.querySelector('#tabs button[data-view="threads"]').hidden = false;
    $('summary').textContent = fmt(D.samples) + ' samples, ' +
      (D.type + ' (' + D.unit + ')') + (D.source ? ', from ' + D.source : '') +
      (DIFF ? ': widths NEW, colours the change of self (red grew, blue shrank)' : '');
    loadHash();
    applyTransforms();
    treeOpenDefault();
    if (st.sel >= 0) treeReveal(st.sel);
    $('search').value = st.q;
    wire();
    setSearch(st.q);
    lap('draw');
    window.sfReport.firstDraw = performance.now();
    window.sfReport.scriptStart = T0;
    window.sfReport.ready = true;
  }

  // for tests and scripts: the state and each view's data
  window.sfReport = {
    ready: false,
    name: (f) => NAMES[f],
    select: (name) => select(BYNAME.has(name) ? BYNAME.get(name) : -1),
    selected: () => (st.sel >= 0 ? NAMES[st.sel] : null),
    view: (v) => { st.view = v; draw(); },
    search: (q) => { $('search').value = q; setSearch(q); return $('match').textContent; },
    // every frame of the flame graph: [depth, name, total] (and base)
    frames: () => {
      const t = CUR, out = [];
      for (let i = 0; i < t.n; i++)
        if (t.tot[i]) out.push([t.depth[i], i ? NAMES[t.func[i]] : 'all', t.tot[i]]);
      return out;
    },
    drawn: () => drawn.map((d) => [CUR.depth[d[0]], d[0] ? NAMES[CUR.func[d[0]]] : 'all']),
    // the call tree as nested {name, total, self, children}
    tree: (inv) => {
      const t = inv ? inverted() : CUR;
      const walk = (i) => ({ name: i ? NAMES[t.func[i]] : 'all', total: t.tot[i], self: t.w[i],
                             children: Array.from(kidsOf(t, i)).filter((c) => t.tot[c]).map(walk) });
      return walk(0);
    },
    flat: () => { const F = flat(); return F.rows.map((f) => [NAMES[f], F.self[f], F.tot[f]]); },
    sandwich: (name) => {
      const s = sandwich(BYNAME.get(name));
      const m = (x) => Array.from(x.entries()).map(([f, v]) => [f >= 0 ? NAMES[f] : '(root)', v]);
      return { self: s.self, total: s.total, callers: m(s.callers), callees: m(s.callees) };
    },
    transforms: () => st.tf.map(([k, a]) => TF[k].label(a)),
    transform: (k, name) => pushTf([k, k === 'lib' ? D.mods.indexOf(name) :
      k === 'subtree' ? name.map((n) => BYNAME.get(n)) : BYNAME.get(name)]),
    undo: (n) => undo(n === undefined ? st.tf.length - 1 : n),
  };
  main().catch((e) => {
    document.body.appendChild(el('pre', '', 'cannot show the profile: ' + e));
    window.sfReport.error = String(e);
  });
})();
