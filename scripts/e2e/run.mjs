#!/usr/bin/env node
// `npm run test:e2e`: the extension in real VS Code extension hosts (code-server), offline.
//  1. installs Node 24 and code-server into .e2e-cache/ (once), builds the VSIX (`npm run package`);
//  2. window 1 runs the main suite in its extension host (test/extension/host/main.e2e.ts);
//  3. window 2 (an ordinary window of the same user) serves the MCP port; window 3 (a third
//     extension host, same port) runs the multi-window suite; the runner checks that window 2
//     handed over, closes window 3 and checks that window 2 takes over again;
//  4. UI smoke test: a second code-server with the VSIX installed, driven with headless Chromium —
//     an outside agent stops a Lua program, the human steps with F10, a click on "Agent waiting…"
//     interrupts the agent, two games on the attach port show as two child sessions under the
//     attach session in the Call Stack, a second window shows who serves, the walkthrough and
//     the extension page (icon, README) open; screenshots of each (status bar, panel, stopped
//     session, two games in the Call Stack, walkthrough, extension page…) are saved under
//     .test-artifacts/e2e/.
// Flags: --no-build (use the current dist/ and out/), --keep (leave the temp folder),
// --host-only / --ui-only (one part).
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { format } from 'node:util';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  freePort,
  installExtension,
  launchBrowser,
  startCodeServer,
  waitFor,
  workbenchUrl,
} from './codeServer.mjs';
import { install } from './install.mjs';
import { callTool } from './mcpCall.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = new Set(process.argv.slice(2));
const artifacts = join(root, '.test-artifacts', 'e2e');
const fixture = join(root, 'test', 'extension', 'fixtures', 'workspace');
const vsix = join(root, 'dist', 'luapanda-mcp.vsix');
const results = [];
const started = Date.now();

function step(text) {
  console.log(`\ne2e [${Math.round((Date.now() - started) / 1000)}s] ${text}`);
}

function check(ok, text) {
  results.push({ ok, text });
  console.log(`  ${ok ? '✓' : '✗'} ${text}`);
}

function run(command, argv) {
  const result = spawnSync(command, argv, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${command} ${argv.join(' ')} failed`);
}

function newWorkspace(temp, name) {
  const folder = join(temp, name);
  cpSync(fixture, folder, { recursive: true });
  return folder;
}

/** The "LuaPanda MCP" output channel logs of every extension host of one code-server. */
function channelLogs(userDataDir) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.includes('LuaPanda MCP')) found.push(full);
    }
  };
  if (existsSync(join(userDataDir, 'logs'))) walk(join(userDataDir, 'logs'));
  return found.map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

/** Opens a test-mode window and resolves with its exit code and its console lines. */
async function runTestWindow(browser, server, folder, entry) {
  const page = await browser.newPage();
  let exit;
  const exited = new Promise((resolve) => (exit = resolve));
  await page.exposeFunction('codeAutomationLog', (type, values) => {
    const text = format(...values);
    if (
      !/^(Resolving|Resolved|Creating a socket|\[)/.test(text) &&
      !/open-vsx|ENOTFOUND/.test(text)
    ) {
      console.log(`  | ${text}`);
    }
  });
  await page.exposeFunction('codeAutomationExit', (code) => exit(code));
  await page.goto(
    workbenchUrl(server, folder, {
      extensionPath: root,
      testsPath: join(root, 'out', 'test', 'extension', 'host', entry),
    }),
  );
  const code = await Promise.race([
    exited,
    new Promise((resolve) => setTimeout(() => resolve('timeout'), 300_000)),
  ]);
  return { page, code };
}

async function extensionHostTests(tools, temp, mcpPort) {
  const home = join(temp, 'code-server-1');
  const resultsDir = join(temp, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const first = newWorkspace(temp, 'window-one');
  const second = newWorkspace(temp, 'window-two');
  Object.assign(process.env, {
    E2E_NODE: process.execPath,
    E2E_ROOT: root,
    E2E_MCP_PORT: String(mcpPort),
    E2E_RESULTS_DIR: resultsDir,
    E2E_FIRST_WORKSPACE: first,
  });
  const server = await startCodeServer({
    node: tools.node,
    entry: tools.codeServer,
    home,
    smokeTest: true,
    settings: { 'luapanda.mcp.port': mcpPort, 'debug.openDebug': 'neverOpen' },
  });
  const browser = await launchBrowser();
  try {
    step('window 1: the main suite in the extension host');
    const one = await runTestWindow(browser, server, first, 'runMain.js');
    const main = readSummary(resultsDir, 'main');
    check(
      one.code === 0 && main?.failures.length === 0,
      `main suite: ${summaryText(main, one.code)}`,
    );
    const logged = channelLogs(server.userDataDir).some((log) =>
      /\[agent\] step_execution \{"thread_id":\d+,"step_type":"over"\} → stopped \(\d+ ms\)/.test(
        log.text,
      ),
    );
    check(
      logged,
      "the LuaPanda MCP output channel logged the agent's calls (tool, arguments, status, duration)",
    );
    await one.page.close();

    step('window 2 serves the port (an ordinary window: the extension, no tests)');
    const serving = await browser.newPage();
    await serving.goto(workbenchUrl(server, first, { extensionPath: root }));
    const serves = await waitFor(
      async () => (await fetchJson(`http://127.0.0.1:${mcpPort}/health`))?.workspace === first,
      { timeoutMs: 60_000, what: 'window 2 to serve' },
    ).catch(() => false);
    check(serves, 'window 2 (auto-start on) serves the MCP port');

    step('window 3: same port, another extension host, runs the multi-window suite');
    const two = await runTestWindow(browser, server, second, 'runSecondWindow.js');
    const multi = readSummary(resultsDir, 'secondWindow');
    check(
      two.code === 0 && multi?.failures.length === 0,
      `second-window suite: ${summaryText(multi, two.code)}`,
    );
    const handedOver = await waitFor(
      async () =>
        channelLogs(server.userDataDir).some((log) =>
          /handing port \d+ over to the window of .*window-two/.test(log.text),
        ),
      { timeoutMs: 10_000, what: 'the handover in window 2 log' },
    ).catch(() => false);
    check(handedOver, 'window 2 logged that it handed the port over to window 3');

    step('closing window 3: window 2 (auto-start on) takes over');
    await two.page.close({ runBeforeUnload: true });
    const tookOver = await waitFor(
      async () => (await fetchJson(`http://127.0.0.1:${mcpPort}/health`))?.workspace === first,
      { timeoutMs: 60_000, what: 'window 2 to serve again' },
    ).catch(() => false);
    check(tookOver, 'after window 3 closed, window 2 serves the port again');
    await serving.close({ runBeforeUnload: true });
  } finally {
    await browser.close();
    server.stop();
  }
}

async function uiSmokeTest(tools, temp) {
  const home = join(temp, 'code-server-ui');
  const folder = newWorkspace(temp, 'ui-smoke');
  const mcpPort = await freePort();
  step(
    `UI smoke test: VSIX installed in code-server (${(statSync(vsix).size / 1024).toFixed(0)} KiB)`,
  );
  await installExtension({ node: tools.node, entry: tools.codeServer, home, vsix });
  const server = await startCodeServer({
    node: tools.node,
    entry: tools.codeServer,
    home,
    settings: { 'luapanda.mcp.port': mcpPort, 'workbench.colorTheme': 'Default Dark Modern' },
  });
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
  try {
    await page.goto(`${server.url}/?folder=${encodeURIComponent(folder)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    const item = page.locator('.statusbar-item', { hasText: `LuaPanda MCP :${mcpPort}` });
    await item.waitFor({ timeout: 60_000 });
    check(true, `status bar shows "LuaPanda MCP :${mcpPort}"`);
    await page.locator('.part.statusbar').screenshot({ path: join(artifacts, 'statusbar.png') });

    await item.click();
    const panel = page.locator('.quick-input-widget');
    await panel.waitFor({ state: 'visible', timeout: 10_000 });
    const text = await panel.innerText();
    const offers = [
      'Stop the MCP server',
      'Restart the MCP server',
      'Change port',
      'Auto-start',
      'Copy client configuration',
      'Doctor',
      'Show the log',
    ];
    check(
      offers.every((o) => text.includes(o)),
      `the panel offers: ${offers.join(', ')}`,
    );
    // Enter right after the click must not stop the server: the first entry is harmless.
    const firstEntry = await panel.locator('.monaco-list-row').first().innerText();
    check(
      !/Stop|Restart/.test(firstEntry),
      `the panel's first entry is harmless ("${firstEntry.split('\n')[0]}")`,
    );
    await page.screenshot({ path: join(artifacts, 'panel.png') });
    await page.keyboard.press('Escape');

    const url = `http://127.0.0.1:${mcpPort}/mcp`;
    const main = readFileSync(join(folder, 'main.lua'), 'utf8').split('\n');
    const line = main.findIndex((l) => l.includes('@add')) + 1;
    const set = await callTool(url, 'set_breakpoint', { file_path: 'main.lua', line_number: line });
    check(set.status === 'success', `an outside agent set a breakpoint at main.lua:${line}`);
    const stopped = await callTool(url, 'start_debugging', { configuration_name: 'Lua: main' });
    check(
      stopped.status === 'stopped' && stopped.stop_event_data?.line === line,
      `the agent's session stopped at line ${line}`,
    );
    await page.locator('.debug-toolbar').waitFor({ state: 'visible', timeout: 20_000 });
    await page.locator('.debug-top-stack-frame-line').first().waitFor({ timeout: 20_000 });
    check(true, 'VS Code shows the stopped Lua session (debug toolbar, current line)');
    // VS Code expands the first scope that is not expensive (Locals) by itself, about 0.4 s after
    // the stop; the issue saw it stay collapsed once, at a first stop. Said here, then opened if
    // it is not, so the screenshot shows the agent's stop with its variables.
    const locals = page.locator('.monaco-list-row', { hasText: 'Locals' }).first();
    await locals.waitFor({ timeout: 10_000 });
    await page.waitForTimeout(1000);
    const expanded = await locals.getAttribute('aria-expanded');
    console.log(`  (Locals at the first stop: aria-expanded=${expanded})`);
    if (expanded !== 'true') await locals.click();
    await page
      .locator('.monaco-list-row', { hasText: /^a\s*[:=]?\s*0/ })
      .first()
      .waitFor({ timeout: 10_000 })
      .catch(() => undefined);
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(artifacts, 'lua-stopped.png') });

    // The human steps with F10 in the browser; the agent's next call sees the new line.
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('F10');
    const moved = await waitFor(
      async () => {
        const state = await callTool(url, 'get_debug_state');
        return state.stop_event_data?.line === line + 1 ? state : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 500, what: 'the agent to see the step' },
    ).catch(() => undefined);
    check(
      moved !== undefined,
      `the human pressed F10 in the browser; the agent sees line ${line + 1}`,
    );
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(artifacts, 'lua-stepped-by-human.png') });
    const stop = await callTool(url, 'stop_debugging');
    check(stop.status === 'success', 'the agent stopped the session');

    // An agent waits on a running program: the status bar says so; a click ends the wait.
    const entry = await callTool(url, 'start_debugging', { configuration_name: 'Lua: loop' });
    const waiting = callTool(url, 'continue_debugging', {
      thread_id: entry.stop_event_data?.thread_id,
      timeout_seconds: 60,
    });
    const waitingItem = page.locator('.statusbar-item', { hasText: 'Agent waiting' });
    await waitingItem.waitFor({ timeout: 20_000 });
    await page.screenshot({ path: join(artifacts, 'agent-waiting.png') });
    await waitingItem.click();
    const interrupted = await waiting;
    check(
      interrupted.status === 'interrupted',
      'a click on "Agent waiting…" in the status bar interrupted the agent',
    );
    await callTool(url, 'stop_debugging');

    await twoGamesInCallStack(page, url, folder, home);

    // A second window on the same port shows who serves.
    const second = await browser.newPage({ viewport: { width: 1400, height: 850 } });
    const otherFolder = newWorkspace(temp, 'ui-smoke-second');
    await second.goto(`${server.url}/?folder=${encodeURIComponent(otherFolder)}`);
    const other = second.locator('.statusbar-item', { hasText: 'LuaPanda MCP: other window' });
    await other.waitFor({ timeout: 60_000 });
    check(true, 'a second window shows "LuaPanda MCP: other window"');
    await other.hover();
    await second.waitForTimeout(1500);
    await second.screenshot({ path: join(artifacts, 'second-window.png') });
    await second.close();

    await walkthroughAndExtensionPage(page);
    await attachTimeout(page, url, folder);
    await portHint(page);
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'failure.png') }).catch(() => undefined);
    check(false, `UI smoke test: ${e.message}`);
  } finally {
    await browser.close();
    server.stop();
  }
}

/** The Call Stack view's rows, top down: text and tree depth (aria-level). */
async function callStackRows(page) {
  return page.locator('.debug-call-stack .monaco-list-row').evaluateAll((rows) =>
    rows.map((row) => ({
      text: row.innerText.replace(/\s+/g, ' ').trim(),
      level: Number(row.getAttribute('aria-level')),
    })),
  );
}

/**
 * Two games on the workspace's attach port: the Call Stack shows the attach session with one
 * child session per game under it, named after the game. The games run the installed VSIX's
 * runtime; stopping the attach session detaches them and they run to their end.
 */
async function twoGamesInCallStack(page, url, folder, home) {
  const port = await freePort();
  const launchJson = join(folder, '.vscode', 'launch.json');
  writeFileSync(
    launchJson,
    readFileSync(launchJson, 'utf8').replace(/"connectionPort": \d+/, `"connectionPort": ${port}`),
  );
  // The games require the runtime the installed VSIX ships, as a user's game would.
  const runtime = readdirSync(join(home, 'extensions'))
    .map((name) => join(home, 'extensions', name, 'dist', 'lua'))
    .find((dir) => existsSync(join(dir, 'LuaPanda.lua')));
  if (!runtime) throw new Error('no dist/lua/LuaPanda.lua in the installed extension');
  const source = readFileSync(join(folder, 'games.lua'), 'utf8').split('\n');
  const line = source.findIndex((l) => l.includes('@game')) + 1;
  const set = await callTool(url, 'set_breakpoint', {
    file_path: 'games.lua',
    line_number: line,
    condition: 'round == 1',
  });
  const games = [];
  try {
    const attached = callTool(url, 'start_debugging', { configuration_name: 'Lua: games' });
    const luaPath = `${join(runtime, '?.lua')};;`;
    for (const name of ['server', 'client']) {
      const game = spawn('lua5.4', [join(folder, 'games.lua'), String(port), name], {
        cwd: folder,
        env: { ...process.env, LUA_PATH_5_4: luaPath, LUA_PATH: luaPath },
        stdio: 'ignore',
      });
      games.push({ name, game, exit: new Promise((resolve) => game.once('exit', resolve)) });
    }
    const first = await attached;
    check(
      first.status === 'stopped' && first.stop_event_data?.line === line,
      `two games attached to "Lua: games" on one port; the first stopped at games.lua:${line}`,
    );
    let seen = [];
    const rows = await waitFor(
      async () => {
        const all = await callStackRows(page);
        seen = all;
        const parent = all.findIndex((r) => r.text.startsWith('Lua: games'));
        if (parent < 0) return undefined;
        const under = [];
        for (const row of all.slice(parent + 1)) {
          if (row.level <= all[parent].level) break;
          under.push(row);
        }
        const children = ['server', 'client'].map((name) =>
          under.find((r) => r.level === all[parent].level + 1 && r.text.startsWith(name)),
        );
        return children.every((c) => c && /paused/i.test(c.text))
          ? { parent: all[parent], children }
          : undefined;
      },
      {
        timeoutMs: 30_000,
        intervalMs: 500,
        what: 'both games under "Lua: games" in the Call Stack',
      },
    ).catch(() => undefined);
    check(
      rows !== undefined,
      'the Call Stack shows "Lua: games" with the games "server" and "client" paused under it' +
        (rows ? '' : ` (rows seen: ${JSON.stringify(seen)})`),
    );
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(artifacts, 'callstack-two-games.png') });
    const stop = await callTool(url, 'stop_debugging');
    let timer;
    const exits = await Promise.race([
      Promise.all(games.map((g) => g.exit)),
      new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), 30_000))),
    ]);
    clearTimeout(timer);
    check(
      stop.status === 'success' && Array.isArray(exits) && exits.every((code) => code === 0),
      'stopping the attach session detached both games; they ran to their end',
    );
  } finally {
    for (const { game } of games) if (game.exitCode === null) game.kill();
    if (set.breakpoint)
      await callTool(url, 'remove_breakpoint', { breakpoint_id: set.breakpoint.id });
  }
}

/** The toast whose text matches `pattern`, once shown. */
async function toast(page, pattern) {
  const found = page.locator('.notification-toast', { hasText: pattern }).first();
  await found.waitFor({ timeout: 30_000 });
  return found;
}

/**
 * An attach that no game answers in time: an error notification with its first sentence, whose
 * "Show Full Text" opens the whole text (not an information toast cut mid-word).
 */
async function attachTimeout(page, url, folder) {
  const port = await freePort();
  const launchJson = join(folder, '.vscode', 'launch.json');
  writeFileSync(
    launchJson,
    readFileSync(launchJson, 'utf8').replace(
      '"configurations": [',
      `"configurations": [\n    { "type": "luapanda", "request": "attach", "name": "Lua: nobody", ` +
        `"connectionPort": ${port}, "connectionTimeout": 2, "cwd": "\${workspaceFolder}" },`,
    ),
  );
  await callTool(url, 'start_debugging', { configuration_name: 'Lua: nobody' }).catch(
    () => undefined,
  );
  const shown = await toast(page, 'Show Full Text').catch(() => undefined);
  const isError = shown ? (await shown.locator('.codicon-error').count()) > 0 : false;
  check(
    shown !== undefined && isError,
    'an attach no game answers ends in an error notification with "Show Full Text"',
  );
  await page.screenshot({ path: join(artifacts, 'attach-timeout.png') });
  if (!shown) return;
  await shown.getByRole('button', { name: 'Show Full Text' }).click();
  const tab = page.locator('.tab', { hasText: 'LuaPanda session failure' });
  const opened = await tab.waitFor({ timeout: 15_000 }).then(
    () => true,
    () => false,
  );
  check(opened, '"Show Full Text" opens the whole text in an editor');
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(artifacts, 'attach-timeout-full-text.png') });
}

/** Changing the MCP port says that copied client configurations name the old port. */
async function portHint(page) {
  const port = await freePort();
  await runCommand(page, 'Change the MCP Server Port');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(String(port));
  await page.keyboard.press('Enter');
  const hint = await toast(page, 'still point at port').catch(() => undefined);
  const offers = hint
    ? (await hint.getByRole('button', { name: 'Copy Client Configuration…' }).count()) > 0
    : false;
  check(
    offers,
    `after a move to port ${port}, a notification says copied configurations name the old port ` +
      'and offers to copy again',
  );
  await page.screenshot({ path: join(artifacts, 'port-hint.png') });
}

/** Runs a command by its title through F1, as a user does. */
async function runCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(`>${title}`);
  await page
    .locator('.quick-input-widget .monaco-list-row', { hasText: title })
    .first()
    .waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
}

/** The frame of the extension page's README webview (the one holding "Get started"). */
async function readmeFrame(page) {
  for (const frame of page.frames()) {
    const found = await frame
      .locator('h2', { hasText: 'Get started' })
      .count()
      .catch(() => 0);
    if (found > 0) return frame;
  }
  return undefined;
}

/** The getting-started walkthrough and the installed extension's page (icon, README). */
async function walkthroughAndExtensionPage(page) {
  const title = 'LuaPanda: Debug Lua games and programs';
  await runCommand(page, 'Welcome: Open Walkthrough...');
  const pick = page.locator('.quick-input-widget .monaco-list-row', { hasText: title });
  await pick.first().waitFor({ timeout: 10_000 });
  await pick.first().click();
  const steps = ['Stop at a breakpoint in a Lua file', 'Let an AI agent debug with you'];
  for (const step of steps) {
    await page.getByText(step, { exact: true }).first().waitFor({ timeout: 20_000 });
  }
  check(true, `the walkthrough "${title}" opens with its steps (${steps.join(', ')}, …)`);
  await page.waitForTimeout(1000);
  await page.screenshot({ path: join(artifacts, 'walkthrough.png') });
  // Each step's buttons stay inside its card (the Doctor's long title once ran past the edge).
  for (const [stepTitle, shot] of [
    ['Put the debugger into your game', 'walkthrough-runtime.png'],
    ['Attach to the running game', 'walkthrough-attach.png'],
  ]) {
    await page.getByText(stepTitle, { exact: true }).first().click();
    await page.waitForTimeout(800);
    const overflow = await page.evaluate(() => {
      const card = document.querySelector('.getting-started-step.expanded');
      if (!card) return ['no expanded step'];
      const edge = card.getBoundingClientRect().right;
      const buttons = [...card.querySelectorAll('.monaco-button, button')];
      if (buttons.length === 0) return ['no button in the step'];
      return buttons
        .filter((b) => b.getBoundingClientRect().right > edge + 1)
        .map((b) => b.textContent.trim());
    });
    check(
      overflow.length === 0,
      `the walkthrough step "${stepTitle}": every button inside its card` +
        (overflow.length ? ` (past the edge: ${overflow.join(', ')})` : ''),
    );
    await page.screenshot({ path: join(artifacts, shot) });
  }
  await runCommand(page, 'View: Close All Editors');

  await runCommand(page, 'Extensions: Show Installed Extensions');
  const listed = page.locator('.extensions-viewlet .monaco-list-row', {
    hasText: 'LuaPanda MCP Debugger',
  });
  await listed.first().waitFor({ timeout: 20_000 });
  await listed.first().click();
  const header = page.locator('.extension-editor .header .name', {
    hasText: 'LuaPanda MCP Debugger',
  });
  await header.waitFor({ timeout: 20_000 });
  const iconLoaded = await page
    .locator('.extension-editor .header .icon-container img')
    .first()
    .evaluate((img) => img.complete && img.naturalWidth === 128)
    .catch(() => false);
  check(iconLoaded, 'the extension page shows the 128×128 icon');
  // The README renders in a webview (nested iframes): find its first heading in any frame.
  const readme = await waitFor(
    async () => {
      for (const frame of page.frames()) {
        const text = await frame
          .locator('h2', { hasText: 'Get started' })
          .first()
          .textContent({ timeout: 500 })
          .catch(() => null);
        if (text) return text;
      }
      return undefined;
    },
    { timeoutMs: 20_000, intervalMs: 500, what: "the README's Get started section" },
  ).catch(() => undefined);
  check(readme !== undefined, 'the extension page shows the README (its "Get started" section)');
  // Everything on the page works from the VSIX: no image shows only its alt text, and no link
  // points where the extension page cannot go (it opens web addresses only).
  const readmeDoc = await readmeFrame(page);
  if (readmeDoc) {
    const broken = await readmeDoc.evaluate(() => [
      ...[...document.images]
        .filter((img) => !(img.complete && img.naturalWidth > 0))
        .map((img) => `image ${img.getAttribute('src')}`),
      ...[...document.querySelectorAll('a[href]')]
        .map((a) => a.getAttribute('href'))
        .filter((href) => !/^(https?:|mailto:|#)/.test(href))
        .map((href) => `link ${href}`),
    ]);
    check(
      broken.length === 0,
      `every image and link of the extension page works (${broken.join(', ') || 'none broken'})`,
    );
  }
  await page.waitForTimeout(1000);
  await page.screenshot({ path: join(artifacts, 'extension-page.png') });
}

function readSummary(dir, suite) {
  try {
    return JSON.parse(readFileSync(join(dir, `${suite}.json`), 'utf8'));
  } catch {
    return undefined;
  }
}

function summaryText(summary, code) {
  if (!summary) return `no results (exit ${code})`;
  const failed = summary.failures
    .map((f) => `\n      ✗ ${f.title}: ${f.error.split('\n')[0]}`)
    .join('');
  return `${summary.passes} passed, ${summary.failures.length} failed${failed}`;
}

async function fetchJson(url) {
  try {
    return await (await fetch(url, { signal: AbortSignal.timeout(2000) })).json();
  } catch {
    return undefined;
  }
}

async function main() {
  step('installing code-server and Node 24 (cached in .e2e-cache/)');
  const tools = install();
  if (!args.has('--no-build')) {
    step('building the extension and the VSIX');
    run('npm', ['run', 'package']);
  }
  if (!args.has('--host-only')) rmSync(artifacts, { recursive: true, force: true });
  mkdirSync(artifacts, { recursive: true });
  const temp = mkdtempSync(join(tmpdir(), 'luapanda-e2e-'));
  try {
    if (!args.has('--ui-only')) await extensionHostTests(tools, temp, await freePort());
    if (!args.has('--host-only')) await uiSmokeTest(tools, temp);
  } finally {
    if (!args.has('--keep')) rmSync(temp, { recursive: true, force: true });
    else console.log(`kept ${temp}`);
  }
  const failed = results.filter((r) => !r.ok);
  step(
    `${results.length - failed.length} checks passed, ${failed.length} failed; screenshots in ${artifacts}`,
  );
  process.exit(failed.length === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(`e2e: ${e.stack ?? e}`);
  process.exit(1);
});
