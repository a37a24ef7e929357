/**
 * Decode throughput of the framing layer, measured side by side with a bare `JSON.parse` of the
 * same frames in the same run: typical frames (stop notifications, variable lists) and large ones
 * (a 1 MB string value, a 10,000-entry variable list). Bytes are fed in 64 KiB chunks, as a socket
 * delivers them. Prints MB/s, frames/s and the ratio to JSON.parse.
 */
import { performance } from 'node:perf_hooks';
import { FrameDecoder, classifyFrame } from '../src/protocol';

interface Workload {
  name: string;
  frames: string[]; // Lua-style frames, each `json|*|\n`
}

function variable(i: number) {
  return {
    name: `entity_${i}`,
    type: 'table',
    value: `3 Members table: 0x5609d3d7${i}`,
    variablesReference: i,
    index: i,
  };
}

function workloads(): Workload[] {
  const stop = JSON.stringify({
    info: [],
    stack: [2, 3, 4].map((index) => ({
      line: String(40 + index),
      name: 'update',
      index: String(index),
      file: 'game.lua',
      oPath: 'scripts/game.lua',
    })),
    cmd: 'stopOnBreakpoint',
    callbackId: 0,
  });
  const locals = JSON.stringify({
    info: Array.from({ length: 12 }, (_, i) => variable(i)),
    cmd: 'getVariable',
    callbackId: '58680697',
  });
  const bigString = JSON.stringify({
    info: [
      {
        name: 'Exp',
        type: 'string',
        value: 'x'.repeat(1 << 20),
        isSuccess: 'true',
        variablesReference: '0',
      },
    ],
    cmd: 'runREPLExpression',
    callbackId: '631220694',
  });
  const bigList = JSON.stringify({
    info: Array.from({ length: 10_000 }, (_, i) => variable(i)),
    cmd: 'getVariable',
    callbackId: '511160052',
  });
  return [
    {
      name: 'typical: stop + locals (mixed)',
      frames: Array.from({ length: 20_000 }, (_, i) => (i % 2 ? stop : locals) + '|*|\n'),
    },
    {
      name: 'large: 1 MB string value',
      frames: Array.from({ length: 40 }, () => bigString + '|*|\n'),
    },
    {
      name: 'large: 10,000-variable list',
      frames: Array.from({ length: 40 }, () => bigList + '|*|\n'),
    },
  ];
}

function chunks(buffer: Buffer, size = 64 * 1024): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < buffer.length; i += size) out.push(buffer.subarray(i, i + size));
  return out;
}

function timeDecoder(input: Buffer[], expected: number): number {
  let count = 0;
  const decoder = new FrameDecoder({
    onFrame: ({ json, text }) => {
      classifyFrame(json, text);
      count++;
    },
    onError: (e) => {
      throw e;
    },
  });
  const start = performance.now();
  for (const chunk of input) decoder.write(chunk);
  const elapsed = performance.now() - start;
  decoder.end();
  if (count !== expected) throw new Error(`decoded ${count} frames, expected ${expected}`);
  return elapsed;
}

function timeJsonParse(texts: string[]): number {
  const start = performance.now();
  let sink = 0;
  for (const text of texts) sink += JSON.parse(text) === null ? 0 : 1;
  const elapsed = performance.now() - start;
  if (sink !== texts.length) throw new Error('unreachable');
  return elapsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export async function runProtocolBench(runs = 7): Promise<void> {
  console.log(
    'Protocol decode (FrameDecoder + message classification) vs bare JSON.parse, same bytes',
  );
  console.log(`median of ${runs} runs; bytes fed in 64 KiB chunks\n`);
  const rows: string[][] = [
    ['workload', 'MB', 'frames', 'decoder MB/s', 'frames/s', 'JSON.parse MB/s', 'ratio'],
  ];
  for (const workload of workloads()) {
    const buffer = Buffer.from(workload.frames.join(''), 'utf8');
    const texts = workload.frames.map((f) => f.slice(0, -4));
    const input = chunks(buffer);
    timeDecoder(input, workload.frames.length); // warm-up
    timeJsonParse(texts);
    const decoderMs: number[] = [];
    const parseMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      decoderMs.push(timeDecoder(input, workload.frames.length));
      parseMs.push(timeJsonParse(texts));
    }
    const mb = buffer.length / 1e6;
    const d = median(decoderMs) / 1000;
    const p = median(parseMs) / 1000;
    rows.push([
      workload.name,
      mb.toFixed(1),
      String(workload.frames.length),
      (mb / d).toFixed(0),
      (workload.frames.length / d).toFixed(0),
      (mb / p).toFixed(0),
      `×${(d / p).toFixed(2)}`,
    ]);
  }
  printTable(rows);
}

export function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  for (const [i, row] of rows.entries()) {
    console.log(
      row
        .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
        .join('  '),
    );
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

if (require.main === module) void runProtocolBench();
