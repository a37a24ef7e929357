/**
 * Which lines of a Lua source have code, function by function — what `debug.getinfo(f, "L")`
 * (`activelines`) answers at run time, worked out from the source before it runs. The statement
 * half of a small model of Lua's code generators (lparser.c/lcode.c, LuaJIT's lj_parse.c): it
 * walks luaparse's syntax tree in source order and records the line each instruction would get.
 * The dialect rules (luaDialect.ts) cover where 5.1, 5.2/5.3, 5.4 and LuaJIT differ.
 */
import type * as lua from 'luaparse';
import { ExpressionCompiler, isConstant, rangeOf } from './codeLinesExpr';
import { FunctionState } from './codeLinesState';
import type { DialectRules } from './luaDialect';
import type { LuaTokens } from './luaTokens';

export interface FunctionLines {
  /** Line where the function is defined (its `(`; the `function` keyword of a statement); 0 for
   * the main chunk — as `linedefined`. */
  readonly first: number;
  /** Line of its `end` (`lastlinedefined`); for the main chunk, the file's last token. */
  readonly last: number;
  /** Lines with code of this function itself, nested functions excluded (`activelines`). */
  readonly lines: ReadonlySet<number>;
  /** The line of its `end` when it holds only the final return of a function that returns
   * before it (PUC Lua emits it, but nothing ever runs it). */
  readonly deadEnd?: number;
}

/** 5.4 attributes of locals, by the offset of the variable's name. */
export type LocalAttributes = ReadonlyMap<number, 'const' | 'close'>;

/** The code lines of every function of `chunk`, main chunk first. */
export function codeLines(
  chunk: lua.Chunk,
  tokens: LuaTokens,
  rules: DialectRules,
  attributes: LocalAttributes = new Map(),
): FunctionLines[] {
  return new StatementCompiler(rules, tokens, attributes).compileChunk(chunk);
}

class StatementCompiler extends ExpressionCompiler {
  private readonly functions: FunctionLines[] = [];

  constructor(
    rules: DialectRules,
    tokens: LuaTokens,
    private readonly attributes: LocalAttributes,
  ) {
    super(rules, tokens);
  }

  compileChunk(chunk: lua.Chunk): FunctionLines[] {
    this.fn = new FunctionState(undefined, this.rules);
    this.statements(chunk.body);
    const last = this.tokens.lastLine();
    // The main chunk's final return is emitted once the whole file is read.
    if (last > 0 && (!this.rules.jit || !endsWithReturn(chunk.body))) this.fn.emit(last);
    this.functions.unshift({ first: 0, last, lines: this.fn.lines });
    return this.functions;
  }

  protected functionBody(node: lua.FunctionDeclaration, method: boolean): FunctionState {
    const outer = this.fn;
    this.fn = new FunctionState(outer, this.rules);
    if (method) this.fn.declare('self');
    for (const param of node.parameters) {
      if (param.type === 'Identifier') this.fn.declare(param.name);
    }
    this.statements(node.body);
    const end = this.endLine(node);
    // The final return; LuaJIT leaves it out after a `return`.
    const returns = endsWithReturn(node.body);
    const dead = returns && !this.fn.lines.has(end);
    if (!this.rules.jit || !returns) this.fn.emit(end);
    const statement = node.identifier !== null && !node.isLocal;
    const first = statement
      ? this.startLine(node)
      : this.lineOfToken('(', rangeOf(node.identifier ?? node)[0]);
    this.functions.push({
      first,
      last: end,
      lines: this.fn.lines,
      ...(dead ? { deadEnd: end } : {}),
    });
    const compiled = this.fn;
    this.fn = outer;
    return compiled;
  }

  /**
   * A block of statements; `lastLine` is the line of its last token, where leaving a block
   * whose locals a closure captured (or 5.4 closes) costs an instruction — except in LuaJIT
   * after a `return`.
   */
  private block(body: lua.Statement[], lastLine: number, names: Iterable<string> = []): void {
    this.fn.enter(names);
    this.statements(body);
    this.leave(body, lastLine);
  }

  private leave(body: lua.Statement[], lastLine: number): void {
    const captured = this.fn.leave();
    if (captured && !(this.rules.jit && endsWithReturn(body))) this.fn.emit(lastLine);
  }

  private statements(body: lua.Statement[]): void {
    for (const statement of body) this.statement(statement);
  }

  private statement(node: lua.Statement): void {
    switch (node.type) {
      case 'LocalStatement':
        return this.local(node);
      case 'AssignmentStatement':
        return this.assignment(node);
      case 'CallStatement':
        this.exp(node.expression);
        return;
      case 'FunctionDeclaration':
        return this.functionStatement(node);
      case 'IfStatement':
        return this.ifStatement(node);
      case 'WhileStatement':
        return this.whileStatement(node);
      case 'DoStatement':
        return this.block(node.body, this.lineBeforeEnd(node));
      case 'RepeatStatement':
        return this.repeatStatement(node);
      case 'ForNumericStatement':
        return this.forNumeric(node);
      case 'ForGenericStatement':
        return this.forGeneric(node);
      case 'ReturnStatement':
        return this.returnStatement(node);
      case 'BreakStatement':
      case 'GotoStatement':
        if (node.type === 'BreakStatement') this.noteBreak();
        else this.fn.goto(node.label.name);
        this.fn.emit(this.rules.jumpBeforeBreak ? this.lineBeforeNode(node) : this.endLine(node));
        return;
      case 'LabelStatement':
        // 5.4: a label closes what the gotos that jump to it left open.
        if (this.fn.labelCloses(node.label.name) && this.rules.gotoClosesAtLabel) {
          this.fn.emit(this.endLine(node));
        }
        this.fn.label();
        return;
    }
  }

  /**
   * Loads an expression list's values but the last (each at the `,` after it, into consecutive
   * registers from `base` when known); returns the last one.
   */
  private leading(list: lua.Expression[], base = -1) {
    let last;
    for (const [i, node] of list.entries()) {
      const e = this.exp(node);
      if (i < list.length - 1) this.toNext(e, this.lineAfterNode(node), base < 0 ? -1 : base + i);
      else last = e;
    }
    return last;
  }

  private local(node: lua.LocalStatement): void {
    const end = this.endLine(node);
    const base = this.fn.nextRegister;
    const last = this.leading(node.init, base);
    const lastVar = node.variables[node.variables.length - 1];
    const attribute = this.attributes.get(rangeOf(lastVar)[0]);
    // 5.4: a `<const>` initialised with a constant is a compile-time constant: no code at all.
    const compileTime =
      last !== undefined &&
      attribute === 'const' &&
      node.variables.length === node.init.length &&
      isConstant(last);
    const count = node.variables.length;
    const values = node.init.length;
    if (!compileTime) {
      if (last === undefined) this.fn.emitNil(end, this.rules, base, count);
      else if (last.kind !== 'call' && last.kind !== 'vararg') {
        this.toNext(last, end, base + values - 1);
        if (count > values) this.fn.emitNil(end, this.rules, base + values, count - values);
      }
    }
    for (const variable of node.variables) {
      this.fn.declare(variable.name, compileTime && variable === lastVar ? last : undefined);
      if (this.attributes.get(rangeOf(variable)[0]) === 'close') this.fn.markClose();
    }
  }

  private assignment(node: lua.AssignmentStatement): void {
    for (const target of node.variables) {
      if (target.type === 'MemberExpression') {
        this.toAny(this.exp(target.base), this.endLine(target.base));
      } else if (target.type === 'IndexExpression') {
        this.toAny(this.exp(target.base), this.endLine(target.base));
        this.toValue(this.exp(target.index), this.endLine(target.index));
      }
    }
    const end = this.endLine(node);
    const last = this.leading(node.init);
    const [target] = node.variables;
    if (node.variables.length === 1 && node.init.length === 1 && last) {
      // A value an instruction computes goes straight into a local: no store of its own.
      const local = target.type === 'Identifier' ? this.fn.lookup(target.name) : undefined;
      if (local && last.kind === 'reloc' && !last.jumps) return;
      if (local && last.kind === 'nil') this.fn.emitNil(end, this.rules, local.reg);
      else this.fn.emit(end);
      return;
    }
    if (last && last.kind !== 'call' && last.kind !== 'vararg') this.toNext(last, end);
    this.fn.emit(end);
  }

  private functionStatement(node: lua.FunctionDeclaration): void {
    const id = node.identifier;
    if (node.isLocal && id?.type === 'Identifier') {
      this.fn.declare(id.name);
      this.functionBody(node, false);
      this.fn.emit(this.endLine(node));
      return;
    }
    const line = this.startLine(node);
    let method = false;
    if (id?.type === 'MemberExpression') {
      method = id.indexer === ':';
      this.toAny(this.exp(id.base), this.endLine(id.base));
    }
    const closure = this.functionBody(node, method);
    // The store is moved to the `function` line. 5.1 and LuaJIT make a closure for a local in
    // place, so the closure itself moves there (in 5.1 its last upvalue pseudo-instruction,
    // when it has upvalues).
    const intoLocal = id?.type === 'Identifier' && this.fn.lookup(id.name) !== undefined;
    const pseudo = closure.hasUpvalues && !this.rules.jit;
    if (!intoLocal || !this.rules.closureInPlace || pseudo) {
      this.fn.emit(this.endLine(node));
    }
    this.fn.emit(line);
  }

  private ifStatement(node: lua.IfStatement): void {
    node.clauses.forEach((clause, i) => {
      const next = node.clauses[i + 1];
      const lastLine = next ? this.lineBeforeNode(next) : this.lineBeforeEnd(node);
      if (clause.type === 'ElseClause') {
        this.block(clause.body, lastLine);
        return;
      }
      const condition = this.exp(clause.condition);
      const thenLine = this.lineAfterNode(clause.condition);
      const [first, ...rest] = clause.body;
      const folds =
        first?.type === 'BreakStatement'
          ? this.rules.breakFoldsIntoIf
          : first?.type === 'GotoStatement' && this.rules.gotoFoldsIntoIf;
      let escape = next !== undefined;
      if (folds) {
        // The condition's own jump is the `break`: no code on the `break` line.
        const falsy =
          condition.kind === 'nil' || (condition.kind === 'bool' && condition.value === false);
        if (condition.kind !== 'jump' && !falsy) this.fn.emit(thenLine);
        if (first.type === 'BreakStatement') this.noteBreak();
        else if (first.type === 'GotoStatement') this.fn.goto(first.label.name);
        this.fn.enter();
        if (rest.length === 0) escape = false;
        else {
          this.fn.emit(this.endLine(first));
          this.statements(rest);
        }
        this.leave(clause.body, lastLine);
      } else {
        this.testCondition(
          condition,
          this.rules.conditionAfterThen ? thenLine : this.endLine(clause.condition),
        );
        this.block(clause.body, lastLine);
      }
      // The jump over the other clauses, emitted before `elseif`/`else` is read.
      if (escape) this.fn.emit(lastLine);
      this.fn.label();
    });
    this.fn.label();
  }

  private noteBreak(): void {
    const loop = this.fn.loops.at(-1);
    if (loop) loop.hasBreak = true;
  }

  /** Compiles a loop's body (with `names` declared in it), then what ends the loop. */
  private loopBody(
    node: lua.Node,
    body: lua.Statement[],
    names: Iterable<string> = [],
    closes = false,
  ): void {
    const loop = { hasBreak: false, captured: false };
    this.fn.loops.push(loop);
    this.fn.enter(names, closes);
    this.statements(body);
    this.leave(body, this.lineBeforeEnd(node));
    this.fn.loops.pop();
    // 5.4: a `break` out of a block that closes variables closes them at the loop's end.
    if (this.rules.breakClosesAtLoopEnd && loop.hasBreak && loop.captured) {
      this.fn.emit(this.endLine(node));
    }
  }

  private whileStatement(node: lua.WhileStatement): void {
    this.fn.label();
    const end = this.endLine(node.condition);
    this.testCondition(this.exp(node.condition), end);
    if (this.rules.jit) this.fn.emit(end);
    this.loopBody(node, node.body);
    this.fn.emit(this.lineBeforeEnd(node));
    this.fn.label();
  }

  private repeatStatement(node: lua.RepeatStatement): void {
    this.fn.label();
    if (this.rules.jit) this.fn.emit(this.startLine(node));
    // The body's locals are visible in the condition.
    this.fn.loops.push({ hasBreak: false, captured: false });
    this.fn.enter();
    this.statements(node.body);
    this.testCondition(this.exp(node.condition), this.endLine(node.condition));
    this.fn.leave();
    this.fn.loops.pop();
    this.fn.label();
  }

  private forNumeric(node: lua.ForNumericStatement): void {
    for (const part of [node.start, node.end, node.step]) {
      if (part) this.toNext(this.exp(part), this.endLine(part));
    }
    if (!node.step) this.fn.emit(this.endLine(node.end));
    this.fn.emit(this.lineAfterNode(node.step ?? node.end));
    this.fn.label();
    this.loopBody(node, node.body, [node.variable.name]);
    this.fn.emit(this.startLine(node));
    this.fn.label();
  }

  private forGeneric(node: lua.ForGenericStatement): void {
    const iterators = node.iterators;
    const last = this.leading(iterators);
    const lastNode = iterators[iterators.length - 1];
    if (last && last.kind !== 'call' && last.kind !== 'vararg') {
      this.toNext(last, this.endLine(lastNode));
      if (iterators.length < 3) this.fn.emitNil(this.endLine(lastNode), this.rules);
    }
    this.fn.emit(this.lineAfterNode(lastNode));
    this.fn.label();
    this.loopBody(
      node,
      node.body,
      node.variables.map((v) => v.name),
      this.rules.genericForClosesAtEnd,
    );
    this.fn.emit(this.startLine(iterators[0]));
    if (this.rules.genericForJumpsFromBody) this.fn.emit(this.lineBeforeEnd(node));
    if (this.rules.genericForClosesAtEnd) this.fn.emit(this.endLine(node));
    this.fn.label();
  }

  private returnStatement(node: lua.ReturnStatement): void {
    const end = this.endLine(node);
    const last = this.leading(node.arguments);
    if (last && last.kind !== 'call' && last.kind !== 'vararg') {
      if (node.arguments.length === 1) this.toAny(last, end);
      else this.toNext(last, end);
    }
    this.fn.emit(end);
  }

  /** Line of the token before the statement's closing `end`. */
  private lineBeforeEnd(node: lua.Node): number {
    return this.tokens.lineBefore(rangeOf(node)[1] - 'end'.length);
  }
}

function endsWithReturn(body: lua.Statement[]): boolean {
  return body.length > 0 && body[body.length - 1].type === 'ReturnStatement';
}
