/** Registration with the editors' own MCP APIs, feature-detected, with stand-ins for the APIs. */
import { EventEmitter, Uri, resetVscode, vscode } from './vscodeStub';
import * as assert from 'node:assert/strict';
import * as sinon from 'sinon';
import {
  McpRegistration,
  PROVIDER_ID,
  SERVER_LABEL,
} from '../../src/extension/mcpServer/mcpRegistration';

class McpHttpServerDefinition {
  constructor(
    readonly label: string,
    readonly uri: Uri,
    readonly headers?: Record<string, string>,
    readonly version?: string,
  ) {}
}

interface Provider {
  onDidChangeMcpServerDefinitions: EventEmitter<void>['event'];
  provideMcpServerDefinitions(): McpHttpServerDefinition[];
}

describe('extension: MCP registration with VS Code and Cursor', () => {
  beforeEach(() => resetVscode());

  it('without the APIs (VS Code before 1.101, no Cursor) it registers nothing and does not fail', () => {
    const registration = new McpRegistration(() => undefined, { ...vscode });
    registration.update({ url: 'http://127.0.0.1:6009/mcp', version: '1' });
    assert.deepEqual(registration.registeredWith, []);
    registration.dispose();
  });

  it('VS Code: a provider whose definition follows the server', () => {
    let provider: Provider | undefined;
    const registerMcpServerDefinitionProvider = sinon.spy((_id: string, p: Provider) => {
      provider = p;
      return { dispose: () => undefined };
    });
    const registration = new McpRegistration(() => undefined, {
      ...vscode,
      McpHttpServerDefinition,
      lm: { registerMcpServerDefinitionProvider },
    });
    assert.deepEqual(registration.registeredWith, ['vscode.lm']);
    assert.equal(registerMcpServerDefinitionProvider.firstCall.args[0], PROVIDER_ID);
    assert.deepEqual(provider!.provideMcpServerDefinitions(), []);
    let changes = 0;
    provider!.onDidChangeMcpServerDefinitions(() => changes++);

    registration.update({ url: 'http://127.0.0.1:7001/mcp', token: 'tk', version: '0.1.0' });
    const [definition] = provider!.provideMcpServerDefinitions();
    assert.equal(definition.label, SERVER_LABEL);
    assert.equal(definition.uri.toString(), 'http://127.0.0.1:7001/mcp');
    assert.deepEqual(definition.headers, { Authorization: 'Bearer tk' });
    assert.equal(changes, 1);
    registration.update({ url: 'http://127.0.0.1:7001/mcp', token: 'tk', version: '0.1.0' });
    assert.equal(changes, 1, 'no change, no event');
    registration.update(undefined);
    assert.deepEqual(provider!.provideMcpServerDefinitions(), []);
    assert.equal(changes, 2);
    registration.dispose();
  });

  it('Cursor: registerServer / unregisterServer follow the server', () => {
    const registerServer = sinon.spy();
    const unregisterServer = sinon.spy();
    const registration = new McpRegistration(() => undefined, {
      ...vscode,
      cursor: { mcp: { registerServer, unregisterServer } },
    });
    assert.deepEqual(registration.registeredWith, ['cursor']);
    registration.update({ url: 'http://127.0.0.1:6009/mcp', version: '1' });
    assert.deepEqual(registerServer.firstCall.args[0], {
      name: 'luapanda',
      server: { url: 'http://127.0.0.1:6009/mcp' },
    });
    registration.update({ url: 'http://127.0.0.1:6010/mcp', token: 'x', version: '1' });
    assert.equal(unregisterServer.callCount, 1);
    assert.deepEqual(registerServer.secondCall.args[0].server, {
      url: 'http://127.0.0.1:6010/mcp',
      headers: { Authorization: 'Bearer x' },
    });
    registration.update(undefined);
    assert.equal(unregisterServer.callCount, 2);
    assert.equal(registerServer.callCount, 2);
    registration.dispose();
    assert.equal(unregisterServer.callCount, 2, 'nothing left to unregister');
  });
});
