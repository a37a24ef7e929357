/**
 * The session model: one `LuaSession` per debuggee, the connectors that reach it, and the pure
 * path logic. Consumers (the DAP adapter, the MCP tools) import from here.
 */
export * from './errors';
export * from './state';
export * from './types';
export * from './paths';
export * from './breakpoints/breakpoints';
export * from './breakpoints/hitCondition';
export * from './stop/handles';
export * from './stop/variables';
export * from './stop/changeMemory';
export * from './stop/stopSnapshot';
export * from './coroutineList';
export * from './link/debuggee';
export * from './link/exitStatus';
export * from './link/interpreter';
export * from './link/launchProbe';
export * from './link/nativeBuilds';
export * from './link/connectors';
export * from './link/listenHost';
export * from './link/attachHint';
export * from './workspaceFiles';
export * from './stop/inspection';
export * from './hotReload';
export * from './collect';
export * from './hotReloadRequest';
export * from './luaSession';
export * from './breakpoints/functionBreakpoints';
export * from './breakpoints/exceptionFilters';
