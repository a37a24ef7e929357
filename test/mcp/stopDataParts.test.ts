/**
 * The pure parts of stop_event_data: the source lines around a stop (bounds, line endings,
 * unreadable files) and the byte budget (what is cut first, and that each cut is said).
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { STOP_BUDGET_BYTES, byteSize, fitStopEventData } from '../../src/mcp/stop/stopBudget';
import type { StopEventData } from '../../src/mcp/stop/stopEventData';
import { MAX_SOURCE_LINE_CHARS, readSourceLines } from '../../src/mcp/stop/sourceLines';

describe('stop data: source lines', () => {
  let dir: string;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'luapanda-source-'));
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  const write = async (name: string, text: string) => {
    const file = path.join(dir, name);
    await fs.writeFile(file, text);
    return file;
  };

  it('shows two lines either side, the stopped one marked, CRLF and a BOM read as lines', async () => {
    const file = await write('a.lua', '\uFEFFl1\r\nl2\r\nl3\r\nl4\r\nl5\r\nl6\r\n');
    assert.deepEqual(await readSourceLines(file, 3), [
      { line: 1, text: 'l1' },
      { line: 2, text: 'l2' },
      { line: 3, text: 'l3', current: true },
      { line: 4, text: 'l4' },
      { line: 5, text: 'l5' },
    ]);
    assert.deepEqual(
      (await readSourceLines(file, 6))?.map((l) => l.line),
      [4, 5, 6],
      'the last line of the file has nothing after it',
    );
  });

  it('cuts a long line and gives nothing for a line past the end or an unreadable file', async () => {
    const file = await write('b.lua', `x = "${'y'.repeat(500)}"\n`);
    const [only] = (await readSourceLines(file, 1)) ?? [];
    assert.equal(only.text.length, MAX_SOURCE_LINE_CHARS + 1);
    assert.equal(await readSourceLines(file, 9), undefined);
    assert.equal(await readSourceLines(path.join(dir, 'missing.lua'), 1), undefined);
    assert.equal(await readSourceLines(dir, 1), undefined, 'a folder');
    assert.equal(await readSourceLines(undefined, 1), undefined);
  });
});

describe('stop data: byte budget', () => {
  const variable = (name: string, length: number) => ({
    name,
    value: 'v'.repeat(length),
    type: 'string',
    variables_reference: 0,
  });
  const frame = (i: number) => ({
    frame_id: i,
    function_name: `f${i}`,
    file_path: `/a/long/path/to/some/module/file${i}.lua`,
    line_number: i,
    column_number: 1,
    ...(i < 3 ? { locals_preview: 'p'.repeat(150) } : {}),
  });
  const large = (): StopEventData => ({
    timestamp: '2025-01-01T00:00:00.000Z',
    session_id: 's',
    reason: 'exception',
    thread_id: 1,
    description: 'd',
    text: 't',
    all_threads_stopped: true,
    source: { path: '/a.lua', name: 'a.lua' },
    line: 1,
    column: 1,
    call_stack: Array.from({ length: 20 }, (_, i) => frame(i)),
    top_frame_variables: {
      scope_name: 'Locals',
      variables_reference: 1,
      variables: Array.from({ length: 25 }, (_, i) => variable(`l${i}`, 130)),
      truncated: false,
      upvalues: {
        scope_name: 'Upvalues',
        variables_reference: 2,
        variables: Array.from({ length: 12 }, (_, i) => variable(`u${i}`, 130)),
        truncated: false,
      },
    },
    source_lines: [{ line: 1, text: 'x', current: true }],
    hit_breakpoint_ids: undefined,
  });

  it('leaves a stop within the budget as it is', () => {
    const data = { ...large(), call_stack: [frame(0)] };
    data.top_frame_variables = { ...data.top_frame_variables!, variables: [] };
    assert.deepEqual(fitStopEventData(data), data);
  });

  it('cuts long values, then upvalues, previews, locals and frames, each cut said', () => {
    const data = large();
    assert.ok(byteSize(data) > STOP_BUDGET_BYTES);
    const fitted = fitStopEventData(data);
    assert.ok(byteSize(fitted) <= STOP_BUDGET_BYTES, `${byteSize(fitted)} bytes`);
    const top = fitted.top_frame_variables!;
    assert.equal(top.truncated, true);
    assert.ok(top.variables.every((v) => v.truncated === true && v.value.endsWith('(130 chars)')));
    assert.ok(top.variables.length >= 8, 'some locals stay');
    assert.ok((top.upvalues?.variables.length ?? 0) >= 4, 'some upvalues stay');
    assert.equal(top.upvalues?.truncated, true);
    assert.equal(fitted.call_stack[0].locals_preview, 'p'.repeat(150), 'the top preview stays');
    assert.equal(fitted.call_stack[1].locals_preview, undefined);
    assert.deepEqual(fitted.source_lines, data.source_lines);
  });

  it('gets any stop under a small budget, frames last', () => {
    const fitted = fitStopEventData(large(), 1500);
    assert.ok(byteSize(fitted) <= 1500, `${byteSize(fitted)} bytes`);
    assert.equal(fitted.call_stack_truncated, true);
    assert.ok(fitted.call_stack.length >= 1);
  });
});
