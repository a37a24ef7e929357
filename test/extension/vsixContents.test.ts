/**
 * What the installed VSIX shows works from the VSIX alone: the packaged README (the extension
 * page) links only to web addresses, anchors and, through "LuaPanda: Open a Guide", guides the
 * package carries; the walkthrough's Markdown and step texts link to files in the package and to
 * commands that exist. The file list is vsce's own (`listFiles`, with `.vscodeignore` and the
 * package script's `--readme-path`), so it is what `npm run package` puts into the VSIX.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PackageManager, listFiles } from '@vscode/vsce';
import { GUIDES } from '../../src/extension/guides/guideList';
import {
  OPEN_GUIDE_LABEL,
  linksOf,
  packagedReadme,
  worksOnExtensionPage,
  writePackagedReadme,
} from '../../scripts/vsixReadme';
import { REPO_ROOT } from '../harness/luaProcess';

interface Manifest {
  icon: string;
  scripts: Record<string, string>;
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    walkthroughs: { steps: { description: string; media: { markdown?: string } }[] }[];
  };
}

const manifest = (): Manifest =>
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as Manifest;

/** A `command:` link works if the command exists: ours, or VS Code's own (`workbench.…`). */
function commandProblem(target: string, m: Manifest): string | undefined {
  const [, id, query] = /^command:([\w.]+)(?:\?(.*))?$/.exec(target) ?? [];
  if (!id) return `malformed command link ${target}`;
  if (id.startsWith('workbench.')) return undefined;
  if (!m.contributes.commands.some((c) => c.command === id)) return `no command ${id}`;
  if (id === 'luapanda.openGuide') {
    const [name] = JSON.parse(decodeURIComponent(query ?? '[]')) as unknown[];
    if (!GUIDES.some((g) => g.name === name)) return `no guide ${String(name)}`;
  }
  return undefined;
}

describe('extension: the VSIX content', function () {
  this.timeout(60_000);
  let packaged: Set<string>;
  let readmePath: string;

  before(async () => {
    readmePath = await writePackagedReadme(REPO_ROOT);
    // vsce passes every option on to its file collection; `readmePath` is missing from its typings.
    const options = { cwd: REPO_ROOT, packageManager: PackageManager.None, readmePath };
    const files = await listFiles(options);
    packaged = new Set(files.map((f) => f.split(path.sep).join('/')));
  });

  it('the package script packs the README written for the extension page', () => {
    const script = manifest().scripts.package;
    assert.match(script, /node out\/scripts\/vsixReadme\.js && vsce package /);
    assert.ok(script.includes(`--readme-path ${readmePath}`), script);
    assert.ok(packaged.has(readmePath));
    assert.ok(!packaged.has('README.md'), 'one README: the repository one links into the repo');
  });

  it('the extension page links only to what it can open, and names the guides by command', () => {
    const page = fs.readFileSync(path.join(REPO_ROOT, readmePath), 'utf8');
    const links = linksOf(page);
    assert.deepEqual(
      links.filter((l) => !worksOnExtensionPage(l.target, l.image)),
      [],
      'no relative link or image: the extension page opens web addresses only',
    );
    const m = manifest();
    const open = m.contributes.commands.find((c) => c.command === 'luapanda.openGuide');
    assert.equal(`${open?.category}: ${open?.title}`, OPEN_GUIDE_LABEL, 'as the palette shows it');
    for (const guide of ['Engines', 'Hot Reload', 'Runtime', 'Lessons Learned']) {
      assert.ok(page.includes(`**${OPEN_GUIDE_LABEL}**`) && page.includes(`_${guide}_`), guide);
    }
    assert.doesNotMatch(page, /^## Developing/m, 'the developer part stays in the repository');
    // A link the page cannot open fails the build, naming it.
    assert.throws(
      () => packagedReadme('See [the layout](CONTRIBUTING.md).\n\n## Developing\n'),
      /cannot open: CONTRIBUTING\.md/,
    );
  });

  it('every guide, the icon and the walkthrough with its images are in the package', () => {
    const m = manifest();
    for (const guide of GUIDES) assert.ok(packaged.has(guide.file), guide.file);
    assert.ok(packaged.has(m.icon), m.icon);
    for (const step of m.contributes.walkthroughs.flatMap((w) => w.steps)) {
      const markdown = step.media.markdown;
      assert.ok(markdown && packaged.has(markdown), `walkthrough media ${markdown}`);
      const text = fs.readFileSync(path.join(REPO_ROOT, markdown), 'utf8');
      const problems: string[] = [];
      for (const link of [...linksOf(text), ...linksOf(step.description)]) {
        if (/^https:\/\//.test(link.target)) continue;
        if (link.target.startsWith('command:')) {
          const problem = commandProblem(link.target, m);
          if (problem) problems.push(`${markdown}: ${problem}`);
          continue;
        }
        // Relative to the walkthrough's Markdown file, inside the package.
        const file = path.posix.normalize(
          path.posix.join(path.posix.dirname(markdown), link.target),
        );
        if (!packaged.has(file)) problems.push(`${markdown}: ${link.target} is not in the VSIX`);
      }
      assert.deepEqual(problems, []);
    }
  });

  it("the walkthrough's buttons fit their card at the default width", () => {
    // A button is a line that is only a link; "Doctor: Why Does My Game Not Connect?" (37
    // characters) ran past the card's edge, "Copy LuaPanda.lua into the Workspace" (36) did not.
    const long = manifest()
      .contributes.walkthroughs.flatMap((w) => w.steps)
      .flatMap((step) => [...step.description.matchAll(/^\[([^\]]+)\]\(command:/gm)])
      .map((m) => m[1])
      .filter((label) => label.length > 36);
    assert.deepEqual(long, []);
  });

  it('a guide links only to other guides, so its links work in the installed extension', () => {
    for (const guide of GUIDES) {
      const text = fs.readFileSync(path.join(REPO_ROOT, guide.file), 'utf8');
      for (const link of linksOf(text)) {
        if (/^(https?:|mailto:|#)/.test(link.target)) continue;
        const file = path.posix.normalize(
          path.posix.join(path.posix.dirname(guide.file), link.target.replace(/#.*$/, '')),
        );
        assert.ok(packaged.has(file), `${guide.file} links to ${link.target}, not in the VSIX`);
      }
    }
  });
});
