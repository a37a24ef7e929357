/*
 * luapanda_contract.h: GENERATED from src/protocol/contract.ts by scripts/contract-lua.mjs (run
 * by scripts/build-lua.mjs); edit that file, not this one. What the native accelerator shares
 * with the Lua runtime: the interface version, the hook modes, the mode depth.
 */
#ifndef LUAPANDA_CONTRACT_H
#define LUAPANDA_CONTRACT_H

/* What the Lua side checks before using the module (NATIVE.apiVersion). */
#define LPN_API_VERSION 8

/* The hook modes (HOOK_MODES). NONE: no event but the count (if any). */
#define LPN_MODE_NONE (-1)
#define LPN_MODE_ELSEWHERE 0
#define LPN_MODE_BELOW 1
#define LPN_MODE_INSIDE 2

/* The deepest stack level the line filter reads a thread's mode from (NATIVE.modeDepth). */
#define LPN_FILTER_DEPTH 400

#endif
