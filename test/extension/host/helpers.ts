/**
 * Helpers of the extension-host tests: the extension's API, a debug adapter tracker of the test's
 * own that records every stop VS Code sees, the fixture workspace's marked lines, and an MCP
 * client in a separate process (scripts/e2e/mcpCall.mjs run by Node from the runner).
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/extension/extension';

export const EXTENSION_ID = 'luapanda-mcp.luapanda-mcp';

export async function extensionApi(): Promise<ExtensionApi> {
  const extension = vscode.extensions.getExtension<ExtensionApi>(EXTENSION_ID);
  if (!extension) throw new Error(`${EXTENSION_ID} is not installed in this host`);
  return extension.activate();
}

export function workspaceFolder(): vscode.WorkspaceFolder {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder');
  return folder;
}

/** The 1-based line of `file` (in the workspace) that holds `@marker`. */
export function markedLine(file: string, marker: string): number {
  const lines = fs.readFileSync(path.join(workspaceFolder().uri.fsPath, file), 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes(`@${marker}`));
  if (index < 0) throw new Error(`no @${marker} in ${file}`);
  return index + 1;
}

export function workspaceFile(file: string): string {
  return path.join(workspaceFolder().uri.fsPath, file);
}

export interface SeenStop {
  readonly sessionId: string;
  readonly body: DebugProtocol.StoppedEvent['body'];
}

/** Every `stopped` event that VS Code's debug API shows, through a tracker of the test's own. */
export class StopRecorder implements vscode.Disposable {
  readonly stops: SeenStop[] = [];
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.debug.registerDebugAdapterTrackerFactory('*', {
      createDebugAdapterTracker: (session) => ({
        onDidSendMessage: (message: DebugProtocol.ProtocolMessage) => {
          const event = message as DebugProtocol.Event;
          if (message.type === 'event' && event.event === 'stopped') {
            this.stops.push({ sessionId: session.id, body: event.body });
          }
        },
      }),
    });
  }

  /** Waits for the stop after the first `count` ones. */
  async next(count: number, timeoutMs = 30_000): Promise<SeenStop> {
    await waitUntil(() => this.stops.length > count, timeoutMs, 'a stop in VS Code');
    return this.stops[count];
  }

  dispose(): void {
    this.registration.dispose();
  }
}

export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The top frame of a stopped thread, read through VS Code's debug API. */
export async function topFrame(
  session: vscode.DebugSession,
  threadId: number,
): Promise<DebugProtocol.StackFrame> {
  const trace = (await session.customRequest('stackTrace', {
    threadId,
    startFrame: 0,
    levels: 1,
  })) as DebugProtocol.StackTraceResponse['body'];
  return trace.stackFrames[0];
}

/** The variables of the first scope of a frame, by name. */
export async function frameLocals(
  session: vscode.DebugSession,
  frameId: number,
): Promise<Map<string, string>> {
  const { scopes } = (await session.customRequest('scopes', {
    frameId,
  })) as DebugProtocol.ScopesResponse['body'];
  const { variables } = (await session.customRequest('variables', {
    variablesReference: scopes[0].variablesReference,
  })) as DebugProtocol.VariablesResponse['body'];
  return new Map(variables.map((v) => [v.name, v.value]));
}

export type ToolResult = Record<string, unknown> & { status: string };

/** Calls an MCP tool from a separate Node process (an MCP client outside VS Code). */
export function mcpCall(
  url: string,
  tool: string,
  args: object = {},
  token?: string,
): Promise<ToolResult> {
  const node = process.env.E2E_NODE ?? 'node';
  const script = path.join(process.env.E2E_ROOT ?? '', 'scripts', 'e2e', 'mcpCall.mjs');
  return new Promise((resolve, reject) => {
    execFile(
      node,
      [script, url, tool, JSON.stringify(args), ...(token ? [token] : [])],
      { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`mcpCall ${tool} failed: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout) as ToolResult);
      },
    );
  });
}

export async function fetchHealthJson(port: number): Promise<Record<string, unknown> | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`);
    return (await response.json()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
