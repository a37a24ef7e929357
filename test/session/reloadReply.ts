/** A hot-reload reply as the runtime sends it (every list and count), with `extra` on top. */
import type { HotReloadReply } from '../../src/protocol';

export function reloadReply(extra: Partial<HotReloadReply> = {}): HotReloadReply {
  return {
    status: 'success',
    replaced: [],
    added: [],
    notFound: [],
    notReplaced: [],
    active: [],
    references: 0,
    searched: 0,
    timeMs: 0,
    ...extra,
  };
}
