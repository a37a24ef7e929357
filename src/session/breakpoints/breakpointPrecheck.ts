/**
 * What a breakpoint in a Lua file will do, told before any session exists: a condition, hit
 * condition or log message that can never work, a line past the end or in no function, or the
 * line with code it will move to. The MCP tools give this in `set_breakpoint`'s result (a
 * session's answer replaces it once one runs); the same checks and messages as the session's
 * (breakpoints.ts, breakpointView.ts), so a breakpoint reads alike before and during a session.
 */
import { checkBreakpoint, type BreakpointTexts } from './breakpointChecks';
import { lookOf } from './breakpointView';
import { SourceFiles, bindingIn } from '../lines/sourceFiles';

export interface PrecheckedBreakpoint {
  /** Where it will bind (the requested line, or the next line with code). */
  readonly line: number;
  /** Why it is not bound yet, and what the checks found. */
  readonly message: string;
  /** It can never work as written (a condition that does not parse, a line with no code after it). */
  readonly hopeless: boolean;
}

/** Whether `filePath` is a Lua source the checks apply to. */
export function isLuaSource(filePath: string): boolean {
  return /\.lua$/i.test(filePath);
}

export class BreakpointPrecheck {
  constructor(private readonly files = new SourceFiles()) {}

  /**
   * The checks for a breakpoint at `line` of `filePath`; undefined when there is nothing to say
   * (a file that is not Lua, or cannot be read, and texts that are fine).
   */
  async check(
    filePath: string,
    line: number,
    texts: BreakpointTexts,
  ): Promise<PrecheckedBreakpoint | undefined> {
    if (!isLuaSource(filePath)) return undefined;
    const invalid = checkBreakpoint(texts);
    const binding = bindingIn(await this.files.read(filePath), line);
    // A file that cannot be read here (yet) has nothing to tell beyond the texts' own checks.
    if (binding.kind === 'unchecked' && invalid === undefined) return undefined;
    const look = lookOf({ requested: line, invalid, binding }, { connected: false });
    return {
      line: look.line,
      message: look.message ?? '',
      hopeless: invalid !== undefined || binding.kind === 'none',
    };
  }
}
