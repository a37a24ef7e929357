/**
 * The "LuaPanda Trace" log output channel: where the lines of a `trace` launch attribute go in
 * VS Code (rather than the Debug Console, which they would flood). Made on the first line, so
 * that a user who never traces never sees it.
 */
import * as vscode from 'vscode';
import type { TraceSink } from '../../common/trace';

export const TRACE_CHANNEL_NAME = 'LuaPanda Trace';

export class TraceChannel implements vscode.Disposable {
  private channel: vscode.LogOutputChannel | undefined;

  /** Writes each line at info level (the channel adds the time). */
  readonly sink: TraceSink = (tag, text) => {
    this.channel ??= vscode.window.createOutputChannel(TRACE_CHANNEL_NAME, { log: true });
    this.channel.info(`[${tag}] ${text}`);
  };

  dispose(): void {
    this.channel?.dispose();
    this.channel = undefined;
  }
}
