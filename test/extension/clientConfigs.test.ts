/** Client configuration templates: each client's own format, with and without a token. */
import * as assert from 'node:assert/strict';
import {
  CLIENT_IDS,
  clientTemplate,
  clientTemplates,
} from '../../src/extension/clientConfigs/clientConfigs';

const URL_ = 'http://127.0.0.1:6009/mcp';
const bridge = { command: '/opt/VS Code/code', script: '/home/u/.store/bin/luapanda-mcp.js' };

function jsonOf(id: string, token?: string) {
  return JSON.parse(clientTemplate(id, { url: URL_, token, bridge }).text);
}

describe('extension: client configuration templates', () => {
  it('offers every client the issue names, each once', () => {
    assert.deepEqual(CLIENT_IDS, [
      'claude-desktop',
      'claude-code',
      'gemini-cli',
      'cursor',
      'cline',
      'roo-code',
      'windsurf',
      'vscode',
      'codex',
    ]);
    const labels = clientTemplates({ url: URL_, bridge }).map((t) => t.label);
    assert.equal(new Set(labels).size, labels.length);
  });

  it('Claude Desktop runs the stdio bridge from its stable copy with absolute paths', () => {
    const server = jsonOf('claude-desktop').mcpServers.luapanda;
    assert.deepEqual(server, {
      command: '/opt/VS Code/code',
      args: ['/home/u/.store/bin/luapanda-mcp.js', '--stdio', '--connect', URL_],
    });
    const withToken = clientTemplate('claude-desktop', {
      url: URL_,
      token: 's3cret',
      bridge: { ...bridge, env: { ELECTRON_RUN_AS_NODE: '1' } },
    });
    assert.deepEqual(JSON.parse(withToken.text).mcpServers.luapanda.env, {
      ELECTRON_RUN_AS_NODE: '1',
      LUAPANDA_MCP_TOKEN: 's3cret',
    });
  });

  it('Claude Code is a claude mcp add command, quoting the header', () => {
    assert.equal(
      clientTemplate('claude-code', { url: URL_, bridge }).text,
      `claude mcp add --transport http luapanda ${URL_}\n`,
    );
    assert.equal(
      clientTemplate('claude-code', { url: URL_, token: "it's", bridge }).text,
      `claude mcp add --transport http luapanda ${URL_} --header 'Authorization: Bearer it'\\''s'\n`,
    );
  });

  it('Gemini CLI is a gemini mcp add command over HTTP, with the header when a token is set', () => {
    const plain = clientTemplate('gemini-cli', { url: URL_, bridge });
    assert.equal(plain.language, 'shellscript');
    assert.equal(plain.text, `gemini mcp add --transport http luapanda ${URL_}\n`);
    assert.match(plain.where, /httpUrl/);
    assert.equal(
      clientTemplate('gemini-cli', { url: URL_, token: 't0k', bridge }).text,
      `gemini mcp add --transport http --header 'Authorization: Bearer t0k' luapanda ${URL_}\n`,
    );
  });

  it('each JSON client uses its own keys and transport spelling', () => {
    assert.deepEqual(jsonOf('cursor'), { mcpServers: { luapanda: { url: URL_ } } });
    assert.deepEqual(jsonOf('cline'), {
      mcpServers: { luapanda: { type: 'streamableHttp', url: URL_, disabled: false } },
    });
    assert.deepEqual(jsonOf('roo-code'), {
      mcpServers: { luapanda: { type: 'streamable-http', url: URL_ } },
    });
    assert.deepEqual(jsonOf('windsurf'), { mcpServers: { luapanda: { serverUrl: URL_ } } });
    assert.deepEqual(jsonOf('vscode'), { servers: { luapanda: { type: 'http', url: URL_ } } });
  });

  it('a token becomes the Authorization header in every client', () => {
    const header = { Authorization: 'Bearer t0k' };
    assert.deepEqual(jsonOf('cursor', 't0k').mcpServers.luapanda.headers, header);
    assert.deepEqual(jsonOf('cline', 't0k').mcpServers.luapanda.headers, header);
    assert.deepEqual(jsonOf('roo-code', 't0k').mcpServers.luapanda.headers, header);
    assert.deepEqual(jsonOf('windsurf', 't0k').mcpServers.luapanda.headers, header);
    assert.deepEqual(jsonOf('vscode', 't0k').servers.luapanda.headers, header);
    assert.match(
      clientTemplate('codex', { url: URL_, token: 't0k', bridge }).text,
      /^http_headers = \{ "Authorization" = "Bearer t0k" \}$/m,
    );
  });

  it('Codex is TOML under [mcp_servers.luapanda]', () => {
    const codex = clientTemplate('codex', { url: URL_, bridge });
    assert.equal(codex.language, 'toml');
    assert.equal(codex.text, `[mcp_servers.luapanda]\nurl = "${URL_}"\n`);
  });

  it('names an unknown client in its error', () => {
    assert.throws(
      () => clientTemplate('emacs', { url: URL_, bridge }),
      /Unknown MCP client "emacs"/,
    );
  });
});
