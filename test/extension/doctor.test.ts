/** "LuaPanda: Doctor": real port probes and the report's advice for each finding. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  DoctorFacts,
  gatherFacts,
  probeLocalPort,
  renderReport,
} from '../../src/extension/doctor/doctor';
import { INITIAL_CONFIGURATIONS } from '../../src/extension/debug/contribution';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT } from '../harness/luaProcess';

const RUNTIME_DIR = path.join(REPO_ROOT, 'dist', 'lua');

const base: DoctorFacts = {
  workspace: '/games/rpg',
  luaConfigs: [],
  ports: [],
  runtimeInWorkspace: [],
  interpreters: [],
  vscodeOnly: [],
  breakpoints: [],
  liveLuaSessions: 0,
  mcp: 'Running on http://127.0.0.1:6009/mcp (0 client sessions).',
  lanAddresses: ['192.168.1.5'],
};

describe('extension: doctor', () => {
  it('tells a listening port from a free one', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      assert.equal(await probeLocalPort(port), 'listening');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    assert.equal(await probeLocalPort(port), 'free');
  });

  it('reads the attach configurations of the workspace and finds the runtime copies', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-doctor-'));
    try {
      fs.mkdirSync(path.join(folder, '.vscode'));
      fs.mkdirSync(path.join(folder, 'scripts'));
      fs.writeFileSync(path.join(folder, 'scripts', 'LuaPanda.lua'), '-- runtime');
      fs.writeFileSync(
        path.join(folder, '.vscode', 'launch.json'),
        '{ "configurations": [ { "type": "luapanda", "request": "attach", "name": "game", "connectionPort": 8899 }, ' +
          '{ "type": "node", "request": "launch", "name": "other" } ] }',
      );
      const facts = await gatherFacts({
        workspace: folder,
        runtimeDir: RUNTIME_DIR,
        breakpoints: [],
        liveLuaSessions: 0,
        mcp: '',
      });
      assert.deepEqual(
        facts.luaConfigs.map((c) => c.name),
        ['game'],
      );
      assert.equal(facts.ports[0].port, 8899);
      assert.equal(facts.ports[0].host, '127.0.0.1', 'connectionHost defaults to loopback');
      assert.deepEqual(facts.runtimeInWorkspace, [path.join('scripts', 'LuaPanda.lua')]);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('checks each launch configuration as its launch would: luasocket, with its own env', async () => {
    const lua = luaInterpreters()[0];
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-doctor-'));
    try {
      fs.mkdirSync(path.join(folder, '.vscode'));
      const hidden = path.join(folder, 'empty', '?.so');
      const env = {
        LUA_CPATH: hidden,
        LUA_CPATH_5_2: hidden,
        LUA_CPATH_5_3: hidden,
        LUA_CPATH_5_4: hidden,
      };
      const launch = (name: string, extra: object) => ({
        type: 'luapanda',
        request: 'launch',
        name,
        program: '${workspaceFolder}/main.lua',
        luaPath: lua.command,
        ...extra,
      });
      fs.writeFileSync(
        path.join(folder, '.vscode', 'launch.json'),
        JSON.stringify({
          configurations: [
            launch('works', {}),
            launch('no socket', { env }),
            launch('no lua', { luaPath: 'no-such-lua-5.9' }),
          ],
        }),
      );
      const facts = await gatherFacts({
        workspace: folder,
        runtimeDir: RUNTIME_DIR,
        breakpoints: [],
        liveLuaSessions: 0,
        mcp: '',
      });
      const byName = (prefix: string) => facts.interpreters.find((i) => i.name.startsWith(prefix));
      assert.equal(byName('"works"')?.verdict, 'ok', JSON.stringify(facts.interpreters));
      assert.match(byName('"works"')?.detail ?? '', /with luasocket and the runtime/);
      assert.equal(byName('"no socket"')?.verdict, 'failed');
      assert.match(byName('"no socket"')?.detail ?? '', /cannot load luasocket.*Fix:/);
      assert.doesNotMatch(byName('"no socket"')?.detail ?? '', /no file '/);
      assert.deepEqual(byName('"no lua"'), {
        name: '"no lua" (no-such-lua-5.9)',
        verdict: 'failed',
        detail: 'not found',
      });
      assert.match(renderReport(facts), /✗ "no socket" \(/);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it("judges a configuration where it runs: ${file} is VS Code's, only the headless server lacks it", async () => {
    const lua = luaInterpreters()[0];
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-doctor-'));
    try {
      fs.mkdirSync(path.join(folder, '.vscode'));
      fs.mkdirSync(path.join(folder, 'src'));
      const editorFile = path.join(folder, 'src', 'main.lua');
      const generated = { ...INITIAL_CONFIGURATIONS[0], luaPath: lua.command };
      fs.writeFileSync(
        path.join(folder, '.vscode', 'launch.json'),
        JSON.stringify({
          configurations: [
            generated,
            { ...generated, name: 'beside the file', cwd: '${fileDirname}' },
            { ...generated, name: 'asks', cwd: '${input:gameFolder}' },
          ],
        }),
      );
      const gather = (file?: string) =>
        gatherFacts({
          workspace: folder,
          runtimeDir: RUNTIME_DIR,
          editorFile: file,
          breakpoints: [],
          liveLuaSessions: 0,
          mcp: '',
        });
      const facts = await gather(editorFile);
      const verdicts = Object.fromEntries(facts.interpreters.map((i) => [i.name, i.verdict]));
      const named = (name: string) => verdicts[`"${name}" (${lua.command})`];
      assert.equal(named(generated.name), 'ok', JSON.stringify(facts.interpreters));
      assert.equal(named('beside the file'), 'ok', "cwd is the editor file's folder");
      assert.equal(verdicts['"asks"'], 'unchecked', 'a prompt is answered only at launch');
      const report = renderReport(facts);
      assert.doesNotMatch(report, /✗ "Lua: launch the current file"/);
      assert.doesNotMatch(report, /Replace it with a path/);
      assert.match(
        report,
        /– "asks": .*\$\{input:gameFolder\}, which VS Code resolves when it starts/,
      );
      // The headless server is told apart: a note, not a failure.
      assert.deepEqual(facts.vscodeOnly, [
        { config: generated.name, variable: '${file}' },
        { config: 'beside the file', variable: '${file}' },
        { config: 'asks', variable: '${file}' },
      ]);
      assert.match(
        report,
        /### Agents without VS Code[^]*"Lua: launch the current file" uses \$\{file\}/,
      );

      // No editor open: ${fileDirname} cannot be known before F5; still no failure.
      const closed = await gather(undefined);
      const beside = closed.interpreters.find((i) => i.name.startsWith('"beside the file"'));
      assert.equal(beside?.verdict, 'unchecked');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('says what to do when nothing listens, and how a device reaches this machine', () => {
    const report = renderReport({
      ...base,
      ports: [
        {
          config: 'game',
          port: 8818,
          asClient: false,
          local: 'free',
          host: '127.0.0.1',
          secret: false,
        },
      ],
    });
    assert.match(report, /nothing listens on port 8818 now\. Start this configuration first/);
    assert.match(report, /waits for the game on 127\.0\.0\.1 only \(this machine\)/);
    assert.match(report, /192\.168\.1\.5/);
    assert.match(report, /"connectionHost": "0\.0\.0\.0"/);
    assert.match(report, /"game" listens on 127\.0\.0\.1 only/);
    assert.match(report, /adb reverse tcp:8818 tcp:8818/);
    assert.match(report, /No LuaPanda\.lua in the workspace/);

    const open = renderReport({
      ...base,
      ports: [
        {
          config: 'phone',
          port: 8818,
          asClient: false,
          local: 'free',
          host: '0.0.0.0',
          secret: false,
        },
      ],
    });
    assert.match(open, /waits for the game on every interface \(0\.0\.0\.0\)/);
    assert.doesNotMatch(open, /listens on 127\.0\.0\.1 only/);
    assert.doesNotMatch(report, /no pairing secret/);
  });

  it('warns when a link beyond this machine has no pairing secret', () => {
    const port = { port: 8818, local: 'free', secret: false } as const;
    const report = renderReport({
      ...base,
      ports: [
        { ...port, config: 'phone', asClient: false, host: '0.0.0.0' },
        { ...port, config: 'device', asClient: true, host: '127.0.0.1', ip: '192.168.1.20' },
        {
          ...port,
          config: 'paired',
          asClient: true,
          host: '127.0.0.1',
          ip: '192.168.1.21',
          secret: true,
        },
      ],
    });
    assert.match(
      report,
      /⚠ "phone": VS Code is to listen on every interface .* with no pairing secret: it refuses to/,
    );
    assert.match(report, /⚠ "device": the game listens on the network with no pairing secret/);
    assert.match(report, /Set `"connectionSecret"`/);
    assert.doesNotMatch(report, /"paired": the game listens/);
  });

  it('explains unbound breakpoints with the path-mapping settings', () => {
    const report = renderReport({
      ...base,
      liveLuaSessions: 1,
      breakpoints: [
        { file: 'src/a.lua', line: 3, verified: false, message: 'not loaded', inWorkspace: true },
      ],
    });
    assert.match(report, /src\/a\.lua:3 — not loaded/);
    assert.match(report, /docPathReplace/);
    assert.match(report, /distinguishSameNameFile/);
  });

  it('points an upstream configuration to the new type', () => {
    assert.match(renderReport(base), /change `"type": "lua"`.*to `"type": "luapanda"`/);
  });
});
