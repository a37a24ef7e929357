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

/**
 * Replaces VS Code's predefined variables in every string of `config`. An unknown variable, or
 * one that needs an editor (`${file}`), is an error naming it.
 */
export function resolveVariables(
  config: LaunchConfiguration,
  workspaceFolder: string,
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
        default:
          throw new LaunchConfigError(
            `The configuration "${config.name}" uses ${whole}, which only VS Code can resolve ` +
              '(it needs an open editor or an extension). Replace it with a path.',
          );
      }
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
