-- consolepipe.lua: debug-console lines (logpoints) through the program's stdout, in launch mode.
-- There the IDE reads the program's stdout from a pipe while the runtime's frames come over the
-- socket: two channels, read in chunks, so a logpoint line sent as a frame overtakes or trails
-- what the program printed around it, and no clock can put them back in order. The launcher (the
-- IDE's own preload code, which reads that pipe) asks for this: the line is then written into
-- stdout itself, between a start marker and a NUL that the IDE takes out, so it arrives exactly
-- where it happened. Nothing else changes for the program: the same C stream its print and
-- io.write use, written with the file methods captured before the program ran; a write that
-- fails leaves the line to the socket, as before.
local M = {}

local gsub = string.gsub
local stdout = io and io.stdout
local write = stdout and stdout.write
local flush = stdout and stdout.flush
local marker = nil

--- Called by the launcher's preload code (before the program runs) with the start marker.
function M.enable(start)
  if type(start) == "string" and start ~= "" and write then marker = start end
end

function M.enabled() return marker ~= nil end

--- Writes one console line into stdout; false when it could not (the caller sends it instead).
function M.write(text)
  if not marker then return false end
  -- The line ends at the first NUL: one inside the text is shown escaped instead.
  local line = gsub(text, "%z", "\\0")
  if not pcall(write, stdout, marker, line, "\0") then return false end
  -- A program that made stdout buffered would otherwise hold the line back with its own output.
  pcall(flush, stdout)
  return true
end

return M
