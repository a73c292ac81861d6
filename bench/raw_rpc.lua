-- Raw LuaSocket request/response on loopback, the baseline for splay.rpc (bench/sandbox.py).
-- usage: luajit raw_rpc.lua server PORT | client PORT CALLS ROUNDS per-call|persistent
-- The client prints each round's mean round trip and its own CPU time per call, in seconds,
-- one round per line.
local socket = require "socket"
local mode, port, calls, rounds, style = arg[1], tonumber(arg[2]), tonumber(arg[3]), tonumber(arg[4]), arg[5]

local function frame(s) return #s .. "\n" .. s end
local function read_frame(c)
  local len = c:receive("*l")
  if not len then return nil end
  return c:receive(tonumber(len))
end

if mode == "server" then
  local srv = assert(socket.bind("127.0.0.1", port))
  io.write("ready\n"); io.flush()
  while true do
    local c = srv:accept()
    while true do
      local msg = read_frame(c)
      if not msg then break end
      c:send(frame(msg))
    end
    c:close()
  end
else
  local function one(c) c:send(frame("x")); return read_frame(c) end
  local c = style == "persistent" and assert(socket.connect("127.0.0.1", port))
  for _ = 1, rounds do
    local t0, c0 = socket.gettime(), os.clock()
    for _ = 1, calls do
      if style == "persistent" then assert(one(c)) else
        local cc = assert(socket.connect("127.0.0.1", port)); assert(one(cc)); cc:close()
      end
    end
    print((socket.gettime() - t0) / calls, (os.clock() - c0) / calls)
  end
end
