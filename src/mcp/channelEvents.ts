/**
 * The event side of a DebugChannel, shared by every implementation: listeners for DAP events,
 * session starts and session ends, each returning a Disposable.
 */
import { EventEmitter } from 'node:events';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { DebugEventListener, DebugSessionPort, Disposable } from './channel';

export interface ChannelEventMap {
  event: [DebugSessionPort, DebugProtocol.Event];
  started: [DebugSessionPort];
  ended: [DebugSessionPort];
}

export abstract class ChannelEventSource {
  protected readonly emitter = new EventEmitter<ChannelEventMap>();

  onEvent(listener: DebugEventListener): Disposable {
    this.emitter.on('event', listener);
    return { dispose: () => this.emitter.off('event', listener) };
  }

  onSessionStarted(listener: (session: DebugSessionPort) => void): Disposable {
    this.emitter.on('started', listener);
    return { dispose: () => this.emitter.off('started', listener) };
  }

  onSessionEnded(listener: (session: DebugSessionPort) => void): Disposable {
    this.emitter.on('ended', listener);
    return { dispose: () => this.emitter.off('ended', listener) };
  }
}
