// Open a call-graph SVG in headless Chromium (playwright-core) and print,
// as JSON, the node and edge titles the browser's DOM holds and any page
// error.  Usage: node browser.js MODULES_DIR CHROMIUM SVG
// Exit status 3 (after a SKIP line) when Chromium cannot start.
const path = require('path');
const { launch } = require(path.join(__dirname, '..', 'chromium.js'));
const [modDir, chromium, svg] = process.argv.slice(2);

(async () => {
  const c = await launch(modDir, chromium);
  if (!c.browser) {
    console.log('SKIP: ' + c.why);
    process.exit(3);
  }
  try {
    const page = await c.browser.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(String(e)));
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto('file://' + svg, { waitUntil: 'load' });
    const r = await page.evaluate(() => {
      const t = sel => [...document.querySelectorAll(sel)]
        .map(g => g.querySelector('title').textContent);
      const svgEl = document.querySelector('svg');
      return { nodes: t('g.node'), edges: t('g.edge'),
               width: svgEl ? svgEl.getBoundingClientRect().width : 0 };
    });
    r.errors = errors;
    if (!(r.width > 0)) r.errors.push('the svg has no width in the page');
    console.log(JSON.stringify(r));
  } finally {
    await c.done();
  }
})();
