/**
 * Frames on the wire: UTF-8 JSON text, then `|*|`, then LF — one frame per line.
 *
 * Outgoing frames are written exactly as the upstream IDE writes them (`JSON + " |*|\n"`), with
 * every `|` escaped as `\u007c`: upstream's Lua side splits lines on `|*|` with no notion of JSON
 * strings, and its decoder understands `\u` escapes. JSON never holds `|` outside a string, so the
 * escape cannot change the meaning.
 *
 * Incoming bytes are split into lines by split2, so a chunk may end anywhere (inside a multi-byte
 * character too) or carry many frames. A line is one frame: we strip the trailing delimiter and
 * parse the whole rest, so a `|*|` inside a JSON string (which upstream Lua sends raw) is harmless.
 * Every problem becomes a `ProtocolError` and decoding goes on with the next line.
 */
import split2 from 'split2';
import type { Transform } from 'node:stream';
import { ProtocolError, excerptOf } from './errors';

export const FRAME_DELIMITER = '|*|';
/** What we append to outgoing JSON; the space is upstream's, and harmless to every decoder. */
export const OUTGOING_SUFFIX = ' |*|\n';
/** Default cap on one incoming frame. Large tables produce multi-megabyte frames upstream. */
export const DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** Serialises one message into the bytes of one frame. */
export function encodeFrame(message: unknown): string {
  const json = JSON.stringify(message);
  if (json === undefined) {
    throw new TypeError('encodeFrame: the message cannot be represented as JSON');
  }
  return json.replace(/\|/g, '\\u007c') + OUTGOING_SUFFIX;
}

/** A frame that parsed as a JSON value; its shape is checked by the message layer. */
export interface DecodedFrame {
  readonly json: unknown;
  /** The frame's text without the delimiter, for diagnostics. */
  readonly text: string;
}

export interface FrameDecoderOptions {
  /** Frames longer than this many bytes are dropped and reported. */
  maxFrameBytes?: number;
  onFrame: (frame: DecodedFrame) => void;
  onError: (error: ProtocolError) => void;
}

const NEWLINE = 0x0a;
// Control characters that JSON forbids raw inside strings; upstream's Lua encoder emits them raw.
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f]/g;

/**
 * Turns a byte stream into frames. Not a stream itself: `write` delivers every complete frame
 * synchronously, which keeps ordering obvious and lets `end` tell a clean end from a cut frame.
 *
 * Bytes of an unfinished line are held here and handed to split2 only once their newline has
 * arrived, so split2 always sees whole lines: a 1 MB frame arriving in 64 KiB chunks is decoded
 * once instead of being re-split on every chunk, and an oversized line is dropped as soon as it
 * crosses the limit instead of being buffered. A newline byte never occurs inside a multi-byte
 * UTF-8 sequence, so cutting at newlines never splits a character.
 */
export class FrameDecoder {
  private readonly maxFrameBytes: number;
  private readonly splitter: Transform;
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** The current line passed the limit: drop its bytes until its newline. */
  private skipping = false;
  private ended = false;

  constructor(private readonly options: FrameDecoderOptions) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.splitter = split2('\n', (line: string) => this.decodeLine(line));
    this.splitter.on('data', () => {
      /* frames are delivered through onFrame; the stream only needs to flow */
    });
    this.splitter.on('error', (error: Error) => {
      this.options.onError(new ProtocolError('invalid-json', `framing failed: ${error.message}`));
    });
  }

  /** Feeds bytes; complete frames and errors are delivered before this returns. */
  write(chunk: Buffer | string): void {
    if (this.ended) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const lastNewline = bytes.lastIndexOf(NEWLINE);
    if (lastNewline === -1) {
      this.hold(bytes);
      return;
    }
    let from = 0;
    if (this.skipping) {
      // The rest of an oversized line, already reported: drop it.
      from = bytes.indexOf(NEWLINE) + 1;
      this.skipping = false;
    }
    const complete = bytes.subarray(from, lastNewline + 1);
    const lines = this.held.length > 0 ? Buffer.concat([...this.held, complete]) : complete;
    this.held = [];
    this.heldBytes = 0;
    if (lines.length > 0) this.splitter.write(lines);
    this.hold(bytes.subarray(lastNewline + 1));
  }

  /**
   * The byte stream is over. A partial frame left behind (the peer died mid-frame) is reported
   * as `truncated-frame` and discarded.
   */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.heldBytes > 0) {
      this.options.onError(
        new ProtocolError(
          'truncated-frame',
          `The stream ended in the middle of a frame; ${this.heldBytes} bytes were discarded.`,
        ),
      );
    }
    this.held = [];
    this.splitter.destroy();
  }

  /** Keeps the bytes of an unfinished line, or drops them once the line is too large. */
  private hold(bytes: Buffer): void {
    if (this.skipping || bytes.length === 0) return;
    this.heldBytes += bytes.length;
    if (this.heldBytes > this.maxFrameBytes) {
      this.reportTooLarge();
      this.skipping = true;
      this.held = [];
      this.heldBytes = 0;
      return;
    }
    this.held.push(bytes);
  }

  private reportTooLarge(): void {
    this.options.onError(
      new ProtocolError(
        'frame-too-large',
        `A frame exceeded the limit of ${this.maxFrameBytes} bytes and was discarded.`,
      ),
    );
  }

  private decodeLine(line: string): undefined {
    if (isOversized(line, this.maxFrameBytes)) {
      this.reportTooLarge();
      return undefined;
    }
    const trimmed = line.trimEnd();
    if (trimmed.length === 0) return undefined;
    if (!trimmed.endsWith(FRAME_DELIMITER)) {
      this.options.onError(
        new ProtocolError(
          'missing-delimiter',
          `A line did not end with '${FRAME_DELIMITER}' and was discarded.`,
          excerptOf(trimmed),
        ),
      );
      return undefined;
    }
    const text = trimmed.slice(0, -FRAME_DELIMITER.length).trim();
    const json = parseTolerant(text);
    if (json === NOT_JSON) {
      this.options.onError(
        new ProtocolError('invalid-json', 'A frame was not valid JSON.', excerptOf(text)),
      );
      return undefined;
    }
    this.options.onFrame({ json, text });
    return undefined;
  }
}

const NOT_JSON = Symbol('not-json');

/** JSON.parse, retried once with raw control characters escaped (upstream Lua sends them raw). */
function parseTolerant(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    RAW_CONTROL.lastIndex = 0;
    if (!RAW_CONTROL.test(text)) return NOT_JSON;
    try {
      return JSON.parse(
        text.replace(RAW_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
      );
    } catch {
      return NOT_JSON;
    }
  }
}

function isOversized(line: string, maxBytes: number): boolean {
  // A UTF-16 code unit is at least one UTF-8 byte and at most three.
  if (line.length * 3 <= maxBytes) return false;
  if (line.length > maxBytes) return true;
  return Buffer.byteLength(line, 'utf8') > maxBytes;
}
