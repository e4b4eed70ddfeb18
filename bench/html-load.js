// Print how long headless Chromium takes from navigation to the first
// view of each HTML report given (best of 3 loads).
// Usage: node html-load.js MODULES_DIR CHROMIUM FILE.html...
const path = require('path');
const { launch } = require(path.join(__dirname, '..', 'tests', 'chromium.js'));
const [modDir, chromium, ...files] = process.argv.slice(2);

(async () => {
  const c = await launch(modDir, chromium);
  if (!c.browser) { console.log('cannot launch chromium: ' + c.why); return; }
  for (const f of files) {
    let best = Infinity, frames = 0;
    for (let run = 0; run < 3; run++) {
      const page = await c.browser.newPage();
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto('file://' + path.resolve(f), { waitUntil: 'load', timeout: 120000 });
      await page.waitForFunction(() => window.sfReport &&
        (window.sfReport.ready || window.sfReport.error), null, { timeout: 120000 });
      const r = await page.evaluate(() => [window.sfReport.firstDraw,
        window.sfReport.drawn().length, window.sfReport.error || '']);
      if (r[2]) console.log(path.basename(f) + ': ' + r[2]);
      if (r[0] < best) { best = r[0]; frames = r[1]; }
      await page.close();
    }
    console.log(path.basename(f) + ': first view drawn ' + best.toFixed(0) +
                ' ms after navigation (best of 3), ' + frames + ' frames drawn');
  }
  await c.done();
})();
