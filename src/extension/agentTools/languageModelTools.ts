/**
 * The debugger tools as VS Code language-model tools (`vscode.lm.registerTool`, declared in
 * package.json's `languageModelTools`), for Copilot's agent mode where MCP is switched off. They
 * are the MCP tools: every call goes through an MCP client joined in process to a server made by
 * the same factory as the HTTP server's (same tool context, so the same debug sessions the human
 * sees; same validation, results and errors). Feature-detected (older VS Code has no `vscode.lm`)
 * and switched on and off live by `luapanda.languageModelTools.enabled`.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as vscode from 'vscode';
import { TOOLS } from '../../mcp/server';
import { InProcessClient, connectInProcess } from '../../mcp/inProcessClient';
import { changesState } from './lmToolManifest';
import { callSummary, resultText } from './lmToolMessages';

export interface LmToolOptions {
  /** A fresh MCP server over the extension's tool context (one per in-process client). */
  readonly createServer: () => McpServer;
  readonly enabled: () => boolean;
  /** Ask before a call that changes state (VS Code's confirmation; "Always allow" is offered). */
  readonly confirmChanges: () => boolean;
  readonly log: (line: string) => void;
}

/** The part of `vscode.lm` used here (present since VS Code 1.95; absent in older hosts). */
interface LmApi {
  registerTool(name: string, tool: vscode.LanguageModelTool<object>): vscode.Disposable;
}

export class LanguageModelTools implements vscode.Disposable {
  private registrations: vscode.Disposable[] = [];
  private client: Promise<InProcessClient> | undefined;

  constructor(
    private readonly options: LmToolOptions,
    private readonly lm: Partial<LmApi> | undefined = (vscode as { lm?: Partial<LmApi> }).lm,
  ) {
    this.refresh();
  }

  /** Whether this VS Code can host language-model tools at all. */
  get supported(): boolean {
    return typeof this.lm?.registerTool === 'function';
  }

  /** The names registered now (none while the setting is off or the API is missing). */
  get registered(): readonly string[] {
    return this.registrations.length > 0 ? TOOLS.map((t) => t.name) : [];
  }

  /** Registers or unregisters the tools to follow the setting. */
  refresh(): void {
    const want = this.supported && this.options.enabled();
    if (want === this.registrations.length > 0) return;
    if (!want) {
      this.unregister();
      this.options.log('language-model tools: off');
      return;
    }
    const registerTool = this.lm!.registerTool!.bind(this.lm);
    try {
      for (const tool of TOOLS)
        this.registrations.push(registerTool(tool.name, this.toolFor(tool)));
      this.options.log(`language-model tools: registered ${this.registrations.length}`);
    } catch (e) {
      this.options.log(`language-model tools: could not register: ${(e as Error).message}`);
      this.unregister();
    }
  }

  dispose(): void {
    this.unregister();
    const client = this.client;
    this.client = undefined;
    void client?.then((c) => c.close()).catch(() => undefined);
  }

  private unregister(): void {
    for (const registration of this.registrations) registration.dispose();
    this.registrations = [];
  }

  private toolFor(tool: (typeof TOOLS)[number]): vscode.LanguageModelTool<object> {
    const asks = changesState({ annotations: tool.annotations });
    return {
      prepareInvocation: (options) => {
        const summary = callSummary(tool.title, options.input);
        if (!asks || !this.options.confirmChanges()) return { invocationMessage: summary };
        return {
          invocationMessage: summary,
          confirmationMessages: {
            title: `LuaPanda: ${tool.title}?`,
            message: new vscode.MarkdownString(
              `The agent wants to change the debug session: **${summary}**`,
            ),
          },
        };
      },
      invoke: async (options, token) => {
        if (token.isCancellationRequested) throw new vscode.CancellationError();
        const abort = new AbortController();
        const listener = token.onCancellationRequested(() => abort.abort());
        try {
          const client = await this.connect();
          const input = (options.input ?? {}) as Record<string, unknown>;
          const result = await client.callTool(tool.name, input, abort.signal);
          return new vscode.LanguageModelToolResult([
            new vscode.LanguageModelTextPart(resultText(result)),
          ]);
        } catch (e) {
          if (abort.signal.aborted) throw new vscode.CancellationError();
          throw e;
        } finally {
          listener.dispose();
        }
      },
    };
  }

  private connect(): Promise<InProcessClient> {
    this.client ??= connectInProcess(this.options.createServer(), 'vscode-language-model-tools');
    // A failed connection is not kept: the next call tries again.
    this.client.catch(() => (this.client = undefined));
    return this.client;
  }
}
