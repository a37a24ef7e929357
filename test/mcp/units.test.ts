/**
 * The MCP layer's pure parts: output log paging, launch.json reading, result size limits, CLI
 * arguments, the agent's deadline.
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { UsageError, parseArgs } from '../../src/cli/mcp';
import {
  LaunchConfigError,
  readLaunchConfigurations,
  VscodeOnlyVariableError,
  resolveVariables,
} from '../../src/mcp/launchConfig';
import { OutputLog, PARTIAL_LINE_QUIET_MS } from '../../src/mcp/outputLog';
import { viewOutput } from '../../src/mcp/outputView';
import { DapRequestError } from '../../src/mcp/headless/dapClient';
import { MCP_ERRORS, error, noActiveSession, notAllowed, notPaused } from '../../src/mcp/errors';
import { fitToSize, toCallToolResult } from '../../src/mcp/results';
import {
  Deadline,
  WaitEnded,
  isRequestTimeout,
  waitEndedResult,
} from '../../src/mcp/tools/deadline';

describe('OutputLog', () => {
  it('splits output into lines, holding a partial line until it ends or stays unchanged a while', () => {
    let now = 1000;
    const log = new OutputLog(undefined, () => now);
    log.append('s1', 'stdout', 'hello\nwor');
    log.append('s1', 'stdout', 'ld\r\nlast');
    const texts = (cursor: number) => log.read(cursor, 10).lines.map((l) => l.text);
    assert.deepEqual(texts(0), ['hello', 'world'], 'the rest of "last" may be on its way');
    now += PARTIAL_LINE_QUIET_MS;
    const page = log.read(0, 10);
    assert.deepEqual(
      page.lines.map((l) => l.text),
      ['hello', 'world', 'last'],
      'a prompt without a newline shows once it stays as it is',
    );
    assert.equal(page.more, false);
    assert.deepEqual(log.read(page.nextCursor, 10).lines, []);
  });

  it("gives a session's unfinished line when the session ends", () => {
    const log = new OutputLog(undefined, () => 0);
    log.append('s1', 'stdout', 'bye');
    log.append('s2', 'stdout', 'still running');
    log.endSession('s1');
    assert.deepEqual(
      log.read(0, 10).lines.map((l) => [l.sessionId, l.text]),
      [['s1', 'bye']],
    );
  });

  it('never cuts a line that arrives in pieces, however reads fall between them', () => {
    const text = fc.array(fc.stringMatching(/^[a-z ]{0,12}$/), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(
        text,
        fc.array(fc.nat(40), { maxLength: 12 }),
        fc.infiniteStream(fc.boolean()),
        (lines, cuts, readBetween) => {
          let now = 0;
          const log = new OutputLog(undefined, () => now);
          const all = lines.map((l) => `${l}\n`).join('');
          const at = [...new Set(cuts.map((c) => c % (all.length + 1)))].sort((a, b) => a - b);
          const seen: string[] = [];
          let cursor = 0;
          const read = () => {
            const page = log.read(cursor, 1000);
            seen.push(...page.lines.map((l) => l.text));
            cursor = page.nextCursor;
          };
          let from = 0;
          for (const to of [...at, all.length]) {
            log.append('s1', 'stdout', all.slice(from, to));
            from = to;
            now += PARTIAL_LINE_QUIET_MS - 1;
            if (readBetween.next().value) read();
          }
          read();
          assert.deepEqual(seen, lines);
        },
      ),
    );
  });

  it('pages with a cursor and says when more is waiting', () => {
    const log = new OutputLog();
    for (let i = 1; i <= 5; i++) log.append('s1', 'stdout', `line ${i}\n`);
    const first = log.read(0, 2);
    assert.deepEqual(
      first.lines.map((l) => l.text),
      ['line 1', 'line 2'],
    );
    assert.equal(first.more, true);
    const second = log.read(first.nextCursor, 10);
    assert.deepEqual(
      second.lines.map((l) => l.text),
      ['line 3', 'line 4', 'line 5'],
    );
  });

  it('drops the oldest lines past its capacity and tells a late reader', () => {
    const log = new OutputLog(3);
    log.append('s1', 'stdout', 'a\n');
    const cursor = log.read(0, 10).nextCursor;
    for (const t of ['b', 'c', 'd', 'e', 'f']) log.append('s1', 'stdout', `${t}\n`);
    const page = log.read(cursor, 10);
    assert.deepEqual(
      page.lines.map((l) => l.text),
      ['d', 'e', 'f'],
    );
    assert.equal(page.dropped, 2);
  });

  it('filters by session and keeps categories', () => {
    const log = new OutputLog();
    log.append('s1', 'stdout', 'one\n');
    log.append('s2', 'stderr', 'two\n');
    const page = log.read(0, 10, 's2');
    assert.deepEqual(
      page.lines.map((l) => [l.sessionId, l.category, l.text]),
      [['s2', 'stderr', 'two']],
    );
  });
});

describe('get_output view', () => {
  it('gives logpoint lines their own category, without the prefix', () => {
    const log = new OutputLog();
    log.append('s1', 'console', '[LogPoint Output]: x = 1\n');
    log.append('s1', 'console', 'LuaPanda: a message\n');
    assert.deepEqual(
      log.read(0, 10).lines.map((l) => [l.category, l.text]),
      [
        ['logpoint', 'x = 1'],
        ['console', 'LuaPanda: a message'],
      ],
    );
  });

  it('groups runs of one category in order, saying the session and times once', () => {
    const log = new OutputLog();
    log.append('s1', 'stdout', 'a\nb\n');
    log.append('s1', 'console', '[LogPoint Output]: c\n');
    log.append('s1', 'stdout', 'd\n');
    const view = viewOutput(log.read(0, 10));
    assert.equal(view.session_id, 's1');
    assert.ok(view.first_timestamp && view.last_timestamp);
    assert.deepEqual(view.groups, [
      {
        category: 'stdout',
        lines: [
          { cursor: 1, text: 'a' },
          { cursor: 2, text: 'b' },
        ],
      },
      { category: 'logpoint', lines: [{ cursor: 3, text: 'c' }] },
      { category: 'stdout', lines: [{ cursor: 4, text: 'd' }] },
    ]);
  });

  it('names the session of each run when a page holds several', () => {
    const log = new OutputLog();
    log.append('s1', 'stdout', 'one\n');
    log.append('s2', 'stdout', 'two\n');
    const view = viewOutput(log.read(0, 10));
    assert.equal(view.session_id, undefined);
    assert.deepEqual(
      view.groups.map((g) => [g.session_id, g.lines.map((l) => l.text)]),
      [
        ['s1', ['one']],
        ['s2', ['two']],
      ],
    );
    assert.deepEqual(viewOutput(log.read(2, 10)).groups.length, 0);
  });
});

describe('launch.json', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await fs.mkdtemp(path.join(os.tmpdir(), 'luapanda-launch-'));
    await fs.mkdir(path.join(folder, '.vscode'));
  });
  afterEach(() => fs.rm(folder, { recursive: true, force: true }));

  const write = (text: string) => fs.writeFile(path.join(folder, '.vscode', 'launch.json'), text);

  it('reads JSON with comments and trailing commas', async () => {
    await write(`{
      // a comment
      "configurations": [
        { "type": "luapanda", "request": "launch", "name": "Run", "program": "main.lua", /* inline */ },
        { "name": "incomplete" },
      ],
    }`);
    const configs = await readLaunchConfigurations(folder);
    assert.deepEqual(configs, [
      { type: 'luapanda', request: 'launch', name: 'Run', program: 'main.lua' },
    ]);
  });

  it('says clearly when the file is missing or broken', async () => {
    await assert.rejects(
      readLaunchConfigurations(path.join(folder, 'nowhere')),
      /No \.vscode\/launch\.json/,
    );
    await write('{ "configurations": [ { "name": } ] }');
    await assert.rejects(
      readLaunchConfigurations(folder),
      (e: unknown) => e instanceof LaunchConfigError && /line 1/.test((e as Error).message),
    );
    await write('{ "version": "0.2.0" }');
    await assert.rejects(readLaunchConfigurations(folder), /no "configurations" array/);
  });

  it('resolves VS Code variables, and refuses the ones that need an editor', () => {
    process.env.LUAPANDA_TEST_VAR = 'from-env';
    const resolved = resolveVariables(
      {
        name: 'x',
        type: 'luapanda',
        request: 'launch',
        program: '${workspaceFolder}/main.lua',
        args: ['${workspaceFolderBasename}', '${env:LUAPANDA_TEST_VAR}'],
      },
      '/games/demo',
    );
    assert.equal(resolved.program, '/games/demo/main.lua');
    assert.deepEqual(resolved.args, ['demo', 'from-env']);
    assert.throws(
      () => resolveVariables({ name: 'x', type: 't', request: 'launch', program: '${file}' }, '/w'),
      /only VS Code can resolve .*the headless luapanda-mcp cannot start it/,
    );
    // VS Code's view: the editor's file answers ${file} and its kin.
    const inEditor = resolveVariables(
      {
        name: 'x',
        type: 't',
        request: 'launch',
        program: '${file}',
        cwd: '${fileDirname}',
        args: ['${relativeFile}', '${fileBasenameNoExtension}'],
      },
      '/w',
      { file: '/w/src/main.lua' },
    );
    assert.equal(inEditor.program, '/w/src/main.lua');
    assert.equal(inEditor.cwd, '/w/src');
    assert.deepEqual(inEditor.args, ['src/main.lua', 'main']);
    assert.throws(
      () =>
        resolveVariables(
          { name: 'x', type: 't', request: 'launch', cwd: '${input:dir}' },
          '/w',
          {},
        ),
      (e: unknown) => e instanceof VscodeOnlyVariableError && e.variable === '${input:dir}',
    );
  });
});

describe('tool results', () => {
  it('returns structured content and the same JSON as text, errors flagged', () => {
    const ok = toCallToolResult({ status: 'success', value: 1 });
    assert.deepEqual(ok.structuredContent, { status: 'success', value: 1 });
    assert.deepEqual(JSON.parse((ok.content[0] as { text: string }).text), ok.structuredContent);
    assert.equal(ok.isError, undefined);
    assert.equal(toCallToolResult({ status: 'error', message: 'no' }).isError, true);
  });

  it('error results carry their catalogue code, structured and in the text', () => {
    const failed = toCallToolResult(notPaused('Running'));
    assert.equal(failed.isError, true);
    assert.deepEqual(failed.structuredContent, {
      status: 'error',
      code: 'not-paused',
      message: (failed.structuredContent as { message: string }).message,
    });
    assert.equal(JSON.parse((failed.content[0] as { text: string }).text).code, 'not-paused');
    for (const result of [noActiveSession(), notAllowed('reload'), error('read-failed', 'x')]) {
      assert.ok(String(result.code) in MCP_ERRORS, String(result.code));
    }
  });

  it('cuts an oversized result with a hint instead of sending it whole', () => {
    const big = {
      status: 'success' as const,
      variables: Array.from({ length: 2000 }, (_, i) => ({ name: `v${i}`, value: 'x'.repeat(50) })),
    };
    const fitted = fitToSize(big, 8 * 1024);
    assert.ok(Buffer.byteLength(JSON.stringify(fitted)) <= 8 * 1024);
    assert.equal(fitted.truncated, true);
    assert.match(String(fitted.hint), /too large/);
    assert.ok((fitted.variables as unknown[]).length > 0);
    assert.equal(fitToSize({ status: 'success', small: [1, 2] }, 8 * 1024).truncated, undefined);
  });
});

describe('luapanda-mcp arguments', () => {
  it('reads the modes and options', () => {
    const cwd = process.cwd();
    assert.deepEqual(parseArgs(['--stdio'], {}), {
      mode: 'stdio',
      workspace: cwd,
      port: 6009,
      connect: undefined,
      token: undefined,
      timeoutSeconds: 30,
      waitSeconds: 300,
      allowOutsideWorkspace: false,
      trace: undefined,
      traceFile: undefined,
    });
    const http = parseArgs(
      ['--http', '7010', '--workspace', '.', '--token=abc', '--timeout', '12'],
      {},
    );
    assert.equal(http.mode, 'http');
    assert.equal(http.port, 7010);
    assert.equal(http.token, 'abc');
    assert.equal(http.timeoutSeconds, 12);
    assert.equal(parseArgs(['--http'], { LUAPANDA_MCP_TOKEN: 'envtoken' }).token, 'envtoken');
    const bridge = parseArgs(['--stdio', '--connect', 'http://127.0.0.1:6009/mcp'], {});
    assert.equal(bridge.mode, 'bridge');
    const patient = parseArgs(
      ['--stdio', '--connect', 'http://127.0.0.1:6009/mcp', '--wait-seconds', '0'],
      {},
    );
    assert.equal(patient.waitSeconds, 0);
    assert.equal(
      parseArgs(['--stdio', '--wait-seconds=12', '--connect=http://x/mcp'], {}).waitSeconds,
      12,
    );
    assert.equal(parseArgs(['--stdio', '--trace'], {}).trace, 'all');
    assert.equal(parseArgs(['--stdio', '--trace=wire,mcp'], {}).trace, 'wire,mcp');
    assert.equal(
      parseArgs(['--stdio', '--trace-file', 'trace.log'], {}).traceFile,
      path.resolve('trace.log'),
    );
    assert.throws(
      () => parseArgs(['--stdio', '--trace=wires'], {}),
      (e: Error) => e instanceof UsageError && /unknown trace tag "wires"/.test(e.message),
    );
    assert.throws(() => parseArgs(['--stdio', '--wait-seconds', '-1'], {}), /--wait-seconds/);
    assert.throws(() => parseArgs(['--stdio', '--wait-seconds', 'soon'], {}), /--wait-seconds/);
  });

  it('refuses what it does not understand, with a reason', () => {
    assert.throws(() => parseArgs([], {}), UsageError);
    assert.throws(() => parseArgs(['--stdio', '--bogus'], {}), /unknown argument/);
    assert.throws(
      () => parseArgs(['--http', '--workspace', '/no/such/folder'], {}),
      /does not exist/,
    );
    assert.throws(() => parseArgs(['--stdio', '--timeout', '0'], {}), /--timeout/);
    assert.throws(() => parseArgs(['--stdio', '--token'], {}), /needs a value/);
  });
});

describe("the agent's deadline", () => {
  const never = new Promise<never>(() => undefined);

  it('passes a result through, and ends a wait that outlasts it with a timeout naming what hung', async () => {
    const deadline = new Deadline(50, new AbortController().signal);
    assert.equal(await deadline.within(Promise.resolve(7), "'next'"), 7);
    const ended = await deadline.within(never, "'next'").catch((e: unknown) => e);
    assert.ok(ended instanceof WaitEnded && ended.kind === 'timeout');
    const result = waitEndedResult(ended, deadline);
    assert.equal(result.status, 'timeout');
    assert.match(String(result.message), /did not answer 'next' within the 0\.1 s allowed/);
  });

  it('ends a wait at once when the client cancels', async () => {
    const controller = new AbortController();
    const deadline = new Deadline(60_000, controller.signal);
    const waiting = deadline.within(never, "'pause'");
    controller.abort();
    const ended = await waiting.catch((e: unknown) => e);
    assert.ok(ended instanceof WaitEnded && ended.kind === 'cancelled');
    assert.equal(waitEndedResult(ended, deadline).status, 'interrupted');
  });

  it('tells a request the debugger gave up on from other failures', () => {
    assert.equal(isRequestTimeout(new DapRequestError('next', 'no answer', 3011)), true);
    assert.equal(isRequestTimeout(new DapRequestError('next', 'late', undefined, true)), true);
    assert.equal(isRequestTimeout(new DapRequestError('next', 'not paused', 3001)), false);
    assert.equal(isRequestTimeout(new Error('other')), false);
  });
});
