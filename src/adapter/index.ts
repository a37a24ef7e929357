/**
 * The DAP adapter for debug type `luapanda`: the session class, its launch.json schemas and its
 * capability table.
 */
export * from './luaDebugSession';
export * from './launchConfig';
export * from './capabilities';
export * from './runtimeLocation';
export * from './tcpServer';
export * from './changesRequest';
