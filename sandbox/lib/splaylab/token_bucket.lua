--[=[
splaylab.token_bucket - "splay.token_bucket": SPLAY's token bucket, on the node's clock
(misc.time: virtual time in simulation).

  local b = token_bucket.new(tokens [, rate [, capacity]])
      starts with tokens * 1000 tokens (SPLAY's unit; tokens nil: 1000 * 1024 * 1024), refilled
      by `rate` tokens a second (default 1) up to `capacity` (default: the initial tokens)
  b.consume(n) -> true (n taken) | false (fewer than n left; nothing taken)
  b.get_tokens() -> tokens now, after the refill since the last call
As in SPLAY, only get_tokens refills: call it before consume.
]=]
local platform = require "splaylab.platform"
local log = require "splaylab.log"

local M = { _NAME = "splaylab.token_bucket", _VERSION = "1.0" }
M.l_o = log.new(1, "[splay.token_bucket]")   -- SPLAY's name for the module's logger

local min, tonumber, error = math.min, tonumber, error

function M.new(toks, rate, cap)
  if toks ~= nil and not tonumber(toks) then error("token_bucket.new: tokens must be a number", 2) end
  local tokens = toks and tonumber(toks) * 1000 or 1000 * 1024 * 1024
  local capacity = tonumber(cap) or tokens
  local fill_rate = tonumber(rate) or 1
  local timestamp = platform.now()
  local bucket = {}
  function bucket.consume(n)
    n = tonumber(n) or error("token_bucket consume: a number of tokens expected", 2)
    if n <= tokens then
      tokens = tokens - n
      return true
    end
    return false
  end
  function bucket.get_tokens()
    local now = platform.now()
    if tokens < capacity then tokens = min(capacity, tokens + fill_rate * (now - timestamp)) end
    timestamp = now
    return tokens
  end
  return bucket
end

return M
