/**
 * The LuaPanda wire protocol: framing, message schemas, the callbackId registry and TCP links.
 * It knows nothing of DAP, MCP or VS Code; everything above it imports from here.
 */
export * from './contract';
export * from './errors';
export * from './framing';
export * from './wireTypes';
export * from './messages';
export * from './registry';
export * from './inbound';
export * from './connection';
export * from './transport';
export * from './handshake';
export * from './pairing';
