--[=[
splaylab.net - "splay.net": TCP servers and a UDP helper on splaylab.socket.

  net.server(port | node, handler [, max [, backlog]]) -> true | nil, err
      accepts connections; each runs handler(sock) in its own events thread, and the socket
      is closed when handler returns; at most `max` connections at once (default 256).
  net.client(node | ip, port, handler) -> handler's results | nil, err
  net.udp_helper(port | node, handler) -> udp socket
      receives datagrams; each runs handler(data, ip, port) in its own thread; send with sock:sendto.
Ports are checked by splaylab.socket (only this instance's ports can be bound).
]=]
local events = require "splaylab.events"
local socket = require "splaylab.socket"
local log = require "splaylab.log"

local M = { _NAME = "splaylab.net", _VERSION = "0.1", settings = { max = 256, backlog = 128 } }

local type, tonumber, pcall, tostring = type, tonumber, pcall, tostring
local l = log.new(1, "[splay.net]")

local function port_of(p)
  if type(p) == "table" then return tonumber(p.port) end
  return tonumber(p)
end

function M.server(p, handler, max, backlog)
  local port = port_of(p)
  max = tonumber(max) or M.settings.max
  local srv, err = socket.bind("*", port, backlog or M.settings.backlog)
  if not srv then
    l:error("server on port " .. tostring(port) .. ": " .. tostring(err))
    return nil, err
  end
  local active = 0
  events.thread(function()
    while true do
      local c, e = srv:accept()
      if c then
        if active >= max then
          c:close()
        else
          active = active + 1
          events.thread(function()
            local ok, herr = pcall(handler, c)
            active = active - 1
            c:close()
            if not ok then error(herr, 0) end
          end)
        end
      elseif e == "closed" then
        return
      end
    end
  end)
  return true, srv
end

function M.client(a, b, c)
  local ip, port, handler
  if type(a) == "table" then ip, port, handler = a.ip, a.port, b else ip, port, handler = a, b, c end
  local s, err = socket.connect(ip, port)
  if not s then return nil, err end
  local res = { pcall(handler, s) }
  s:close()
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2)
end

function M.udp_helper(p, handler)
  local port = port_of(p)
  local u, err = socket.udp()
  if not u then return nil, err end
  local ok
  ok, err = u:setsockname("*", port)
  if not ok then u:close(); return nil, err end
  events.thread(function()
    while true do
      local data, ip, rport = u:receivefrom()
      if data then events.thread(function() handler(data, ip, rport) end)
      elseif ip == "closed" then return end
    end
  end)
  return u
end

return M
