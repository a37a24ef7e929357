/**
 * Breakpoints in Lua files that can never work, shown as warnings in the editor and the Problems
 * view the moment they are set — with or without a debug session: a condition, hit condition or
 * log message that is not valid, a line past the end of the file or with no code after it in its
 * function. (Without a session VS Code shows every breakpoint alike; during one, the adapter's
 * answer also marks them unverified with the same message.) Checked again when breakpoints change
 * and when a Lua file with breakpoints is saved.
 */
import * as vscode from 'vscode';
import { BreakpointPrecheck, isLuaSource } from '../../session/breakpoints/breakpointPrecheck';

export class BreakpointDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('luapanda-breakpoints');
  private readonly precheck = new BreakpointPrecheck();
  private readonly subscriptions: vscode.Disposable[];
  /** Bumped on every refresh, so that an older, slower one does not overwrite a newer one. */
  private generation = 0;

  constructor() {
    this.subscriptions = [
      vscode.debug.onDidChangeBreakpoints(() => void this.refresh()),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (isLuaSource(doc.uri.fsPath)) void this.refresh();
      }),
    ];
    void this.refresh();
  }

  /** Recomputes every warning; resolves when they are shown. */
  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const byFile = new Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>();
    for (const bp of vscode.debug.breakpoints) {
      if (!(bp instanceof vscode.SourceBreakpoint) || !bp.enabled) continue;
      const { uri } = bp.location;
      if (uri.scheme !== 'file' || !isLuaSource(uri.fsPath)) continue;
      const line = bp.location.range.start.line + 1;
      const checked = await this.precheck.check(uri.fsPath, line, {
        condition: bp.condition,
        hitCondition: bp.hitCondition,
        logMessage: bp.logMessage,
      });
      const entry = byFile.get(uri.toString()) ?? { uri, diagnostics: [] };
      byFile.set(uri.toString(), entry);
      if (!checked?.hopeless) continue;
      const diagnostic = new vscode.Diagnostic(
        new vscode.Range(line - 1, 0, line - 1, Number.MAX_SAFE_INTEGER),
        `This breakpoint never stops: ${checked.message}`,
        vscode.DiagnosticSeverity.Warning,
      );
      diagnostic.source = 'LuaPanda';
      entry.diagnostics.push(diagnostic);
    }
    if (generation !== this.generation) return;
    this.collection.clear();
    for (const { uri, diagnostics } of byFile.values()) {
      if (diagnostics.length > 0) this.collection.set(uri, diagnostics);
    }
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.collection.dispose();
  }
}
