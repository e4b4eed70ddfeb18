// Print how long headless Chromium takes to load each SVG given.
// Usage: node svg-load.js MODULES_DIR CHROMIUM FILE.svg...
const path = require('path');
const fs = require('fs');
const os = require('os');
const [modDir, chromium, ...files] = process.argv.slice(2);
const { chromium: pw } = require(path.join(modDir, 'playwright-core'));

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'sf-chromium-'));
  const ctx = await pw.launchPersistentContext(profile, {
    executablePath: chromium, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
           '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
  for (const f of files) {
    const page = await ctx.newPage();
    const t0 = Date.now();
    try {
      await page.goto('file://' + path.resolve(f),
                      { waitUntil: 'load', timeout: 120000 });
    } catch (e) {
      console.log(path.basename(f) + ': ' + fs.statSync(f).size +
                  ' bytes: not loaded in 120 s');
      await page.close();
      continue;
    }
    const n = await page.evaluate(() =>
      document.querySelectorAll('#frames > g').length);
    const t1 = Date.now();
    await page.evaluate(() => {
      window.sfFlame.zoom(document.querySelectorAll('#frames > g')[1]);
      window.sfFlame.reset();
    });
    const t2 = Date.now();
    console.log(path.basename(f) + ': ' + fs.statSync(f).size + ' bytes, ' +
                n + ' frames, load ' + (t1 - t0) + ' ms, zoom+reset ' +
                (t2 - t1) + ' ms');
    await page.close();
  }
  await ctx.close();
  fs.rmSync(profile, { recursive: true, force: true });
})();
