/**
 * The Lua dialects whose line information differs, and the differences the line analysis
 * (codeLines.ts) follows. Each rule was measured with `debug.getinfo(f, "L")` and `luac -l -l`
 * under lua5.1–5.5 and LuaJIT 2.1 (test/session/breakpointLines.test.ts keeps them honest).
 */

export type LuaDialect = '5.1' | '5.2' | '5.3' | '5.4' | '5.5' | 'luajit';

export const LUA_DIALECTS: readonly LuaDialect[] = ['5.1', '5.2', '5.3', '5.4', '5.5', 'luajit'];

export interface DialectRules {
  readonly dialect: LuaDialect;
  /** 5.1: a `local x` without value as a function's first statement emits nothing. */
  readonly nilSkipAtStart: boolean;
  /** 5.2+: arithmetic, concatenation and unary `-`/`#`/`~` carry the operator's line. */
  readonly operatorLine: boolean;
  /** 5.2+: a call carries the line where its prefix expression starts (5.1, LuaJIT: its `(`). */
  readonly callAtPrefixStart: boolean;
  /** 5.2+: the condition of `if` jumps after `then` is read (5.1, LuaJIT: before). */
  readonly conditionAfterThen: boolean;
  /** 5.2–5.4: `if c then break` jumps from the condition: the `break` line has no code. */
  readonly breakFoldsIntoIf: boolean;
  /** 5.2, 5.3: so does `if c then goto l`. */
  readonly gotoFoldsIntoIf: boolean;
  /** 5.4: a `break` out of blocks that close variables closes them at the loop's `end`. */
  readonly breakClosesAtLoopEnd: boolean;
  /** 5.4: a label closes what a `goto` to it left (code on the label's line). */
  readonly gotoClosesAtLabel: boolean;
  /** 5.2, 5.3: the jump of `break`/`goto` is emitted before the keyword is read. */
  readonly jumpBeforeBreak: boolean;
  /** 5.1: a generic `for` jumps back from its body's last line (5.2+: from the `for` line). */
  readonly genericForJumpsFromBody: boolean;
  /** 5.1: a closure is made where it is used (5.2+: in a register of its own, then moved). */
  readonly closureInPlace: boolean;
  /** 5.4: the `end` of a generic `for` closes its iterator (an instruction on that line). */
  readonly genericForClosesAtEnd: boolean;
  /** LuaJIT: its own code generator (template tables, LOOP instructions, no return after return). */
  readonly jit: boolean;
}

const PUC_51: DialectRules = {
  dialect: '5.1',
  nilSkipAtStart: true,
  operatorLine: false,
  callAtPrefixStart: false,
  conditionAfterThen: false,
  breakFoldsIntoIf: false,
  gotoFoldsIntoIf: false,
  breakClosesAtLoopEnd: false,
  gotoClosesAtLabel: false,
  jumpBeforeBreak: false,
  genericForJumpsFromBody: true,
  closureInPlace: true,
  genericForClosesAtEnd: false,
  jit: false,
};

const PUC_52: DialectRules = {
  ...PUC_51,
  dialect: '5.2',
  nilSkipAtStart: false,
  operatorLine: true,
  callAtPrefixStart: true,
  conditionAfterThen: true,
  breakFoldsIntoIf: true,
  gotoFoldsIntoIf: true,
  jumpBeforeBreak: true,
  genericForJumpsFromBody: false,
  closureInPlace: false,
};

const PUC_54: DialectRules = {
  ...PUC_52,
  dialect: '5.4',
  gotoFoldsIntoIf: false,
  breakClosesAtLoopEnd: true,
  gotoClosesAtLabel: true,
  jumpBeforeBreak: false,
  genericForClosesAtEnd: true,
};

const RULES: Record<LuaDialect, DialectRules> = {
  '5.1': PUC_51,
  '5.2': PUC_52,
  '5.3': { ...PUC_52, dialect: '5.3' },
  '5.4': PUC_54,
  // 5.5 compiles `break` as a `goto` whose jump (and the close it may need) is emitted where it
  // stands: it never folds into the `if`, and nothing closes at the loop's end or at a label.
  '5.5': {
    ...PUC_54,
    dialect: '5.5',
    breakFoldsIntoIf: false,
    breakClosesAtLoopEnd: false,
    gotoClosesAtLabel: false,
  },
  luajit: {
    ...PUC_51,
    dialect: 'luajit',
    nilSkipAtStart: false,
    genericForJumpsFromBody: false,
    jit: true,
  },
};

export function rulesFor(dialect: LuaDialect): DialectRules {
  return RULES[dialect];
}

/**
 * The dialect of a runtime's `luaVersion` (`"Lua 5.4"`, `"Lua 5.1 LuaJIT 2.1.0-beta3"`), or
 * undefined when it is not known (upstream's runtime does not say).
 */
export function dialectOf(luaVersion: string | undefined): LuaDialect | undefined {
  if (luaVersion === undefined) return undefined;
  if (/luajit/i.test(luaVersion)) return 'luajit';
  const match = /5\.([1-5])/.exec(luaVersion);
  return match ? (`5.${match[1]}` as LuaDialect) : undefined;
}
