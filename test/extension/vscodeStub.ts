/**
 * A sinon-stubbed `vscode` module for the extension's unit tests (the only place anything is
 * mocked: the real module exists only inside an extension host). Importing this file first makes
 * `require('vscode')` return `vscode` below; each test resets it with `resetVscode()`.
 */
import Module from 'node:module';
import * as sinon from 'sinon';

export class EventEmitter<T> {
  private listeners: ((value: T) => void)[] = [];
  readonly event = (listener: (value: T) => void): { dispose(): void } => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly fsPath: string,
    private readonly text: string,
  ) {}
  static file(path: string): Uri {
    return new Uri('file', path, `file://${path}`);
  }
  static parse(text: string): Uri {
    return new Uri(new URL(text).protocol.replace(':', ''), '', text);
  }
  static from(parts: { scheme: string; path: string }): Uri {
    return new Uri(parts.scheme, parts.path, `${parts.scheme}:${encodeURI(parts.path)}`);
  }
  get path(): string {
    return this.scheme === 'file'
      ? this.fsPath
      : decodeURI(this.text.slice(this.scheme.length + 1));
  }
  toString(): string {
    return this.text;
  }
}

export class Location {
  readonly range: { start: Position; end: Position };
  constructor(
    readonly uri: Uri,
    position: Position,
  ) {
    this.range = { start: position, end: position };
  }
}

let breakpointCounter = 0;
export class SourceBreakpoint {
  readonly id = `bp-${++breakpointCounter}`;
  constructor(
    readonly location: Location,
    readonly enabled = true,
    readonly condition?: string,
    readonly hitCondition?: string,
    readonly logMessage?: string,
  ) {}
}

export class FunctionBreakpoint {
  readonly id = `bp-${++breakpointCounter}`;
  constructor(
    readonly functionName: string,
    readonly enabled = true,
    readonly condition?: string,
    readonly hitCondition?: string,
    readonly logMessage?: string,
  ) {}
}

/** VS Code's language-model tool result classes and CancellationError, as the API defines them. */
export class LanguageModelTextPart {
  constructor(readonly value: string) {}
}
export class LanguageModelToolResult {
  constructor(readonly content: unknown[]) {}
}
export class MarkdownString {
  constructor(readonly value = '') {}
}
export class CancellationError extends Error {
  constructor() {
    super('Canceled');
    this.name = 'Canceled';
  }
}

export interface FakeStatusBarItem {
  alignment: number;
  priority?: number;
  text: string;
  tooltip?: string;
  name?: string;
  command?: string;
  backgroundColor?: ThemeColor;
  visible: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

function statusBarItem(_id: string, alignment: number, priority?: number): FakeStatusBarItem {
  const item: FakeStatusBarItem = {
    alignment,
    priority,
    text: '',
    visible: false,
    show: () => void (item.visible = true),
    hide: () => void (item.visible = false),
    dispose: () => void (item.visible = false),
  };
  return item;
}

/** A text document as the stubbed `workspace.openTextDocument` makes it. */
export interface FakeTextDocument {
  readonly uri: Uri;
  languageId: string;
  readonly isUntitled: boolean;
  readonly isDirty: boolean;
  getText(): string;
}

interface ContentProvider {
  provideTextDocumentContent(uri: Uri): string;
  onDidChange?: (listener: (uri: Uri) => void) => { dispose(): void };
}

/** The content providers registered with `workspace.registerTextDocumentContentProvider`. */
export const contentProviders = new Map<string, ContentProvider>();

const LANGUAGES: Record<string, string> = { md: 'markdown', json: 'json', sh: 'shellscript' };

function openTextDocument(target: Uri | { content?: string; language?: string }): FakeTextDocument {
  if (target instanceof Uri) {
    const provider = contentProviders.get(target.scheme);
    if (!provider) throw new Error(`no content provider for ${target.toString()}`);
    const extension = /\.(\w+)$/.exec(target.path)?.[1] ?? '';
    return {
      uri: target,
      languageId: LANGUAGES[extension] ?? 'plaintext',
      isUntitled: false,
      isDirty: false,
      getText: () => provider.provideTextDocumentContent(target),
    };
  }
  // What VS Code makes of `{ content }`: an Untitled document with unsaved text.
  const text = target.content ?? '';
  return {
    uri: Uri.parse(`untitled:Untitled-1`),
    languageId: target.language ?? 'plaintext',
    isUntitled: true,
    isDirty: text !== '',
    getText: () => text,
  };
}

const settings = new Map<string, unknown>();
/** The handlers registered with `commands.registerCommand`, by command id. */
export const registeredCommands = new Map<string, (...args: unknown[]) => unknown>();
export const documentSaved = new EventEmitter<unknown>();
export const sessionTerminated = new EventEmitter<unknown>();
/** The tracker factories registered with `debug.registerDebugAdapterTrackerFactory`. */
export const trackerFactories: {
  type: string;
  factory: { createDebugAdapterTracker(session: unknown): unknown };
}[] = [];
type AnyBreakpoint = SourceBreakpoint | FunctionBreakpoint;
const breakpointsChanged = new EventEmitter<{
  added: AnyBreakpoint[];
  removed: AnyBreakpoint[];
  changed: AnyBreakpoint[];
}>();

export const vscode = {
  StatusBarAlignment: { Left: 1, Right: 2 },
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  EventEmitter,
  ThemeColor,
  Position,
  Uri,
  Location,
  SourceBreakpoint,
  FunctionBreakpoint,
  LanguageModelTextPart,
  LanguageModelToolResult,
  MarkdownString,
  CancellationError,
  commands: {
    registerCommand: sinon
      .stub()
      .callsFake((command: string, handler: (...args: unknown[]) => unknown) => {
        if (registeredCommands.has(command)) throw new Error(`command '${command}' already exists`);
        registeredCommands.set(command, handler);
        return { dispose: () => void registeredCommands.delete(command) };
      }),
    executeCommand: sinon.stub().resolves(undefined),
  },
  window: {
    showWarningMessage: sinon.stub(),
    showInformationMessage: sinon.stub(),
    showErrorMessage: sinon.stub(),
    showQuickPick: sinon.stub().resolves(undefined),
    createStatusBarItem: sinon.stub().callsFake(statusBarItem),
    showTextDocument: sinon
      .stub()
      .callsFake(async (document: FakeTextDocument) => ({ document }) as unknown),
    setStatusBarMessage: sinon.stub(),
    /** A log output channel that records what it was given (`lines`). */
    createOutputChannel: sinon.stub().callsFake((name: string) => {
      const lines: string[] = [];
      return { name, lines, info: (text: string) => lines.push(text), dispose: sinon.stub() };
    }),
    activeTextEditor: undefined as { document: unknown } | undefined,
  },
  languages: {
    setTextDocumentLanguage: sinon
      .stub()
      .callsFake(async (document: FakeTextDocument, language: string) => {
        document.languageId = language;
        return document;
      }),
  },
  workspace: {
    workspaceFolders: undefined as { uri: Uri }[] | undefined,
    /** The documents open in editors (`workspace.textDocuments`). */
    textDocuments: [] as unknown[],
    onDidSaveTextDocument: documentSaved.event,
    registerTextDocumentContentProvider: sinon
      .stub()
      .callsFake((scheme: string, provider: ContentProvider) => {
        contentProviders.set(scheme, provider);
        return { dispose: () => void contentProviders.delete(scheme) };
      }),
    openTextDocument: sinon
      .stub()
      .callsFake(async (target: Parameters<typeof openTextDocument>[0]) =>
        openTextDocument(target),
      ),
    getConfiguration: sinon.stub().callsFake((section: string) => ({
      get: <T>(key: string, fallback: T): T =>
        settings.has(`${section}.${key}`) ? (settings.get(`${section}.${key}`) as T) : fallback,
      update: async (key: string, value: unknown) => void settings.set(`${section}.${key}`, value),
    })),
  },
  debug: {
    activeDebugSession: undefined as
      | { id: string; type?: string; customRequest?: (command: string, args?: unknown) => unknown }
      | undefined,
    registerDebugAdapterTrackerFactory: sinon
      .stub()
      .callsFake((type: string, factory: (typeof trackerFactories)[number]['factory']) => {
        const entry = { type, factory };
        trackerFactories.push(entry);
        return { dispose: () => void trackerFactories.splice(trackerFactories.indexOf(entry), 1) };
      }),
    onDidTerminateDebugSession: sessionTerminated.event,
    startDebugging: sinon.stub(),
    stopDebugging: sinon.stub(),
    breakpoints: [] as AnyBreakpoint[],
    onDidChangeBreakpoints: breakpointsChanged.event,
    addBreakpoints: sinon.stub().callsFake((added: AnyBreakpoint[]) => {
      vscode.debug.breakpoints.push(...added);
      breakpointsChanged.fire({ added, removed: [], changed: [] });
    }),
    removeBreakpoints: sinon.stub().callsFake((removed: AnyBreakpoint[]) => {
      vscode.debug.breakpoints = vscode.debug.breakpoints.filter((bp) => !removed.includes(bp));
      breakpointsChanged.fire({ added: [], removed, changed: [] });
    }),
  },
};

/** Sets `luapanda.*` settings as `getConfiguration('luapanda').get(key)` returns them. */
export function setSetting(key: string, value: unknown): void {
  settings.set(key, value);
}

export function resetVscode(): void {
  settings.clear();
  registeredCommands.clear();
  vscode.debug.activeDebugSession = undefined;
  vscode.debug.breakpoints = [];
  vscode.workspace.workspaceFolders = undefined;
  vscode.workspace.textDocuments = [];
  vscode.window.activeTextEditor = undefined;
  vscode.debug.startDebugging.reset();
  vscode.debug.stopDebugging.reset();
  for (const group of [
    vscode.window,
    vscode.debug,
    vscode.workspace,
    vscode.languages,
    vscode.commands,
  ]) {
    for (const value of Object.values(group)) {
      if (typeof value === 'function' && 'resetHistory' in value)
        (value as sinon.SinonStub).resetHistory();
    }
  }
  vscode.window.showWarningMessage.reset();
  vscode.window.showInformationMessage.reset();
  vscode.window.showErrorMessage.reset();
  vscode.window.showQuickPick.reset();
  vscode.window.showQuickPick.resolves(undefined);
}

type ModuleInternals = {
  _resolveFilename: (request: string, ...rest: unknown[]) => string;
};
const internals = Module as unknown as ModuleInternals;
const resolve = internals._resolveFilename;
internals._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
  return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
};
require.cache.vscode = {
  id: 'vscode',
  filename: 'vscode',
  loaded: true,
  exports: vscode,
} as unknown as NodeJS.Module;
