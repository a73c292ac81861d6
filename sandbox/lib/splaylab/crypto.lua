--[[
splaylab.crypto - LuaCrypto 0.2's API ("crypto", "crypto.evp", "crypto.hmac"), as SPLAY
shipped it and DHT code uses it for node ids, on luaossl (Debian lua-luaossl: OpenSSL's digests
and HMAC; nothing of the hashing is written here).

  crypto.evp.digest(type, s [, raw]) -> hex digest (raw: the bytes)      type: "sha1", "md5", ...
  crypto.evp.new(type) -> d    d:update(s) -> d    d:digest([s] [, raw]) -> digest of all so far
                               d:reset()    d:clone() -> d2    d:tostring()
  crypto.hmac.digest(type, s, key [, raw]) -> hex HMAC
  crypto.hmac.new(type, key) -> h   (h:update, h:digest, h:reset, h:clone, h:tostring as above)
  crypto.rand.bytes(n), crypto.rand.pseudo_bytes(n) -> n bytes; rand.add/seed (ignored),
  rand.status() -> true, rand.cleanup()
As in LuaCrypto, evp's d:digest() does not end the object: more updates may follow.
An unknown digest type raises "bad argument #1 to 'new' (invalid digest type 'x')".
Randomness: crypto.rand draws from a generator of its own seeded from the node's seed
(platform.random_seed: job.json's seed and the position), never from OpenSSL's pool, so that a
seeded run, live or simulated, draws the same bytes (docs/decisions.md); it does not touch the
app's math.random. Not for secrets.
Sandbox: student code gets only the tables built here (Lua closures); luaossl's own modules
(openssl.x509, openssl.ssl, ...: files, network) stay out of reach.
Limits: an object keeps the text given to update until digest (luaossl's contexts cannot be
copied): a stream hashed piecewise holds its length in memory, joined as it grows.
]]
local openssl_digest = require "openssl.digest"
local openssl_hmac = require "openssl.hmac"
local platform = require "splaylab.platform"

local M = { _NAME = "splaylab.crypto", _VERSION = "LuaCrypto 0.2.0 (SplayLab, on luaossl)",
  _DESCRIPTION = "LuaCrypto's digests, HMAC and random bytes for SPLAY applications" }

local type, tostring, tonumber, error, pcall, setmetatable, floor =
  type, tostring, tonumber, error, pcall, setmetatable, math.floor
local format, gsub, byte, char, concat = string.format, string.gsub, string.byte, string.char, table.concat

local function hex(bytes)
  return (gsub(bytes, ".", function(c) return format("%02x", byte(c)) end))
end

local function check_string(v, i, fname)
  if type(v) == "number" then return tostring(v) end
  if type(v) ~= "string" then
    error(format("bad argument #%d to '%s' (string expected, got %s)", i, fname, v == nil and "no value" or type(v)), 3)
  end
  return v
end

-- A luaossl context of this type (a key for HMAC) or an error naming the argument.
local function context(kind, dtype, key, fname)
  dtype = check_string(dtype, 1, fname)
  local ok, ctx
  if kind == "hmac" then ok, ctx = pcall(openssl_hmac.new, key, dtype)
  else ok, ctx = pcall(openssl_digest.new, dtype) end
  if not ok then error(format("bad argument #1 to '%s' (invalid digest type '%s')", fname, dtype), 3) end
  return ctx
end

local function result(bytes, raw)
  if raw then return bytes end
  return hex(bytes)
end

-- The object of evp.new / hmac.new: the text so far, digested on demand.
local function object(kind, dtype, key)
  local o = { parts = {}, n = 0 }
  local class = kind == "hmac" and "LuaCrypto HMAC" or "LuaCrypto EVP"
  local methods = {}
  function methods.update(self, s)
    s = check_string(s, 2, "update")
    o.n = o.n + 1
    o.parts[o.n] = s
    if o.n >= 64 then o.parts, o.n = { concat(o.parts, "", 1, o.n) }, 1 end
    return self
  end
  function methods.digest(self, s, raw)
    if type(s) == "string" or type(s) == "number" then methods.update(self, s) end
    local ctx = context(kind, dtype, key, "digest")
    ctx:update(concat(o.parts, "", 1, o.n))
    return result(ctx:final(), raw)
  end
  function methods.reset() o.parts, o.n = {}, 0 end
  function methods.clone()
    local c = object(kind, dtype, key)
    c:update(concat(o.parts, "", 1, o.n))
    return c
  end
  function methods.tostring() return format("%s %s", class, dtype) end
  return setmetatable({}, { __index = methods, __tostring = methods.tostring,
    __newindex = function() error(class .. " objects cannot be changed", 2) end, __metatable = class })
end

M.evp = {}
function M.evp.new(dtype)
  context("evp", dtype, nil, "new")
  return object("evp", dtype)
end
function M.evp.digest(dtype, s, raw)
  local ctx = context("evp", dtype, nil, "digest")
  ctx:update(check_string(s, 2, "digest"))
  return result(ctx:final(), raw)
end

M.hmac = {}
function M.hmac.new(dtype, key)
  key = check_string(key, 2, "new")
  context("hmac", dtype, key, "new")
  return object("hmac", dtype, key)
end
function M.hmac.digest(dtype, s, key, raw)
  key = check_string(key, 3, "digest")
  local ctx = context("hmac", dtype, key, "digest")
  ctx:update(check_string(s, 2, "digest"))
  return result(ctx:final(), raw)
end

-- Random bytes from the node's own seeded generator (see the header).
local generator
local function rand_bytes(n)
  n = tonumber(n)
  if not n or n < 0 or n ~= floor(n) then error("bad argument #1 to 'bytes' (a count of bytes expected)", 2) end
  if not generator then
    generator = require("splaylab.sim.world").new_math((platform.random_seed() * 31 + 17) % 2147483647)
  end
  local out = {}
  for i = 1, n do out[i] = char(generator.random(0, 255)) end
  return concat(out)
end
M.rand = {
  bytes = rand_bytes, pseudo_bytes = rand_bytes,
  add = function() end, seed = function() end,
  status = function() return true end, cleanup = function() end,
}

return M
