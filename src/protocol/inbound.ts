/**
 * Classifies decoded frames from the Lua side: a reply (it carries a callbackId) or a
 * notification (stop, memory, log, breakpoints bound). Unknown commands and malformed payloads become
 * `ProtocolError`s instead of exceptions, so one bad frame never stops the ones after it.
 */
import { z } from 'zod';
import { STOP_COMMANDS, StopCommand } from './contract';
import { ProtocolError, excerptOf } from './errors';
import {
  LuaNotification,
  luaNotificationSchemas,
  replySchemas,
  stopNotificationSchema,
} from './messages';
import { Envelope, envelopeSchema } from './wireTypes';

export type Inbound =
  | { readonly kind: 'reply'; readonly envelope: Envelope & { callbackId: string } }
  | { readonly kind: 'notification'; readonly notification: LuaNotification }
  /** A reply frame without an id, e.g. Lua's answer to the id-less breakpoint replay. */
  | { readonly kind: 'unsolicited-reply'; readonly cmd: string }
  | { readonly kind: 'error'; readonly error: ProtocolError };

const stopCommands: ReadonlySet<string> = new Set(STOP_COMMANDS);

export function classifyFrame(json: unknown, text: string): Inbound {
  const parsed = envelopeSchema.safeParse(json);
  if (!parsed.success) {
    return {
      kind: 'error',
      error: new ProtocolError(
        'invalid-envelope',
        `A frame is not a LuaPanda message (${describeIssues(parsed.error)}).`,
        excerptOf(text),
      ),
    };
  }
  const envelope = parsed.data;
  if (envelope.callbackId !== null) {
    return { kind: 'reply', envelope: { ...envelope, callbackId: envelope.callbackId } };
  }
  const { cmd } = envelope;
  if (stopCommands.has(cmd)) {
    const stop = stopNotificationSchema.safeParse({ stack: envelope.stack, info: envelope.info });
    if (!stop.success) return invalid(cmd, stop.error, text);
    return {
      kind: 'notification',
      notification: { kind: 'stop', cmd: cmd as StopCommand, ...stop.data },
    };
  }
  switch (cmd) {
    case 'refreshLuaMemory': {
      const memory = luaNotificationSchemas.refreshLuaMemory.safeParse(envelope.info);
      if (!memory.success) return invalid(cmd, memory.error, text);
      return {
        kind: 'notification',
        notification: { kind: 'memory', cmd, kilobytes: memory.data.memInfo },
      };
    }
    case 'output':
    case 'tip':
    case 'tipError':
    case 'debug_console': {
      const log = luaNotificationSchemas[cmd].safeParse(envelope.info);
      if (!log.success) return invalid(cmd, log.error, text);
      return { kind: 'notification', notification: { kind: 'log', cmd, text: log.data.logInfo } };
    }
    case 'trace': {
      const trace = luaNotificationSchemas.trace.safeParse(envelope.info);
      if (!trace.success) return invalid(cmd, trace.error, text);
      return {
        kind: 'notification',
        notification: { kind: 'trace', cmd, text: trace.data.logInfo },
      };
    }
    case 'breakpointsBound': {
      const bound = luaNotificationSchemas.breakpointsBound.safeParse(envelope.info);
      if (!bound.success) return invalid(cmd, bound.error, text);
      return { kind: 'notification', notification: { kind: 'bound', cmd, ...bound.data } };
    }
    case 'functionBreakpointsBound': {
      const bound = luaNotificationSchemas.functionBreakpointsBound.safeParse(envelope.info);
      if (!bound.success) return invalid(cmd, bound.error, text);
      return { kind: 'notification', notification: { kind: 'functionsBound', cmd, ...bound.data } };
    }
    case 'collectHit': {
      const hit = luaNotificationSchemas.collectHit.safeParse(envelope.info);
      if (!hit.success) return invalid(cmd, hit.error, text);
      return { kind: 'notification', notification: { kind: 'collect', cmd, hit: hit.data } };
    }
  }
  if (cmd in replySchemas) return { kind: 'unsolicited-reply', cmd };
  return {
    kind: 'error',
    error: new ProtocolError(
      'unknown-command',
      `The Lua side sent an unknown command '${cmd}'; ignored.`,
      excerptOf(text),
    ),
  };
}

function invalid(cmd: string, error: z.ZodError, text: string): Inbound {
  return {
    kind: 'error',
    error: new ProtocolError(
      'invalid-message',
      `A '${cmd}' frame has an unexpected shape (${describeIssues(error)}); ignored.`,
      excerptOf(text),
    ),
  };
}

/** A one-line summary of zod issues, capped so a huge payload cannot make a huge message. */
export function describeIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 3).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join('.') : 'message';
    return `${where}: ${issue.message}`;
  });
  const more = error.issues.length > 3 ? `; and ${error.issues.length - 3} more` : '';
  return parts.join('; ') + more;
}
