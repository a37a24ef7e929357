/**
 * Hot-reload time: a module of about 1,000 lines (20 classes of 5 methods, 20 helpers, module
 * state) reloaded through `LuaPanda.reload` in a program whose heap holds 10,000 or 200,000
 * entities (about 31,000 and 620,000 objects: the bounded search visits every one). The fixture
 * (test/fixtures/runtime/bench_reload.lua) checks that each reload changed what a method of an
 * existing object returns, and prints the median of its reloads.
 * Run alone: `node out/bench/hotReload.js` (after `npm run compile`); LUAPANDA_BENCH_LUA picks
 * the interpreters, LUAPANDA_BENCH_RUNS the reloads per cell (default 5).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FIXTURES, RUNS, benchInterpreters, runLua } from './luaRuns';
import { printMarkdownTable } from './markdownTable';

const HEAPS = [10_000, 200_000];
const RESULT =
  /^RELOAD lines=(\d+) heap=\d+ searched=(\d+) replaced=(\d+) references=\d+ ms=([\d.]+)$/m;

export async function runHotReloadBench(): Promise<void> {
  const rows: string[][] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-bench-reload-'));
  try {
    for (const lua of benchInterpreters(['lua5.1', 'lua5.4', 'luajit'])) {
      for (const heap of HEAPS) {
        const out = await runLua(
          lua,
          path.join(FIXTURES, 'bench_reload.lua'),
          [dir, String(heap), String(RUNS)],
          false,
        );
        const m = RESULT.exec(out.stdout);
        if (out.code !== 0 || !m) {
          throw new Error(
            `${lua} reload bench failed (exit ${out.code}): ${out.stderr || out.stdout}`,
          );
        }
        rows.push([lua, m[1], String(heap), m[2], m[3], `${m[4]} ms`]);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log('\nHot reload of a module (median of the reloads; the search of the heap dominates)');
  printMarkdownTable(
    ['interpreter', 'module lines', 'entities', 'objects searched', 'functions replaced', 'time'],
    rows,
  );
}

if (require.main === module) {
  runHotReloadBench().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
