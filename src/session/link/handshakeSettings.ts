/**
 * The `initSuccess` a session sends, from its settings: upstream's fields plus our extensions
 * (paging limit; hold the program until `configurationDone`), which an upstream runtime ignores.
 */
import { InitSuccessRequest, initSuccessInfo } from '../../protocol';
import type { SessionSettings } from '../types';

export function handshakeFor(settings: SessionSettings): InitSuccessRequest {
  return initSuccessInfo({
    stopOnEntry: settings.stopOnEntry,
    luaFileExtension: settings.luaFileExtension,
    cwd: settings.cwd,
    isNeedB64EncodeStr: settings.isNeedB64EncodeStr,
    tempFilePath: settings.tempFilePath,
    logLevel: settings.logLevel,
    pathCaseSensitivity: settings.pathCaseSensitivity,
    useCHook: settings.useCHook,
    autoPathMode: settings.autoPathMode,
    distinguishSameNameFile: settings.distinguishSameNameFile,
    truncatedOPath: settings.truncatedOPath,
    developmentMode: settings.developmentMode,
    pagingLimit: settings.pagingLimit,
    waitConfigurationDone: true,
    runtimeTrace: settings.tracer?.enabled('runtime') === true,
  });
}
