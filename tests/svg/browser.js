// Drive headless Chromium through playwright-core over a flame graph SVG.
// Usage: node browser.js MODULES_DIR CHROMIUM SVG_SMALL SVG_BIG
// Prints PASS/FAIL lines for the small graph and a "load time" note for the
// big one.  Expectations are hand-computed in t-svg-browser.sh's input.
const path = require('path');
const fs = require('fs');
const [modDir, chromium, small, big, diffSvg] = process.argv.slice(2);
const { launch } = require(path.join(__dirname, '..', 'chromium.js'));

function pass(n) { console.log('PASS: ' + n); }
function fail(n, why) { console.log('FAIL: ' + n + ': ' + why); }
function near(a, b) { return Math.abs(a - b) < 0.02; }

(async () => {
  const c = await launch(modDir, chromium);
  if (!c.browser) {
    console.log('SKIP: svg-browser: cannot launch chromium: ' + c.why);
    return;
  }
  const browser = c.browser;
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(String(e)));
    await page.goto('file://' + small, { waitUntil: 'load' });

    // geometry of a frame by name (first title line) and depth
    const geom = (name) => page.evaluate((nm) => {
      const out = [];
      for (const g of document.querySelectorAll('#frames > g')) {
        if (window.sfFlame.name(g) !== nm) continue;
        const r = g.querySelector('rect');
        out.push({ x: +r.getAttribute('x'), w: +r.getAttribute('width'),
                   hidden: getComputedStyle(g).display === 'none',
                   fill: r.getAttribute('fill'),
                   label: g.querySelector('text') ?
                     g.querySelector('text').textContent : '' });
      }
      return out;
    }, name);

    // click "a" (4 of 10 samples) with the mouse
    const aBefore = await geom('a');
    if (aBefore.length === 1 && near(aBefore[0].w, 1180 * 4 / 10))
      pass('svg-browser-initial-width');
    else fail('svg-browser-initial-width', JSON.stringify(aBefore));
    const aRect = await page.evaluateHandle(() => {
      for (const g of document.querySelectorAll('#frames > g'))
        if (window.sfFlame.name(g) === 'a')
          return g.querySelector('rect');
      return null;
    });
    await aRect.asElement().click();
    const a = await geom('a'), b = await geom('b'), d = await geom('d');
    const main = await geom('main');
    if (a.length === 1 && near(a[0].x, 10) && near(a[0].w, 1180))
      pass('svg-browser-zoom-full-width');
    else fail('svg-browser-zoom-full-width', JSON.stringify(a));
    // b under a: 3 of a's 4; b under e: hidden
    const bVis = b.filter(x => !x.hidden);
    if (bVis.length === 1 && near(bVis[0].w, 1180 * 3 / 4) && near(bVis[0].x, 10))
      pass('svg-browser-zoom-children-scaled');
    else fail('svg-browser-zoom-children-scaled', JSON.stringify(b));
    if (d.length === 1 && d[0].hidden) pass('svg-browser-zoom-hides-others');
    else fail('svg-browser-zoom-hides-others', JSON.stringify(d));
    if (main.length === 1 && !main[0].hidden && near(main[0].w, 1180))
      pass('svg-browser-zoom-ancestor-shown');
    else fail('svg-browser-zoom-ancestor-shown', JSON.stringify(main));
    const unzoomVisible = await page.evaluate(() =>
      getComputedStyle(document.getElementById('unzoom')).display !== 'none');
    if (unzoomVisible) pass('svg-browser-reset-shown');
    else fail('svg-browser-reset-shown', 'Reset Zoom not visible');
    await page.click('#unzoom');
    const a2 = await geom('a'), d2 = await geom('d');
    if (near(a2[0].w, 472) && near(a2[0].x, 10) && !d2[0].hidden)
      pass('svg-browser-reset-zoom');
    else fail('svg-browser-reset-zoom', JSON.stringify([a2, d2]));

    // search through the page's API: "^b$" matches b (3) under a and
    // b (2) under e: 5 of 10 = 50.00%
    const pct = await page.evaluate(() => window.sfFlame.search('^b$'));
    const matched = await page.textContent('#matched');
    const nhl = await page.evaluate(() =>
      document.querySelectorAll('#frames > g.match').length);
    const bh = await geom('b');
    if (Math.abs(pct - 50) < 1e-9 && matched === 'Matched: 50.00%')
      pass('svg-browser-search-percent');
    else fail('svg-browser-search-percent', pct + ' / ' + matched);
    if (nhl === 2 && bh.every(x => x.fill === 'rgb(230,0,230)'))
      pass('svg-browser-search-highlight');
    else fail('svg-browser-search-highlight', nhl + ' ' + JSON.stringify(bh));
    // nested matches count once: "a|b" = a (4) + b under e (2) = 60%
    await page.evaluate(() => window.sfFlame.clear());
    const pct2 = await page.evaluate(() => window.sfFlame.search('^(a|b)$'));
    if (Math.abs(pct2 - 60) < 1e-9) pass('svg-browser-search-nested-once');
    else fail('svg-browser-search-nested-once', String(pct2));
    await page.evaluate(() => window.sfFlame.clear());
    // through the UI: the Search button prompts for a regex; "^d$" = 40%
    page.once('dialog', dlg => dlg.accept('^d$'));
    await page.click('#search');
    const m3 = await page.textContent('#matched');
    if (m3 === 'Matched: 40.00%') pass('svg-browser-search-ui');
    else fail('svg-browser-search-ui', m3);
    if (errors.length === 0) pass('svg-browser-no-script-errors');
    else fail('svg-browser-no-script-errors', errors.join('; '));

    // ?s=TERM in the URL searches on load (flamegraph.pl's and inferno's
    // link to a search): ^b$ is 5 of 10 samples
    const sp = await browser.newPage();
    await sp.goto('file://' + small + '?s=' + encodeURIComponent('^b$'),
                  { waitUntil: 'load' });
    const ms = await sp.textContent('#matched');
    const nm = await sp.evaluate(() =>
      document.querySelectorAll('#frames > g.match').length);
    if (ms === 'Matched: 50.00%' && nm === 2) pass('svg-browser-search-on-load');
    else fail('svg-browser-search-on-load', ms + ' / ' + nm);
    await sp.close();

    if (diffSvg) {
      const dp = await browser.newPage();
      await dp.goto('file://' + diffSvg, { waitUntil: 'load' });
      const r = await dp.evaluate(() => {
        const g = [...document.querySelectorAll('#frames > g')].find(
          g => window.sfFlame.name(g) === 'grow');
        window.sfFlame.zoom(g);
        return +g.querySelector('rect').getAttribute('width');
      });
      if (near(r, 1180)) pass('svg-browser-diff-zoom');
      else fail('svg-browser-diff-zoom', String(r));
      await dp.close();
    }

    if (big) {
      const bp = await browser.newPage();
      const t0 = Date.now();
      await bp.goto('file://' + big, { waitUntil: 'load' });
      const nf = await bp.evaluate(() =>
        document.querySelectorAll('#frames > g').length);
      const t1 = Date.now();
      const t2 = Date.now();
      await bp.evaluate(() => {
        const g = document.querySelectorAll('#frames > g')[1];
        window.sfFlame.zoom(g);
        window.sfFlame.reset();
      });
      const t3 = Date.now();
      // a frame drawn without a label gets one when zoomed into
      const lab = await bp.evaluate(() => {
        const g = [...document.querySelectorAll('#frames > g')].find(
          g => !g.querySelector('text'));
        if (!g) return null;
        window.sfFlame.zoom(g);
        const t = g.querySelector('text');
        return [window.sfFlame.name(g),
                t ? t.textContent : ''];
      });
      if (lab && lab[1] !== '' && (lab[1] === lab[0] ||
          lab[0].startsWith(lab[1].replace(/\.\.$/, ''))))
        pass('svg-browser-zoom-adds-label');
      else fail('svg-browser-zoom-adds-label', JSON.stringify(lab));
      console.log('NOTE: 100000-stack SVG (' + fs.statSync(big).size +
                  ' bytes, ' + nf + ' frames drawn): load ' + (t1 - t0) +
                  ' ms, zoom+reset ' + (t3 - t2) + ' ms');
      pass('svg-browser-big-loads');
    }
  } catch (e) {
    fail('svg-browser', String(e.stack || e).split('\n').slice(0, 3).join(' | '));
  } finally {
    await c.done();
  }
})();
