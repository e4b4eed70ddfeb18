// Screenshots of the HTML report's views for docs/html/ (not a test).
// Usage: node scripts/html-screenshots.js MODULES_DIR CHROMIUM PAGE.html
//        DIFF.html OUTDIR [CAPTURE.html]
// MODULES_DIR holds playwright-core (build/npm/node_modules after
// tests/t-html.sh ran once).  Each view is shot at 1000x560 after the
// clicks a reader would make.
const path = require('path');
const { launch } = require(path.join(__dirname, '..', 'tests', 'chromium.js'));
const [mods, chromium, page1, diff, outDir, cap] = process.argv.slice(2);
const modDir = path.resolve(mods);

(async () => {
  const c = await launch(modDir, chromium);
  if (!c.browser) { console.log('cannot launch chromium: ' + c.why); process.exit(1); }
  const page = await c.browser.newPage();
  await page.setViewportSize({ width: 1000, height: 560 });
  const go = async (f, hash) => {
    await page.goto('file://' + path.resolve(f) + '#' + hash);
    await page.reload();
    await page.waitForFunction(() => window.sfReport && window.sfReport.ready);
  };
  const shot = (n) => page.screenshot({ path: path.join(outDir, n + '.png') });
  // the heaviest function below main, for a selection that shows
  const pick = await (async () => {
    await go(page1, 'view=flat');
    return page.evaluate(() => window.sfReport.flat()
      .filter(([n]) => !/^(main|sfanalyze|_start|__libc_start.*|\[unknown\])$/.test(n))
      .sort((a, b) => b[2] - a[2])[0][0]);
  })();
  const sel = encodeURIComponent(pick);
  await go(page1, 'view=flame&sel=' + sel); await shot('flame');
  await go(page1, 'view=icicle&q=' + encodeURIComponent('malloc|free')); await shot('icicle-search');
  await go(page1, 'view=tree&sel=' + sel); await shot('tree');
  await go(page1, 'view=flat&sel=' + sel); await shot('flat');
  await go(page1, 'view=sandwich&sel=' + sel); await shot('callers-callees');
  await go(page1, 'view=tree&sel=' + sel + '&t=' + encodeURIComponent(JSON.stringify([['merge', pick]])));
  await shot('transform-merge');
  await go(page1, 'view=callgraph&sel=' + sel); await shot('callgraph');
  if (cap) { await go(cap, 'view=sample'); await shot('sample-report'); }
  await go(diff, 'view=flame'); await shot('diff-flame');
  await go(diff, 'view=flat&sort=dtot'); await shot('diff-table');
  await c.done();
})();
