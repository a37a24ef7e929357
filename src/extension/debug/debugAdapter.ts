/**
 * Debug type `luapanda` in VS Code: the adapter runs inline, in the extension host (the MCP
 * server lives there too, so both reach the same sessions), and a configuration provider makes F5
 * on a Lua file work without a launch.json and points launches at the bundled runtime.
 *
 * The starter configurations of a new launch.json come from package.json's
 * `initialConfigurations` alone: VS Code appends whatever a provider's
 * `provideDebugConfigurations` returns to them, so a provider that offered them too would write
 * every starter twice. The provider therefore has no `provideDebugConfigurations`.
 */
import * as vscode from 'vscode';
import { LuaDebugSession } from '../../adapter/luaDebugSession';
import { setProcessTracer, tracerFromSwitches } from '../../common/trace';
import { DEBUG_TYPE, INITIAL_CONFIGURATIONS } from './contribution';
import { TraceChannel } from './traceChannel';
import { ReadOnlyDocuments } from '../readOnlyDocs';

/**
 * A session's failure that no launch/attach response carries (the attach wait running out): an
 * error notification with its first sentence, whose button shows the whole text.
 */
export function notifySessionFailure(
  documents: ReadOnlyDocuments,
  summary: string,
  fullText: string,
): void {
  const action = 'Show Full Text';
  void vscode.window.showErrorMessage(summary, action).then((choice) => {
    if (choice === action) void documents.show('LuaPanda session failure.txt', fullText);
  });
}

export function registerLuaDebugger(
  runtimeDir: string,
  documents: ReadOnlyDocuments,
): vscode.Disposable[] {
  const traceChannel = new TraceChannel();
  // LUAPANDA_TRACE in VS Code's environment: the whole window's trace (every session, the MCP
  // tool calls) goes to the channel, where stderr would be out of sight.
  try {
    setProcessTracer(
      tracerFromSwitches(
        process.env.LUAPANDA_TRACE,
        process.env.LUAPANDA_TRACE_FILE,
        traceChannel.sink,
      ),
    );
  } catch {
    // A mistyped variable: the process tracer says so on stderr and traces nothing.
  }
  return [
    traceChannel,
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, {
      createDebugAdapterDescriptor: () =>
        new vscode.DebugAdapterInlineImplementation(
          new LuaDebugSession({
            traceSink: traceChannel.sink,
            notifyFailure: (summary, fullText) =>
              notifySessionFailure(documents, summary, fullText),
          }) as unknown as vscode.DebugAdapter,
        ),
    }),
    vscode.debug.registerDebugConfigurationProvider(
      DEBUG_TYPE,
      new LuaConfigurationProvider(runtimeDir),
    ),
  ];
}

export class LuaConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly runtimeDir: string) {}

  resolveDebugConfiguration(
    folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): vscode.DebugConfiguration | undefined {
    if (!config.type && !config.request && !config.name) {
      // F5 with no launch.json: debug the Lua file in the editor.
      const editor = vscode.window.activeTextEditor;
      if (editor?.document.languageId !== 'lua') {
        void vscode.window.showInformationMessage(
          'Open a Lua file to debug it, or add a "luapanda" configuration to launch.json.',
        );
        return undefined;
      }
      config = { ...INITIAL_CONFIGURATIONS[0], program: editor.document.uri.fsPath };
    }
    const resolved: vscode.DebugConfiguration = { ...config };
    if (resolved.cwd === undefined && folder) resolved.cwd = folder.uri.fsPath;
    if (resolved.request === 'launch' && resolved.runtimePath === undefined) {
      resolved.runtimePath = this.runtimeDir;
    }
    return resolved;
  }
}
