--[[
splaylab.llenc - "splay.llenc": length-prefixed messages over a stream socket.

Frame: the payload's length in decimal, "\n", then the payload.
  llenc.encode(s) -> frame
  llenc.send(sock, s) -> true | nil, err        llenc.receive(sock [, max]) -> s | nil, err
  llenc.wrap(sock) -> obj with obj:send(s), obj:receive(), and the socket's other methods
Limits: a frame larger than settings.max_size (16 MiB) is refused on both sides
("llenc: message of N bytes exceeds 16777216"), so a peer cannot make us allocate at will.
]]
local M = { _NAME = "splaylab.llenc", _VERSION = "0.1", settings = { max_size = 16 * 1024 * 1024 } }

local tostring, tonumber, setmetatable, type = tostring, tonumber, setmetatable, type

function M.encode(s)
  s = tostring(s)
  return #s .. "\n" .. s
end

function M.send(sock, s)
  s = tostring(s)
  if #s > M.settings.max_size then
    return nil, "llenc: message of " .. #s .. " bytes exceeds " .. M.settings.max_size
  end
  local ok, err = sock:send(#s .. "\n" .. s)
  if not ok then return nil, err end
  return true
end

function M.receive(sock, max)
  max = tonumber(max) or M.settings.max_size
  local line, err = sock:receive("*l")
  if not line then return nil, err end
  local n = tonumber(line)
  if not n or n < 0 or n ~= math.floor(n) then return nil, "llenc: bad frame header" end
  if n > max then return nil, "llenc: message of " .. n .. " bytes exceeds " .. max end
  if n == 0 then return "" end
  return sock:receive(n)
end

function M.wrap(sock)
  local obj = {}
  function obj.send(_, s) return M.send(sock, s) end
  function obj.receive(_, max) return M.receive(sock, max) end
  return setmetatable(obj, { __index = function(_, k)
    local v = sock[k]
    if type(v) == "function" then return function(_, ...) return v(sock, ...) end end
    return v
  end })
end

return M
