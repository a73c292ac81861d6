--[[
splaylab.json - "splay.json": encode/decode with lua-cjson (a private cjson instance).

  json.encode(v) -> string     json.decode(s) -> v     json.null
Errors raise (as cjson does). Sparse arrays are encoded as objects instead of failing;
decode nesting is limited to settings.max_depth.
]]
local cjson = require("cjson").new()

local M = { _NAME = "splaylab.json", _VERSION = "0.1", settings = { max_depth = 100 } }

cjson.encode_sparse_array(true)
cjson.decode_max_depth(M.settings.max_depth)
cjson.encode_max_depth(M.settings.max_depth)

M.null = cjson.null
function M.encode(v) return cjson.encode(v) end
function M.decode(s) return cjson.decode(s) end

return M
