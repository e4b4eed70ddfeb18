// Drive headless Chromium over sftools' HTML reports (t-html.sh).
// Usage: node browser.js MODULES_DIR CHROMIUM DIR
// DIR holds what t-html.sh prepared: small.html (+ small.tree.json from
// sfanalyze --tree --json, small.svgframes from the SVG writer), diff.html,
// lib.html, packed.html (gzip+base64 data) with packed.tree.json.
// Prints PASS/FAIL/SKIP lines.
const path = require('path');
const fs = require('fs');
const [modDir, chromium, dir] = process.argv.slice(2);
const { launch } = require(path.join(__dirname, '..', 'chromium.js'));

function pass(n) { console.log('PASS: ' + n); }
function fail(n, why) { console.log('FAIL: ' + n + ': ' + why); }
function check(n, ok, why) { if (ok) pass(n); else fail(n, why); }
const J = JSON.stringify;

// sfanalyze's tree (root name null) as sorted "path total self" lines
function treeLines(t, pre, out) {
  for (const c of t.children) {
    const p = pre ? pre + ';' + c.name : c.name;
    out.push(p + ' ' + c.total + ' ' + c.self);
    treeLines(c, p, out);
  }
  return out;
}

async function open(browser, file, hash) {
  const page = await browser.newPage();
  const errors = [], requests = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('request', (r) => requests.push(r.url()));
  page.on('dialog', (d) => { errors.push('dialog: ' + d.message()); d.dismiss(); });
  await page.goto('file://' + path.join(dir, file) + (hash || ''), { waitUntil: 'load' });
  await page.waitForFunction(() => window.sfReport &&
    (window.sfReport.ready || window.sfReport.error), null, { timeout: 30000 });
  return { page, errors, requests };
}

(async () => {
  const c = await launch(modDir, chromium);
  if (!c.browser) {
    console.log('SKIP: html-browser: cannot launch chromium: ' + c.why);
    return;
  }
  try {
    const { page, errors, requests } = await open(c.browser, 'small.html');
    const R = (f, a) => page.evaluate(f, a);

    // flame graph: the frames equal the SVG writer's (name and weight)
    const frames = (await R(() => window.sfReport.drawn().length)) &&
      await R(() => window.sfReport.frames());
    const svgFrames = fs.readFileSync(path.join(dir, 'small.svgframes'), 'utf8')
      .trim().split('\n').sort();
    const ours = frames.map(([d, n, w]) => n + ' ' + w).sort();
    check('html-flame-frames-equal-svg', J(ours) === J(svgFrames),
          J(ours) + ' vs ' + J(svgFrames));
    const drawn = await R(() => window.sfReport.drawn().length);
    check('html-flame-all-drawn', drawn === frames.length, drawn + ' of ' + frames.length);

    // the call tree equals sfanalyze --tree --json, path by path
    const want = treeLines(JSON.parse(fs.readFileSync(path.join(dir, 'small.tree.json'))), '', []).sort();
    const got = treeLines(await R(() => window.sfReport.tree(false)), '', []).sort();
    check('html-tree-equals-sfanalyze', J(got) === J(want), J(got) + ' vs ' + J(want));

    // the tree view's DOM holds the top functions with their counts
    await R(() => window.sfReport.view('tree'));
    const rows = await R(() => Array.from(document.querySelectorAll('#tree .row[data-node]')).map((r) =>
      Array.from(r.querySelectorAll('.num, .pct, .fn')).map((s) => s.textContent).join('|')));
    check('html-tree-dom', rows.includes('11|100.00%|0|main') &&
          rows.includes('4|36.36%|0|a') && rows.includes('3|27.27%|3|b'), J(rows));
    // expand/collapse: click main's toggle
    await page.click('#tree .row[data-node] .tog');
    const after = await R(() => document.querySelectorAll('#tree .row[data-node]').length);
    check('html-tree-collapse', after === 1, 'rows after collapsing main: ' + after);
    await page.click('#tree .row[data-node] .tog');

    // inverted: b is a leaf function of 5 (3 under a, 2 under e)
    const inv = await R(() => window.sfReport.tree(true));
    const invb = inv.children.find((x) => x.name === 'b');
    check('html-tree-inverted', invb && invb.total === 5 &&
          J(invb.children.map((x) => x.name + ' ' + x.total).sort()) === J(['a 3', 'e 2']),
          J(invb));

    // flat table: self/total per function, hand-computed; sortable
    const flat = await R(() => window.sfReport.flat());
    const fm = Object.fromEntries(flat.map(([n, s, t]) => [n, s + '/' + t]));
    check('html-flat-values', fm.main === '0/11' && fm.a === '0/4' && fm.b === '5/5' &&
          fm.d === '4/4' && fm.e === '0/2', J(fm));
    await R(() => window.sfReport.view('flat'));
    await page.click('#flathead th[data-sort="tot"]');
    const firstRow = await R(() => document.querySelector('#flat tbody tr td.fn').textContent);
    check('html-flat-sort-total', firstRow === 'main', firstRow);
    await page.click('#flathead th[data-sort="self"]');
    const firstSelf = await R(() => document.querySelector('#flat tbody tr td.fn').textContent);
    check('html-flat-sort-self', firstSelf === 'b', firstSelf);

    // click a function in the table: selected in every view
    await page.click('#flat tbody tr[data-func] td.fn >> text="a"');
    const sel = await R(() => window.sfReport.selected());
    const flatSel = await R(() => document.querySelector('#flat tr.sel td.fn').textContent);
    await R(() => window.sfReport.view('tree'));
    const treeSel = await R(() => Array.from(document.querySelectorAll('#tree .row.sel .fn')).map((e) => e.textContent));
    await R(() => window.sfReport.view('sandwich'));
    const swTitle = await R(() => document.getElementById('swtitle').textContent);
    const callees = await R(() => Array.from(document.querySelectorAll('#callees tr')).map((r) => r.textContent));
    const callers = await R(() => Array.from(document.querySelectorAll('#callers tr')).map((r) => r.textContent));
    check('html-select-everywhere', sel === 'a' && flatSel === 'a' && J(treeSel) === J(['a']) &&
          swTitle === 'a', J([sel, flatSel, treeSel, swTitle]));
    check('html-sandwich', J(callers) === J(['4100.00%main']) &&
          J(callees) === J(['375.00%b', '125.00%c']), J([callers, callees]));
    const hash = await R(() => location.hash);
    check('html-url-keeps-selection', /sel=a(&|$)/.test(hash) && /view=sandwich/.test(hash), hash);

    // click a frame on the canvas: selects it and zooms
    await R(() => window.sfReport.view('flame'));
    const box = await R(() => {
      const cv = document.getElementById('flame');
      const r = cv.getBoundingClientRect();
      return { x: r.left, y: r.top, h: r.height, w: r.width };
    });
    // d: depth 2 (all, main, d); children of main sorted a, d, e, <script>
    // by name: a 4, <script> 1 come first in byte order ('<' < 'a')
    const dx = box.x + (box.w * (1 + 4 + 2)) / 11;   // inside d [5/11, 9/11)
    await page.mouse.click(dx, box.y + box.h - 4 - 2 * 16 - 8);
    const afterClick = await R(() => [window.sfReport.selected(),
      window.sfReport.drawn().filter((d) => d[1] === 'a').length]);
    check('html-flame-click-selects-and-zooms', afterClick[0] === 'd' && afterClick[1] === 0,
          J(afterClick));

    // search: ^b$ matches 5 of 11
    const m = await R(() => { window.sfReport.view('flame'); document.getElementById('unzoom').click(); return window.sfReport.search('^b$'); });
    check('html-search', m === 'Matched: 45.45%', m);
    await R(() => window.sfReport.search(''));

    // a transform and its undo: merge a (b and c move under main)
    await R(() => window.sfReport.select('a'));
    await page.click('#selbar button[data-tf="merge"]');
    const merged = treeLines(await R(() => window.sfReport.tree(false)), '', []).sort();
    check('html-transform-merge', merged.includes('main;b 3 3') && merged.includes('main;c 1 1') &&
          merged.includes('main;e;b 2 2') && merged.includes('main 11 0') &&
          !merged.some((l) => /(^|;)a /.test(l)), J(merged));
    const cliMerge = treeLines(JSON.parse(fs.readFileSync(path.join(dir, 'small.merge.json'))), '', []).sort();
    check('html-transform-merge-equals-cli', J(merged) === J(cliMerge), J(merged) + ' vs ' + J(cliMerge));
    const tlist = await R(() => Array.from(document.querySelectorAll('#tstack li')).map((l) => l.firstChild.textContent));
    const thash = await R(() => decodeURIComponent(location.hash));
    check('html-transform-listed', J(tlist) === J(['merge a']) && thash.includes('["merge","a"]'),
          J([tlist, thash]));
    await page.click('#undo');
    const undone = treeLines(await R(() => window.sfReport.tree(false)), '', []).sort();
    check('html-transform-undo', J(undone) === J(want), J(undone));
    // focus on e, drop d, collapse via the API
    await R(() => window.sfReport.transform('focus', 'e'));
    const foc = treeLines(await R(() => window.sfReport.tree(false)), '', []).sort();
    check('html-transform-focus', J(foc) === J(['e 2 0', 'e;b 2 2']), J(foc));
    const cliFocus = treeLines(JSON.parse(fs.readFileSync(path.join(dir, 'small.focus.json'))), '', []).sort();
    check('html-transform-focus-equals-cli', J(foc) === J(cliFocus), J(foc) + ' vs ' + J(cliFocus));
    await R(() => window.sfReport.undo());
    await R(() => window.sfReport.transform('drop', 'd'));
    const dropped = await R(() => window.sfReport.tree(false).total);
    check('html-transform-drop', dropped === 7, String(dropped));
    const url = await R(() => location.href);
    await page.close();

    // the URL reproduces the view: transform, selection
    const again = await open(c.browser, 'small.html', '#' + url.split('#')[1]);
    const st2 = await again.page.evaluate(() => [window.sfReport.transforms(), window.sfReport.tree(false).total]);
    check('html-url-reproduces-transforms', J(st2) === J([['drop samples with d'], 7]), J(st2));
    await again.page.close();

    // the XSS name is text: no dialog, the name shown literally
    const xssText = await (async () => {
      const o = await open(c.browser, 'small.html', '#view=flat');
      const t = await o.page.evaluate(() => Array.from(document.querySelectorAll('#flat td.fn')).map((e) => e.textContent));
      const scripts = await o.page.evaluate(() => document.scripts.length);
      await o.page.close();
      return { t, scripts, errors: o.errors };
    })();
    check('html-xss-name-is-text', xssText.t.includes('<script>alert(1)</script>') &&
          xssText.scripts === 2 && !xssText.errors.length, J(xssText));
    check('html-no-errors', !errors.length, J(errors));
    const other = requests.filter((u) => !u.startsWith('file://' + path.join(dir, 'small.html')));
    check('html-no-network-request', requests.length >= 1 && !other.length, J(requests));

    // the CSP forbids network access: a fetch from the page fails
    const csp = await (async () => {
      const o = await open(c.browser, 'small.html');
      const r = await o.page.evaluate(async () => {
        const meta = document.querySelector('meta[http-equiv="Content-Security-Policy"]').content;
        let blocked = false;
        try { await fetch('http://127.0.0.1:9/x'); } catch (e) { blocked = true; }
        return { meta, blocked };
      });
      await o.page.close();
      return { ...r, requests: o.requests };
    })();
    check('html-csp-blocks-network', csp.blocked && /default-src 'none'/.test(csp.meta) &&
          !csp.requests.some((u) => u.startsWith('http')), J(csp));

    // a differential page: widths NEW, self change per function
    const d = await open(c.browser, 'diff.html');
    const df = await d.page.evaluate(() => {
      window.sfReport.view('flat');
      return Array.from(document.querySelectorAll('#flat tbody tr')).map((r) =>
        Array.from(r.children).map((x) => x.textContent).join('|'));
    });
    check('html-diff-table', df.includes('4|4|1|1|+3|+3|grow') && df.includes('2|2|5|5|-3|-3|shrink'), J(df));
    const dfr = await d.page.evaluate(() => window.sfReport.frames().map((x) => x[1] + ' ' + x[2]).sort());
    check('html-diff-widths-new', J(dfr) === J(['all 6', 'grow 4', 'main 6', 'shrink 2']), J(dfr));
    check('html-diff-no-errors', !d.errors.length, J(d.errors));
    await d.page.close();

    // gzip+base64 data decoded by DecompressionStream
    const pk = await open(c.browser, 'packed.html');
    const pwant = treeLines(JSON.parse(fs.readFileSync(path.join(dir, 'packed.tree.json'))), '', []).sort();
    const pgot = treeLines(await pk.page.evaluate(() => window.sfReport.tree(false)), '', []).sort();
    const ptype = await pk.page.evaluate(() => document.getElementById('sf-data').type);
    check('html-packed-data', ptype === 'application/gzip+base64' && J(pgot) === J(pwant),
          ptype + ' ' + pgot.length + ' vs ' + pwant.length);
    await pk.page.close();

    // callers/callees equal sfanalyze --peek's edge times (no recursion)
    const peek = JSON.parse(fs.readFileSync(path.join(dir, 'sw.peek.json'))).nodes[0];
    const swp = await open(c.browser, 'sw.html');
    const sw = await swp.page.evaluate(() => window.sfReport.sandwich('a'));
    const edges = (l, k) => l.map((e) => e.id + ' ' + e[k]).sort();
    const mine = (l) => l.map(([n, v]) => n + ' ' + v).sort();
    check('html-sandwich-equals-peek', sw.total === peek.total && sw.self === peek.self &&
          J(mine(sw.callers)) === J(edges(peek.callers, 'caller_time')) &&
          J(mine(sw.callees)) === J(edges(peek.callees, 'callee_time')),
          J([sw, peek]));
    await swp.page.close();

    // the call graph picture: its nodes are sfanalyze's, clickable
    const cgWant = fs.readFileSync(path.join(dir, 'small.cgnames'), 'utf8').trim().split('\n').filter((x) => x);
    const cg = await open(c.browser, 'small.html', '#view=callgraph');
    const cgNodes = await cg.page.evaluate(() => Array.from(document.querySelectorAll('#cgbox g.node a'))
      .map((a) => a.getAttributeNS('http://www.w3.org/1999/xlink', 'title').replace(/^\[[0-9]+\] /, '')).sort());
    if (!cgWant.length) {
      console.log('SKIP: html-callgraph: Graphviz (libgvc) cannot be loaded');
    } else {
      check('html-callgraph-nodes', J(cgNodes) === J(cgWant.slice().sort()), J(cgNodes) + ' vs ' + J(cgWant));
      await cg.page.click('#cgbox g.node:has(a[*|title$="] d"]) polygon');
      const cgSel = await cg.page.evaluate(() => [window.sfReport.selected(),
        Array.from(document.querySelectorAll('#cgbox g.node.sel')).length]);
      check('html-callgraph-click-selects', J(cgSel) === J(['d', 1]), J(cgSel));
      const cgx = await cg.page.evaluate(() => [document.querySelectorAll('#cgbox script').length,
        Array.from(document.querySelectorAll('#cgbox text')).some((t) => t.textContent === '<script>alert(1)</script>')]);
      check('html-callgraph-xss-name-is-text', cgx[0] === 0 && cgx[1] && !cg.errors.length, J([cgx, cg.errors]));
    }
    await cg.page.close();

    // a capture: the sample report view shows the sample writer's text
    const cp = await open(c.browser, 'cap.html', '#view=sample');
    const ctext = await cp.page.evaluate(() => [document.getElementById('sampletext').textContent,
      !document.querySelector('#tabs button[data-view="sample"]').hidden,
      document.getElementById('v-sample').classList.contains('on')]);
    check('html-sample-view', ctext[0] === fs.readFileSync(path.join(dir, 'cap.sample.txt'), 'utf8') &&
          ctext[1] && ctext[2], J(ctext).slice(0, 200));
    await cp.page.close();
    // its threads over time: two tracks; a click on worker's selects poll
    const tk = await open(c.browser, 'cap.html', '#view=threads');
    const info = await tk.page.evaluate(() => document.getElementById('tracksinfo').textContent);
    const tb = await tk.page.evaluate(() => { const r = document.getElementById('tracks').getBoundingClientRect();
      return { x: r.left, y: r.top, w: r.width }; });
    await tk.page.mouse.click(tb.x + 160 + 5, tb.y + 18 + 9);
    const tsel = await tk.page.evaluate(() => window.sfReport.selected());
    check('html-threads-view', info === '3 timed samples in 2 threads; states: running, sleeping' &&
          tsel === 'poll' && !tk.errors.length, J([info, tsel, tk.errors]));
    await tk.page.close();
    // threads of two processes: a heading row per process, then its
    // threads; a click on the child's row (the fifth) selects compute
    const tp = await open(c.browser, 'cap2.html', '#view=threads');
    const pinfo = await tp.page.evaluate(() => document.getElementById('tracksinfo').textContent);
    const pb = await tp.page.evaluate(() => { const r = document.getElementById('tracks').getBoundingClientRect();
      return { x: r.left, y: r.top }; });
    await tp.page.mouse.click(pb.x + 160 + 5, pb.y + 2 * 18 + 9);
    const psel1 = await tp.page.evaluate(() => window.sfReport.selected());
    await tp.page.mouse.click(pb.x + 160 + 5, pb.y + 4 * 18 + 9);
    const psel2 = await tp.page.evaluate(() => window.sfReport.selected());
    check('html-threads-by-process',
          pinfo === '4 timed samples in 3 threads of 2 processes; states: running, sleeping' &&
          psel1 === 'poll' && psel2 === 'compute' && !tp.errors.length, J([pinfo, psel1, psel2, tp.errors]));
    await tp.page.close();
    const noSample = await open(c.browser, 'small.html', '#view=sample');
    const ns = await noSample.page.evaluate(() => [document.querySelector('#tabs button[data-view="sample"]').hidden,
      location.hash]);
    check('html-sample-view-only-for-captures', ns[0] && /view=flame/.test(ns[1]), J(ns));
    await noSample.page.close();

    // merge a library: frames of libm.so (sin, cos) go, their time to
    // their caller compute
    const lb = await open(c.browser, 'lib.html');
    const lt = await lb.page.evaluate(() => { window.sfReport.transform('lib', '/usr/lib/libm.so'); return window.sfReport.flat(); });
    const lm = Object.fromEntries(lt.map(([n, s, t]) => [n, s + '/' + t]));
    check('html-transform-merge-library', lm.compute === '2/2' && !lm.sin && !lm.cos && lm.main === '0/2', J(lm));
    await lb.page.close();
  } finally {
    await c.done();
  }
})().catch((e) => { console.log('FAIL: html-browser: ' + String(e).split('\n')[0]); });
