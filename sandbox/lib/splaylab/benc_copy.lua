--[[
splaylab.benc_copy - decode(encode(v)) of splaylab.benc without the bytes: the simulator's
message fast path (splaylab.rpc_fast) hands the peer this copy and charges the network model
its encoded size.

  copy(v [, max_depth]) -> decode(encode(v)), #encode(v)   raises what encode(v) raises
                                            (max_depth: the node's benc.settings.max_depth, 100)
  copy_fields(msg [, max_depth]) -> msg, #encode(msg)      a message the runtime built (string
                                            keys): its values copied in place, raises the same
  digits(n) -> #format("%d", n)             for an integer 0 <= n < 2^53

The same walk as benc's encoder, in the same pairs order (so the copy's tables are built by
the same insertions as the decoder's), with the same errors (functions, userdata, threads,
cycles, nesting deeper than max_depth). What the round trip changes the copy changes too: -0
becomes 0, NaN the decoder's NaN, a table reached twice (shared, not cyclic) two tables, nil
values (holes) vanish, metatables are dropped. spec/benc_copy_spec.lua checks it against the
codec on generated values. Runtime side only: apps see splay.benc unchanged.
No require and no state a node could see (a scratch array of the tables being walked): the simulator
loads it once for every node (sim.lua), so the JIT's traces through it serve them all instead of
one set per node's copy of the module.
]]
local M = { _NAME = "splaylab.benc_copy", _VERSION = "0.1" }

local type, next, error, floor, format = type, next, error, math.floor, string.format
local nxt = (package.loaded["splaylab.safe_pairs"] or {}).next_builtin or next   -- see splaylab.safe_pairs
local huge = math.huge
local NAN = 0 / 0   -- what the decoder reads for "rnan;"

local function digits(n)   -- compares only: no loop for the JIT to trace per call site
  if n < 10 then return 1 elseif n < 100 then return 2 elseif n < 1000 then return 3
  elseif n < 10000 then return 4 elseif n < 100000 then return 5 elseif n < 1000000 then return 6 end
  local d, p = 7, 10000000
  while n >= p do d, p = d + 1, p * 10 end
  return d
end
M.digits = digits

local function cp(v, depth, seen, max_depth)
  local t = type(v)
  if t == "string" then
    local n = #v
    return v, digits(n) + 1 + n                       -- "<len>:<bytes>"
  elseif t == "number" then
    if v ~= v then return NAN, 5                      -- "rnan;"
    elseif v == huge then return v, 5                 -- "rinf;"
    elseif v == -huge then return v, 6                -- "r-inf;"
    elseif floor(v) == v and v > -2 ^ 53 and v < 2 ^ 53 then
      if v < 0 then return v, 3 + digits(-v) end      -- "i-<d>e"
      return v + 0 == 0 and 0 or v, 2 + digits(v)     -- "i<d>e" (of -0 reads back 0)
    end
    return v, 2 + #format("%.17g", v)                 -- "r<%.17g>;" reads back v exactly
  elseif t == "boolean" or t == "nil" then
    return v, 1
  elseif t == "table" then
    if depth > max_depth then error("benc: table nested too deeply", 0) end
    for i = 1, depth do   -- seen: the tables being walked, by depth (a cycle comes back to one)
      if seen[i] == v then error("benc: cannot encode a table with cycles", 0) end
    end
    seen[depth + 1] = v
    local out, size = {}, 2                           -- "d" ... "e"
    -- Strings and integers 0 <= n < 2^53 (most keys and leaves of a message) are sized here:
    -- a call of cp for each cost more than the rest of the walk.
    for k, x in nxt, v do
      local ck, cx, ks, xs = k, x
      local tk, tx = type(k), type(x)
      if tk == "string" then
        local n = #k
        ks = (n < 10 and 2 or n < 100 and 3 or digits(n) + 1) + n
      elseif tk == "number" and k >= 0 and k < 2 ^ 53 and k % 1 == 0 then
        if k == 0 then ck = 0 end                     -- -0 reads back 0
        ks = k < 10 and 3 or k < 100 and 4 or 2 + digits(k)
      else
        ck, ks = cp(k, depth + 1, seen, max_depth)
      end
      if tx == "string" then
        local n = #x
        xs = (n < 10 and 2 or n < 100 and 3 or digits(n) + 1) + n
      elseif tx == "number" and x >= 0 and x < 2 ^ 53 and x % 1 == 0 then
        if x == 0 then cx = 0 end
        xs = x < 10 and 3 or x < 100 and 4 or 2 + digits(x)
      else
        cx, xs = cp(x, depth + 1, seen, max_depth)
      end
      out[ck] = cx
      size = size + ks + xs
    end
    seen[depth + 1] = false
    return out, size
  end
  error("benc: cannot encode a " .. t, 0)
end

-- Compiled, but the loop is `for k, x in nxt, v`, not `pairs(v)`: with `pairs` (or a variable
-- named `next`) the parser emits the ITERN loop, which Debian's LuaJIT (2.1 git 2022-03-20) may
-- end early when the JIT blacklists it mid-walk (LuaJIT issue #827, fixed upstream after that
-- build; its test case fails here, docs/simulation.md). Compiled with `pairs`, this walk now and
-- then copied a reply {ok = true, r = {}, n = 0} as an empty table in a long simulation (a ping
-- answered "error"), differently from run to run - #827's symptom - and was kept interpreted
-- (~1.5x slower). A plain `next` loop has no ITERN.
-- The tables being walked, by depth: seen[d + 1] is the table at depth d while its fields are
-- copied, and a table already among seen[1 .. depth] closes a cycle (the encoder's check: a table
-- reached twice but not inside itself is no cycle). An array, not a set keyed by the tables: a
-- set took a new key for every table of every message, and its hash part was rebuilt again and
-- again (LuaJIT's lj_tab_newkey, rehash and resize: 3 % of a 64-node Chord's instructions,
-- bench/sim_where.py). cp does not yield, so the nodes share it; what a copy that raised leaves
-- in it is overwritten before it is read again.
local seen = {}
function M.copy(v, max_depth)
  return cp(v, 0, seen, max_depth or 100)
end

-- The envelope of an rpc request and the frame of its reply are tables the runtime builds for
-- one message and never reads again once it is sent; no app holds them or sees their keys'
-- order (apps get the copies of the arguments and results inside). So the message itself
-- travels, each value replaced by its copy: a table and its hash part less to build per
-- message on each side. The values' copies, the size and the errors are copy(msg)'s (the same
-- depths: the values are one level down). Keys must be strings (the runtime's field names).
-- A copy that raised leaves msg partly copied: the callers drop it.
function M.copy_fields(msg, max_depth)
  max_depth = max_depth or 100
  if 0 > max_depth then error("benc: table nested too deeply", 0) end
  seen[1] = msg
  local size = 2                                       -- "d" ... "e"
  for k, x in nxt, msg do
    if type(k) ~= "string" then error("benc_copy.copy_fields: field names are strings, not " .. type(k), 2) end
    local n = #k
    local cx, xs = cp(x, 1, seen, max_depth)
    msg[k] = cx                                        -- (-0 becomes 0) an existing field: allowed while walking
    size = size + (n < 10 and 2 or n < 100 and 3 or digits(n) + 1) + n + xs
  end
  seen[1] = false
  return msg, size
end

return M
