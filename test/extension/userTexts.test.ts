/**
 * Text a user follows matches what they see: every configuration the README and the walkthrough
 * tell the user to pick ("**Lua: …**") is one VS Code lists (a starter configuration of
 * launch.json, or one a snippet writes), every snippet they name ("_LuaPanda: …_") is one the
 * extension contributes, and the wait they are told to expect reads as the adapter writes it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GameWait } from '../../src/adapter/gameWait';
import {
  CONFIGURATION_SNIPPETS,
  INITIAL_CONFIGURATIONS,
} from '../../src/extension/debug/contribution';
import { REPO_ROOT } from '../harness/luaProcess';

const TEXTS = [
  'README.md',
  ...fs
    .readdirSync(path.join(REPO_ROOT, 'media', 'walkthrough'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('media', 'walkthrough', f)),
];

/** The text of `file` with Markdown line breaks inside emphasis joined. */
function read(file: string): string {
  return fs.readFileSync(path.join(REPO_ROOT, file), 'utf8').replace(/\n\s*/g, ' ');
}

describe('extension: the README and the walkthrough say what VS Code shows', () => {
  const configurationNames = new Set<string>([
    ...INITIAL_CONFIGURATIONS.map((c) => c.name),
    ...CONFIGURATION_SNIPPETS.map((s) => s.body.name),
  ]);
  const snippetLabels = new Set<string>(CONFIGURATION_SNIPPETS.map((s) => s.label));

  it('names configurations and snippets that exist', () => {
    let checked = 0;
    for (const file of TEXTS) {
      const text = read(file);
      for (const [, name] of text.matchAll(/\*\*(Lua: [^*]+)\*\*/g)) {
        assert.ok(configurationNames.has(name), `${file}: no configuration is named "${name}"`);
        checked++;
      }
      for (const [, label] of text.matchAll(/_(LuaPanda: [^_]+)_/g)) {
        assert.ok(snippetLabels.has(label), `${file}: no snippet is labelled "${label}"`);
        checked++;
      }
    }
    assert.ok(checked >= 3, `only ${checked} names were checked`);
  });

  it('quotes the wait as the adapter titles it', () => {
    const title = new GameWait({ port: 8818, seconds: 30 }, () => undefined).title;
    let checked = 0;
    for (const file of TEXTS) {
      for (const [, quoted] of read(file).matchAll(/\*\*(Waiting for the game on [^*]+)\*\*/g)) {
        assert.equal(quoted, title, file);
        checked++;
      }
    }
    assert.ok(checked >= 2, `only ${checked} quotes were checked`);
  });
});
