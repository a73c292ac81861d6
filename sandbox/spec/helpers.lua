-- Shared spec helpers: capture records, build a sandbox env, run node.lua for real.
local output = require "splaylab.output"

local H = {}

-- Replace the output sink; returns the list of records written ({level, text}).
function H.capture()
  local records, buf = {}, {}
  output.settings.out = {
    write = function(_, ...) for _, s in ipairs({ ... }) do buf[#buf + 1] = s end end,
    flush = function()
      local text = table.concat(buf)
      buf = {}
      for line in text:gmatch("([^\n]*)\n") do
        local level, rest = line:match("^([^\t]*)\t(.*)$")
        records[#records + 1] = { level, rest }
      end
    end,
  }
  return records
end

function H.restore() output.settings.out = io.stdout end

-- Run `src` with luajit node.lua in a fresh directory. Returns exit code, list of {level, text}.
local counter = 0
function H.run_node(src, position, extra_job)
  counter = counter + 1
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. dir) == 0)
  local f = assert(io.open(dir .. "/app.lua", "wb")); f:write(src); f:close()
  position = position or 1
  f = assert(io.open(dir .. "/job.json", "wb"))
  f:write(extra_job or ('{"me": {"ip": "127.0.0.1", "port": ' .. (20000 + position) .. '}, "nodes": ' ..
    '[{"ip": "127.0.0.1", "port": 20001}, {"ip": "127.0.0.1", "port": 20002}], "position": ' ..
    position .. ', "job_id": 1, "duration": 30}'))
  f:close()
  local node = H.sandbox_dir() .. "/node.lua"
  os.execute("cd " .. dir .. " && ulimit -v 262144 && ulimit -t 5 && luajit " .. node ..
    " job.json app.lua > out 2>&1 < /dev/null; echo $? > rc")
  local rc = tonumber(assert(io.open(dir .. "/rc")):read("*a"))
  local records, raw = {}, assert(io.open(dir .. "/out", "rb")):read("*a")
  for line in raw:gmatch("([^\n]*)\n") do
    local level, rest = line:match("^([^\t]*)\t(.*)$")
    records[#records + 1] = { level or "?", rest or line }
  end
  os.execute("rm -rf " .. dir)
  return rc, records
end

function H.sandbox_dir()
  local src = debug.getinfo(1, "S").source:sub(2)
  local spec_dir = src:match("^(.*)/[^/]*$") or "."
  local f = io.popen("cd " .. spec_dir .. "/.. && pwd")
  local dir = f:read("*l")
  f:close()
  return dir
end

-- A free TCP+UDP port on 127.0.0.1 (for specs that start servers).
function H.free_port()
  local socket = require "socket"
  for _ = 1, 50 do
    local port = math.random(30000, 60000)
    local t, u = socket.tcp(), socket.udp()
    local ok = t:bind("127.0.0.1", port) and u:setsockname("127.0.0.1", port)
    t:close(); u:close()
    if ok then return port end
  end
  error("no free port")
end

-- Configure splaylab.socket for a node at 127.0.0.1:port with peers at the given ports.
function H.net_node(port, peer_ports, extra)
  local sock = require "splaylab.socket"
  local peers = {}
  for _, p in ipairs(peer_ports or {}) do peers[#peers + 1] = { ip = "127.0.0.1", port = p } end
  local opts = { me = { ip = "127.0.0.1", port = port }, peers = peers }
  for k, v in pairs(extra or {}) do opts[k] = v end
  sock.init(opts)
  return sock
end

-- Texts of the records of a level.
function H.texts(records, level)
  local out = {}
  for _, r in ipairs(records) do if r[1] == level then out[#out + 1] = r[2] end end
  return out
end

return H
