/**
 * The session model: one `LuaSession` per debuggee, the connectors that reach it, and the pure
 * path logic. Consumers (the DAP adapter, the MCP tools) import from here.
 */
export * from './errors';
export * from './state';
export * from './types';
export * from './paths';
export * from './breakpoints';
export * from './hitCondition';
export * from './handles';
export * from './variables';
export * from './stopSnapshot';
export * from './debuggee';
export * from './exitStatus';
export * from './interpreter';
export * from './launchProbe';
export * from './nativeBuilds';
export * from './connectors';
export * from './listenHost';
export * from './attachHint';
export * from './workspaceFiles';
export * from './inspection';
export * from './hotReload';
export * from './hotReloadRequest';
export * from './luaSession';
export * from './functionBreakpoints';
export * from './exceptionFilters';
