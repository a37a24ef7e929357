/**
 * The error autopsy of an exception stop (`stop_event_data.error_autopsy`): the message, whether
 * the error is caught, the frame that raised it, the first frame of the user's own code
 * (userCode.ts), the locals and source lines of the first user frames, and for a caught error the
 * program's pcall/xpcall call that catches it — all an agent needs to judge an error in one
 * result. Bounded on its own (AUTOPSY_BUDGET_BYTES) with `truncated` saying what was cut, and cut
 * further by the stop budget (stopBudget.ts) through shrinkAutopsy.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { z } from 'zod';
import { plainValueOf } from '../../adapter/changesRequest';
import { caughtAtSchema } from '../../adapter/exceptionInfoBody';
import type { DebugSessionPort } from '../channel';
import { adapterId, count } from '../schemaIds';
import { readSourceLines, sourceLineSchema } from './sourceLines';
import { isUserCode } from './userCode';

/** User frames that get their locals and source lines. */
export const AUTOPSY_FRAMES = 3;
/** Locals shown per user frame, and the length of one value. */
export const AUTOPSY_LOCALS = 10;
export const AUTOPSY_VALUE_CHARS = 80;
/** The autopsy's own share of the stop data (STOP_BUDGET_BYTES). */
export const AUTOPSY_BUDGET_BYTES = 3 * 1024;
/** The marker a cut leaves, so that an agent knows to ask get_variables / get_stack_trace. */
export const AUTOPSY_CUT = 'cut to fit the stop data; get_variables / get_stack_trace give all';

const placeSchema = z.object({
  frame_id: adapterId().optional(),
  function_name: z.string().optional(),
  file_path: z.string().optional(),
  line: count(),
});

const userFrameSchema = placeSchema.extend({
  locals: z.array(z.object({ name: z.string(), value: z.string() })).optional(),
  locals_truncated: z.boolean().optional(),
  source_lines: z.array(sourceLineSchema).optional(),
});
type UserFrame = z.infer<typeof userFrameSchema>;

export const autopsySchema = z.object({
  message: z.string().optional(),
  caught: z.boolean().optional(),
  raised_at: placeSchema.optional(),
  first_user_frame: placeSchema.optional(),
  user_frames: z.array(userFrameSchema),
  caught_at: placeSchema.extend({ text: z.string().optional() }).optional(),
  truncated: z.string().optional(),
});
export type Autopsy = z.infer<typeof autopsySchema>;

/** What the adapter's exceptionInfo says (our adapter adds `caughtAt`); undefined if it fails. */
export interface ExceptionFacts {
  readonly text?: string;
  readonly caught?: boolean;
  readonly caughtAt?: z.infer<typeof caughtAtSchema>;
}

export async function readExceptionFacts(
  session: DebugSessionPort,
  threadId: number,
): Promise<ExceptionFacts | undefined> {
  try {
    const info = (await session.customRequest('exceptionInfo', { threadId })) as Record<
      string,
      unknown
    > &
      DebugProtocol.ExceptionInfoResponse['body'];
    const at = caughtAtSchema.safeParse(info.caughtAt);
    return {
      text: info.description ?? info.exceptionId,
      caught:
        info.breakMode === 'unhandled' ? false : info.breakMode === 'always' ? true : undefined,
      ...(at.success ? { caughtAt: at.data } : {}),
    };
  } catch {
    return undefined;
  }
}

function place(frame: DebugProtocol.StackFrame): z.infer<typeof placeSchema> {
  const path = frame.source?.path ?? frame.source?.name;
  return {
    frame_id: frame.id,
    function_name: frame.name,
    ...(path !== undefined ? { file_path: path } : {}),
    line: frame.line,
  };
}

/** A frame's main scope's first locals, values shortened; undefined when unreadable. */
async function localsOf(
  session: DebugSessionPort,
  frameId: number,
): Promise<{ locals: { name: string; value: string }[]; more: boolean } | undefined> {
  try {
    const { scopes } = (await session.customRequest('scopes', {
      frameId,
    })) as DebugProtocol.ScopesResponse['body'];
    const scope =
      scopes.find((s) => !s.expensive && /local/i.test(s.name)) ?? scopes.find((s) => !s.expensive);
    if (!scope || scope.variablesReference === 0) return undefined;
    const { variables } = (await session.customRequest('variables', {
      variablesReference: scope.variablesReference,
      start: 0,
      count: AUTOPSY_LOCALS + 1,
    })) as DebugProtocol.VariablesResponse['body'];
    return {
      locals: variables
        .slice(0, AUTOPSY_LOCALS)
        .map((v) => ({ name: v.name, value: cut(plainValueOf(v), AUTOPSY_VALUE_CHARS) })),
      more: variables.length > AUTOPSY_LOCALS,
    };
  } catch {
    return undefined;
  }
}

function cut(value: string, max: number): string {
  const flat = value.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}… (${flat.length} chars)` : flat;
}

/**
 * The autopsy of an exception stop. `frames`: the stop's call stack, top first (the top is the
 * frame that raised the error: the runtime leaves out `error` itself and its own frames).
 */
export async function buildAutopsy(
  session: DebugSessionPort,
  frames: readonly DebugProtocol.StackFrame[],
  facts: ExceptionFacts | undefined,
  workspaceFolders: readonly string[],
): Promise<Autopsy> {
  const top = frames[0];
  const users = frames.filter((f) => isUserCode(f.source?.path, workspaceFolders));
  const userFrames = await Promise.all(
    users.slice(0, AUTOPSY_FRAMES).map(async (frame): Promise<UserFrame> => {
      const [locals, lines] = await Promise.all([
        localsOf(session, frame.id),
        readSourceLines(frame.source?.path, frame.line),
      ]);
      return {
        ...place(frame),
        ...(locals ? { locals: locals.locals } : {}),
        ...(locals?.more ? { locals_truncated: true } : {}),
        ...(lines ? { source_lines: lines } : {}),
      };
    }),
  );
  const first = users[0];
  return fitAutopsy({
    ...(facts?.text !== undefined ? { message: facts.text } : {}),
    ...(facts?.caught !== undefined ? { caught: facts.caught } : {}),
    ...(top ? { raised_at: place(top) } : {}),
    ...(first ? { first_user_frame: place(first) } : {}),
    user_frames: userFrames,
    ...(facts?.caughtAt ? { caught_at: await caughtPlace(facts.caughtAt, frames) } : {}),
  });
}

/** The catch site, with the frame that made the call when the stack shows it, and its line. */
async function caughtPlace(
  at: z.infer<typeof caughtAtSchema>,
  frames: readonly DebugProtocol.StackFrame[],
): Promise<NonNullable<Autopsy['caught_at']>> {
  const path = at.source.path;
  // The frame below the protected call: the first one, past the raising frames, on that line.
  const frame = frames.find(
    (f, i) => i > 0 && f.line === at.line && (f.source?.path ?? f.source?.name) === path,
  );
  const lines = await readSourceLines(path, at.line, 0);
  const text = lines?.[0]?.text.trim();
  return {
    ...(frame ? { frame_id: frame.id, function_name: frame.name } : {}),
    file_path: path ?? at.source.name,
    line: at.line,
    ...(text ? { text } : {}),
  };
}

function byteSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/** Cuts the autopsy to its own budget. */
export function fitAutopsy(autopsy: Autopsy, maxBytes = AUTOPSY_BUDGET_BYTES): Autopsy {
  let current = autopsy;
  for (let round = 0; round < 50 && byteSize(current) > maxBytes; round++) {
    const next = shrinkOnce(current);
    if (!next) break;
    current = next;
  }
  return current;
}

/**
 * One cut, least useful first: the deepest user frame's locals past three, its source lines, then
 * the frame itself (never the first); the message last, shortened. Undefined: nothing left to cut.
 */
export function shrinkOnce(autopsy: Autopsy): Autopsy | undefined {
  const frames = autopsy.user_frames;
  const marked = (user_frames: UserFrame[]): Autopsy => ({
    ...autopsy,
    user_frames,
    truncated: AUTOPSY_CUT,
  });
  for (let i = frames.length - 1; i >= 0; i--) {
    const f = frames[i];
    if (f?.locals && f.locals.length > 3) {
      return marked(
        frames.map((g, j) =>
          j === i ? { ...g, locals: f.locals?.slice(0, 3), locals_truncated: true } : g,
        ),
      );
    }
  }
  for (let i = frames.length - 1; i >= 1; i--) {
    const f = frames[i];
    if (f?.source_lines) {
      const rest = { ...f };
      delete rest.source_lines;
      return marked(frames.map((g, j) => (j === i ? rest : g)));
    }
  }
  if (frames.length > 1) return marked(frames.slice(0, -1));
  const message = autopsy.message;
  if (message !== undefined && message.length > 200) {
    return { ...autopsy, message: cut(message, 200), truncated: AUTOPSY_CUT };
  }
  const only = frames[0];
  if (only?.source_lines || only?.locals) {
    return marked([{ ...place0(only), ...(only.locals ? { locals_truncated: true } : {}) }]);
  }
  return undefined;
}

function place0(frame: UserFrame): UserFrame {
  return {
    ...(frame.frame_id !== undefined ? { frame_id: frame.frame_id } : {}),
    ...(frame.function_name !== undefined ? { function_name: frame.function_name } : {}),
    ...(frame.file_path !== undefined ? { file_path: frame.file_path } : {}),
    line: frame.line,
  };
}
