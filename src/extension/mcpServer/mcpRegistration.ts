/**
 * Tells the agents built into the editor where the server is, with no configuration: VS Code's
 * MCP API (`vscode.lm.registerMcpServerDefinitionProvider`, VS Code 1.101+, declared in
 * package.json's `mcpServerDefinitionProviders`) and Cursor's (`vscode.cursor.mcp.registerServer`).
 * Both are feature-detected — @types/vscode 1.95 does not know them, so their shapes are declared
 * here. The definition follows the server: present while one of our servers answers on the port
 * (this window's or another's), updated when the port or token changes.
 */
import * as vscode from 'vscode';

export const PROVIDER_ID = 'luapanda.mcp';
export const SERVER_LABEL = 'LuaPanda MCP Debugger';
const CURSOR_NAME = 'luapanda';

export interface McpEndpoint {
  readonly url: string;
  readonly token?: string;
  readonly version: string;
}

interface LmMcpApi {
  registerMcpServerDefinitionProvider(
    id: string,
    provider: {
      onDidChangeMcpServerDefinitions?: vscode.Event<void>;
      provideMcpServerDefinitions(): unknown[];
    },
  ): vscode.Disposable;
}
type McpHttpServerDefinitionCtor = new (
  label: string,
  uri: vscode.Uri,
  headers?: Record<string, string>,
  version?: string,
) => unknown;
interface CursorMcpApi {
  registerServer(config: {
    name: string;
    server: { url: string; headers?: Record<string, string> };
  }): void;
  unregisterServer(name: string): void;
}

export class McpRegistration implements vscode.Disposable {
  private endpoint: McpEndpoint | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly subscriptions: vscode.Disposable[] = [this.changed];
  private cursorRegistered = false;
  /** Which editor APIs were found: for the status panel and the tests. */
  readonly registeredWith: string[] = [];

  constructor(
    private readonly log: (line: string) => void,
    private readonly api: Record<string, unknown> = vscode as unknown as Record<string, unknown>,
  ) {
    const lm = api.lm as Partial<LmMcpApi> | undefined;
    const ctor = api.McpHttpServerDefinition as McpHttpServerDefinitionCtor | undefined;
    if (typeof lm?.registerMcpServerDefinitionProvider === 'function' && ctor) {
      try {
        this.subscriptions.push(
          lm.registerMcpServerDefinitionProvider(PROVIDER_ID, {
            onDidChangeMcpServerDefinitions: this.changed.event,
            provideMcpServerDefinitions: () =>
              this.endpoint
                ? [
                    new ctor(
                      SERVER_LABEL,
                      vscode.Uri.parse(this.endpoint.url),
                      headersOf(this.endpoint.token),
                      this.endpoint.version,
                    ),
                  ]
                : [],
          }),
        );
        this.registeredWith.push('vscode.lm');
      } catch (e) {
        log(`could not register with VS Code's MCP API: ${(e as Error).message}`);
      }
    }
    if (this.cursorApi()) this.registeredWith.push('cursor');
  }

  /** The endpoint agents should use now, or undefined when no server answers. */
  update(endpoint: McpEndpoint | undefined): void {
    const same = endpoint?.url === this.endpoint?.url && endpoint?.token === this.endpoint?.token;
    if (same && (endpoint === undefined) === (this.endpoint === undefined)) return;
    this.endpoint = endpoint;
    this.changed.fire();
    const cursor = this.cursorApi();
    if (!cursor) return;
    try {
      if (this.cursorRegistered) cursor.unregisterServer(CURSOR_NAME);
      this.cursorRegistered = false;
      if (endpoint) {
        cursor.registerServer({
          name: CURSOR_NAME,
          server: {
            url: endpoint.url,
            ...(endpoint.token ? { headers: headersOf(endpoint.token) } : {}),
          },
        });
        this.cursorRegistered = true;
      }
    } catch (e) {
      this.log(`could not register with Cursor's MCP API: ${(e as Error).message}`);
    }
  }

  dispose(): void {
    if (this.cursorRegistered) {
      try {
        this.cursorApi()?.unregisterServer(CURSOR_NAME);
      } catch {
        // the host is going away
      }
    }
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  private cursorApi(): CursorMcpApi | undefined {
    const cursor = this.api.cursor as { mcp?: Partial<CursorMcpApi> } | undefined;
    const mcp = cursor?.mcp;
    return typeof mcp?.registerServer === 'function' && typeof mcp.unregisterServer === 'function'
      ? (mcp as CursorMcpApi)
      : undefined;
  }
}

function headersOf(token: string | undefined): Record<string, string> {
  return token ? { Authorization: `Bearer ${token}` } : {};
}
