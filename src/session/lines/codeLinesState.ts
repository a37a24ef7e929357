/**
 * The state of one function while the line analysis (codeLines.ts) compiles it: the lines it has
 * code on, its scopes (which names are its locals, which of those a closure captures), its loops,
 * and what the nil-merging of `local` needs to know (the last LOADNIL, the last jump target).
 */
import type { Exp } from './codeLinesExpr';
import type { DialectRules } from './luaDialect';

interface Local {
  /** Its register (locals take registers in order of declaration). */
  readonly reg: number;
  /** A compile-time constant (5.4 `<const>`), instead of a register. */
  readonly constant?: Exp;
}

interface Block {
  readonly names: Map<string, Local>;
  /** Number of active locals when the block was entered. */
  readonly base: number;
  /** A closure captures one of its locals (or 5.4 closes one): leaving it costs an instruction. */
  captured: boolean;
  /** 5.4: a generic `for` closes its iterator: a jump out of it must close too. */
  closes: boolean;
}

/** A `goto` whose label is not seen yet. */
interface PendingGoto {
  readonly label: string;
  /** Depth of the innermost block it is in (it moves out as blocks are left). */
  depth: number;
  /** It leaves a block that closes variables. */
  close: boolean;
}

export interface Loop {
  /** A `break` of this loop itself (not of a loop inside it). */
  hasBreak: boolean;
  /** A block inside it was captured. */
  captured: boolean;
}

export class FunctionState {
  readonly lines = new Set<number>();
  pc = 0;
  /** It uses locals of an enclosing function. */
  hasUpvalues = false;
  readonly loops: Loop[] = [];
  /** The last instruction a jump may land on (lcode.c's lasttarget). */
  private lastTarget: number;
  /** The last LOADNIL: its position and the registers it sets (-1: not known). */
  private lastNil = { pc: -2, from: -1, to: -1 };
  /** Number of locals in registers: the next `local` takes this register. */
  private active = 0;
  private readonly blocks: Block[] = [
    { names: new Map(), base: 0, captured: false, closes: false },
  ];
  private readonly gotos: PendingGoto[] = [];

  constructor(
    readonly parent: FunctionState | undefined,
    rules: DialectRules,
  ) {
    this.lastTarget = rules.nilSkipAtStart ? -1 : 0;
  }

  emit(line: number): void {
    this.lines.add(line);
    this.pc++;
  }

  /** A jump may land here: the next `local` cannot merge with the instruction before. */
  label(): void {
    this.lastTarget = this.pc;
  }

  /** The register the next `local` gets. */
  get nextRegister(): number {
    return this.active;
  }

  /**
   * LOADNIL of `count` registers from `from` (-1: a temporary, not known): skipped at a 5.1
   * function's start, merged into a LOADNIL just before it that sets adjacent registers.
   */
  emitNil(line: number, rules: DialectRules, from = -1, count = 1): void {
    const to = from + count - 1;
    if (this.pc > this.lastTarget) {
      if (rules.nilSkipAtStart && this.pc === 0) return;
      const last = this.lastNil;
      const adjacent =
        from >= 0 &&
        last.from >= 0 &&
        ((last.from <= from && from <= last.to + 1) || (from <= last.from && last.from <= to + 1));
      if (last.pc === this.pc - 1 && adjacent) {
        this.lastNil = { pc: last.pc, from: Math.min(from, last.from), to: Math.max(to, last.to) };
        return;
      }
    }
    this.emit(line);
    this.lastNil = { pc: this.pc - 1, from, to: from < 0 ? -1 : to };
  }

  enter(names: Iterable<string> = [], closes = false): void {
    this.blocks.push({ names: new Map(), base: this.active, captured: false, closes });
    for (const name of names) this.declare(name);
  }

  /** Leaves the innermost block; true when leaving it closes captured locals. */
  leave(): boolean {
    const depth = this.blocks.length - 1;
    const block = this.blocks.pop();
    if (block) this.active = block.base;
    const captured = block?.captured === true;
    const loop = this.loops.at(-1);
    if (captured && loop) loop.captured = true;
    for (const pending of this.gotos) {
      if (pending.depth < depth) continue;
      pending.depth = depth - 1;
      if (captured || block?.closes) pending.close = true;
    }
    return captured;
  }

  goto(label: string): void {
    this.gotos.push({ label, depth: this.blocks.length - 1, close: false });
  }

  /** A label: whether a `goto` to it left a block that closes variables (5.4 closes here). */
  labelCloses(label: string): boolean {
    const depth = this.blocks.length - 1;
    let close = false;
    for (let i = this.gotos.length - 1; i >= 0; i--) {
      const pending = this.gotos[i];
      if (pending.label !== label || pending.depth < depth) continue;
      close ||= pending.close;
      this.gotos.splice(i, 1);
    }
    return close;
  }

  declare(name: string, constant?: Exp): void {
    const local: Local = constant ? { reg: -1, constant } : { reg: this.active++ };
    this.blocks[this.blocks.length - 1].names.set(name, local);
  }

  /** 5.4 `<close>`: the innermost block closes a variable when it is left. */
  markClose(): void {
    this.blocks[this.blocks.length - 1].captured = true;
  }

  /** A local of this function, or undefined when `name` is an upvalue or a global. */
  lookup(name: string): Local | undefined {
    return this.blockOf(name)?.names.get(name);
  }

  /**
   * A name that is not a local here: an upvalue when an enclosing function declares it (its
   * block is then captured, and every function in between has upvalues), else a global.
   * Returns its compile-time constant, if it has one.
   */
  outer(name: string): Exp | undefined {
    const between: FunctionState[] = [this];
    for (let f = this.parent; f; f = f.parent) {
      const block = f.blockOf(name);
      if (block) {
        for (const g of between) g.hasUpvalues = true;
        const constant = block.names.get(name)?.constant;
        if (!constant) block.captured = true;
        return constant;
      }
      between.push(f);
    }
    return undefined;
  }

  private blockOf(name: string): Block | undefined {
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      if (this.blocks[i].names.has(name)) return this.blocks[i];
    }
    return undefined;
  }
}
