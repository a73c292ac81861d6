--[[
splaylab.fs - SPLAY's restricted io (restricted_io / sb_fs): files confined to the node's
working directory (the cwd the daemon or the runner gives the instance).

Runtime side: fs.init{root = ".", max_size = bytes, max_files = n, max_open = n}; then
fs.io_functions() / fs.os_functions() give the student's io.open, io.lines, io.close, io.type
and os.remove, os.rename.
Paths: every name maps to one flat file of the directory: "." and empty parts are dropped,
".." is refused ("path escapes the node's directory"), the remaining parts are joined with
"%2F" ("/tmp/x" and "tmp/x" -> "tmp%2Fx", "a%b" -> "a%25b"), so no path can leave the directory
or reach a subdirectory; with lua-filesystem a symbolic link or a non-regular file is refused.
Modes r, w, a, r+, w+, a+ (with or without b).
Limits (job.json limits disk_max_size, disk_max_files, disk_max_file_descriptors):
  total bytes of the files in the directory, counted from the files present at start plus
  every write ("disk quota exceeded: disk_max_size = N bytes"); the number of files
  ("too many files: disk_max_files = N"); open files at once ("too many open files:
  disk_max_file_descriptors = N"). The OS limits (RLIMIT_FSIZE, NOFILE) stay underneath.
No popen, no tmpfile, no io.input/io.output redirection.
]]
local ok_lfs, lfs = pcall(require, "lfs")

local M = { _NAME = "splaylab.fs", _VERSION = "0.1",
  settings = { root = ".", max_size = 64 * 1024 * 1024, max_files = 256, max_open = 64 },
  lfs_available = ok_lfs }

local type, tostring, tonumber, setmetatable, error, select, ipairs =
  type, tostring, tonumber, setmetatable, error, select, ipairs
local find, gmatch, format, gsub = string.find, string.gmatch, string.format, string.gsub
local concat = table.concat
local real_open, real_remove, real_rename = io.open, os.remove, os.rename

local sizes = {}     -- relative path -> size in bytes (files we know of)
local nfiles, total, nopen = 0, 0, 0
local FILES = setmetatable({}, { __mode = "k" })   -- wrapper -> {f = raw file, path = rel}

local function full(rel) return M.settings.root .. "/" .. rel end

function M.init(opts)
  local s = M.settings
  s.root = opts.root or s.root
  s.max_size = tonumber(opts.max_size) or s.max_size
  s.max_files = tonumber(opts.max_files) or s.max_files
  s.max_open = tonumber(opts.max_open) or s.max_open
  sizes, nfiles, total, nopen = {}, 0, 0, 0
  if ok_lfs then
    for name in lfs.dir(s.root) do
      local attr = lfs.symlinkattributes(s.root .. "/" .. name)
      if attr and attr.mode == "file" then
        sizes[name] = attr.size
        nfiles = nfiles + 1
        total = total + attr.size
      end
    end
  end
end

-- name -> relative path | nil, err
function M.resolve(name)
  if type(name) ~= "string" or name == "" or find(name, "%z") then
    return nil, "bad file name: " .. tostring(name)
  end
  local parts = {}
  for part in gmatch(name, "[^/]+") do
    if part == ".." then return nil, name .. ": path escapes the node's directory" end
    if part ~= "." then parts[#parts + 1] = part end
  end
  if #parts == 0 then return nil, name .. ": not a file" end
  for i, part in ipairs(parts) do parts[i] = gsub(part, "%%", "%%25") end
  local rel = concat(parts, "%2F")
  if ok_lfs then
    local attr = lfs.symlinkattributes(M.settings.root .. "/" .. rel)
    if attr and attr.mode == "link" then return nil, name .. ": symbolic links are not followed" end
    if attr and attr.mode ~= "file" then return nil, name .. ": not a regular file" end
  end
  return rel
end

local function size_of(rel)
  if sizes[rel] then return sizes[rel] end
  local f = real_open(full(rel), "rb")
  if not f then return nil end
  local n = f:seek("end")
  f:close()
  sizes[rel] = n
  nfiles = nfiles + 1
  total = total + n
  return n
end

-- file objects ---------------------------------------------------------------------------------
local File = {}
local File_mt = { __index = File, __tostring = function(self)
  return FILES[self] and FILES[self].f and "file (splay)" or "file (closed)"
end }

local function raw(self)
  local st = FILES[self]
  if not st or not st.f then error("attempt to use a closed file", 3) end
  return st
end

function File:write(...)
  local st = raw(self)
  for i = 1, select("#", ...) do
    local data = select(i, ...)
    if type(data) == "number" then data = tostring(data) end
    if type(data) ~= "string" then error("bad argument #" .. i .. " to 'write' (string expected)", 2) end
    local pos = st.append and st.f:seek("end") or st.f:seek("cur")
    local new_end = pos + #data
    local cur = sizes[st.path] or 0
    if new_end > cur then
      if total + (new_end - cur) > M.settings.max_size then
        return nil, format("disk quota exceeded: disk_max_size = %d bytes", M.settings.max_size)
      end
      total = total + (new_end - cur)
      sizes[st.path] = new_end
    end
    local ok, err = st.f:write(data)
    if not ok then return nil, err end
  end
  return self
end

function File:read(...) return raw(self).f:read(...) end
function File:seek(...) return raw(self).f:seek(...) end
function File:flush() raw(self).f:flush(); return self end
function File:setvbuf(...) return raw(self).f:setvbuf(...) end
function File:lines() return raw(self).f:lines() end

function File:close()
  local st = raw(self)
  st.f:close()
  st.f = nil
  nopen = nopen - 1
  return true
end

function M.open(name, mode)
  mode = mode or "r"
  if type(mode) ~= "string" or not find(mode, "^[rwa]%+?b?$") then
    error("bad argument #2 to 'open' (invalid mode " .. tostring(mode) .. ")", 2)
  end
  local rel, err = M.resolve(name)
  if not rel then return nil, err end
  local s = M.settings
  if nopen >= s.max_open then
    return nil, format("too many open files: disk_max_file_descriptors = %d", s.max_open)
  end
  local existing = size_of(rel)
  local creates = existing == nil and not find(mode, "^r")
  if creates and nfiles >= s.max_files then
    return nil, format("too many files: disk_max_files = %d", s.max_files)
  end
  local f, oerr = real_open(full(rel), mode)
  if not f then return nil, name .. ": " .. (oerr:match(": ([^:]*)$") or oerr) end
  if creates then sizes[rel] = 0; nfiles = nfiles + 1 end
  if find(mode, "^w") and existing then total = total - existing; sizes[rel] = 0 end
  nopen = nopen + 1
  local obj = setmetatable({}, File_mt)
  FILES[obj] = { f = f, path = rel, append = find(mode, "^a") ~= nil }
  return obj
end

function M.lines(name)
  if name == nil then error("io.lines() on stdin is not available", 2) end
  local f, err = M.open(name, "r")
  if not f then error(err, 2) end
  local it = FILES[f].f:lines()
  return function()
    local line = it()
    if line == nil and FILES[f].f then f:close() end
    return line
  end
end

function M.close(f)
  if f == nil then return nil end
  return f:close()
end

function M.type(f)
  local st = FILES[f]
  if not st then return nil end
  return st.f and "file" or "closed file"
end

function M.remove(name)
  local rel, err = M.resolve(name)
  if not rel then return nil, err end
  local n = size_of(rel)
  local ok, rerr = real_remove(full(rel))
  if not ok then return nil, name .. ": " .. (tostring(rerr):match(": ([^:]*)$") or tostring(rerr)) end
  if n then total = total - n; nfiles = nfiles - 1; sizes[rel] = nil end
  return true
end

function M.rename(from, to)
  local a, err = M.resolve(from)
  if not a then return nil, err end
  local b
  b, err = M.resolve(to)
  if not b then return nil, err end
  local na, nb = size_of(a), size_of(b)
  local ok, rerr = real_rename(full(a), full(b))
  if not ok then return nil, from .. ": " .. (tostring(rerr):match(": ([^:]*)$") or tostring(rerr)) end
  if nb then total = total - nb; nfiles = nfiles - 1 end
  sizes[b], sizes[a] = na, nil
  return true
end

function M.usage() return { bytes = total, files = nfiles, open = nopen } end

function M.io_functions() return { open = M.open, lines = M.lines, close = M.close, type = M.type } end
function M.os_functions() return { remove = M.remove, rename = M.rename } end

return M
