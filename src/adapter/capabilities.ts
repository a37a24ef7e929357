/**
 * What the adapter offers a DAP client, as data: every capability of the Debug Adapter Protocol
 * with our value and a note. The `initialize` response is built from this table and
 * Docs/DAP_Coverage.md is generated from it (a test keeps the two equal), so a claim cannot
 * drift from the code. The `Record` over `keyof Capabilities` makes the compiler insist that every
 * capability is listed.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';

type Capabilities = Required<DebugProtocol.Capabilities>;

interface Entry<K extends keyof Capabilities> {
  readonly value: Capabilities[K] | false;
  readonly note: string;
}

type Table = { readonly [K in keyof Capabilities]: Entry<K> };

/** Every filter takes a condition: text the error message must contain (tested by the runtime). */
const CONDITION = {
  supportsCondition: true,
  conditionDescription:
    'Stop only when the error message contains this text (plain text, not a pattern), e.g. "attempt to index"',
} as const;

export const EXCEPTION_FILTERS: DebugProtocol.ExceptionBreakpointsFilter[] = [
  {
    filter: 'uncaught',
    label: 'Uncaught Errors',
    description: 'Stop when an error is not caught by pcall/xpcall.',
    default: true,
    ...CONDITION,
  },
  {
    filter: 'caught',
    label: 'Caught Errors',
    description: 'Stop on errors that a pcall/xpcall will catch.',
    default: false,
    ...CONDITION,
  },
  {
    filter: 'assert',
    label: 'Failed Assertions',
    description: 'Stop when an assert() fails, caught by pcall/xpcall or not.',
    default: false,
    ...CONDITION,
  },
];

const RUNTIME_NOTE = 'needs our runtime; with upstream LuaPanda.lua';

export const CAPABILITY_TABLE: Table = {
  supportsConfigurationDoneRequest: {
    value: true,
    note: 'the program is held until configurationDone',
  },
  supportsFunctionBreakpoints: {
    value: true,
    note: `names as the call stack shows them (\`Entity:update\`, \`util.helper\`, \`tick\`), found among globals, loaded modules and the tables they hold, and — local classes and local functions — where the workspace's sources define them; stop on entry, with conditions, hit conditions and log messages; unverified until the name's code is loaded; ${RUNTIME_NOTE} they stay unverified`,
  },
  supportsConditionalBreakpoints: {
    value: true,
    note: 'compiled when set: a bad one is unverified with the compiler message (upstream LuaPanda.lua accepts it and never stops there)',
  },
  supportsHitConditionalBreakpoints: {
    value: true,
    note: `\`> N\`, \`>= N\`, \`== N\`, \`< N\`, \`<= N\`, \`% N\`, \`N\`; ${RUNTIME_NOTE} they stay unverified`,
  },
  supportsEvaluateForHovers: {
    value: true,
    note: 'hover and watch evaluate read-only (upstream LuaPanda.lua runs them as they are); repl may assign',
  },
  exceptionBreakpointFilters: {
    value: EXCEPTION_FILTERS,
    note: `uncaught (default) and caught errors, failed assert() calls; ${RUNTIME_NOTE} no exception stops`,
  },
  supportsStepBack: { value: false, note: '' },
  supportsSetVariable: {
    value: true,
    note: `locals, upvalues, globals; table fields ${RUNTIME_NOTE} refused`,
  },
  supportsRestartFrame: { value: false, note: '' },
  supportsGotoTargetsRequest: { value: false, note: '' },
  supportsStepInTargetsRequest: { value: false, note: '' },
  supportsCompletionsRequest: { value: false, note: '' },
  completionTriggerCharacters: { value: false, note: '' },
  supportsModulesRequest: { value: false, note: '' },
  additionalModuleColumns: { value: false, note: '' },
  supportedChecksumAlgorithms: { value: false, note: '' },
  supportsRestartRequest: {
    value: false,
    note: 'the client restarts by stopping and launching again',
  },
  supportsExceptionOptions: { value: false, note: 'filters only' },
  supportsValueFormattingOptions: { value: false, note: '' },
  supportsExceptionInfoRequest: { value: true, note: 'the Lua error message of an exception stop' },
  supportTerminateDebuggee: {
    value: true,
    note: 'disconnect ends a launched program; an attached game is detached from and runs on, even when asked to terminate',
  },
  supportSuspendDebuggee: { value: false, note: '' },
  supportsDelayedStackTraceLoading: { value: true, note: 'startFrame/levels' },
  supportsLoadedSourcesRequest: { value: false, note: '' },
  supportsLogPoints: {
    value: true,
    note: '`{expr}` interpolated by our runtime; upstream prints the text as is',
  },
  supportsTerminateThreadsRequest: { value: false, note: '' },
  supportsSetExpression: { value: false, note: 'use setVariable or the REPL' },
  supportsTerminateRequest: {
    value: true,
    note: 'launch: ends the program; attach: detaches and the game runs on',
  },
  supportsDataBreakpoints: { value: false, note: '' },
  supportsReadMemoryRequest: { value: false, note: '' },
  supportsWriteMemoryRequest: { value: false, note: '' },
  supportsDisassembleRequest: { value: false, note: '' },
  supportsCancelRequest: {
    value: true,
    note: "cancels the attach wait's progress notification (the wait ends at once); other requests are bounded by timeouts instead",
  },
  supportsBreakpointLocationsRequest: { value: false, note: '' },
  supportsClipboardContext: { value: true, note: 'evaluated like a watch' },
  supportsSteppingGranularity: { value: false, note: 'lines only' },
  supportsInstructionBreakpoints: { value: false, note: '' },
  supportsExceptionFilterOptions: {
    value: true,
    note: 'a condition on each filter: text the error message must contain, tested by the runtime before it stops (a plain substring: cheap and predictable); with a runtime older than the feature `exceptionConditions` that filter is off (unverified, with the reason)',
  },
  supportsSingleThreadExecutionRequests: {
    value: false,
    note: 'coroutines stop and resume together',
  },
  supportsDataBreakpointBytes: { value: false, note: '' },
  breakpointModes: { value: false, note: '' },
  supportsANSIStyling: { value: false, note: '' },
};

/** The `initialize` response body: every supported capability with its value. */
export function capabilities(): DebugProtocol.Capabilities {
  const body: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(CAPABILITY_TABLE)) {
    if (entry.value !== false) body[key] = entry.value;
  }
  return body as DebugProtocol.Capabilities;
}

/** Docs/DAP_Coverage.md, generated from the table. */
export function renderCoverage(): string {
  const rows = Object.entries(CAPABILITY_TABLE).map(([key, entry]) => {
    const supported = entry.value === false ? 'no' : 'yes';
    return `| \`${key}\` | ${supported} | ${entry.note} |`;
  });
  return [
    '# DAP capability coverage',
    '',
    'Every capability of the Debug Adapter Protocol and whether the `luapanda` adapter supports',
    'it. Generated from `src/adapter/capabilities.ts` (a test checks that this file matches; run',
    'the adapter tests with `UPDATE_GOLDEN=1` to regenerate it).',
    '',
    'Requests served: initialize, launch, attach, configurationDone, setBreakpoints,',
    'setFunctionBreakpoints, setExceptionBreakpoints, threads, stackTrace, scopes, variables (with paging), evaluate (watch,',
    'hover, repl, clipboard), setVariable, continue, next, stepIn, stepOut, pause, exceptionInfo,',
    'disconnect, terminate, cancel (of the attach progress), and the custom `luapanda/hotReload`',
    '(`{path, source?}`: load a changed file into the program, stopped or running; the response',
    'body is the report: replaced, added, not found, not replaced, still running), and the custom',
    '`luapanda/changes` (no arguments: the values of the top frame that differ from the last stop',
    'in the same function, `{changes: [{scope, name, old, new}]}`; in variables responses they',
    'carry the presentation attribute `changed`, and for VS Code their old value as `  (was …)`).',
    '',
    'Events beyond the usual ones: `progressStart`/`progressEnd` around the attach wait (for clients',
    'that report progress; they then get the attach response at once), and the custom',
    '`luapandaEnded` (why the session ended, with the error code if one ended it) just before',
    '`terminated`.',
    '',
    '| capability | supported | notes |',
    '| --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
