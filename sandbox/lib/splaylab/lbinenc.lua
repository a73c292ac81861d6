--[[
splaylab.lbinenc - "splay.lbinenc": SPLAY's binary encoding of Lua values, with its API, on
lua-messagepack (Debian lua-messagepack, MessagePack). SPLAY used luabins, which Debian does not
package: the bytes differ from SPLAY's, what an app can see does not (every node of a job runs
this module; encode/decode round-trip numbers, strings, booleans and nested tables).

  lbinenc.encode(v) -> bytes          lbinenc.decode(bytes) -> v (raises on bytes that are not one)
  lbinenc.send(sock, v) -> sock:send's results       lbinenc.receive(sock) -> v | nil, err
  lbinenc.wrap(sock) -> obj with obj:send(v), obj:receive() and the socket's other methods
Framing: send and receive carry each value as a splay.llenc frame (SPLAY wrote raw luabins bytes
and read a line, which broke on any newline in the bytes).
]]
local mp = require "MessagePack"
local llenc = require "splaylab.llenc"

local M = { _NAME = "splaylab.lbinenc", _VERSION = "1.0",
  _DESCRIPTION = "Binary encoding for Splay (MessagePack here, luabins in SPLAY)" }

local pcall, setmetatable, type, tostring = pcall, setmetatable, type, tostring

function M.encode(data) return mp.pack(data) end

function M.decode(d)
  if type(d) ~= "string" then error("lbinenc.decode: a string expected, got " .. type(d), 2) end
  return mp.unpack(d)
end

function M.send(sock, data) return llenc.send(sock, M.encode(data)) end

function M.receive(sock)
  local data, err = llenc.receive(sock)
  if not data then return nil, err end
  local ok, v = pcall(M.decode, data)
  if ok then return v end
  return nil, "corrupted"
end

function M.wrap(sock, err)
  if not sock then return nil, err end
  local obj = {}
  function obj.send(_, v) return M.send(sock, v) end
  function obj.receive() return M.receive(sock) end
  return setmetatable(obj, {
    __index = function(_, k)
      local v = sock[k]
      if type(v) == "function" then return function(_, ...) return v(sock, ...) end end
      return v
    end,
    __tostring = function() return "#LBINENC: " .. tostring(sock) end,
  })
end

return M
