// Headless Chromium through playwright-core, as the browser tests launch
// it: a fresh --user-data-dir (playwright passes one for a persistent
// context) and no network chatter.  launch() resolves to
// { browser, done } (done() closes it and removes the profile), or to
// null with the reason in .why when Chromium cannot start.
const path = require('path');
const fs = require('fs');
const os = require('os');

async function launch(modDir, chromium) {
  const { chromium: pw } = require(path.join(modDir, 'playwright-core'));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'sf-chromium-'));
  try {
    const browser = await pw.launchPersistentContext(profile, {
      executablePath: chromium,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
             '--no-first-run', '--disable-background-networking',
             '--disable-component-update', '--disable-sync'],
    });
    return { browser, done: async () => {
      await browser.close();
      fs.rmSync(profile, { recursive: true, force: true });
    } };
  } catch (e) {
    fs.rmSync(profile, { recursive: true, force: true });
    return { browser: null, why: String(e.message).split('\n')[0] };
  }
}

module.exports = { launch };
