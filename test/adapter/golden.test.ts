// How a scenario's golden files are chosen and rewritten: golden.txt for what the interpreters
// agree on, golden.<interpreter>.txt only where one differs (in a scratch folder, no Lua).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { goldenFileFor, writeScenarioGoldens } from './golden';

const ALL = ['lua5.1', 'lua5.2', 'lua5.3', 'lua5.4', 'luajit'];

describe('scenario golden files', () => {
  let dir: string;
  const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
  const files = () => fs.readdirSync(dir).sort();

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-golden-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes one golden.txt when every interpreter agrees, and removes stale overrides', () => {
    fs.writeFileSync(path.join(dir, 'golden.lua5.1.txt'), 'old\n');
    writeScenarioGoldens(dir, new Map(ALL.map((name) => [name, 'same\n'])), ALL);
    assert.deepEqual(files(), ['golden.txt']);
    assert.equal(read('golden.txt'), 'same\n');
    assert.equal(goldenFileFor(dir, 'lua5.1'), path.join(dir, 'golden.txt'));
  });

  it('keeps an override only for the interpreter that differs, and compares it with that', () => {
    const texts = new Map(ALL.map((name) => [name, name === 'lua5.1' ? 'five one\n' : 'rest\n']));
    writeScenarioGoldens(dir, texts, ALL);
    assert.deepEqual(files(), ['golden.lua5.1.txt', 'golden.txt']);
    assert.equal(read('golden.txt'), 'rest\n');
    assert.equal(read('golden.lua5.1.txt'), 'five one\n');
    assert.equal(goldenFileFor(dir, 'lua5.1'), path.join(dir, 'golden.lua5.1.txt'));
    assert.equal(goldenFileFor(dir, 'lua5.4'), path.join(dir, 'golden.txt'));
  });

  it('a tie goes to the interpreter listed first', () => {
    const texts = new Map([
      ['luajit', 'b\n'],
      ['lua5.2', 'a\n'],
    ]);
    writeScenarioGoldens(dir, texts, ['lua5.2', 'luajit']);
    assert.equal(read('golden.txt'), 'a\n');
    assert.equal(read('golden.luajit.txt'), 'b\n');
  });

  it('a run of some interpreters keeps golden.txt and writes overrides against it', () => {
    fs.writeFileSync(path.join(dir, 'golden.txt'), 'common\n');
    fs.writeFileSync(path.join(dir, 'golden.lua5.3.txt'), 'was different\n');
    writeScenarioGoldens(
      dir,
      new Map([
        ['lua5.3', 'common\n'],
        ['lua5.4', 'new\n'],
      ]),
      ALL,
    );
    assert.deepEqual(files(), ['golden.lua5.4.txt', 'golden.txt']);
    assert.equal(read('golden.txt'), 'common\n');
    assert.equal(read('golden.lua5.4.txt'), 'new\n');
  });
});
