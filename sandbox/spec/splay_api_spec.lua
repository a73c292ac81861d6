-- splay_api.json (the API description the editor, the reference page and `./splaylab check`
-- read) against the runtime as a node sees it: a real node (node.lua) requires every module
-- and lists its public keys; both ways must match, so neither can drift from the other.
local H = require "helpers"
local cjson = require "cjson"

local function read_api()
  local f = assert(io.open(H.sandbox_dir() .. "/splay_api.json", "rb"))
  local api = cjson.decode(f:read("*a"))
  f:close()
  return api
end

-- The probe app: after require "splay.base", prints `key<TAB>module<TAB>name<TAB>type` for
-- every public key (not starting with "_") of every documented module, and `global<TAB>name`
-- for every global; it makes no global of its own.
local function probe_source(api)
  local lines = { 'require "splay.base"', "local seen = {}" }
  lines[#lines + 1] = "for k in pairs(_G) do seen[#seen + 1] = k end"
  lines[#lines + 1] = 'for _, k in ipairs(seen) do print("global", k) end'
  for _, m in ipairs(api.modules) do
    local get = m["require"] and string.format("require(%q)", m["require"]) or m.global
    lines[#lines + 1] = string.format(
      'for k, v in pairs(%s) do if not k:find("^_") then print("key", %q, k, type(v)) end end',
      get, m.name)
    if m.global and m["require"] then
      lines[#lines + 1] = string.format('print("same", %q, tostring(%s == require(%q)))',
        m.name, m.global, m["require"])
    end
  end
  lines[#lines + 1] = "events.exit()"
  return table.concat(lines, "\n")
end

local function sorted(set)
  local list = {}
  for k in pairs(set) do list[#list + 1] = k end
  table.sort(list)
  return list
end

describe("splay_api.json", function()
  local api = read_api()
  local rc, records = H.run_node(probe_source(api))
  local runtime, globals, same = {}, {}, {}
  for _, r in ipairs(records) do
    local kind, a, b, c = r[2]:match("^(%a+)\t([^\t]*)\t?([^\t]*)\t?([^\t]*)$")
    if r[1] == "print" and kind == "key" then
      runtime[a] = runtime[a] or {}
      runtime[a][b] = c
    elseif r[1] == "print" and kind == "global" then
      globals[a] = true
    elseif r[1] == "print" and kind == "same" then
      same[a] = b
    end
  end

  it("is read by a node that loads every module", function()
    assert.equal(0, rc)
    assert.is_not_nil(runtime.events)
  end)

  for _, m in ipairs(api.modules) do
    it("documents every public key of " .. m.name .. " and only those", function()
      local keys = runtime[m.name] or {}
      local documented, missing, extra = {}, {}, {}
      for _, f in ipairs(m.functions) do
        assert.is_string(f.doc); assert.is_table(f.params); assert.is_string(f.returns)
        assert.is_string(f.example)
        if not f.internal then assert.is_true(#f.example > 0, m.name .. "." .. f.name .. " has no example") end
        documented[f.name] = "function"
      end
      for _, field in ipairs(m.fields) do documented[field.name] = "field" end
      for name, kind in pairs(documented) do
        local t = keys[name]
        if t == nil or (kind == "function") ~= (t == "function") then missing[name] = true end
      end
      for name, t in pairs(keys) do
        if documented[name] == nil or (documented[name] == "function") ~= (t == "function") then extra[name] = true end
      end
      assert.same({}, sorted(missing),
        "in sandbox/splay_api.json but not in the runtime (or not of that kind): update the description")
      assert.same({}, sorted(extra),
        "in the runtime but not in sandbox/splay_api.json (or not of that kind): document it there")
    end)
    if m.global and m["require"] then
      it("gives the global " .. m.global .. " as require " .. m["require"] .. " does", function()
        assert.equal("true", same[m.name])
      end)
    end
  end

  it("lists the globals of the node's environment, both ways", function()
    local expected = {}
    for _, g in ipairs(api.globals) do expected[g] = true end
    for _, m in ipairs(api.modules) do if m.global then expected[m.global] = true end end
    assert.same(sorted(expected), sorted(globals))
  end)
end)
