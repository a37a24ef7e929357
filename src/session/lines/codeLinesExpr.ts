/**
 * The expression half of the line analysis (codeLines.ts): it follows Lua's code generators just
 * far enough to know on which line each instruction lands. An instruction gets the line of the
 * token read last when it is emitted, and values are emitted late — when they are "discharged"
 * into a register (at the next `,`, at the closing `)`, at the end of the statement) — so an
 * expression is walked into a small descriptor (`Exp`) that says whether discharging it still
 * costs an instruction.
 */
import type * as lua from 'luaparse';
import type { DialectRules } from './luaDialect';
import type { FunctionState } from './codeLinesState';
import type { LuaTokens } from './luaTokens';

/** Where a value is, in the compiler's terms (lcode.c's expdesc kinds, folded together). */
export type ExpKind =
  | 'void'
  | 'nil'
  | 'bool'
  | 'num'
  | 'str'
  /** A local of the current function: already in its register. */
  | 'local'
  /** A global, upvalue or table field: one instruction to load it. */
  | 'deferred'
  /** An instruction computed it; it can still be told where to put the result (no new one). */
  | 'reloc'
  /** Already in a temporary register. */
  | 'fixed'
  | 'call'
  | 'vararg'
  /** A comparison: jumps; loading it as a value costs instructions. */
  | 'jump';

export interface Exp {
  readonly kind: ExpKind;
  /** For `bool`: its value; for `num`: its value (constant folding). */
  readonly value?: boolean | number;
  /** It carries jumps of `and`/`or` that loading it as a value must resolve. */
  readonly jumps?: boolean;
  /** The result of `..`: a `..` to its left extends the same instruction. */
  readonly concat?: boolean;
}

/** luaparse nodes carry their offsets when parsed with `ranges` (missing from its types). */
export interface Ranged {
  readonly range: [number, number];
}

export type Node = lua.Node & Ranged;

export function rangeOf(node: lua.Node): [number, number] {
  return (node as Node).range;
}

const ARITH = new Set(['+', '-', '*', '/', '%', '^', '//', '&', '|', '~', '<<', '>>']);
const COMPARE = new Set(['==', '~=', '<', '<=', '>', '>=']);

export abstract class ExpressionCompiler {
  protected fn!: FunctionState;
  private tableDepth = 0;

  constructor(
    protected readonly rules: DialectRules,
    protected readonly tokens: LuaTokens,
  ) {}

  /** Compiles a function body (the statement half); the caller emits its closure. */
  protected abstract functionBody(node: lua.FunctionDeclaration, method: boolean): FunctionState;

  /** Line of the node's last token. */
  protected endLine(node: lua.Node): number {
    return this.tokens.lineBefore(rangeOf(node)[1]);
  }

  /** Line of the token just before the node (what was read last when the node began). */
  protected lineBeforeNode(node: lua.Node): number {
    return this.tokens.lineBefore(rangeOf(node)[0]);
  }

  /** Line of the token that follows the node (a `,`, `)`, `=`, …). */
  protected lineAfterNode(node: lua.Node): number {
    return this.tokens.lineAfter(rangeOf(node)[1]);
  }

  /** Line of the first token of the node. */
  protected startLine(node: lua.Node): number {
    return this.tokens.lineAfter(rangeOf(node)[0]);
  }

  /** Line of the first token `value` at or after `from` (the operator of a binary expression). */
  protected lineOfToken(value: string, from: number): number {
    for (let t = this.tokens.after(from); t; t = this.tokens.after(t.end)) {
      if (t.value === value) return t.line;
    }
    return this.tokens.lastLine();
  }

  /** Loads `e` into the next free register (luaK_exp2nextreg), `reg` when it is known. */
  protected toNext(e: Exp, line: number, reg = -1): void {
    switch (e.kind) {
      case 'nil':
        this.fn.emitNil(line, this.rules, reg);
        break;
      case 'bool':
      case 'num':
      case 'str':
      case 'local':
      case 'deferred':
      case 'jump':
        this.fn.emit(line);
        break;
      default:
        if (e.jumps) this.fn.emit(line);
    }
    // The jumps of a comparison or of `and`/`or` land after the value is loaded.
    if (e.jumps || e.kind === 'jump') this.fn.label();
  }

  /** Loads `e` into some register (luaK_exp2anyreg): a local stays where it is. */
  protected toAny(e: Exp, line: number): void {
    if (e.kind === 'local' && !e.jumps) return;
    this.toNext(e, line);
  }

  /** An operand that may stay a constant (luaK_exp2RK). */
  protected toOperand(e: Exp, line: number): void {
    if (isConstant(e) && !e.jumps) return;
    this.toAny(e, line);
  }

  /** Resolves a deferred load (luaK_dischargevars). */
  protected toValue(e: Exp, line: number): Exp {
    if (e.kind === 'deferred') {
      this.fn.emit(line);
      return { kind: 'reloc', jumps: e.jumps };
    }
    if (e.jumps && e.kind !== 'local') this.fn.emit(line);
    return e;
  }

  /** The jump of a condition (luaK_goiftrue) at `line`. */
  protected testCondition(e: Exp, line: number): void {
    if (e.kind === 'jump' && !e.jumps) return;
    if (isTrue(e) && !e.jumps) return;
    this.fn.emit(line);
  }

  protected exp(node: lua.Expression): Exp {
    switch (node.type) {
      case 'NilLiteral':
        return { kind: 'nil' };
      case 'BooleanLiteral':
        return { kind: 'bool', value: node.value };
      case 'NumericLiteral':
        return { kind: 'num', value: node.value };
      case 'StringLiteral':
        return { kind: 'str' };
      case 'VarargLiteral':
        // OP_VARARG is emitted before `...` is read.
        this.fn.emit(this.lineBeforeNode(node));
        return { kind: 'vararg' };
      case 'Identifier':
        return this.name(node.name);
      case 'FunctionDeclaration':
        this.functionBody(node, false);
        // OP_CLOSURE, once the function's `end` is read.
        this.fn.emit(this.endLine(node));
        return { kind: 'reloc' };
      case 'TableConstructorExpression':
        return this.table(node);
      case 'BinaryExpression':
        return this.binary(node);
      case 'LogicalExpression':
        return this.logical(node);
      case 'UnaryExpression':
        return this.unary(node);
      case 'MemberExpression':
        this.toAny(this.exp(node.base), this.endLine(node.base));
        return { kind: 'deferred' };
      case 'IndexExpression':
        return this.index(node);
      case 'CallExpression':
      case 'StringCallExpression':
      case 'TableCallExpression':
        return this.call(node);
    }
  }

  protected name(name: string): Exp {
    const local = this.fn.lookup(name);
    if (local) return local.constant ?? { kind: 'local' };
    return this.fn.outer(name) ?? { kind: 'deferred' };
  }

  private index(node: lua.IndexExpression): Exp {
    this.toAny(this.exp(node.base), this.endLine(node.base));
    this.toValue(this.exp(node.index), this.endLine(node.index));
    return { kind: 'deferred' };
  }

  protected call(
    node: lua.CallExpression | lua.StringCallExpression | lua.TableCallExpression,
  ): Exp {
    const base = node.base;
    if (base.type === 'MemberExpression' && base.indexer === ':') {
      // luaK_self: the object is loaded and OP_SELF emitted once the method name is read.
      const line = this.endLine(base);
      this.toAny(this.exp(base.base), line);
      this.fn.emit(line);
    } else {
      this.toNext(this.exp(base), this.endLine(base));
    }
    const callLine = this.rules.callAtPrefixStart
      ? this.startLine(node)
      : this.tokens.lineAfter(rangeOf(base)[1]);
    if (node.type === 'CallExpression') {
      node.arguments.forEach((arg, i) => {
        const e = this.exp(arg);
        const last = i === node.arguments.length - 1;
        if (!last) this.toNext(e, this.lineAfterNode(arg));
        else if (e.kind !== 'call' && e.kind !== 'vararg') this.toNext(e, this.endLine(node));
      });
    } else if (node.type === 'StringCallExpression') {
      this.toNext(this.exp(node.argument), this.endLine(node));
    } else {
      this.exp(node.arguments);
    }
    this.fn.emit(callLine);
    return { kind: 'call' };
  }

  private binary(node: lua.BinaryExpression): Exp {
    const op = node.operator;
    const opLine = this.lineOfToken(op, rangeOf(node.left)[1]);
    const left = this.exp(node.left);
    if (op === '..') this.toNext(left, opLine);
    else if (left.kind !== 'num') this.toOperand(left, opLine);
    const right = this.exp(node.right);
    const end = this.endLine(node.right);
    if (COMPARE.has(op)) {
      this.toOperand(right, end);
      this.fn.emit(end);
      return { kind: 'jump' };
    }
    if (op === '..') {
      // A concatenation chain is one instruction: the inner one is extended.
      if (right.concat) return right;
      this.toNext(right, end);
      this.fn.emit(this.rules.operatorLine ? opLine : end);
      return { kind: 'reloc', concat: true };
    }
    if (ARITH.has(op) && left.kind === 'num' && right.kind === 'num' && foldable(op, right)) {
      return { kind: 'num', value: 1 };
    }
    this.toOperand(right, end);
    this.fn.emit(this.rules.operatorLine ? opLine : end);
    return { kind: 'reloc' };
  }

  private logical(node: lua.LogicalExpression): Exp {
    const opLine = this.lineOfToken(node.operator, rangeOf(node.left)[1]);
    const left = this.exp(node.left);
    const jumps =
      node.operator === 'and' ? this.jumpIfFalse(left, opLine) : this.jumpIfTrue(left, opLine);
    const right = this.toValue(this.exp(node.right), this.endLine(node.right));
    return jumps || left.jumps ? { ...right, jumps: true } : right;
  }

  /** luaK_goiftrue for `and`: whether it left a jump. */
  private jumpIfFalse(e: Exp, line: number): boolean {
    if (e.kind === 'jump') return true;
    if (isTrue(e) && !e.jumps) return false;
    this.fn.emit(line);
    return true;
  }

  /** luaK_goiffalse for `or`: whether it left a jump. */
  private jumpIfTrue(e: Exp, line: number): boolean {
    if (e.kind === 'jump') return true;
    if ((e.kind === 'nil' || (e.kind === 'bool' && e.value === false)) && !e.jumps) return false;
    this.fn.emit(line);
    return true;
  }

  private unary(node: lua.UnaryExpression): Exp {
    const opLine = this.startLine(node);
    const e = this.exp(node.argument);
    const end = this.endLine(node.argument);
    if (node.operator === 'not') {
      if (isConstant(e) && !e.jumps) return { kind: 'bool', value: !isTrue(e) };
      if (e.kind === 'jump') return e;
      this.toAny(e, end);
      this.fn.emit(end);
      return { kind: 'reloc' };
    }
    if (node.operator === '-' && e.kind === 'num') return e;
    this.toAny(e, end);
    this.fn.emit(this.rules.operatorLine ? opLine : end);
    return { kind: 'reloc' };
  }

  protected table(node: lua.TableConstructorExpression): Exp {
    if (this.rules.jit) return this.jitTable(node);
    // OP_NEWTABLE is emitted before `{` is read.
    this.fn.emit(this.lineBeforeNode(node));
    let pending: Exp | undefined;
    let pendingLine = 0;
    let toStore = 0;
    // List items go to consecutive temporaries (only adjacency matters: nils merge).
    const registers = TEMPORARIES + ++this.tableDepth * LIST_FLUSH;
    for (const field of node.fields) {
      if (pending) {
        // closelistfield: the previous item is loaded once the separator after it is read.
        this.toNext(pending, pendingLine, registers + toStore - 1);
        pending = undefined;
        if (toStore === LIST_FLUSH) {
          this.fn.emit(pendingLine);
          toStore = 0;
        }
      }
      if (field.type === 'TableValue') {
        pending = this.exp(field.value);
        pendingLine = this.lineAfterNode(field.value);
        toStore++;
        continue;
      }
      if (field.type === 'TableKey') this.toValue(this.exp(field.key), this.endLine(field.key));
      const value = this.exp(field.value);
      const line = this.endLine(field.value);
      this.toOperand(value, line);
      this.fn.emit(line);
    }
    const close = this.endLine(node);
    if (toStore > 0) {
      if (pending && pending.kind !== 'call' && pending.kind !== 'vararg') {
        this.toNext(pending, close, registers + toStore - 1);
      }
      this.fn.emit(close);
    }
    this.tableDepth--;
    return { kind: 'fixed' };
  }

  /**
   * LuaJIT: a template table holds the constant fields (no code); each other field is one store
   * on the line where its value ends, and the table itself is made on the line before `{`.
   */
  private jitTable(node: lua.TableConstructorExpression): Exp {
    this.fn.emit(this.lineBeforeNode(node));
    for (const field of node.fields) {
      const key = field.type === 'TableKey' ? this.exp(field.key) : undefined;
      const value = this.exp(field.value);
      const constantKey = field.type !== 'TableKey' || (key !== undefined && isConstant(key));
      if (constantKey && isConstant(value)) continue;
      // A list item that is a name was read with one token of lookahead (is it `name =`?).
      const lookahead = field.type === 'TableValue' && field.value.type === 'Identifier';
      this.fn.emit(lookahead ? this.lineAfterNode(field.value) : this.endLine(field.value));
    }
    return { kind: 'fixed' };
  }
}

/** lparser.c's LFIELDS_PER_FLUSH: a long list constructor stores every 50 items. */
const LIST_FLUSH = 50;
/** Register numbers for the temporaries of table constructors, above any local's. */
const TEMPORARIES = 100_000;

export function isConstant(e: Exp): boolean {
  return e.kind === 'nil' || e.kind === 'bool' || e.kind === 'num' || e.kind === 'str';
}

function isTrue(e: Exp): boolean {
  if (e.kind === 'num' || e.kind === 'str') return true;
  return e.kind === 'bool' && e.value === true;
}

/** Whether the compilers fold `<num> op <num>` (not a division or modulo by zero). */
function foldable(op: string, right: Exp): boolean {
  if ((op === '/' || op === '%' || op === '//') && right.value === 0) return false;
  return !['&', '|', '~', '<<', '>>'].includes(op);
}
