--[=[
splaylab.rpcq - "splay.rpcq": SPLAY's queued RPC. The API of splay.rpc (server, call, acall,
ecall, ping, proxy; the app's global functions are callable) over one persistent TCP connection
per peer, on which calls are pipelined: at most settings.window_size sent and unanswered at once,
the others waiting in the peer's queue.

  rpcq.server(port | node [, max [, backlog]]) -> true | nil, err      rpcq.stop_server()
  rpcq.call / acall / a_call / ecall / ping / proxy: as splay.rpc (timeout: the whole call)
  rpcq.stats() -> calls, peers, connected, connects, cleaned, lru       rpcq.infos() -> text
  rpcq.mode == "rpcq"
  settings: default_timeout 60, window_size 2, reconnect_interval 5, clean_timeout 60 (an idle
  connection is closed after that), max (connections before the least recently used idle one is
  closed; nil: no bound), nodelay (TCP_NODELAY)
SPLAY's semantics kept: a connection lost with calls sent and unanswered puts them back at the
front of the queue and they are sent again on the next connection (a call may run twice on the
server: at least once, as in SPLAY); a peer that cannot be reached is retried every
reconnect_interval s while calls wait for it, each call failing with "timeout" at its own
deadline; a new call to a disconnected peer connects at once.
SplayLab's difference: the server runs each request in a thread of its own and replies as they
finish (SPLAY served one connection's requests in order), so a call that calls back into its
caller over the same pair of nodes cannot deadlock on the window (docs/decisions.md).
Wire: frames of splaylab.llenc carrying splaylab.benc: request {id, call = {...}, n = #args + 1
[, ctx]}, reply {id, ok, r, n} or {id, ok = false, err}. Traced like splay.rpc (docs/trace.md).
]=]
local socket = require "splaylab.socket"
local llenc = require "splaylab.llenc"
local net = require "splaylab.net"
local benc = require "splaylab.benc"
local platform = require "splaylab.platform"
local log = require "splaylab.log"
local events = require "splaylab.events"
local rpc = require "splaylab.rpc"

local M = { _NAME = "splaylab.rpcq", _VERSION = "0.1", mode = "rpcq",
  _DESCRIPTION = "Remote Procedure Call Queue",
  settings = { default_timeout = 60, window_size = 2, reconnect_interval = 5, clean_timeout = 60,
    max = nil, nodelay = nil, backlog = 128 } }

local type, tostring, tonumber, pcall, ipairs, maxn, remove, insert, sort =
  type, tostring, tonumber, pcall, ipairs, table.maxn, table.remove, table.insert, table.sort
-- (named neither next nor pairs: no ITERN loop, which this LuaJIT may end early; benc_copy.lua)
local nxt = (package.loaded["splaylab.safe_pairs"] or {}).next_builtin or next   -- see splaylab.safe_pairs

local l = log.new(1, "[splay.rpcq]")
M.l_o = l   -- SPLAY's name for the module's logger
local PING = rpc.PING
local peers = {}      -- "ip:port" -> peer (see new_peer)
local number = 0      -- the last call's id: every call of this node has its own
local counts = { connect = 0, clean = 0, lru = 0, die = 0, server_connect = 0, server_close = 0 }
local cleaner, reconnector, server_socket
local start_reconnector

local function new_peer(ip, port)
  return { ip = ip, port = port, status = "down", gen = 0, queue = {}, inflight = {}, ninflight = 0,
    last = platform.now(), send_event = "splaylab.rpcq:send:" .. ip .. ":" .. port }
end

local function connected()
  local n = 0
  for _, p in nxt, peers do if p.status == "up" then n = n + 1 end end
  return n
end

local function reply_event(id) return "splaylab.rpcq:reply:" .. id end

-- The connection of generation gen is lost (or closed): calls sent on it and not answered go
-- back to the front of the queue.
local function lost(p, gen)
  if p.gen ~= gen or p.status ~= "up" then return end
  p.status = "down"
  counts.die = counts.die + 1   -- SPLAY's count of connections ended
  if p.sock then p.sock:close(); p.sock = nil end
  local back = {}
  for _, msg in nxt, p.inflight do back[#back + 1] = msg end
  sort(back, function(a, b) return a.id < b.id end)
  for i = #back, 1, -1 do insert(p.queue, 1, back[i]) end
  p.inflight, p.ninflight = {}, 0
  events.fire(p.send_event)   -- the sender sees the loss and ends
  if p.queue[1] then start_reconnector() end
end

local function sender(p, gen)
  local window = M.settings.window_size
  while p.gen == gen and p.status == "up" do
    local msg = p.queue[1]
    if not msg or p.ninflight >= window then
      events.wait(p.send_event)
    else
      remove(p.queue, 1)
      if msg.deadline >= platform.now() then   -- a call already timed out is not sent
        p.inflight[msg.id] = msg
        p.ninflight = p.ninflight + 1
        p.last = platform.now()
        if not llenc.send(p.sock, msg.data) then return lost(p, gen) end
      end
    end
  end
end

local function receiver(p, gen)
  local s = p.sock
  while true do
    local data = llenc.receive(s)
    if not data then return lost(p, gen) end
    local ok, reply = pcall(benc.decode, data)
    if not ok or type(reply) ~= "table" then
      l:warn("corrupted reply from " .. p.ip .. ":" .. p.port)
      return lost(p, gen)
    end
    local msg = p.inflight[tonumber(reply.id) or -1]
    if msg and p.gen == gen then
      p.inflight[msg.id] = nil
      p.ninflight = p.ninflight - 1
      p.last = platform.now()
      events.fire(reply_event(msg.id), reply, #data)
      events.fire(p.send_event)
    end
  end
end

local function drop_expired(p)
  local now, kept = platform.now(), {}
  for _, msg in ipairs(p.queue) do if msg.deadline >= now then kept[#kept + 1] = msg end end
  p.queue = kept
end

-- Close the least recently used idle connection (settings.max reached).
local function close_lru()
  local best
  for _, p in nxt, peers do
    if p.status == "up" and not p.queue[1] and p.ninflight == 0 and (not best or p.last < best.last) then best = p end
  end
  if best then
    counts.lru = counts.lru + 1
    lost(best, best.gen)
  end
end

local function connect(p)
  if p.status ~= "down" then return end
  drop_expired(p)
  if not p.queue[1] then return end
  p.status = "connecting"
  local s, err = socket.tcp()
  if s then
    socket.internal(s)   -- rpcq's own traffic: traced as calls, not as the app's raw sockets
    s:settimeout(M.settings.default_timeout)
    local ok, cerr = s:connect(p.ip, p.port)
    if not ok then s:close(); s, err = nil, cerr end
  end
  if not s then
    p.status = "down"
    l:debug("connect to " .. p.ip .. ":" .. p.port .. " failed: " .. tostring(err))
    return
  end
  if M.settings.max and connected() >= M.settings.max then close_lru() end
  s:settimeout(nil)
  if M.settings.nodelay then s:setoption("tcp-nodelay", true) end
  counts.connect = counts.connect + 1
  p.gen = p.gen + 1
  p.status, p.sock, p.last = "up", s, platform.now()
  local gen = p.gen
  events.thread(function() sender(p, gen) end)
  events.thread(function() receiver(p, gen) end)
end

-- Every reconnect_interval s, peers that are down with calls waiting are tried again; the
-- thread ends when no call waits on a peer that is down.
function start_reconnector()
  if reconnector then return end
  reconnector = events.thread(function()
    repeat
      events.sleep(M.settings.reconnect_interval)
      local waiting = false
      for _, p in nxt, peers do
        if p.status == "down" then
          drop_expired(p)
          if p.queue[1] then waiting = true; events.thread(function() connect(p) end) end
        end
      end
    until not waiting
    reconnector = nil
  end)
end

-- Idle connections are closed after clean_timeout s; the thread ends with the last connection.
local function start_cleaner()
  if cleaner then return end
  cleaner = events.thread(function()
    repeat
      events.sleep(5)
      local timeout, any = M.settings.clean_timeout, false
      for _, p in nxt, peers do
        if p.status == "up" then
          if timeout and not p.queue[1] and p.ninflight == 0 and p.last < platform.now() - timeout then
            counts.clean = counts.clean + 1
            lost(p, p.gen)
          else
            any = true
          end
        end
      end
    until not any
    cleaner = nil
  end)
end

-- (node, call, timeout) or (ip, port, call, timeout) -> ip, port, call, timeout
local function parse(a, b, c, d)
  if type(a) == "table" then return a.ip, tonumber(a.port), b, c end
  return a, tonumber(b), c, d
end

function M.acall(...)
  local ip, port, call, timeout = parse(...)
  if timeout ~= nil and tonumber(timeout) == nil then
    return false, "rpcq: invalid timeout value: " .. tostring(timeout)
  end
  timeout = tonumber(timeout) or M.settings.default_timeout
  if type(call) == "string" then call = { call } end
  if type(call) ~= "table" or type(call[1]) ~= "string" then
    return false, "rpcq: the call must be {'function_name', args...} or 'function_name'"
  end
  if not ip or not port then return false, "rpcq: bad destination" end
  number = number + 1
  local id = number
  local ok, data = pcall(benc.encode, rpc.envelope({ id = id, call = call, n = maxn(call) }))
  if not ok then return false, "rpcq: cannot encode the arguments: " .. tostring(data) end
  local key = ip .. ":" .. port
  local p = peers[key]
  if not p then p = new_peer(ip, port); peers[key] = p end
  local t0 = platform.now()
  local msg = { id = id, data = data, deadline = t0 + timeout }
  p.queue[#p.queue + 1] = msg
  start_cleaner()
  if p.status == "down" then
    events.thread(function() connect(p) end)
    start_reconnector()
  end
  events.fire(p.send_event)
  local got, reply, in_bytes = events.wait(reply_event(id), timeout)
  if not got then
    for i, m in ipairs(p.queue) do if m == msg then remove(p.queue, i); break end end
    if p.inflight[id] then p.inflight[id] = nil; p.ninflight = p.ninflight - 1; events.fire(p.send_event) end
    rpc.traced("call", ip, port, call[1], #data, 0, "timeout", t0)
    return false, "timeout"
  end
  rpc.traced("call", ip, port, call[1], #data, in_bytes, reply.ok and "ok" or "error", t0)
  if not reply.ok then return false, tostring(reply.err) end
  local res = reply.r or {}
  res.n = tonumber(reply.n) or maxn(res)
  return true, res
end

rpc.client_api(M)

-- the server ----------------------------------------------------------------------------------
local function encode_reply(reply)
  local ok, data = pcall(benc.encode, reply)
  if not ok then
    data = benc.encode({ id = reply.id, ok = false, err = "rpcq: cannot encode the results: " .. tostring(data) })
  end
  return data
end

local function handle(c)
  counts.server_connect = counts.server_connect + 1
  socket.internal(c)
  -- closed abortively at the end, as splay.rpc's: this node's port is not left in TIME_WAIT
  c:setoption("linger", { on = true, timeout = 0 })
  if M.settings.nodelay then c:setoption("tcp-nodelay", true) end
  c:settimeout(nil)
  local sending = events.lock()   -- replies are written whole, one at a time
  while true do
    local msg = llenc.receive(c)
    if not msg then break end
    local ok, req = pcall(benc.decode, msg)
    if not ok or type(req) ~= "table" or type(req.call) ~= "table" then
      l:warn("corrupted request")
      break
    end
    events.thread(function()
      local data = rpc.serve_traced(req, "rpcq", "serve", #msg, function(reply)
        reply.id = req.id
        return encode_reply(reply)
      end)
      sending:lock()
      llenc.send(c, data)
      sending:unlock()
    end)
  end
  counts.server_close = counts.server_close + 1
end

function M.server(p, max, backlog)
  local ok, srv = net.server(p, handle, tonumber(max), backlog or M.settings.backlog)
  if not ok then return nil, srv end
  server_socket = srv
  return true
end

-- Stop accepting; connections already open are served until their clients close them.
function M.stop_server()
  if server_socket then server_socket:close(); server_socket = nil end
  return true
end

function M.stats()
  local n = 0
  for _ in nxt, peers do n = n + 1 end
  return number, n, connected(), counts.connect, counts.clean, counts.lru
end

function M.infos()
  local calls, npeers, up, nconnect, nclean, nlru = M.stats()
  return "Number of RPCs: " .. calls .. "\nConnected peers: " .. up .. " server: "
    .. (counts.server_connect - counts.server_close) .. " (different: " .. npeers .. ")\n"
    .. "connect: " .. nconnect .. " clean: " .. nclean .. " clean_lru: " .. nlru .. " die: " .. counts.die
    .. " server_connect: " .. counts.server_connect .. " server_close: " .. counts.server_close
end

M.PING = PING
return M
