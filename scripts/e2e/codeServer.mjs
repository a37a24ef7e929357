// Runs code-server (a real VS Code server with its extension host) for the extension-host tests,
// and opens its workbench in Debian's Chromium through playwright-core. Every instance gets its
// own temporary XDG folders; stop() kills its whole process group.
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { join } from 'node:path';

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function waitFor(
  check,
  { timeoutMs = 60_000, intervalMs = 250, what = 'condition' } = {},
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Starts code-server. `home` holds user data, extensions and XDG folders; `settings` become the
 * user settings. Resolves once /healthz answers.
 */
export async function startCodeServer({
  node,
  entry,
  home,
  settings = {},
  smokeTest = false,
  extraArgs = [],
}) {
  const port = await freePort();
  const userDataDir = join(home, 'user-data');
  const extensionsDir = join(home, 'extensions');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  mkdirSync(join(home, 'xdg-config'), { recursive: true });
  mkdirSync(join(home, 'xdg-data'), { recursive: true });
  writeFileSync(
    join(userDataDir, 'User', 'settings.json'),
    JSON.stringify(
      {
        'remote.autoForwardPorts': false,
        'security.workspace.trust.enabled': false,
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'extensions.autoUpdate': false,
        'extensions.autoCheckUpdates': false,
        'update.mode': 'none',
        'telemetry.telemetryLevel': 'off',
        'chat.disableAIFeatures': true,
        ...settings,
      },
      null,
      2,
    ),
  );
  const args = [
    entry,
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    ...(smokeTest ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    ...extraArgs,
  ];
  const logFile = join(home, 'code-server.log');
  const out = openSync(logFile, 'a');
  const child = spawn(node, args, {
    detached: true,
    stdio: ['ignore', out, out],
    env: {
      ...process.env,
      XDG_CONFIG_HOME: join(home, 'xdg-config'),
      XDG_DATA_HOME: join(home, 'xdg-data'),
      VSCODE_CLI_DISABLE_KEYCHAIN_ENCRYPT: '1',
    },
  });
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  child.once('exit', () => (exited = true));
  await waitFor(
    async () => {
      if (exited) throw new Error(`code-server exited; see ${logFile}`);
      const response = await fetch(`${url}/healthz`);
      return response.ok;
    },
    { timeoutMs: 60_000, what: `code-server on ${url} (log: ${logFile})` },
  ).catch((e) => {
    if (exited) throw new Error(`code-server exited at start; see ${logFile}`);
    throw e;
  });
  return {
    url,
    port,
    userDataDir,
    extensionsDir,
    logFile,
    stop() {
      if (exited) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

/** Runs `code-server --install-extension vsix` into the instance's folders. */
export function installExtension({ node, entry, home, vsix }) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      node,
      [
        entry,
        '--user-data-dir',
        join(home, 'user-data'),
        '--extensions-dir',
        join(home, 'extensions'),
        '--install-extension',
        vsix,
        '--force',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          XDG_CONFIG_HOME: join(home, 'xdg-config'),
          XDG_DATA_HOME: join(home, 'xdg-data'),
        },
      },
    );
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.once('exit', (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`install-extension failed (${code}): ${output}`)),
    );
  });
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launchBrowser() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
  });
}

/** The workbench URL for `folder`, with the extension-development payload when given. */
export function workbenchUrl(server, folder, { extensionPath, testsPath } = {}) {
  const host = new URL(server.url).host;
  const payload = [];
  if (extensionPath)
    payload.push(['extensionDevelopmentPath', `vscode-remote://${host}${extensionPath}`]);
  if (testsPath) payload.push(['extensionTestsPath', `vscode-remote://${host}${testsPath}`]);
  const query = new URLSearchParams({ folder });
  if (payload.length > 0) query.set('payload', JSON.stringify(payload));
  return `${server.url}/?${query.toString()}`;
}
