/**
 * What the error autopsy counts as the user's own code: a frame whose source is a file inside one
 * of the workspace folders, and not inside a folder that holds other people's code (a package
 * manager's tree, vendored libraries). C functions, chunks without a file and files outside the
 * workspace (the interpreter's or an engine's libraries, modules installed system-wide) are not.
 * Pure path logic, Windows paths included (drive letters, backslashes, any case).
 */

/** Folder names that hold libraries, not the program: LuaRocks' trees, vendored code. */
export const LIBRARY_FOLDERS: readonly string[] = [
  'lua_modules',
  '.luarocks',
  'luarocks',
  'node_modules',
  'vendor',
  'third_party',
  'thirdparty',
];

const LIBRARY_SET = new Set(LIBRARY_FOLDERS);

/** `filePath` split into lower-case segments, `\` and `/` alike; a trailing separator dropped. */
function segments(filePath: string): string[] {
  return filePath
    .replace(/\\/g, '/')
    .split('/')
    .filter((s, i) => s !== '' || i === 0)
    .map((s) => s.toLowerCase());
}

/** The segments of `filePath` below `folder`, or undefined when it is not inside it. */
function below(filePath: string, folder: string): string[] | undefined {
  const file = segments(filePath);
  const root = segments(folder);
  if (root.length === 0 || file.length <= root.length) return undefined;
  for (let i = 0; i < root.length; i++) if (file[i] !== root[i]) return undefined;
  return file.slice(root.length);
}

/**
 * Whether `filePath` (absolute) is the user's code: inside a workspace folder and in no library
 * folder there. Without workspace folders, any file outside a library folder is.
 */
export function isUserCode(
  filePath: string | undefined,
  workspaceFolders: readonly string[],
): boolean {
  if (filePath === undefined || filePath === '' || !/[\\/]/.test(filePath)) return false;
  if (workspaceFolders.length === 0) {
    return !segments(filePath).some((s) => LIBRARY_SET.has(s));
  }
  for (const folder of workspaceFolders) {
    const rest = below(filePath, folder);
    if (rest && !rest.slice(0, -1).some((s) => LIBRARY_SET.has(s))) return true;
  }
  return false;
}
