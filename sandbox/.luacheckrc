-- luacheck for the runtime: `cd sandbox && luacheck .`
std = "luajit"
max_line_length = 120
exclude_files = { "apps/*.lua", "tests/apps/*.lua" }   -- student-style programs: SPLAY apps use globals
files["spec/"] = { std = "+busted" }
files["spec/helpers.lua"] = { std = "luajit" }
