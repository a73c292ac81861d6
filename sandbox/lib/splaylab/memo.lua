--[[
splaylab.memo - remembered answers of pure functions of the runtime: what a node computes again
and again for the few peers and names it talks to (rpc's connection-pool keys, the trace's peer
positions and JSON texts).

  memo.address_key(ip, port) -> "ip:port"
  memo.position(index, ip, port) -> index["ip:port"] when a number, else "ip:port"   (trace.peer)
  memo.decimal(n) -> format("%d", n)
  memo.json_string(text) -> text as a JSON string

The answers depend on the arguments only, so one memo serves every node of a process: live,
that is one node; the simulator loads this module once for all of its nodes (sim.lua's SHARED),
where a memo per node cost 24.6 KB of a node's 140 KB at 3,000 Chord nodes, growing with the
peers each node talks to (docs/simulation.md, seventh session). Nothing here is reachable from
student code, and what a node finds in it never depends on what the other nodes asked: only
whether it was computed already. Each cache starts again empty past a bound, so that addresses
an app makes up cannot grow it without end.
]]
-- cjson with its default settings, which nothing changes (apps cannot require cjson; splay.json
-- has an instance of its own)
local cjson = require "cjson"

local M = { _NAME = "splaylab.memo", _VERSION = "0.1" }

local type, format, find, tostring, setmetatable = type, string.format, string.find, tostring, setmetatable

local MAX_ENTRIES = 65536   -- per cache (a few MB at most)

local keys, nkeys = {}, 0   -- ip -> port -> "ip:port"
function M.address_key(ip, port)
  local by_port = keys[ip]
  local key = by_port and by_port[port]
  if key then return key end
  key = ip .. ":" .. port
  if type(ip) ~= "string" or port ~= port then return key end   -- (NaN: no table key)
  if nkeys >= MAX_ENTRIES then keys, nkeys = {}, 0 end
  by_port = keys[ip]
  if not by_port then by_port = {}; keys[ip] = by_port end
  by_port[port], nkeys = key, nkeys + 1
  return key
end

-- index -> {cache = {ip -> {port -> answer}}, n = answers}; weak keys: an index nobody uses any
-- more takes its cache with it. (The last index asked, remembered: one index per process but in
-- busted's specs.)
local positions = setmetatable({}, { __mode = "k" })
local last_index, last_entry = nil, nil
local function entry_of(index)
  if index ~= last_index then
    local entry = positions[index]
    if not entry then entry = { cache = {}, n = 0 }; positions[index] = entry end
    last_index, last_entry = index, entry
  end
  return last_entry
end

-- The job's position of ip:port in index ("ip:port" -> position), or "ip:port" itself when the
-- address is no node of the job
function M.position(index, ip, port)
  local entry = entry_of(index)
  local by_port = entry.cache[ip]
  if by_port then
    local k = by_port[port]
    if k ~= nil then return k end
  end
  local key = tostring(ip) .. ":" .. tostring(port)
  local k = index[key]
  if type(k) ~= "number" then k = key end
  if port == nil or port ~= port or ip ~= ip then return k end   -- (nil, NaN: no table key)
  if entry.n >= MAX_ENTRIES then entry.cache, entry.n, by_port = {}, 0, nil end
  if not by_port then by_port = {}; entry.cache[ip] = by_port end
  by_port[port], entry.n = k, entry.n + 1
  return k
end

local decimals, ndecimals = {}, 0
function M.decimal(n)
  local text = decimals[n]
  if text then return text end
  text = format("%d", n)
  if ndecimals >= MAX_ENTRIES then decimals, ndecimals = {}, 0 end
  decimals[n], ndecimals = text, ndecimals + 1
  return text
end

local UNSAFE = '[%c"\\\128-\255]'
local json_of, njson = {}, 0
function M.json_string(text)
  local q = json_of[text]
  if q then return q end
  q = find(text, UNSAFE) and cjson.encode(text) or ('"' .. text .. '"')
  if njson >= 4096 then json_of, njson = {}, 0 end
  json_of[text], njson = q, njson + 1
  return q
end

return M
