/**
 * Debug type `luapanda` in VS Code: the adapter runs inline, in the extension host (the MCP
 * server lives there too, so both reach the same sessions), and a configuration provider offers
 * the initial configurations, makes F5 on a Lua file work without a launch.json, and points
 * launches at the bundled runtime.
 */
import * as vscode from 'vscode';
import { LuaDebugSession } from '../adapter/luaDebugSession';
import { DEBUG_TYPE, INITIAL_CONFIGURATIONS } from './contribution';

export function registerLuaDebugger(runtimeDir: string): vscode.Disposable[] {
  return [
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, {
      createDebugAdapterDescriptor: () =>
        new vscode.DebugAdapterInlineImplementation(
          new LuaDebugSession() as unknown as vscode.DebugAdapter,
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

  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    return INITIAL_CONFIGURATIONS.map((config) => ({ ...config }));
  }

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
