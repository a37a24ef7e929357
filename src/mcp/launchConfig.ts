/**
 * Reads `.vscode/launch.json` as VS Code does — JSON with comments and trailing commas — and,
 * for headless sessions, resolves the variables VS Code would (`${workspaceFolder}`,
 * `${env:NAME}`, …). Inside VS Code, `startDebugging` resolves them itself.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { LaunchConfiguration } from './channel';

export class LaunchConfigError extends Error {
  override readonly name = 'LaunchConfigError';
}

/** The configurations of `<folder>/.vscode/launch.json`; throws LaunchConfigError with a reason. */
export async function readLaunchConfigurations(folder: string): Promise<LaunchConfiguration[]> {
  const file = path.join(folder, '.vscode', 'launch.json');
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new LaunchConfigError(
      code === 'ENOENT'
        ? `No .vscode/launch.json in the workspace folder ${folder}. Create one with a "configurations" array.`
        : `Could not read .vscode/launch.json: ${(error as Error).message}`,
    );
  }
  const errors: ParseError[] = [];
  const document: unknown = parse(text, errors, {
    allowTrailingComma: true,
    disallowComments: false,
  });
  if (errors.length > 0) {
    const first = errors[0];
    const line = text.slice(0, first.offset).split('\n').length;
    throw new LaunchConfigError(
      `.vscode/launch.json cannot be parsed: ${printParseErrorCode(first.error)} at line ${line}.`,
    );
  }
  const configurations = (document as { configurations?: unknown } | undefined)?.configurations;
  if (!Array.isArray(configurations)) {
    throw new LaunchConfigError('.vscode/launch.json has no "configurations" array.');
  }
  return configurations.filter(isConfiguration);
}

function isConfiguration(value: unknown): value is LaunchConfiguration {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return typeof v.name === 'string' && typeof v.type === 'string' && typeof v.request === 'string';
}

/** What VS Code knows when it starts a configuration and a headless server does not. */
export interface EditorContext {
  /** The file of the active editor, from which VS Code resolves `${file}` and its kin. */
  readonly file?: string;
}

/**
 * A variable only VS Code resolves here (an editor's file, `${input:…}`, `${command:…}`…). Its
 * meaning depends on where the configuration runs: VS Code resolves it when it starts the
 * session, the headless `luapanda-mcp` never can.
 */
export class VscodeOnlyVariableError extends LaunchConfigError {
  constructor(
    readonly configuration: string,
    readonly variable: string,
    message: string,
  ) {
    super(message);
  }
}

/** The variables VS Code resolves from the active editor's file. */
function editorVariable(name: string, file: string, workspaceFolder: string): string | undefined {
  switch (name) {
    case 'file':
      return file;
    case 'fileBasename':
      return path.basename(file);
    case 'fileBasenameNoExtension':
      return path.basename(file, path.extname(file));
    case 'fileExtname':
      return path.extname(file);
    case 'fileDirname':
      return path.dirname(file);
    case 'fileDirnameBasename':
      return path.basename(path.dirname(file));
    case 'relativeFile':
      return path.relative(workspaceFolder, file);
    case 'relativeFileDirname':
      return path.relative(workspaceFolder, path.dirname(file));
    case 'fileWorkspaceFolder':
      return workspaceFolder;
    default:
      return undefined;
  }
}

/**
 * Replaces VS Code's predefined variables in every string of `config`. Without `editor` (the
 * headless server) a variable that needs an editor (`${file}`) is an error naming it; with it
 * (VS Code's view, for checks inside VS Code), `${file}` and its kin are the editor's file, and
 * only a variable VS Code alone can answer at launch (`${input:…}`, or `${file}` with no editor
 * open) is a VscodeOnlyVariableError.
 */
export function resolveVariables(
  config: LaunchConfiguration,
  workspaceFolder: string,
  editor?: EditorContext,
): LaunchConfiguration {
  const replace = (text: string): string =>
    text.replace(/\$\{([^}]+)\}/g, (whole, name: string) => {
      if (name.startsWith('env:')) return process.env[name.slice(4)] ?? '';
      switch (name) {
        case 'workspaceFolder':
        case 'workspaceRoot':
          return workspaceFolder;
        case 'workspaceFolderBasename':
          return path.basename(workspaceFolder);
        case 'userHome':
          return os.homedir();
        case 'pathSeparator':
        case '/':
          return path.sep;
        case 'cwd':
          return workspaceFolder;
      }
      const fromEditor = editor?.file
        ? editorVariable(name, editor.file, workspaceFolder)
        : undefined;
      if (fromEditor !== undefined) return fromEditor;
      throw new VscodeOnlyVariableError(
        config.name,
        whole,
        editor
          ? `The configuration "${config.name}" uses ${whole}, which VS Code resolves when it starts ` +
              'the session (from the open editor, a prompt or an extension); it cannot be checked before.'
          : `The configuration "${config.name}" uses ${whole}, which only VS Code can resolve ` +
              '(it needs an open editor or an extension): the headless luapanda-mcp cannot start it. ' +
              'Start it from VS Code, or replace the variable with a path.',
      );
    });
  const visit = (value: unknown): unknown => {
    if (typeof value === 'string') return replace(value);
    if (Array.isArray(value)) return value.map(visit);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v)]));
    }
    return value;
  };
  return visit(config) as LaunchConfiguration;
}
