/**
 * Helpers of the stdio transport tests: an SDK Client on a child process's stdio (the stdio server
 * or the bridge), and the progress-and-cancellation exchange both must pass through unchanged.
 */
import * as assert from 'node:assert/strict';
import type { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { textOf } from './helpers';

export async function waitFor(
  check: () => boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface StdioClient {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  /** Errors of the client (a non-JSON line on stdout would be one). */
  errors: string[];
}

export async function connectStdio(args: string[]): Promise<StdioClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    stderr: 'pipe',
  });
  let stderr = '';
  (transport.stderr as PassThrough | null)?.on('data', (chunk: Buffer) => (stderr += chunk));
  const client = new Client(
    { name: 'stdio-test-client', version: '1.0.0' },
    { capabilities: { roots: {} } },
  );
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [{ uri: 'file:///game', name: 'game' }],
  }));
  const errors: string[] = [];
  client.onerror = (error) => errors.push(error.message);
  await client.connect(transport);
  return { client, transport, stderr: () => stderr, errors };
}

/** Exercises progress and cancellation through `client`, returning once the handler saw the abort. */
export async function progressAndCancel(
  client: Client,
  handlerAborted: () => Promise<void>,
): Promise<void> {
  const seen: number[] = [];
  let sawAll!: () => void;
  const allSeen = new Promise<void>((resolve) => (sawAll = resolve));
  const call = client.callTool(
    { name: 'progress', arguments: { steps: 4, hold: true } },
    undefined,
    {
      onprogress: (progress) => {
        seen.push(progress.progress);
        if (seen.length === 4) sawAll();
      },
    },
  );
  await allSeen;
  assert.equal(textOf(await client.callTool({ name: 'release', arguments: {} })), '1');
  assert.equal(textOf(await call), 'done after 4 steps');
  assert.deepEqual(seen, [1, 2, 3, 4]);

  const controller = new AbortController();
  const cancelled = client.callTool({ name: 'wait_for_cancel', arguments: {} }, undefined, {
    signal: controller.signal,
    onprogress: () => controller.abort('cancelled by the test'),
  });
  await assert.rejects(cancelled, /cancelled by the test/);
  await handlerAborted();
}
