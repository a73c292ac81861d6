--[[
splaylab.rpc_conn_core - the client side of splay.rpc's connections (splaylab.rpc): the pool of
kept connections and one request/response on it, on the socket path (llenc frames over
splaylab.socket) or, in the simulator, on the message fast path (splaylab.rpc_fast links).

Connection reuse (SplayLab; SPLAY opens a connection per call): a connection that carried a
call stays open settings.keep_alive seconds for the next call to the same node, at most
pool_per_peer per node and pool_max in all (the settings are splay.rpc's: conn.rpc.settings).
The server already serves any number of requests per connection. A reused connection the peer
has closed meanwhile (it restarted, or its idle timeout fired) fails before any byte of the
reply comes back: the request was not served, so the call is retried once on a new
connection. keep_alive = 0 restores SPLAY's behaviour.

A node's pool is an object (splaylab.rpc_conn: `require "splaylab.rpc_conn"` is the node's), its
methods one set for every node of a simulation (splaylab.sim.world's PROCESS_WIDE):
  core.new(socket, llenc, platform) -> conn     a node's, over its modules (conn.rpc: set by splaylab.rpc)
  conn:socket_exchange(ip, port, key, msg, deadline) -> reply's bytes | nil, err
  conn:fast_exchange(ip, port, key, req, size, deadline) -> reply, size | nil, nil, err | false
  conn:takes_fast_path(ip, port, key) -> bool
  conn:free_idle() -> bool                      idle connections closed (rpc_fast's connect, at the socket limit)
]]
local events_core = require "splaylab.events_core"
local fast = require "splaylab.rpc_fast"

local C = { _NAME = "splaylab.rpc_conn_core", _VERSION = "0.2" }
local Conn = {}
Conn.__index = Conn

local tonumber, setmetatable = tonumber, setmetatable
local floor, max, huge = math.floor, math.max, math.huge
local api = events_core.api
-- (named neither next nor pairs: no ITERN loop, which this LuaJIT may end early; benc_copy.lua)
local nxt = (package.loaded["splaylab.safe_pairs"] or {}).next_builtin or next   -- see splaylab.safe_pairs

function C.new(socket, llenc, platform)
  -- pool: "ip:port" -> a stack of kept connections, each with the time it went idle after it:
  -- {connection, idle since, connection, idle since, ...} (no table per call)
  return setmetatable({ socket = socket, llenc = llenc, platform = platform, rpc = nil,
    pool = {}, pooled = 0, reaper = nil }, Conn)
end

local function close_idle(self, older_than)
  local pool = self.pool
  for key, list in nxt, pool do
    local n, kept = #list, 0
    for i = 1, n, 2 do
      local c, since = list[i], list[i + 1]
      if since <= older_than then
        c:close()
        self.pooled = self.pooled - 1
      else
        list[kept + 1], list[kept + 2] = c, since
        kept = kept + 2
      end
    end
    for i = n, kept + 1, -1 do list[i] = nil end
    if kept == 0 then pool[key] = nil end   -- (an existing key set to nil while walking: allowed)
  end
end

local function start_reaper(self)
  local reaper = self.reaper
  if reaper and not api.dead(reaper) then return end
  self.reaper = api.thread(function()
    local platform = self.platform
    repeat   -- (sleep first: during a burst of calls the pool is often empty for a moment)
      local keep_alive = self.rpc.settings.keep_alive
      api.sleep(keep_alive)
      close_idle(self, platform.now() - self.rpc.settings.keep_alive)
    until self.pooled == 0
    self.reaper = nil
  end)
end

local function take(self, key)
  local pool = self.pool
  local list = pool[key]
  if not list then return nil end
  local n = #list
  local c = list[n - 1]
  list[n], list[n - 1] = nil, nil
  if n == 2 then pool[key] = nil end
  self.pooled = self.pooled - 1
  return c
end

local function give_back(self, key, s)
  local st = self.rpc.settings
  local pool = self.pool
  local list = pool[key]
  if st.keep_alive <= 0 or self.pooled >= st.pool_max or (list and #list >= 2 * st.pool_per_peer) then
    s:close()
    return
  end
  if not list then list = {}; pool[key] = list end
  local n = #list
  list[n + 1], list[n + 2] = s, self.platform.now()
  self.pooled = self.pooled + 1
  start_reaper(self)
end

-- A new connection; when the node's socket limit is reached, idle pooled ones go first.
local function connect(self, ip, port, deadline)
  local socket = self.socket
  local s, err = socket.tcp()
  if not s and self.pooled > 0 then
    close_idle(self, huge)
    s, err = socket.tcp()
  end
  if not s then return nil, err end
  socket.internal(s)
  s:settimeout(max(deadline - self.platform.now(), 0))
  local ok, cerr = s:connect(ip, port)
  if not ok then s:close(); return nil, cerr end
  return s
end

-- s's timeout: what is left until deadline -> false when nothing is (a function of the module,
-- not a closure per call: making one is a bytecode LuaJIT cannot compile, FNEW)
local function arm(s, deadline, now)
  local left = deadline - now()
  s:settimeout(left > 0 and left or 0)
  return left > 0
end

-- One request/response on s -> data | nil, err, retryable (nothing of a reply came back).
local function exchange(self, s, msg, deadline)
  local now, llenc = self.platform.now, self.llenc
  if not arm(s, deadline, now) then return nil, "timeout" end
  local ok, err = llenc.send(s, msg)
  if not ok then return nil, err, err ~= "timeout" end
  if not arm(s, deadline, now) then return nil, "timeout" end
  s.await_first = true
  local header, rerr, partial = s:receive("*l")
  if not header then return nil, rerr, rerr ~= "timeout" and (partial or "") == "" end
  local n = tonumber(header)
  if not n or n < 0 or n ~= floor(n) or n > llenc.settings.max_size then
    return nil, "rpc: bad reply frame"
  end
  if n == 0 then return "" end
  if not arm(s, deadline, now) then return nil, "timeout" end
  return s:receive(n)
end

function Conn:free_idle()
  if self.pooled == 0 then return false end
  close_idle(self, huge)
  return true
end

-- The socket path: msg on a kept connection, else (or when the peer closed it) on a new one
-- -> the reply's bytes | nil, err
function Conn:socket_exchange(ip, port, key, msg, deadline)
  local s, data, err, retryable = take(self, key), nil, nil, false
  if s then
    data, err, retryable = exchange(self, s, msg, deadline)
    if not data then s:close(); s = nil end
  end
  if not data and (retryable or err == nil) then
    s, err = connect(self, ip, port, deadline)
    if s then
      data, err = exchange(self, s, msg, deadline)
      if not data then s:close(); s = nil end
    end
  end
  if not data then return nil, err end
  give_back(self, key, s)
  return data
end

-- The fast path, the same steps on links -> reply, its size | nil, nil, err | false (an app's
-- own socket listens there: the socket path serves the call)
function Conn:fast_exchange(ip, port, key, req, size, deadline)
  local c, rep, err, retryable = take(self, key), nil, nil, false
  if c then
    rep, err, retryable = fast.exchange(c, req, size, deadline)
    if not rep then c:close(); c = nil end
  end
  if not rep and (retryable or err == nil) then
    c, err = fast.connect(ip, port, deadline, self)
    if c == false then return false end
    if c then
      rep, err = fast.exchange(c, req, size, deadline)
      if not rep then c:close(); c = nil end
    end
  end
  if not rep then return nil, nil, err end
  give_back(self, key, c)
  return rep[2], rep[3]
end

-- In the simulator, the fast path unless an app's own socket listens at key (or a connection
-- of the socket path to it is kept).
function Conn:takes_fast_path(ip, port, key)
  local simnet = self.platform.sim_net
  if not simnet then return false end
  local list = self.pool[key]
  if list then return list[#list - 1].fast == true end
  return simnet:server_of("tcp", ip, port) ~= false
end

return C
