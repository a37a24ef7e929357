/**
 * Client configuration templates: for each MCP client, the snippet in that client's own format
 * (its file, its key names, its transport spelling) that connects it to the LuaPanda MCP server,
 * with the bearer-token header when a token is set (Gemini CLI: `gemini mcp add --transport http`). Stdio-only clients (Claude Desktop) go
 * through our stdio bridge, `luapanda-mcp --stdio --connect URL`, from a copy at a stable place.
 */

export const SERVER_KEY = 'luapanda';

export interface TemplateInput {
  /** The MCP endpoint, e.g. http://127.0.0.1:6009/mcp. */
  readonly url: string;
  readonly token?: string;
  /** How to run the stdio bridge: an absolute interpreter path and the bridge script's path. */
  readonly bridge: {
    readonly command: string;
    readonly script: string;
    /** Extra environment (e.g. ELECTRON_RUN_AS_NODE when the interpreter is VS Code's own). */
    readonly env?: Readonly<Record<string, string>>;
  };
}

export interface ClientTemplate {
  readonly id: string;
  readonly label: string;
  /** Where the snippet goes. */
  readonly where: string;
  readonly language: 'json' | 'toml' | 'shellscript';
  readonly text: string;
}

type Builder = (input: TemplateInput) => Omit<ClientTemplate, 'id' | 'label'>;

function headers(token: string | undefined): { headers?: Record<string, string> } {
  return token ? { headers: { Authorization: `Bearer ${token}` } } : {};
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function tomlString(text: string): string {
  return JSON.stringify(text);
}

const BUILDERS: Record<string, { label: string; build: Builder }> = {
  'claude-desktop': {
    label: 'Claude Desktop',
    build: ({ url, token, bridge }) => ({
      where:
        'claude_desktop_config.json (Settings → Developer → Edit Config), then restart Claude Desktop',
      language: 'json',
      text: json({
        mcpServers: {
          [SERVER_KEY]: {
            command: bridge.command,
            args: [bridge.script, '--stdio', '--connect', url],
            ...(bridge.env || token
              ? {
                  env: {
                    ...(bridge.env ?? {}),
                    ...(token ? { LUAPANDA_MCP_TOKEN: token } : {}),
                  },
                }
              : {}),
          },
        },
      }),
    }),
  },
  'claude-code': {
    label: 'Claude Code',
    build: ({ url, token }) => ({
      where: 'a terminal in your project (add --scope user to use it in every project)',
      language: 'shellscript',
      text:
        `claude mcp add --transport http ${SERVER_KEY} ${shellQuote(url)}` +
        (token ? ` --header ${shellQuote(`Authorization: Bearer ${token}`)}` : '') +
        '\n',
    }),
  },
  'gemini-cli': {
    label: 'Gemini CLI',
    build: ({ url, token }) => ({
      where:
        'a terminal in your project (add --scope user to use it in every project); or, in ' +
        '.gemini/settings.json: {"mcpServers": {"luapanda": {"httpUrl": …, "headers": …}}}',
      language: 'shellscript',
      // Gemini CLI's own spelling: options before the name and the URL.
      text:
        'gemini mcp add --transport http' +
        (token ? ` --header ${shellQuote(`Authorization: Bearer ${token}`)}` : '') +
        ` ${SERVER_KEY} ${shellQuote(url)}\n`,
    }),
  },
  cursor: {
    label: 'Cursor',
    build: ({ url, token }) => ({
      where: '.cursor/mcp.json in the project, or ~/.cursor/mcp.json',
      language: 'json',
      text: json({ mcpServers: { [SERVER_KEY]: { url, ...headers(token) } } }),
    }),
  },
  cline: {
    label: 'Cline',
    build: ({ url, token }) => ({
      where: 'cline_mcp_settings.json (Cline → MCP Servers → Configure MCP Servers)',
      language: 'json',
      text: json({
        mcpServers: {
          [SERVER_KEY]: { type: 'streamableHttp', url, ...headers(token), disabled: false },
        },
      }),
    }),
  },
  'roo-code': {
    label: 'Roo Code',
    build: ({ url, token }) => ({
      where: '.roo/mcp.json in the project, or the global mcp_settings.json',
      language: 'json',
      text: json({
        mcpServers: { [SERVER_KEY]: { type: 'streamable-http', url, ...headers(token) } },
      }),
    }),
  },
  windsurf: {
    label: 'Windsurf',
    build: ({ url, token }) => ({
      where: '~/.codeium/windsurf/mcp_config.json',
      language: 'json',
      text: json({ mcpServers: { [SERVER_KEY]: { serverUrl: url, ...headers(token) } } }),
    }),
  },
  vscode: {
    label: 'VS Code (Copilot agent mode)',
    build: ({ url, token }) => ({
      where: '.vscode/mcp.json in the workspace (VS Code 1.101+ also finds the server by itself)',
      language: 'json',
      text: json({ servers: { [SERVER_KEY]: { type: 'http', url, ...headers(token) } } }),
    }),
  },
  codex: {
    label: 'Codex',
    build: ({ url, token }) => ({
      where: '~/.codex/config.toml',
      language: 'toml',
      text:
        `[mcp_servers.${SERVER_KEY}]\nurl = ${tomlString(url)}\n` +
        (token ? `http_headers = { "Authorization" = ${tomlString(`Bearer ${token}`)} }\n` : ''),
    }),
  },
};

export const CLIENT_IDS = Object.keys(BUILDERS);

export function clientTemplates(input: TemplateInput): ClientTemplate[] {
  return CLIENT_IDS.map((id) => clientTemplate(id, input));
}

export function clientTemplate(id: string, input: TemplateInput): ClientTemplate {
  const entry = BUILDERS[id];
  if (!entry) throw new Error(`Unknown MCP client "${id}". Known: ${CLIENT_IDS.join(', ')}.`);
  return { id, label: entry.label, ...entry.build(input) };
}
