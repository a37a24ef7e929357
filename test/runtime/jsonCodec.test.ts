/**
 * The runtime's JSON encoder (lua/luapanda/json.lua) driven directly on every interpreter: any
 * bytes a Lua string holds arrive as the text the IDE expects (valid UTF-8 kept, every other byte
 * as the character of that byte, no `|*|` delimiter inside a frame), and encoding needs no C-call
 * level beyond the call itself, so a reply can be sent from a stop as deep as the stop was sent.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT, spawnLua } from '../harness/luaProcess';

const SCRIPT = path.join(REPO_ROOT, 'test', 'fixtures', 'runtime', 'json_codec.lua');
const LUA_PATH = [path.join(REPO_ROOT, 'lua')];

/** Length of the well-formed UTF-8 sequence at `i` (RFC 3629: no overlongs, no surrogates). */
function utf8Length(bytes: Uint8Array, i: number): number | undefined {
  const c = bytes[i];
  const cont = (k: number) => i + k < bytes.length && bytes[i + k] >= 0x80 && bytes[i + k] <= 0xbf;
  const a = bytes[i + 1];
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : undefined;
  if (c >= 0xe0 && c <= 0xef) {
    if (!cont(1) || !cont(2)) return undefined;
    if ((c === 0xe0 && a < 0xa0) || (c === 0xed && a > 0x9f)) return undefined;
    return 3;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (!cont(1) || !cont(2) || !cont(3)) return undefined;
    if ((c === 0xf0 && a < 0x90) || (c === 0xf4 && a > 0x8f)) return undefined;
    return 4;
  }
  return undefined;
}

/** What the IDE reads for a Lua string of these bytes. */
function expectedText(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length;) {
    const len = bytes[i] < 0x80 ? 1 : utf8Length(bytes, i);
    if (len === undefined) {
      text += String.fromCharCode(bytes[i]);
      i += 1;
    } else {
      text += Buffer.from(bytes.subarray(i, i + len)).toString('utf8');
      i += len;
    }
  }
  return text;
}

const byteStrings = fc.array(
  fc.oneof(
    fc.uint8Array({ maxLength: 6 }),
    fc.string({ unit: 'binary', maxLength: 6 }).map((s) => new Uint8Array(Buffer.from(s, 'utf8'))),
    fc.constantFrom(...['|*|', '"', '\\', '\n', '\0', '\u007f', 'é'].map((s) => Buffer.from(s))),
  ),
  { maxLength: 8 },
);

async function runCodec(lua: ReturnType<typeof luaInterpreters>[number], args: string[]) {
  const proc = spawnLua({ ...lua, native: false }, SCRIPT, { args, luaPath: LUA_PATH });
  const exit = await proc.waitForExit(20_000);
  assert.equal(exit.code, 0, proc.stderr);
  return proc.stdout;
}

for (const lua of luaInterpreters()) {
  describe(`runtime JSON encoder (${lua.command})`, () => {
    it('encodes any bytes as the text the IDE expects, as a string, a key and an array item', async () => {
      const cases = fc.sample(byteStrings, { numRuns: 300, seed: 20261124 }).map((parts) => {
        const bytes = new Uint8Array(Buffer.concat(parts));
        return bytes;
      });
      // Names "z" and "7" would collide with the fixture's other members (see the next test).
      const usable = cases.filter((b) => !['z', '7'].includes(Buffer.from(b).toString('latin1')));
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-json-'));
      const file = path.join(dir, 'cases.txt');
      fs.writeFileSync(file, usable.map((b) => Buffer.from(b).toString('hex')).join('\n') + '\n');
      try {
        const lines = (await runCodec(lua, ['encode', file])).split('\n');
        usable.forEach((bytes, n) => {
          const expected = expectedText(bytes);
          const asString = lines[2 * n];
          const asTable = lines[2 * n + 1];
          for (const line of [asString, asTable]) assert.ok(!line.includes('|*|'), line);
          assert.equal(
            JSON.parse(asString),
            expected,
            `case ${Buffer.from(bytes).toString('hex')}`,
          );
          assert.deepEqual(JSON.parse(asTable), {
            [expected]: expected,
            z: [1, 2, expected],
            7: true,
          });
        });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('keeps both members of keys that have the same name (1 and "1")', async () => {
      const text = (await runCodec(lua, ['collide'])).trim();
      assert.match(text, /^\{("1":"(number|string)",){2}"x":true\}$/);
      assert.ok(text.includes('"1":"number"') && text.includes('"1":"string"'), text);
    });

    // LuaJIT counts no C calls for gsub callbacks: deep nesting ends in a crash of the real C
    // stack, not in a "C stack overflow" error, so there is no limit to compare against.
    if (!lua.isLuaJIT) {
      it('needs no C-call level beyond the call itself (a reply fits wherever a stop fit)', async () => {
        const out = await runCodec(lua, ['depth']);
        const depth = (label: string) =>
          Number(new RegExp(`^${label}\\t(\\d+)$`, 'm').exec(out)?.[1]);
        assert.ok(depth('trivial') > 150, out);
        assert.equal(depth('encode'), depth('trivial'), out);
      });
    }
  });
}
