-- contract.lua: GENERATED from src/protocol/contract.ts by scripts/contract-lua.mjs (run by
-- scripts/build-lua.mjs); edit that file, not this one. The wire contract the runtime shares
-- with the IDE: versions, the features it announces, the stop commands, the hook modes.
local M = {}
M.PROTOCOL_VERSION = "3.3.1"
M.RUNTIME_NAME = "luapanda-mcp"
M.RUNTIME_VERSION = "0.1.0"
M.FEATURES = {
  pause = "pause",
  exceptions = "exceptions",
  paging = "paging",
  hitCondition = "hitCondition",
  logInterpolation = "logInterpolation",
  functionNames = "functionNames",
  coroutines = "coroutines",
  configurationDone = "configurationDone",
  breakpointResults = "breakpointResults",
  setField = "setField",
  hotReload = "hotReload",
  listCoroutines = "listCoroutines",
  functionBreakpoints = "functionBreakpoints",
  exceptionConditions = "exceptionConditions",
  trace = "trace",
  jitCompiles = "jitCompiles",
  collect = "collect",
}
M.RUNTIME_FEATURES = { "pause", "exceptions", "paging", "hitCondition", "logInterpolation", "functionNames", "coroutines", "configurationDone", "breakpointResults", "setField", "hotReload", "functionBreakpoints", "exceptionConditions", "trace", "listCoroutines", "collect" }
M.STOPS = {
  entry = "stopOnEntry",
  breakpoint = "stopOnBreakpoint",
  codeBreakpoint = "stopOnCodeBreakpoint",
  step = "stopOnStep",
  stepIn = "stopOnStepIn",
  stepOut = "stopOnStepOut",
  exception = "stopOnException",
  pause = "stopOnPause",
}
M.STOP_COMMANDS = { "stopOnEntry", "stopOnBreakpoint", "stopOnCodeBreakpoint", "stopOnStep", "stopOnStepIn", "stopOnStepOut", "stopOnException", "stopOnPause" }
M.HOOK_MODES = {
  none = -1,
  elsewhere = 0,
  below = 1,
  inside = 2,
}
M.NATIVE = {
  apiVersion = 8,
  modeDepth = 400,
}
return M
