-- SPLAY's libraries that SplayLab added for issue 23, used as SPLAY apps use them, on every
-- node (sandbox/tests/test_splay_apps.py runs it live and simulated, 4 nodes): each check
-- prints "check NAME ok" or logs an error record naming what differed. The last line, `rand`,
-- shows crypto.rand's bytes (the same in two simulations with one seed).
require "splay.base"
local rpcq = require "splay.rpcq"
local evp = require "crypto.evp"
local hmac = require "crypto.hmac"
local bits = require "splay.bits"
local data_bits = require "splay.data_bits"
local lbinenc = require "splay.lbinenc"
local tb = require "splay.token_bucket"
local dns = require "splay.async_dns"
local ts = require "splay.topo_socket"

local function check(name, ok, detail)
  if ok then print("check " .. name .. " ok") else log:error("check " .. name .. " failed: " .. tostring(detail)) end
end

-- crypto: the digests SPLAY's DHTs take node ids from, and the global `crypto`
check("crypto", evp.digest("sha1", "abc") == "a9993e364706816aba3e25717850c26c9cd0d89d"
  and evp.new("sha1"):digest("abc") == evp.digest("sha1", "abc")
  and hmac.digest("sha1", "msg", "key") == "102900b72b7bf1031eec76b4804b66052376896b"
  and crypto.evp == evp and #crypto.evp.digest("md5", "x", true) == 16, evp.digest("sha1", "abc"))

check("bits", bits.bits_to_ascii(bits.ascii_to_bits("splay")) == "splay" and bits.count("\255\1") == 9)
local bf = data_bits.set_bit(data_bits.set_bit(string.rep("\0", 8), 3), 40)
check("data_bits", data_bits.cardinality(bf) == 2 and data_bits.unpack(data_bits.pack(bf), 8) == bf
  and data_bits.get_bit(bf, 40) == 1)

-- async_dns: the job's table, never the host's resolver
local names_ok = true
for k, n in ipairs(job.nodes) do names_ok = names_ok and dns.toip("node" .. k) == n.ip end
check("async_dns", names_ok and dns.gethostname() == "node" .. job.position and dns.toip("example.com") == nil,
  tostring(dns.toip("node1")))

check("topo_socket", ts.init({}, job.nodes, nil, job.position) and ts.wrap(socket) == socket)

-- the sandbox: LuaCrypto's wrapper only, none of luaossl's or MessagePack's modules
local hidden = true
for _, name in ipairs({ "openssl", "openssl.digest", "_openssl", "MessagePack", "socket.http" }) do
  hidden = hidden and not pcall(require, name)
end
check("sandbox", hidden)

-- rpcq's served functions
function lbin_echo(bytes) return lbinenc.encode({ echo = lbinenc.decode(bytes), by = job.position }) end
function hello(from, i) return "hello " .. from .. " " .. i end
function slow(t) events.sleep(t); return t end
function back(from)   -- calls back into its caller over the same pair of nodes
  return rpcq.call(job.nodes[from], { "hello", job.position, 0 })
end

events.run(function()
  -- token_bucket on the node's clock
  local bucket = tb.new(1, 100)
  bucket.consume(1000)
  events.sleep(1)
  local refilled = bucket.get_tokens()
  check("token_bucket", refilled >= 99 and refilled <= 101, refilled)

  assert(rpcq.server(job.me.port))
  events.sleep(1)
  local next_node = job.nodes[job.position % #job.nodes + 1]

  -- lbinenc: bytes encoded here, decoded and encoded again by the next node
  local echoed = rpcq.call(next_node, { "lbin_echo", lbinenc.encode({ 1, "two", { three = 3.5 } }) })
  local got = echoed and lbinenc.decode(echoed)
  check("lbinenc", got and got.echo[2] == "two" and got.echo[3].three == 3.5 and got.by ~= job.position, got)

  -- rpcq: pipelined calls on one connection, answered in order of their own
  local answers, started = {}, misc.time()
  for i = 1, 6 do
    events.thread(function() answers[i] = rpcq.call(next_node, { "hello", job.position, i }) end)
  end
  local slow_done = rpcq.call(next_node, { "slow", 0.2 })
  events.sleep(1)
  local all = slow_done == 0.2
  for i = 1, 6 do all = all and answers[i] == "hello " .. job.position .. " " .. i end
  -- one connection carried them (a second one, at most, from calls back to the previous node)
  local _, _, _, connects = rpcq.stats()
  check("rpcq calls", all and connects <= 2, tostring(all) .. " " .. connects)
  check("rpcq callback", rpcq.call(next_node, { "back", job.position }) == "hello " .. (job.position % #job.nodes + 1) .. " 0")
  local ok, res = rpcq.acall(next_node, { "math.max", 3, 9 })
  check("rpcq acall", ok and res[1] == 9)
  check("rpcq proxy and ping", rpcq.proxy(next_node):hello("p", 1) == "hello p 1" and rpcq.ping(next_node) ~= nil)
  local t0 = misc.time()
  local nothing, err = rpcq.call(next_node, { "slow", 3 }, 1)
  check("rpcq timeout", nothing == nil and err == "timeout" and misc.time() - t0 < 1.5, err)
  local rerr = select(2, rpcq.call(next_node, { "error", "boom" }))
  check("rpcq remote error", type(rerr) == "string" and rerr:find("boom", 1, true) ~= nil, rerr)

  local hex = {}
  for c in crypto.rand.bytes(8):gmatch(".") do hex[#hex + 1] = string.format("%02x", c:byte()) end
  print("rand " .. table.concat(hex))
  events.sleep(2)
  events.exit()
end)
