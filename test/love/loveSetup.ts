/**
 * Whether this machine can run the LÖVE tests, and in which runtime variants. LÖVE and a
 * virtual X server are optional on a developer's machine (the suite is skipped, saying why);
 * in CI (CI=true) or with LUAPANDA_REQUIRE_LOVE=1 a missing piece fails the suite instead, so
 * that a broken set-up cannot pass as "skipped".
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nativeBuildFile } from '../../src/session/link/nativeBuilds';
import { NATIVE_DIR } from '../harness/interpreters';

/** What `xvfb-run -a love` needs on the PATH (Debian packages love, xvfb, xauth). */
const TOOLS = ['love', 'xvfb-run', 'Xvfb', 'xauth'];
const INSTALL_HINT = 'sudo apt-get install -y love xvfb xauth (or `npm run setup`)';

export interface LoveVariant {
  /** How test titles name it. */
  readonly label: string;
  readonly native: boolean;
  /** Set when the variant must run (CI) but cannot: the suite fails with this message. */
  readonly problem?: string;
}

export const mustRunLove = (): boolean =>
  process.env.CI === 'true' || process.env.LUAPANDA_REQUIRE_LOVE === '1';

function onPath(command: string): boolean {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  return dirs.some((dir) => {
    try {
      fs.accessSync(path.join(dir, command), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Why the LÖVE tests cannot run here, or undefined when they can. */
export function loveMissing(): string | undefined {
  if (process.platform !== 'linux') return 'the LÖVE tests run LÖVE under Xvfb on Linux only';
  const missing = TOOLS.filter((tool) => !onPath(tool));
  if (missing.length === 0) return undefined;
  return `${missing.join(', ')} not found on the PATH; install with: ${INSTALL_HINT}`;
}

/**
 * The pure-Lua runtime always; the native accelerator when its LuaJIT/5.1 build exists (LÖVE
 * runs LuaJIT, which uses Lua 5.1's C ABI). In CI the build must exist.
 */
export function loveVariants(): LoveVariant[] {
  const variants: LoveVariant[] = [{ label: 'pure', native: false }];
  const build = nativeBuildFile(NATIVE_DIR, '5.1');
  if (fs.existsSync(build)) {
    variants.push({ label: 'native', native: true });
  } else if (process.env.CI === 'true' || process.env.LUAPANDA_REQUIRE_NATIVE === '1') {
    variants.push({
      label: 'native',
      native: true,
      problem: `Missing native accelerator build ${build}: run \`npm run compile\` (needs gcc and liblua5.1-0-dev)`,
    });
  } else {
    console.warn(`No native accelerator build (${build}): the LÖVE native variant is left out.`);
  }
  return variants;
}
