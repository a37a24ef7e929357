#!/usr/bin/env node
// Renders scripts/icon/icon.svg into media/icon.png (128×128, the extension's icon) with
// playwright-core and a system Chromium (CHROMIUM_PATH, default /usr/bin/chromium). The build
// does not run this: the PNG is committed; run it after editing the SVG.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from '../e2e/codeServer.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const svg = readFileSync(join(root, 'scripts', 'icon', 'icon.svg'), 'utf8');
const out = join(root, 'media', 'icon.png');

const browser = await launchBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: out, omitBackground: true });
  console.log(`icon: wrote ${out}`);
} finally {
  await browser.close();
}
