/**
 * The `initSuccess` settings an IDE sends first (protocol doc 4.2), built from typed options with
 * upstream's defaults and spelled as upstream spells them: every value a string. Two settings go
 * out under both of upstream's spellings: its 3.1.80 file reads `TruncatedOPath` and
 * `DistinguishSameNameFile`, and dies on a handshake without the first (Docs/Doc_Common.md).
 */
import * as os from 'node:os';
import { PROTOCOL_VERSION } from './contract';
import { InitSuccessRequest } from './messages';

export interface HandshakeSettings {
  stopOnEntry?: boolean;
  luaFileExtension?: string;
  cwd?: string;
  isNeedB64EncodeStr?: boolean;
  tempFilePath?: string;
  logLevel?: 0 | 1 | 2;
  pathCaseSensitivity?: boolean;
  osType?: string;
  clibPath?: string;
  useCHook?: boolean;
  adapterVersion?: string;
  autoPathMode?: boolean;
  distinguishSameNameFile?: boolean;
  truncatedOPath?: string;
  developmentMode?: boolean;
  /** Extension (ignored by upstream Lua). */
  pagingLimit?: number;
  /** Extension (ignored by upstream Lua). */
  waitConfigurationDone?: boolean;
  /** Extension (ignored by upstream Lua): ask the runtime for its own trace lines. */
  runtimeTrace?: boolean;
}

const bool = (value: boolean): 'true' | 'false' => (value ? 'true' : 'false');

export function initSuccessInfo(settings: HandshakeSettings = {}): InitSuccessRequest {
  const cwd = settings.cwd ?? process.cwd();
  const info: InitSuccessRequest = {
    stopOnEntry: bool(settings.stopOnEntry ?? false),
    // Upstream strips a leading dot; Lua builds patterns from this value.
    luaFileExtension: (settings.luaFileExtension ?? '').replace(/^\./, ''),
    cwd,
    isNeedB64EncodeStr: bool(settings.isNeedB64EncodeStr ?? true),
    TempFilePath: settings.tempFilePath ?? cwd,
    logLevel: String(settings.logLevel ?? 1),
    pathCaseSensitivity: bool(settings.pathCaseSensitivity ?? false),
    OSType: settings.osType ?? os.type(),
    clibPath: settings.clibPath ?? '',
    useCHook: bool(settings.useCHook ?? false),
    adapterVersion: settings.adapterVersion ?? PROTOCOL_VERSION,
    autoPathMode: bool(settings.autoPathMode ?? true),
    distinguishSameNameFile: bool(settings.distinguishSameNameFile ?? false),
    truncatedOPath: settings.truncatedOPath ?? '',
    DevelopmentMode: bool(settings.developmentMode ?? false),
  };
  info.TruncatedOPath = info.truncatedOPath;
  info.DistinguishSameNameFile = info.distinguishSameNameFile;
  if (settings.pagingLimit !== undefined) info.pagingLimit = String(settings.pagingLimit);
  if (settings.waitConfigurationDone !== undefined) {
    info.waitConfigurationDone = bool(settings.waitConfigurationDone);
  }
  if (settings.runtimeTrace) info.trace = 'true';
  return info;
}
