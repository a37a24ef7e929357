/**
 * Writes the README the VSIX carries (`dist/vsix/README.md`, packaged with `--readme-path`):
 * VS Code's extension page shows only images from web addresses and opens only web links, so a
 * path into the repository would show its alt text or do nothing. The user part of README.md is
 * kept (the developer part is cut), a link to a guide becomes the command that opens it from
 * the extension, a local image is left out, and anything else that would not work fails the
 * build, naming it.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { guideAt } from '../src/extension/guides/guideList';

/** Where the user's part of README.md ends: what follows is for working on the extension. */
export const DEVELOPER_HEADING = /^## Developing\b/m;

/** The command palette label of "Open a Guide", as users type it. */
export const OPEN_GUIDE_LABEL = 'LuaPanda: Open a Guide';

/** Link and image targets that work on the extension page. */
export function worksOnExtensionPage(target: string, image: boolean): boolean {
  return image ? /^https:\/\//i.test(target) : /^(https?:\/\/|mailto:|#)/i.test(target);
}

/** Markdown links and images outside code, and HTML `src`/`href` attributes. */
export function linksOf(markdown: string): { target: string; image: boolean; text: string }[] {
  const found: { target: string; image: boolean; text: string }[] = [];
  for (const part of prose(markdown)) {
    for (const m of part.matchAll(MARKDOWN_LINK)) {
      found.push({ image: m[1] === '!', text: m[2], target: m[3] });
    }
    for (const m of part.matchAll(/<(img|a)\b[^>]*\b(?:src|href)=["']([^"']+)["']/gi)) {
      found.push({ image: m[1].toLowerCase() === 'img', text: '', target: m[2] });
    }
  }
  return found;
}

const MARKDOWN_LINK = /(!?)\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

/** The text outside fenced code blocks and inline code, in pieces. */
function prose(markdown: string): string[] {
  return markdown.split(/^```.*$[^]*?^```\s*$/m).flatMap((piece) => piece.split(/`[^`\n]*`/));
}

/** Applies `replace` to the Markdown links outside code blocks and inline code. */
function mapLinks(
  markdown: string,
  replace: (whole: string, image: boolean, text: string, target: string) => string,
): string {
  return markdown.replace(
    /(^```.*$[^]*?^```\s*$)|(`[^`\n]*`)|(!?)\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/gm,
    (whole, fence?: string, code?: string, bang?: string, text?: string, target?: string) =>
      fence || code ? whole : replace(whole, bang === '!', text ?? '', target ?? ''),
  );
}

/** The README for the extension page, from the repository's README.md. */
export function packagedReadme(readme: string): string {
  const cut = DEVELOPER_HEADING.exec(readme);
  if (!cut) throw new Error('README.md has no "## Developing" section to cut the page before');
  let page = readme.slice(0, cut.index).trimEnd() + '\n';
  page = mapLinks(page, (whole, image, text, target) => {
    if (worksOnExtensionPage(target, image)) return whole;
    if (image) return '';
    const guide = guideAt(path.posix.normalize(target));
    if (!guide) return whole;
    return text === target
      ? `the _${guide.name}_ guide (**${OPEN_GUIDE_LABEL}**)`
      : `${text} (**${OPEN_GUIDE_LABEL}** → _${guide.name}_)`;
  });
  // A line that held only a local image is gone: no run of blank lines stays behind.
  page = page.replace(/\n{3,}/g, '\n\n');
  const broken = linksOf(page).filter((l) => !worksOnExtensionPage(l.target, l.image));
  if (broken.length > 0) {
    throw new Error(
      'README.md links to what the extension page cannot open: ' +
        broken.map((l) => l.target).join(', ') +
        '. Link a web address, or add the file to the guides (src/extension/guides/guideList.ts).',
    );
  }
  return page;
}

/** Writes `dist/vsix/README.md` under `root`; returns its path relative to `root`. */
export async function writePackagedReadme(root: string): Promise<string> {
  const relative = path.posix.join('dist', 'vsix', 'README.md');
  const readme = await fs.readFile(path.join(root, 'README.md'), 'utf8');
  await fs.mkdir(path.join(root, 'dist', 'vsix'), { recursive: true });
  await fs.writeFile(path.join(root, relative), packagedReadme(readme));
  return relative;
}

if (require.main === module) {
  // Compiled to out/scripts/, two levels below the repository root.
  writePackagedReadme(path.resolve(__dirname, '..', '..')).then(
    (file) => console.log(`vsix-readme: wrote ${file}`),
    (e: unknown) => {
      console.error(`vsix-readme: ${(e as Error).message}`);
      process.exitCode = 1;
    },
  );
}
